"""Layer 1: the Hamming example (docs/reference-values.md, R7) through evaluate_vectors, every tie policy.

The eight database items fall into distance groups {0}, {1, 2, 3}, {5, 6, 7}, {4}
(distances 0, 1, 2, 4). Grades are l_q^T l_i = [1, 1, 2, 0, 1, 0, 1, 2].
"""

from __future__ import annotations

from math import log2

import numpy as np
import pytest

from rankmeter.vectors import evaluate_vectors, hamming_distance, relevance_matrix
from tests.reference_data import R7_CODES, R7_LABELS, R7_QUERY_CODE, R7_QUERY_LABELS, R7_TABLE

QUERY = np.array([R7_QUERY_CODE])
DATABASE = np.array(R7_CODES)
QUERY_LABELS = np.array([R7_QUERY_LABELS])
DATABASE_LABELS = np.array(R7_LABELS)
# docs/reference-values.md R7: nDCG@k (gain 2^r - 1, ideal from all 8 items) and AP@k (binary rel > 0, / R = 6)
R7 = R7_TABLE  # k: (ndcg expected, pessimistic, optimistic, ap expected, pessimistic, optimistic)
MEASURES = ["ndcg(gain=exp)@[1,3,5,8]", "map@[1,3,5,8]", "acg@[3,5]", "ndcg(gain=exp)", "map"]


def _evaluate(ties: str, **kw: object):
    return evaluate_vectors(
        QUERY, DATABASE, MEASURES, query_labels=QUERY_LABELS, database_labels=DATABASE_LABELS, ties=ties, **kw
    )


def test_r7_inputs_match_the_table() -> None:
    assert hamming_distance(QUERY, DATABASE).tolist() == [[0, 1, 1, 1, 4, 2, 2, 2]]
    assert relevance_matrix(QUERY_LABELS, DATABASE_LABELS).tolist() == [[1, 1, 2, 0, 1, 0, 1, 2]]


@pytest.mark.parametrize(("ties", "column"), [("expected", 0), ("pessimistic", 1), ("optimistic", 2)])
def test_r7_ndcg_and_ap_at_k(ties: str, column: int) -> None:
    res = _evaluate(ties)
    for k, row in R7.items():
        assert res[f"ndcg(gain=exp)@{k}"] == pytest.approx(row[column], abs=5e-7)
        assert res[f"map@{k}"] == pytest.approx(row[3 + column], abs=5e-7)
    # k = 8 is the whole database
    assert res["ndcg(gain=exp)"] == pytest.approx(res["ndcg(gain=exp)@8"], abs=1e-15)
    assert res["map"] == pytest.approx(res["map@8"], abs=1e-15)
    assert res.metadata["paths"]["ndcg(gain=exp)@[1,3,5,8]"] == "bucket"


def test_r7_expected_exact_formulas() -> None:
    """The expected nDCG@3 and ACG written out: group {1,2,3} has mean gain (1 + 3 + 0) / 3."""
    res = _evaluate("expected")
    gains_sorted = [3, 3, 1, 1, 1, 1, 0, 0]
    idcg3 = sum(g / log2(i + 2) for i, g in enumerate(gains_sorted[:3]))
    dcg3 = 1 + (4 / 3) / log2(3) + (4 / 3) / log2(4)
    assert res["ndcg(gain=exp)@3"] == pytest.approx(dcg3 / idcg3, abs=1e-12)
    # ACG@3 = (1 + 2 * mean grade of {1,2,3}) / 3 = (1 + 2) / 3; ACG@5 = (1 + 3 + 1) / 5
    assert res["acg@3"] == pytest.approx(1.0, abs=1e-12)
    assert res["acg@5"] == pytest.approx(1.0, abs=1e-12)


def test_r7_stable() -> None:
    res = _evaluate("stable")
    assert res["ndcg(gain=exp)@3"] == pytest.approx(0.580577, abs=5e-7)
    assert res["ndcg(gain=exp)@8"] == pytest.approx(0.731376, abs=5e-7)
    assert res["map"] == pytest.approx(0.855159, abs=5e-7)
    assert res["acg@3"] == pytest.approx(4 / 3, abs=1e-12)
    assert res["acg@5"] == pytest.approx(0.8, abs=1e-12)
    assert res.metadata["paths"]["map"] == "sort"


def test_r7_acg_bounds() -> None:
    """Optimistic puts grade 2 first in {1,2,3}: ACG@3 = (1 + 2 + 1) / 3; pessimistic: (1 + 0 + 1) / 3."""
    assert _evaluate("optimistic")["acg@3"] == pytest.approx(4 / 3, abs=1e-12)
    assert _evaluate("pessimistic")["acg@3"] == pytest.approx(2 / 3, abs=1e-12)


def test_r7_shuffle_lies_between_the_bounds() -> None:
    lo, hi = _evaluate("pessimistic"), _evaluate("optimistic")
    for seed in range(10):
        res = _evaluate("shuffle", seed=seed)
        for name in ("ndcg(gain=exp)@3", "map@5"):
            assert lo[name] - 1e-12 <= res[name] <= hi[name] + 1e-12


def test_r7_radius_precision_recall() -> None:
    """Within radius 1: items {0,1,2,3}, 3 relevant of 6; radius 2 adds {5,6,7}: 5 relevant of 7 items."""
    res = evaluate_vectors(
        QUERY,
        DATABASE,
        ["p(radius=1)", "r(radius=1)"],
        query_labels=QUERY_LABELS,
        database_labels=DATABASE_LABELS,
        radius=[0, 2],
    )
    assert res.measure_names == [
        "p(radius=1)",
        "r(radius=1)",
        "p(radius=0)",
        "r(radius=0)",
        "p(radius=2)",
        "r(radius=2)",
    ]
    assert res["p(radius=1)"] == 3 / 4
    assert res["r(radius=1)"] == 3 / 6
    assert res["p(radius=0)"] == 1.0
    assert res["r(radius=0)"] == 1 / 6
    assert res["p(radius=2)"] == 5 / 7
    assert res["r(radius=2)"] == 5 / 6
    for ties in ("stable", "optimistic", "pessimistic"):
        other = evaluate_vectors(
            QUERY, DATABASE, "p(radius=2)", query_labels=QUERY_LABELS, database_labels=DATABASE_LABELS, ties=ties
        )
        assert other["p(radius=2)"] == 5 / 7


def test_r7_tie_metadata() -> None:
    res = _evaluate("expected")
    assert res.metadata["queries_with_ties"] == 1
    assert res.metadata["queries_with_ties_at_cutoff"] == 1  # cutoff 3 and 5 split tied groups
    assert res.metadata["bits"] == 4
    assert res.metadata["codes"] == "pm1"
    assert res.query_ids.tolist() == ["0"]
