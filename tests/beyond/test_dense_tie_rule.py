"""One tie rule per dense call: the beyond-accuracy top k is the list the accuracy measures rank."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix

import rankmeter
from rankmeter.core.ties import rank_rows

N = 12
"""Columns 0-11 are the items "0" to "11": in text order "9" comes after "10", in column order before."""


def _items() -> rankmeter.Items:
    # item "10" has three training interactions, item "9" one: arp@1 tells which of the two was listed
    return rankmeter.Items(interactions={"a": ["10", "9"], "b": ["10"], "c": ["10"]})


def _scores() -> tuple[np.ndarray, np.ndarray]:
    s = np.zeros((1, N))
    s[0, [9, 10]] = 1.0  # columns 9 and 10 tie for the top place
    y = np.zeros((1, N))
    y[0, 10] = 1.0
    return y, s


def test_the_two_rules_differ_on_these_ids() -> None:
    assert rank_rows(_scores()[1], ties="trec")[0, 0] == 10  # dense trec: the higher column first
    assert sorted(["9", "10"], reverse=True)[0] == "9"  # the ids' text, descending: "9" first


@pytest.mark.parametrize("ties, top, hit", [("trec", "10", 1.0), ("stable", "9", 0.0)])
def test_arrays_list_the_item_the_accuracy_measures_rank_first(ties: str, top: str, hit: float) -> None:
    y, s = _scores()
    res = rankmeter.evaluate_arrays(y, s, ["p@1", "arp@1", "catalog_coverage@1"], items=_items(), ties=ties)
    assert res["p@1"] == hit  # the item at rank 1 is column 10 (relevant) under trec, column 9 under stable
    assert res["arp@1"] == {"10": 3.0, "9": 1.0}[top]  # the same item's training interactions
    assert res["catalog_coverage@1"] == 1 / N
    assert res.list_sets.ctx.universe.tolist() == [top]
    assert res.list_sets.ctx.ties == ties  # the lists record the call's policy, whatever order applied it
    assert res.metadata["semantics"]["ties"] == ties
    alone = rankmeter.evaluate_arrays(y, s, "arp@1", items=_items(), ties=ties)  # no accuracy measure in the call
    assert alone["arp@1"] == res["arp@1"] and alone.metadata["semantics"]["ties"] == ties
    assert alone.metadata["ties"] == res.metadata["ties"] == ties


def test_embeddings_list_the_item_the_accuracy_measures_rank_first() -> None:
    items = np.zeros((N, 1))
    items[[9, 10], 0] = 1.0  # one user vector [1]: items 9 and 10 tie
    truth = csr_matrix(_scores()[0])
    res = rankmeter.evaluate_embeddings(np.ones((1, 1)), items, truth, ["p@1", "arp@1"], items=_items(), ties="trec")
    assert res["p@1"] == 1.0 and res["arp@1"] == 3.0  # item "10" in both
