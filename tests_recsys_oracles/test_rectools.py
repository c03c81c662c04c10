"""rectools' ranking and classification metrics against rankmeter's names, per user and averaged.

rectools merges the test interactions with the recommendations (a left join): its users are those with at
least one test interaction, and one without recommendations gets 0 (rankmeter's ``missing="zero"``).
"""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import Case, per_user
from rectools import Columns
from rectools.metrics import MAP, MRR, NDCG, HitRate, Precision, Recall

import rankmeter

K_VALUES = [1, 5, 10, 30]  # 30: longer than every list


def _frames(case: Case) -> tuple[pd.DataFrame, pd.DataFrame]:
    reco = pd.DataFrame(
        [(u, i, r) for u, items in case.lists.items() for r, i in enumerate(items, 1)],
        columns=[Columns.User, Columns.Item, Columns.Rank],
    )
    interactions = pd.DataFrame(
        [(u, i) for u, items in case.truth.items() for i in items], columns=[Columns.User, Columns.Item]
    )
    return reco, interactions


def _pairs(k: int) -> list[tuple[object, str]]:
    return [
        (Precision(k=k), f"p@{k}"),
        (Precision(k=k, r_precision=True), f"relative_p@{k}"),
        (Recall(k=k), f"r@{k}"),
        (NDCG(k=k), f"rectools_ndcg@{k}"),
        (NDCG(k=k, divide_by_achievable=True), f"ndcg@{k}"),
        (NDCG(k=k, log_base=10), f"rectools_ndcg@{k}"),  # the base cancels out
        (MAP(k=k), f"map@{k}"),
        (MAP(k=k, divide_by_k=True), f"map(divisor=k)@{k}"),
        (MRR(k=k), f"rr@{k}"),
        (HitRate(k=k), f"success@{k}"),
    ]


@pytest.mark.parametrize("k", K_VALUES)
def test_rectools_metrics_equal_rankmeter_names_per_user(case: Case, k: int) -> None:
    reco, interactions = _frames(case)
    users = [u for u, items in case.truth.items() if items]
    pairs = _pairs(k)
    res = rankmeter.evaluate(case.qrels(users), case.run(), sorted({name for _, name in pairs}), missing="zero")
    assert res.metadata["queries_missing"] > 0  # users without recommendations count with 0
    for metric, name in pairs:
        theirs = metric.calc_per_user(reco, interactions)
        ours = per_user(res, name)
        assert sorted(theirs.index) == sorted(ours), name
        for u, value in theirs.items():
            assert ours[u] == pytest.approx(value, abs=1e-12, rel=0), (name, u)
        assert res[name] == pytest.approx(metric.calc(reco, interactions), abs=1e-12, rel=0), name


def test_rectools_ndcg_default_divides_by_k_relevant_items() -> None:
    """One user, 2 relevant items, k = 3, the first item a hit: 1 / (1 + 1/log2(3) + 1/2)."""
    reco = pd.DataFrame({Columns.User: [1, 1, 1], Columns.Item: [10, 11, 12], Columns.Rank: [1, 2, 3]})
    interactions = pd.DataFrame({Columns.User: [1, 1], Columns.Item: [10, 20]})
    expected = 1 / (1 + 1 / 1.584962500721156 + 1 / 2)
    assert NDCG(k=3).calc(reco, interactions) == pytest.approx(expected, abs=1e-12)
    res = rankmeter.evaluate({"1": {"10": 1, "20": 1}}, {"1": {"10": 3, "11": 2, "12": 1}}, "rectools_ndcg@3")
    assert res["rectools_ndcg@3"] == pytest.approx(expected, abs=1e-12)


def test_rectools_counts_a_repeated_test_interaction_twice() -> None:
    """A defect rankmeter does not copy: a repeated (user, item) test row is two relevant items to rectools."""
    reco = pd.DataFrame({Columns.User: [1, 1], Columns.Item: [10, 11], Columns.Rank: [1, 2]})
    interactions = pd.DataFrame({Columns.User: [1, 1, 1], Columns.Item: [10, 10, 20]})
    assert Precision(k=2).calc(reco, interactions) == 1.0  # one relevant item in 2 counted twice
    res = rankmeter.evaluate({"1": {"10": 1, "20": 1}}, {"1": {"10": 2, "11": 1}}, "p@2")
    assert res["p@2"] == 0.5
