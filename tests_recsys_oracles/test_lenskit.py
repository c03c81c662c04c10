"""LensKit's top-N list metrics (``lenskit.metrics``) against rankmeter's names, list by list.

LensKit gives NaN (left out of its means) where rankmeter's policies say: ``Hit``, ``RecipRank`` and
``NDCG`` for a user without test items (``empty="nan"``), ``Precision`` and ``AveragePrecision`` for an
empty list. Its ``Recall@n`` divides by min(R, n) (rankmeter's ``relative_p``), its ``Precision@n`` by
the length of the truncated list (``p(divisor=min)``) and its default NDCG discounts ranks 1 and 2 alike
(1 / log2(max(rank, 2)), rankmeter's ``discount=jarvelin(2)``). Its ``AveragePrecision@n`` divides by
min(R, length of the truncated list): ``map(divisor=min)@n`` when the list holds at least n items.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import Case, make_case, per_user
from lenskit.data import ItemList
from lenskit.metrics import NDCG, Hit, Precision, Recall, RecipRank
from lenskit.metrics.ranking import AveragePrecision, LogRankWeight

import rankmeter

K_VALUES = [1, 5, 10, 30]  # 30: longer than every list


def _lists(case: Case, u: int) -> tuple[ItemList, ItemList]:
    return ItemList(item_ids=np.array(case.lists[u], dtype=np.int64), ordered=True), ItemList(
        item_ids=np.array(case.truth[u], dtype=np.int64)
    )


def _check(case: Case, metric: object, name: str, res: rankmeter.EvaluationResult) -> None:
    ours = per_user(res, name)
    for u in case.truth:
        recs, test = _lists(case, u)
        theirs = metric.measure_list(recs, test)
        if math.isnan(theirs):
            assert math.isnan(ours.get(u, math.nan)), (name, u)
        else:
            assert ours[u] == pytest.approx(theirs, abs=1e-12, rel=0), (name, u)


@pytest.mark.parametrize("k", K_VALUES)
def test_hit_reciprocal_rank_ndcg_recall(case: Case, k: int) -> None:
    pairs = [
        (Hit(n=k), f"success@{k}"),
        (RecipRank(n=k), f"rr@{k}"),
        (NDCG(n=k), f"ndcg(discount=jarvelin(2))@{k}"),
        (NDCG(n=k, weight=LogRankWeight(offset=1)), f"ndcg@{k}"),
        (Recall(n=k), f"relative_p@{k}"),
    ]
    run = {**{str(u): {} for u in case.truth}, **case.run()}
    res = rankmeter.evaluate(case.qrels(), run, [name for _, name in pairs], empty="nan")
    for metric, name in pairs:
        _check(case, metric, name, res)


@pytest.mark.parametrize("k", K_VALUES)
def test_precision_over_non_empty_lists(case: Case, k: int) -> None:
    res = rankmeter.evaluate(case.qrels(), case.run(), f"p(divisor=min)@{k}", missing="skip")
    _check(case, Precision(n=k), f"p(divisor=min)@{k}", res)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [1, 5, 10])
def test_average_precision_with_lists_of_at_least_n_items(seed: int, k: int) -> None:
    case = make_case(seed, min_len=10, max_len=25)
    with_items = [u for u, items in case.truth.items() if items]
    res = rankmeter.evaluate(case.qrels(with_items), case.run(), f"map(divisor=min)@{k}")
    _check(Case(case.n_items, {u: case.truth[u] for u in with_items}, case.lists), AveragePrecision(n=k),
           f"map(divisor=min)@{k}", res)  # fmt: skip


def test_average_precision_of_a_short_list_divides_by_its_length() -> None:
    """A list of 2 items, both relevant, 5 relevant in all, n = 10: LensKit 2 / min(5, 2) = 1, rankmeter 2 / 5."""
    recs, test = ItemList(item_ids=[1, 2], ordered=True), ItemList(item_ids=[1, 2, 3, 4, 5])
    assert AveragePrecision(n=10).measure_list(recs, test) == 1.0
    qrels = {"u": {str(i): 1 for i in range(1, 6)}}
    res = rankmeter.evaluate(qrels, {"u": {"1": 2.0, "2": 1.0}}, ["map(divisor=min)@10", "map(divisor=min)@2"])
    assert res.aggregate == {"map(divisor=min)@10": 0.4, "map(divisor=min)@2": 1.0}
