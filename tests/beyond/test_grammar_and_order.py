"""The beyond-accuracy names round-trip through the grammar; values do not depend on the order of the rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankmeter
from rankmeter.measures import FAMILIES, parse
from rankmeter.measures.beyond_families import NAMES

NAMES_WITH_PARAMS = ["ild(metric=euclidean)@[5,10]", "personalization(metric=jaccard)@3", "aplt(head=0.1)@10",
                     "aclt(tail_max=3)@10", "pop_recall(gamma=1)@20", "exposure(attention=cascade,group=x)@10",
                     "exposure_ratio(attention=rbp,patience=0.5)@10", "ee_loss(patience=0.9)@10"]  # fmt: skip


@pytest.mark.parametrize("name", NAMES_WITH_PARAMS + [f"{n}{FAMILIES[n].example}@10" for n in sorted(NAMES)])
def test_round_trip(name: str) -> None:
    m = parse(name)
    assert parse(str(m)) == m and FAMILIES[m.family].reads == "lists"


def test_peer_aliases() -> None:
    assert str(parse("MeanInvUserFreq@10")) == "novelty@10"
    assert str(parse("distributional_coverage@10")) == "entropy@10"


@pytest.mark.parametrize("ties", ["trec", "stable"])
def test_row_order_does_not_matter(ties: str) -> None:
    """Shuffled rows give the same values (stable: tied rows keep their relative order, so no ties here)."""
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"user_id": rng.integers(0, 30, n).astype(str), "item_id": rng.integers(0, 60, n).astype(str)})
    frame = frame.drop_duplicates(["user_id", "item_id"]).reset_index(drop=True)
    frame["score"] = rng.integers(0, 5, len(frame)).astype(float) if ties == "trec" else rng.random(len(frame))
    items = rankmeter.Items(interactions=frame.sample(frac=0.5, random_state=1)[["user_id", "item_id"]],
                            catalog=[str(i) for i in range(60)])  # fmt: skip
    measures = ["catalog_coverage@5", "gini@5", "novelty@5", "arp@5", "aplt@5", "personalization@5"]
    a = rankmeter.evaluate(None, frame, measures, items=items, ties=ties)
    b = rankmeter.evaluate(None, frame.sample(frac=1, random_state=2), measures, items=items, ties=ties)
    assert a.aggregate == pytest.approx(b.aggregate, abs=1e-12)
    assert a.by_query("novelty@5") == pytest.approx(b.by_query("novelty@5"), abs=1e-12)


def test_each_users_rows_are_sorted_by_score_wherever_they_come_in_the_run() -> None:
    # u1's rows come first and rise (a 1.0, then b 5.0), u2's one row is lower than the row before it:
    # u1's top 1 is b, trained on twice (arp 2), not a (arp 0)
    items = rankmeter.Items(interactions={"t1": ["b"], "t2": ["b"]}, catalog=["a", "b", "c"])
    res = rankmeter.evaluate(None, {"u1": {"a": 1.0, "b": 5.0}, "u2": {"c": 3.0}}, "arp@1", items=items)
    assert res.by_query("arp@1") == {"u1": 2.0, "u2": 0.0}


def test_a_users_rows_apart_in_the_run_make_one_list() -> None:
    # scores fall row by row, but u1's rows are not together: u1's list is a then c (arp (0 + 2) / 2)
    items = rankmeter.Items(interactions={"t1": ["c"], "t2": ["c"]}, catalog=["a", "b", "c"])
    run = pd.DataFrame({"user_id": ["u1", "u2", "u1"], "item_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    res = rankmeter.evaluate(None, run, ["arp@2", "catalog_coverage@1"], items=items)
    assert res.by_query("arp@2") == {"u1": 1.0, "u2": 0.0}
    assert res["catalog_coverage@1"] == 2 / 3  # the top 1 of u1 (a) and of u2 (b)


def test_a_list_set_measure_with_several_cutoffs_reads_the_lists_to_the_deepest() -> None:
    res = rankmeter.evaluate(None, {"u1": ["a", "b"], "u2": ["a", "c"]}, "catalog_coverage@[1,2]",
                             items=rankmeter.Items(catalog="abcd"))  # fmt: skip
    assert res["catalog_coverage@1"] == 1 / 4 and res["catalog_coverage@2"] == 3 / 4  # {a}, then {a, b, c}
