"""Microsoft Recommenders' ``python_evaluation`` ranking metrics against rankmeter's names.

Its precision, recall, MAP and MAP@k average over the users present in both frames (rankmeter's
``missing="skip"``; users only in the predictions are ignored by both); its ``ndcg_at_k`` averages over
every user of the truth frame, 0 for those without predictions (``missing="zero"``). Every truth row is a
relevant item, whatever its rating. It ranks the predictions with a sort that does not keep ties in
order, so the scores here have none.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import Case, per_user
from recommenders.evaluation import python_evaluation as pe

import rankmeter

K_VALUES = [1, 5, 10, 30]  # 30: longer than every list
COLS = {"col_user": "userID", "col_item": "itemID", "col_prediction": "prediction"}


def _frames(case: Case, ratings: dict[tuple[int, int], int] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    true = pd.DataFrame(
        [(u, i, (ratings or {}).get((u, i), 1)) for u, items in case.truth.items() for i in items],
        columns=["userID", "itemID", "rating"],
    )
    pred = pd.DataFrame(
        [(u, i, float(len(items) - r)) for u, items in case.lists.items() for r, i in enumerate(items)],
        columns=["userID", "itemID", "prediction"],
    )
    return true, pred


@pytest.mark.parametrize("k", K_VALUES)
def test_precision_recall_map_over_users_in_both_frames(case: Case, k: int) -> None:
    true, pred = _frames(case)
    users = [u for u, items in case.truth.items() if items]
    names = [f"p@{k}", f"r@{k}", f"map@{k}", f"map(divisor=min)@{k}"]
    res = rankmeter.evaluate(case.qrels(users), case.run(), names, missing="skip")
    assert res.metadata["queries_missing"] > 0 and res.metadata["queries_run_only"] > 0
    theirs = {
        f"p@{k}": pe.precision_at_k(true, pred, k=k, **COLS),
        f"r@{k}": pe.recall_at_k(true, pred, k=k, **COLS),
        f"map@{k}": pe.map(true, pred, k=k, **COLS),
        f"map(divisor=min)@{k}": pe.map_at_k(true, pred, k=k, **COLS),
    }
    for name, value in theirs.items():
        assert res[name] == pytest.approx(value, abs=1e-12, rel=0), name


@pytest.mark.parametrize("k", K_VALUES)
@pytest.mark.parametrize(("score_type", "measure"), [("binary", "ndcg"), ("raw", "ndcg"), ("exp", "ndcg(gain=exp)")])
def test_ndcg_at_k_over_every_truth_user(case: Case, k: int, score_type: str, measure: str) -> None:
    rng = np.random.default_rng(k)
    ratings = {(u, i): int(rng.integers(1, 6)) for u, items in case.truth.items() for i in items}
    true, pred = _frames(case, ratings if score_type != "binary" else None)
    users = [u for u, items in case.truth.items() if items]
    qrels = {str(u): {str(i): ratings[(u, i)] if score_type != "binary" else 1 for i in case.truth[u]} for u in users}
    res = rankmeter.evaluate(qrels, case.run(), f"{measure}@{k}", missing="zero")
    for discfun in ("loge", "log2"):  # the base cancels out
        theirs = pe.ndcg_at_k(true, pred, k=k, score_type=score_type, discfun_type=discfun, **COLS)
        assert res[f"{measure}@{k}"] == pytest.approx(theirs, abs=1e-12, rel=0)


@pytest.mark.parametrize("k", K_VALUES)
def test_r_precision_is_rprec_of_the_top_k_averaged_over_users_with_a_hit(case: Case, k: int) -> None:
    """Its per-user value is rel@min(R, k) / R; users whose value is 0 are left out of its mean (a defect)."""
    true, pred = _frames(case)
    users = [u for u, items in case.truth.items() if items]
    res = rankmeter.evaluate(case.qrels(users), case.run(), "rprec", missing="skip", depth=k)
    values = [v for v in per_user(res, "rprec").values() if v > 0]
    assert len(values) < len(per_user(res, "rprec"))  # some users are left out
    assert pe.r_precision_at_k(true, pred, k=k, **COLS) == pytest.approx(sum(values) / len(values), abs=1e-12)


def test_duplicated_prediction_rows_count_twice() -> None:
    """A defect rankmeter does not copy: an item predicted twice is two hits (rankmeter refuses or keeps one)."""
    true = pd.DataFrame({"userID": [1], "itemID": [10], "rating": [1]})
    pred = pd.DataFrame({"userID": [1, 1, 1], "itemID": [10, 10, 11], "prediction": [3.0, 2.0, 1.0]})
    assert pe.precision_at_k(true, pred, k=2, **COLS) == 1.0
    assert pe.recall_at_k(true, pred, k=2, **COLS) == 2.0
    run = {"1": {"10": 3.0, "11": 1.0}}  # the first copy
    assert rankmeter.evaluate({"1": {"10": 1}}, run, ["p@2", "r@2"]).aggregate == {"p@2": 0.5, "r@2": 1.0}


def test_ndcg_at_k_worked_example() -> None:
    """Two truth users, one without predictions: (1/log2(3) / (1 + 1/log2(3)) + 0) / 2."""
    true = pd.DataFrame({"userID": [1, 1, 2], "itemID": [10, 11, 10], "rating": [1, 1, 1]})
    pred = pd.DataFrame({"userID": [1, 1], "itemID": [12, 10], "prediction": [2.0, 1.0]})
    expected = (1 / math.log2(3)) / (1 + 1 / math.log2(3)) / 2
    assert pe.ndcg_at_k(true, pred, k=2, **COLS) == pytest.approx(expected, abs=1e-12)
    res = rankmeter.evaluate({"1": {"10": 1, "11": 1}, "2": {"10": 1}}, {"1": {"12": 2, "10": 1}}, "ndcg@2")
    assert res["ndcg@2"] == pytest.approx(expected, abs=1e-12)
