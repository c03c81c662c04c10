"""Item groups stay with their items: a sequence of groups is read against ``catalog=`` only, never a default order."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter

COLUMNS = [str(j) for j in range(12)]  # as text, "10" sorts before "2": a position is no id


def test_a_sequence_of_groups_needs_a_catalogue() -> None:
    # read against the training items in text order, item "10" would get the group meant for item "2"
    with pytest.raises(
        rankmeter.InputFormatError, match=r"Items: groups given as a sequence follow catalog=, which is not given"
    ):
        rankmeter.Items(interactions={"u": COLUMNS}, groups=[f"g{j}" for j in range(12)])


def test_a_sequence_of_groups_follows_the_catalogue_given() -> None:
    items = rankmeter.Items(catalog=COLUMNS, groups=[f"g{j}" for j in range(12)])
    assert items.group_names[items.group_codes(["10", "2", "0"])].tolist() == ["g10", "g2", "g0"]


def test_groups_keep_their_items_in_a_new_catalogue() -> None:
    groups = {item: f"g{item}" for item in COLUMNS}
    items = rankmeter.Items(interactions={"u": ["3", "10"]}, groups=groups).with_catalog(COLUMNS[::-1])
    assert items.group_names[items.group_codes(["10", "2", "11"])].tolist() == ["g10", "g2", "g11"]
    assert items.group_names[items.catalog_groups()].tolist() == [f"g{j}" for j in range(11, -1, -1)]


def test_dense_scores_read_each_columns_own_group() -> None:
    # one row, columns 10 and 2 on top: exposure goes to the groups of items "10" and "2", whatever their order
    groups = {item: ("a" if item == "10" else "b") for item in COLUMNS}
    s = np.zeros((1, 12))
    s[0, 10], s[0, 2] = 2.0, 1.0
    items = rankmeter.Items(interactions={"u": COLUMNS}, groups=groups)
    names = ["exposure(group=a)@1", "exposure(group=b)@1"]
    res = rankmeter.evaluate_arrays(np.zeros((1, 12)), s, names, items=items, ties="stable")
    by_key = rankmeter.evaluate(None, {"0": {"10": 2.0, "2": 1.0}}, names, items=items)
    assert res.aggregate == by_key.aggregate
    assert res["exposure(group=a)@1"] == 1.0 and res["exposure(group=b)@1"] == 0.0  # rank 1 is item "10", group a
