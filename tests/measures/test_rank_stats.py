"""``mean_rank``, ``amri`` and ``mpr`` against PyKEEN's formulas and the values PyKEEN gives on its own test data.

PyKEEN's ``RankBasedMetricTestCase`` (pykeen/pykeen ``tests/cases.py``) draws its ranking tasks with
``generate_num_candidates_and_ranks(num_ranks=33, max_num_candidates=17, seed=42)``; the ranks, the
candidate counts and PyKEEN 1.11.1's values on them (``ArithmeticMeanRank`` 5.212121212121212,
``AdjustedArithmeticMeanRankIndex`` -0.0692307692307692; the first five tasks one by one: -1, -0.8333...,
1, -0.714285..., -0.6666...) are written out below. Each task is one query here: a list of N candidates
with its one relevant item at rank r.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankmeter

PYKEEN_RANKS = [2, 12, 1, 7, 6, 4, 2, 2, 4, 2, 4, 2, 12, 6, 11, 9, 8, 3, 3, 3, 5, 3, 1, 9, 3, 9, 5, 13, 7, 3, 8, 2, 1]
PYKEEN_CANDIDATES = [2, 13, 11, 8, 7, 14, 2, 12, 4, 2, 9, 16, 12, 13, 12, 13, 9, 3, 14, 8, 9, 6, 3, 15, 13, 11, 7]
PYKEEN_CANDIDATES += [14, 9, 8, 8, 4, 2]


def _tasks(ranks: list[int], candidates: list[int]) -> tuple[list[list[float]], list[list[float]]]:
    """One list per task: N candidates scored N, N - 1, ..., 1, the relevant one at rank r."""
    grades = [[1.0 if i == r - 1 else 0.0 for i in range(n)] for r, n in zip(ranks, candidates, strict=True)]
    scores = [[float(n - i) for i in range(n)] for n in candidates]
    return grades, scores


def _pykeen_amri(ranks: np.ndarray, candidates: np.ndarray) -> float:
    # PyKEEN's ReindexedMetric over ArithmeticMeanRank: (MR - E[MR]) / (1 - E[MR]), E[MR] = mean((N + 1) / 2)
    expected = np.mean((candidates + 1) / 2)
    return float((ranks.mean() - expected) / (1 - expected))


def test_pykeen_tasks_one_by_one() -> None:
    grades, scores = _tasks(PYKEEN_RANKS, PYKEEN_CANDIDATES)
    res = rankmeter.evaluate_lists(grades, scores, ["mean_rank", "amri", "num_ret", "num_q"], ties="stable")
    np.testing.assert_array_equal(res.values[:, 0], PYKEEN_RANKS)
    # PyKEEN's AMRI of each task alone; the first five as PyKEEN 1.11.1 prints them
    want = [_pykeen_amri(np.array([r]), np.array([n])) for r, n in zip(PYKEEN_RANKS, PYKEEN_CANDIDATES, strict=True)]
    np.testing.assert_allclose(res.values[:, 1], want, rtol=0, atol=1e-12)
    pykeen_first_five = [-1.0, -0.8333333333333335, 1.0000000000000002, -0.7142857142857144, -0.6666666666666667]
    np.testing.assert_allclose(res.values[:5, 1], pykeen_first_five, rtol=0, atol=1e-12)


def test_pykeen_pooled_values() -> None:
    # PyKEEN pools every ranking task: its mean rank is the mean over queries when each has one relevant
    # item, and its dataset AMRI follows from mean_rank, num_ret and num_q (docs/measures.md)
    grades, scores = _tasks(PYKEEN_RANKS, PYKEEN_CANDIDATES)
    res = rankmeter.evaluate_lists(grades, scores, ["mean_rank", "amri", "num_ret", "num_q"], ties="stable")
    assert res["mean_rank"] == pytest.approx(5.212121212121212, abs=1e-12)
    chance = (res["num_ret"] / res["num_q"] + 1) / 2
    pooled = 1 - (res["mean_rank"] - 1) / (chance - 1)
    assert pooled == pytest.approx(-0.0692307692307692, abs=1e-12)
    assert pooled == pytest.approx(_pykeen_amri(np.array(PYKEEN_RANKS), np.array(PYKEEN_CANDIDATES)), abs=1e-12)
    # the mean of the per-query indices is another number when the candidate counts differ
    assert abs(res["amri"] - pooled) > 0.05


def test_pykeen_best_and_worst_ranks() -> None:
    # PyKEEN's test_call_best / test_call_worst: ranks 1 give 1, ranks N give -1
    best = rankmeter.evaluate_lists(*_tasks([1] * 33, PYKEEN_CANDIDATES), "amri", ties="stable")
    worst = rankmeter.evaluate_lists(*_tasks(PYKEEN_CANDIDATES, PYKEEN_CANDIDATES), "amri", ties="stable")
    lists = [n > 1 for n in PYKEEN_CANDIDATES]  # a single candidate has no chance baseline (0 / 0)
    np.testing.assert_allclose(best.values[lists, 0], 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(worst.values[lists, 0], -1.0, rtol=0, atol=1e-15)


def test_realistic_rank_is_the_expected_rank() -> None:
    # PyKEEN's Ranks.from_scores: true score 0.5 among [0.9, 0.5, 0.5, 0.5, 0.1, 0.5] gives optimistic 2,
    # pessimistic 5, realistic 3.5, and AMRI(3.5, 6 candidates) = 0.0
    grades = [[0, 1, 0, 0, 0, 0]]
    scores = [[0.9, 0.5, 0.5, 0.5, 0.1, 0.5]]
    res = rankmeter.evaluate_lists(grades, scores, ["mean_rank", "amri"], ties="expected")
    assert (res["mean_rank"], res["amri"]) == (3.5, 0.0)
    opt = rankmeter.evaluate_lists(grades, scores, "mean_rank", ties="optimistic")["mean_rank"]
    pes = rankmeter.evaluate_lists(grades, scores, "mean_rank", ties="pessimistic")["mean_rank"]
    assert (opt, pes) == (2.0, 5.0)


def test_chance_is_zero_for_a_random_order() -> None:
    # PyKEEN's closed-form expectation of AMRI is 0: every item tied, under ties="expected"
    res = rankmeter.evaluate_lists([[0, 0, 1, 0, 1, 0, 0]], [[1.0] * 7], ["mean_rank", "amri", "mpr"], ties="expected")
    assert (res["mean_rank"], res["amri"], res["mpr"]) == (4.0, 0.0, 0.5)


def test_several_relevant_items_and_unretrieved_ones() -> None:
    # relevant at ranks 1 and 3 of 4 retrieved; c (relevant) not retrieved is not counted
    qrels = {"q": {"a": 1, "b": 0, "d": 2, "c": 1}}
    run = {"q": {"a": 4.0, "b": 3.0, "d": 2.0, "e": 1.0}}
    res = rankmeter.evaluate(qrels, run, ["mean_rank", "amri", "mpr", "mean_rank(min_rel=2)"])
    assert res["mean_rank"] == 2.0
    assert res["amri"] == pytest.approx(1 - (2 - 1) / (2.5 - 1), abs=1e-15)
    assert res["mpr"] == pytest.approx((1 * 0 + 2 * (2 / 3)) / 3, abs=1e-15)  # grades weigh the percentiles
    assert res["mean_rank(min_rel=2)"] == 3.0


@pytest.mark.parametrize("empty, at_s", [("zero", 0.0), ("one", 1.0), ("nan", math.nan), ("skip", None)])
def test_a_list_without_its_relevant_items_is_undefined_under_every_policy(empty: str, at_s: float | None) -> None:
    # q has a relevant document that its list missed: no mean rank, whatever empty= says (it is not empty);
    # s has no relevant document: the empty-query policy decides its value
    qrels = {"q": {"c": 1}, "r": {"a": 1}, "s": {"a": 0}}
    run = {"q": {"a": 2.0, "b": 1.0}, "r": {"a": 2.0, "b": 1.0}, "s": {"a": 2.0}}
    res = rankmeter.evaluate(qrels, run, ["mean_rank", "amri", "ndcg"], empty=empty)
    for name, at_r in (("mean_rank", 1.0), ("amri", 1.0)):  # amri: 1 - (1 - 1) / ((2 + 1) / 2 - 1)
        values = res.by_query(name)
        assert math.isnan(values["q"]) and values["r"] == at_r
        if at_s is None:
            assert "s" not in values
        else:
            assert values["s"] == at_s or (math.isnan(at_s) and math.isnan(values["s"]))
        kept = [1.0] + ([] if at_s is None or math.isnan(at_s) else [at_s])  # r, then s when counted
        assert res[name] == sum(kept) / len(kept)  # q is left out of the mean
    assert res.metadata["queries_undefined"] == {"mean_rank": 1, "amri": 1}  # ndcg is defined for q (0)
    assert res.metadata["queries_empty"] == 1


def test_an_undefined_value_is_not_an_empty_query_error() -> None:
    qrels = {"q": {"c": 1}, "r": {"a": 1}}
    run = {"q": {"a": 2.0, "b": 1.0}, "r": {"a": 2.0, "b": 1.0}}
    res = rankmeter.evaluate(qrels, run, "mean_rank", empty="error")  # every query has a relevant document
    assert res["mean_rank"] == 1.0 and res.metadata["queries_undefined"] == {"mean_rank": 1}


def test_names() -> None:
    assert str(rankmeter.parse("MR")) == "mean_rank"
    assert str(rankmeter.parse("adjusted_arithmetic_mean_rank_index")) == "amri"
    assert str(rankmeter.parse("mean_percentile_rank")) == "mpr"
    for name in ["mean_rank(min_rel=2)", "amri", "mpr"]:
        assert rankmeter.parse(str(rankmeter.parse(name))) == rankmeter.parse(name)
