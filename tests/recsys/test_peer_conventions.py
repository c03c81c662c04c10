"""The recommender libraries' conventions by name, checked against their formulas written out.

The same names are checked against the libraries themselves in ``tests_recsys_oracles/`` (their own
environment, built by ``.ci/run``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankmeter
from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures import parse
from rankmeter.partitions import aggregate_of_sums, partial_sum
from rankmeter.pipeline import concatenate_results
from rankmeter.spark.evaluator import measure_for
from rankmeter.stats.intervals import result_intervals

L2_3 = math.log2(3)

# u1: 3 relevant (a, b, c), ranked a x b y; u2: 1 relevant (a), ranked x a; u3: none relevant
QRELS = {"u1": {"a": 1, "b": 1, "c": 1}, "u2": {"a": 1}, "u3": {"z": 0}}
RUN = {"u1": {"a": 4.0, "x": 3.0, "b": 2.0, "y": 1.0}, "u2": {"x": 2.0, "a": 1.0}, "u3": {"a": 1.0}}


def _values(measures: list[str], **kw: object) -> dict[str, list[float]]:
    res = rankmeter.evaluate(QRELS, RUN, measures, **kw)
    return {m: res.values[:, i].tolist() for i, m in enumerate(res.measure_names)}


def test_map_divisors_at_k() -> None:
    # u1's AP sum at 2 is 1 (a at rank 1), at 3 it is 1 + 2/3; u2's is 1/2 at any k >= 2
    v = _values(["map@2", "map(divisor=min)@2", "map(divisor=k)@2", "map(divisor=min)@3", "map(divisor=k)@3"])
    assert v["map@2"][:2] == [1 / 3, 1 / 2]
    assert v["map(divisor=min)@2"][:2] == [1 / 2, 1 / 2]  # min(3, 2) = 2; min(1, 2) = 1
    assert v["map(divisor=k)@2"][:2] == [1 / 2, 1 / 4]
    assert v["map(divisor=min)@3"][:2] == pytest.approx([(1 + 2 / 3) / 3, 1 / 2], abs=1e-15)
    assert v["map(divisor=k)@3"][:2] == pytest.approx([(1 + 2 / 3) / 3, 1 / 6], abs=1e-15)
    assert all(values[2] == 0.0 for values in v.values())  # no relevant item: empty="zero"


def test_map_divisors_without_cutoff() -> None:
    """Without k, min(R, k) is R and k is the list length."""
    v = _values(["map", "map(divisor=min)", "map(divisor=k)"])
    assert v["map(divisor=min)"] == v["map"]
    assert v["map(divisor=k)"][:2] == pytest.approx([(1 + 2 / 3) / 4, 1 / 4], abs=1e-15)


def test_map_divisor_names() -> None:
    assert str(parse("MAP(divisor=min)@10")) == "map(divisor=min)@10"
    assert str(parse("ap(divisor=R)@5")) == "ap@5"  # the default is left out of the canonical name
    with pytest.raises(MeasureSyntaxError, match=r"divisor must be 'R', 'min' or 'k', got 'max'"):
        parse("map(divisor=max)@10")


def test_map_divisor_min_under_expected_ties_scales_map() -> None:
    """AP's sum is the same whatever the divisor, so map(divisor=min) = map * R / min(R, k) under every tie policy."""
    rng = np.random.default_rng(3)
    y_true = (rng.random((30, 12)) < 0.4).astype(float)
    y_score = rng.integers(0, 3, (30, 12)).astype(float)
    res = rankmeter.evaluate_arrays(y_true, y_score, ["map@4", "map(divisor=min)@4"], ties="expected", empty="skip")
    r = y_true.sum(axis=1)
    keep = r > 0
    scaled = res.values[keep, 0] * r[keep] / np.minimum(r[keep], 4)
    assert res.values[keep, 1] == pytest.approx(scaled, abs=1e-12)


def test_map_divisor_min_from_embeddings_matches_dense_scores() -> None:
    """The Hamming bucket kernel knows only AP / R: other divisors are ranked, and give the dense value."""
    rng = np.random.default_rng(0)
    db = rng.integers(0, 2, (40, 8)).astype(np.uint8)
    q = rng.integers(0, 2, (6, 8)).astype(np.uint8)
    q_labels, db_labels = rng.integers(0, 3, 6), rng.integers(0, 3, 40)
    names = ["map(divisor=min)@5", "map(divisor=min)", "map"]
    res = rankmeter.evaluate_vectors(q, db, names, query_labels=q_labels, database_labels=db_labels, ties="expected")
    distance = (q[:, None, :] != db[None, :, :]).sum(axis=2)
    dense = rankmeter.evaluate_arrays(
        (q_labels[:, None] == db_labels[None, :]).astype(float), -distance.astype(float), names, ties="expected"
    )
    assert res.values == pytest.approx(dense.values, abs=1e-12)
    assert res["map(divisor=min)"] == pytest.approx(res["map"], abs=1e-15)


def test_spark_mean_average_precision_at_k_is_map_divided_by_min() -> None:
    assert measure_for("meanAveragePrecisionAtK", 10, False) == "map(divisor=min)@10"


def test_implicit_precision_is_pooled() -> None:
    """implicit: sum of rel@k over users / sum of min(k, R); u3 has no relevant item (weight 0)."""
    res = rankmeter.evaluate(QRELS, RUN, ["implicit_p@2", "relative_p@2"])
    # u1: 1 hit, min(2, 3) = 2; u2: 1 hit, min(2, 1) = 1
    assert res["implicit_p@2"] == (1 + 1) / (2 + 1)
    assert res["relative_p@2"] == (1 / 2 + 1 + 0) / 3
    assert res.pool_weights["implicit_p@2"].tolist() == [2.0, 1.0, 0.0]
    assert res.values[:, 0].tolist() == [1 / 2, 1.0, 0.0]
    assert str(parse("implicit_precision_at_k@10")) == "implicit_p@10"


def test_pooled_aggregate_of_blocks_and_partitions() -> None:
    """Blocks and partitions keep each query's weight: the pooled value is never a mean of block values."""
    parts = [rankmeter.evaluate({q: QRELS[q]}, {q: RUN[q]}, "implicit_p@2") for q in ("u1", "u2")]
    assert [p["implicit_p@2"] for p in parts] == [1 / 2, 1.0]
    whole = concatenate_results(parts, [parse("implicit_p@2")], {})
    assert whole["implicit_p@2"] == 2 / 3
    assert whole.pool_weights["implicit_p@2"].tolist() == [2.0, 1.0]
    sums = [partial_sum(p.values[:, 0], p.included[:, 0], "pooled", p.pool_weights["implicit_p@2"]) for p in parts]
    assert sums == [(1.0, 2.0), (1.0, 1.0)]
    assert aggregate_of_sums(sums, "pooled") == 2 / 3


def test_pooled_measures_get_no_mean_interval() -> None:
    res = rankmeter.evaluate(QRELS, RUN, ["implicit_p@2", "p@2"])
    intervals = result_intervals(res, n_resamples=200, seed=0)
    assert intervals["implicit_p@2"] is None and intervals["p@2"] is not None


def test_implicit_auc_at_k() -> None:
    """A catalogue of 10 items. u1: top 2 is a (hit), x (a miss with 1 hit above it); its 6 other negatives
    lie below the top 2, each after a and, on average, half of b and c: (1 + (1 + 3) / 2 * 6) / (3 * 7).
    u2: x (a miss, no hit above), a (hit): (0 + (1 + 1) / 2 * 8) / (1 * 9)."""
    res = rankmeter.evaluate(QRELS, RUN, "implicit_auc(n_items=10)@2", empty="skip")
    assert res.values[:2, 0].tolist() == pytest.approx([13 / 21, 8 / 9], abs=1e-15)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("implicit_auc@10", r"give the catalogue size, e.g. implicit_auc\(n_items=1000\)@10"),
        ("implicit_auc(n_items=0)@10", r"n_items must be a positive integer, got '0'"),
        ("implicit_auc(n_items=2.5)@10", r"n_items must be a positive integer, got '2.5'"),
    ],
)
def test_implicit_auc_needs_a_catalogue_size(name: str, message: str) -> None:
    with pytest.raises(MeasureSyntaxError, match=message):
        rankmeter.evaluate(QRELS, RUN, name)


def test_rectools_ndcg_divides_by_k_relevant_items() -> None:
    res = rankmeter.evaluate(QRELS, RUN, ["rectools_ndcg@3", "ndcg@3"])
    # u1: hits at 1 and 3; u2: hit at 2, one relevant item, but the ideal holds 3
    ideal3 = 1 + 1 / L2_3 + 1 / 2
    assert res.values[:2, 0].tolist() == pytest.approx([(1 + 1 / 2) / ideal3, (1 / L2_3) / ideal3], abs=1e-15)
    assert res.values[1, 1] == pytest.approx(1 / L2_3, abs=1e-15)


def test_gauc_weights_auroc_by_relevant_items() -> None:
    """RecBole's GAUC: u1's AUC over its list is 3/4 (a above x and y, b above y), u2's 0; weights 2 and 1."""
    res = rankmeter.evaluate(QRELS, RUN, ["gauc", "auroc"])
    assert res.values[:2, 1].tolist() == [3 / 4, 0.0]
    assert res.pool_weights["gauc"].tolist() == [2.0, 1.0, 0.0]
    assert res["gauc"] == (2 * 3 / 4 + 0.0) / 3


def test_map_divisor_on_torch_tensors_is_computed_on_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """The array-API kernels know only AP / R: asked for the device, the other divisors still go to NumPy."""
    import torch

    monkeypatch.setenv("RANKMETER_ARRAY_API", "device")
    rng = np.random.default_rng(1)
    y_true, y_score = (rng.random((8, 15)) < 0.4).astype(np.float32), rng.random((8, 15)).astype(np.float32)
    names = ["map(divisor=min)@5", "map@5"]
    res = rankmeter.evaluate_arrays(torch.from_numpy(y_true), torch.from_numpy(y_score), names)
    dense = rankmeter.evaluate_arrays(y_true, y_score, names)
    assert res.values == pytest.approx(dense.values, abs=1e-6)  # float32 scores and values on both paths
    assert res.metadata["array_api"]["why"] == "AP divided by min(R, k) or k works on NumPy arrays"


def _spark_case(rows: list[tuple[list[int], list[int]]], measures: list[str]) -> dict[str, float]:
    qrels = {str(u): ({str(i): 1 for i in labels} if labels else {"none": 0}) for u, (_, labels) in enumerate(rows)}
    run = {str(u): {str(i): -float(r) for r, i in enumerate(pred)} for u, (pred, _) in enumerate(rows)}
    return rankmeter.evaluate(qrels, run, measures, empty="zero", missing="zero").aggregate


def test_spark_ranking_metrics_suite_worked_example() -> None:
    """Spark's own RankingMetricsSuite ("Ranking metrics: MAP, NDCG, Recall"), its values and tolerance (1e-5);
    the third user has no label (Spark: 0)."""
    rows = [([1, 6, 2, 7, 8, 3, 9, 10, 4, 5], [1, 2, 3, 4, 5]), ([4, 1, 5, 6, 2, 7, 3, 8, 9, 10], [1, 2, 3])]
    rows.append(([1, 2, 3, 4, 5], []))
    spark = {
        "p@1": 1 / 3, "p@2": 1 / 3, "p@3": 1 / 3, "p@4": 0.75 / 3, "p@5": 0.8 / 3, "p@10": 0.8 / 3, "p@15": 8 / 45,
        "map": 0.355026,
        "map(divisor=min)@1": 0.333334, "map(divisor=min)@2": 0.25, "map(divisor=min)@3": 0.24074,
        "ndcg@3": 1 / 3, "ndcg@5": 0.328788, "ndcg@10": 0.487913, "ndcg@15": 0.487913,
        "r@1": 1 / 15, "r@2": 8 / 45, "r@3": 11 / 45, "r@4": 11 / 45, "r@5": 16 / 45, "r@10": 2 / 3, "r@15": 2 / 3,
    }  # fmt: skip
    ours = _spark_case(rows, list(spark))
    for name, value in spark.items():
        assert ours[name] == pytest.approx(value, abs=1e-5), name


def test_spark_few_predictions_worked_example() -> None:
    """Spark's RankingMetricsSuite, SPARK-14886: a short list and an empty one (0 in Spark's mean)."""
    rows = [([1, 6, 2], [1, 2, 3, 4, 5]), ([], [1, 2, 3])]
    spark = {"p@1": 0.5, "p@2": 0.25, "ndcg@1": 0.5, "ndcg@2": 0.30657, "r@1": 0.1, "r@2": 0.1}
    ours = _spark_case(rows, list(spark))
    for name, value in spark.items():
        assert ours[name] == pytest.approx(value, abs=1e-5), name


def _lists_value(actual: list[list[int]], predicted: list[list[int]], measure: str) -> float:
    import pandas as pd

    qrels = pd.DataFrame(
        [(u, i, 1) for u, items in enumerate(actual) for i in items], columns=["user_id", "item_id", "rating"]
    )
    run = pd.DataFrame(
        [(u, i, -float(r)) for u, items in enumerate(predicted) for r, i in enumerate(items)],
        columns=["user_id", "item_id", "score"],
    )
    return rankmeter.evaluate(qrels, run, measure, duplicates="first")[measure]


@pytest.mark.parametrize(
    ("actual", "predicted", "k", "value"),
    [
        ([[1, 2, 3, 4, 5]], [[6, 4, 7, 1, 2]], 2, 0.25),
        ([list(range(1, 100))], [list(range(1, 21)) + list(range(200, 600))], 20, 1.0),
        ([[1, 3, 4], [1, 2, 4], [1, 3]], [list(range(1, 6))] * 3, 3, 0.685185185185185),
        # repeated predictions: ml_metrics counts the first copy only (the later copies hold their ranks)
        ([[1, 2, 3, 4, 5]] * 2, [[6, 4, 7, 1, 2], [1, 1, 1, 1, 1]], 5, 0.26),
        ([[1, 3], [1, 2, 3], [1, 2, 3]], [list(range(1, 6)), [1, 1, 1], [1, 2, 1]], 3, 11 / 18),
    ],
)
def test_ml_metrics_mapk_worked_examples(actual: list, predicted: list, k: int, value: float) -> None:
    """ml_metrics' ``mapk`` (its test_average_precision.py, values to 7 places as its assertAlmostEqual) is
    ``map(divisor=min)@k``; here its repeated items come last in their list, where keeping the first copy
    (``duplicates="first"``) moves no item up."""
    assert _lists_value(actual, predicted, f"map(divisor=min)@{k}") == pytest.approx(value, abs=1e-7)


def test_pooled_measures_on_dense_rows_in_several_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dense rows are ranked in blocks (and their top k apart): the pooled aggregate still sums over every row."""
    from rankmeter.core import lists

    monkeypatch.setattr(lists, "EVALUATION_BLOCK_ITEMS", 120 * 500)  # 6 blocks of 500 rows
    rng = np.random.default_rng(0)
    y_true = (rng.random((3_000, 120)) < 0.05).astype(float)
    y_score = rng.random((3_000, 120))
    res = rankmeter.evaluate_arrays(y_true, y_score, ["ndcg@10", "implicit_p@5", "gauc"])
    top = np.take_along_axis(y_true, np.argsort(-y_score, axis=1), axis=1)[:, :5].sum(axis=1)
    r = y_true.sum(axis=1)
    assert res["implicit_p@5"] == pytest.approx(top.sum() / np.minimum(5, r).sum(), abs=1e-12)
    assert res.pool_weights["implicit_p@5"].tolist() == np.minimum(5, r).tolist()
    weights = np.where(r < 120, r, 0)
    auroc = rankmeter.evaluate_arrays(y_true, y_score, "auroc").values[:, 0]
    assert res["gauc"] == pytest.approx((auroc * weights).sum() / weights.sum(), abs=1e-12)


@pytest.mark.parametrize("measure", ["implicit_p@5", "gauc"])
def test_evaluate_vectors_refuses_pooled_measures(measure: str) -> None:
    codes = np.array([[0, 1], [1, 1]], dtype=np.uint8)
    with pytest.raises(MeasureSyntaxError, match=f"measure '{measure}': evaluate_vectors does not pool values"):
        rankmeter.evaluate_vectors(codes, codes, measure, query_labels=[0, 1], database_labels=[0, 1])


def test_pooled_measures_per_segment() -> None:
    """group_by pools within each segment: s = (1 + 1) / (2 + 1); t = (0 + 0) / (0 + 2), u3 weighing 0."""
    qrels = {**QRELS, "u4": {"a": 1, "b": 1}}
    run = {**RUN, "u4": {"x": 1.0}}
    segments = {"u1": "s", "u2": "s", "u3": "t", "u4": "t"}
    res = rankmeter.evaluate(qrels, run, ["implicit_p@2", "relative_p@2"], group_by=segments)
    assert res.by_group("implicit_p@2") == {"s": 2 / 3, "t": 0.0}
    assert res.by_group("relative_p@2") == {"s": (1 / 2 + 1) / 2, "t": 0.0}
    assert res["implicit_p@2"] == 2 / (2 + 1 + 0 + 2)
