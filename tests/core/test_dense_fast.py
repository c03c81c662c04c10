"""Dense matrices: the blocked, threaded ranking, the positive-only ideal and the prefix evaluation.

The reference for every value is the masked path of ``evaluate_arrays`` (an
all-True mask): it flattens the matrix and ranks it with ``rank_order`` as the
ragged input does, with the complete rows as the ideal, so it shares none of
the dense code under test. scikit-learn's ``ndcg_score`` checks the expected-
ties values directly.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter
import rankmeter.core.lists as lists
from rankmeter.core.lists import (
    map_blocks,
    rank_dense,
    rank_dense_top,
    ranked_prefix,
    row_blocks,
)
from rankmeter.core.ties import descending_keys, fast_row_order, rank_rows
from rankmeter.errors import InvalidScoreError
from rankmeter.pipeline import evaluate_ranked

MEASURES = [
    "ndcg@3",
    "ndcg@[1,5]",
    "ndcg(gain=exp)@4",
    "ndcg(ideal=retrieved)@2",
    "dcg@3",
    "idcg@3",
    "cg@2",
    "p@3",
    "r@4",
    "f1@3",
    "success@2",
    "rr@5",
    "map@4",
    "wap@3",
    "acg@3",
    "judged@2",
    "p(min_rel=2)@3",
]
FULL = ["ndcg", "map", "rr", "rprec", "num_rel", "num_ret", "num_rel_ret", "ndcg(discount=jarvelin(3))", "idcg"]
TIE_RULES = ["expected", "stable", "trec", "optimistic", "pessimistic"]


def dense_case(seed: int, n: int = 37, m: int = 300, levels: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Coarse scores (many ties, also across the k-th position), sparse grades, some all-zero rows."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels, (n, m)).astype(np.float64) / levels
    grades = np.where(rng.random((n, m)) < 0.12, rng.integers(1, 4, (n, m)), 0).astype(np.float64)
    grades[::5] = 0.0  # rows without relevant items
    scores[1] = 0.5  # one row that is a single tied group
    return grades, scores


def reference(y: np.ndarray, s: np.ndarray, measures: list[str], **kw) -> rankmeter.EvaluationResult:
    return rankmeter.evaluate_arrays(y, s, measures, mask=np.ones(np.shape(y), dtype=bool), **kw)


def assert_same(res: rankmeter.EvaluationResult, ref: rankmeter.EvaluationResult) -> None:
    assert res.measure_names == ref.measure_names
    np.testing.assert_allclose(res.values, ref.values, rtol=0, atol=1e-12, equal_nan=True)
    assert np.array_equal(res.included, ref.included)
    assert res.aggregate == pytest.approx(ref.aggregate, abs=1e-12, nan_ok=True)
    for key in ("queries_evaluated", "queries_empty", "measures"):
        assert res.metadata[key] == ref.metadata[key], key


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of a row or a few, so that every test matrix spans several blocks (and threads)."""
    monkeypatch.setattr(lists, "BLOCK_ITEMS", 40)
    monkeypatch.setattr(lists, "EVALUATION_BLOCK_ITEMS", 1000)


# --- row ranking -----------------------------------------------------------------------------------------------
def test_descending_keys_order_every_float32() -> None:
    x = np.array([3.5, -0.0, 0.0, -1e-45, 1e-45, np.inf, -np.inf, -2.0, 7.0, 3.5, -3e38], dtype=np.float32)
    keys = descending_keys(x)
    assert np.argsort(keys, kind="stable").tolist() == np.argsort(-x.astype(np.float64), kind="stable").tolist()
    assert keys[1] == keys[2] and keys[0] == keys[9]  # -0.0 == 0.0, equal scores share a key


@pytest.mark.parametrize("ties", ["stable", "expected", "trec"])
@pytest.mark.parametrize("kind", ["float32", "float64-exact", "float64", "float64-ties"])
def test_fast_row_order_is_rank_rows(ties: str, kind: str) -> None:
    rng = np.random.default_rng(len(kind))
    base = rng.integers(-3, 4, (50, 30)) * 0.25
    if kind == "float32":
        scores = base.astype(np.float32)
    elif kind == "float64-exact":
        scores = base
    elif kind == "float64":
        scores = rng.random((50, 30)) + 1e-12
    else:  # not float32-exact, with ties: the rows with ties are redone by rank_rows
        scores = base + 1e-12
        scores[::3, 0] = scores[::3, 1]
    scores[0, :4] = [0.0, -0.0, 0.0, -0.0]
    order = fast_row_order(scores, ties)
    assert order is not None and order.dtype == np.int64
    assert np.array_equal(order, rank_rows(scores, ties=ties))


def test_fast_row_order_declines_other_policies_and_nan() -> None:
    s = np.array([[1.0, np.nan, 0.5]])
    assert fast_row_order(s, "stable") is None and fast_row_order(s.astype(np.float32), "trec") is None
    assert fast_row_order(np.ones((2, 2)), "optimistic") is None and fast_row_order(np.ones((2, 2)), "shuffle") is None
    assert fast_row_order(np.ones((2, 2), dtype=np.float16), "stable") is None


def test_row_blocks_and_map_blocks_keep_order() -> None:
    blocks = row_blocks(10, 7, block_rows=3)
    assert blocks == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert row_blocks(0, 7) == [] and row_blocks(3, 0) == [(0, 3)]
    assert list(map_blocks(lambda b: b[0], blocks * 5, threads=3)) == [b[0] for b in blocks * 5]
    with pytest.raises(ValueError):
        row_blocks(3, 3, block_rows=0)


def test_map_blocks_raises_a_worker_error() -> None:
    def fail(block: tuple[int, int]) -> int:
        if block[0] == 6:
            raise RuntimeError("block 6")
        return block[0]

    with pytest.raises(RuntimeError, match="block 6"):
        list(map_blocks(fail, row_blocks(10, 1, block_rows=3), threads=2))


# --- whole-matrix ranking: blocks, threads, dtypes --------------------------------------------------------------
@pytest.mark.parametrize("ties", TIE_RULES + ["shuffle"])
def test_rank_dense_same_for_any_blocks_and_threads(ties: str) -> None:
    y, s = dense_case(1)
    one = rank_dense(y, s, ties=ties, seed=4, block_rows=10**6, threads=1)
    for block_rows, threads in ((1, 1), (4, 2), (5, 3)):
        many = rank_dense(y, s, ties=ties, seed=4, block_rows=block_rows, threads=threads)
        for field in ("grades", "scores", "group_starts", "offsets", "ideal_grades", "ideal_offsets"):
            assert np.array_equal(getattr(many, field), getattr(one, field)), field
    # the ranking is rank_rows' for the whole matrix (one draw of the shuffle keys, too)
    order = rank_rows(
        s, ties=ties, grades=y, noise=np.random.default_rng(4).random(s.shape) if ties == "shuffle" else None
    )
    assert np.array_equal(one.grades, np.take_along_axis(y, order, axis=1).reshape(-1))


@pytest.mark.parametrize("ties", TIE_RULES)
def test_rank_dense_top_same_for_any_blocks_and_threads(ties: str) -> None:
    y, s = dense_case(2)
    one = rank_dense_top(y, s, 3, ties=ties, compact_ideal=True, block_rows=10**6, threads=1)
    for block_rows, threads in ((1, 1), (4, 2), (7, 4)):
        many = rank_dense_top(y, s, 3, ties=ties, compact_ideal=True, block_rows=block_rows, threads=threads)
        for field in ("grades", "scores", "group_starts", "offsets", "ideal_grades", "ideal_offsets"):
            assert np.array_equal(getattr(many, field), getattr(one, field)), field
    # every row keeps its top 3 and the whole tied group at rank 3: the prefix of the complete ranking
    full = ranked_prefix(rank_dense(y, s, ties=ties), 3)
    for field in ("grades", "scores", "group_starts", "offsets"):
        assert np.array_equal(getattr(one, field), getattr(full, field)), field


def test_compact_ideal_holds_the_positive_grades() -> None:
    y = np.zeros((3, 300))
    y[0, [1, 3]] = [2, 1]
    y[2, [0, 1, 299]] = [3, -1, 1]
    s = np.arange(900.0).reshape(3, 300)
    r = rank_dense(y, s, ties="stable", compact_ideal=True, min_ideal_width=3)
    assert r.ideal_positive_only and r.ideal_offsets.tolist() == [0, 73, 146, 219]  # ideal_width(300, 3) == 73
    rows = r.ideal_grades.reshape(3, 73)
    assert rows[:, :3].tolist() == [[2.0, 1, 0], [0, 0, 0], [3, 1, 0]] and not rows[:, 3:].any()
    top = rank_dense_top(y, s, 2, ties="stable", compact_ideal=True)
    assert np.array_equal(top.ideal_grades, r.ideal_grades)
    # rows with more than about half their items relevant keep their complete rows
    wide = rank_dense(np.ones((2, 300)), np.ones((2, 300)), ties="stable", compact_ideal=True)
    assert not wide.ideal_positive_only and np.array_equal(wide.ideal_grades, np.ones(600))
    short = rank_dense(y[:, :100], s[:, :100], ties="stable", compact_ideal=True)  # 100 items: nothing to gain
    assert not short.ideal_positive_only and len(short.ideal_grades) == 300


@pytest.mark.parametrize("m", [130, 300, 2000, 4097])
def test_compact_ideal_sums_equal_complete_rows_bitwise(m: int) -> None:
    """A row's ideal DCG is the same number whether its ideal is compact or complete (and whatever its neighbours)."""
    rng = np.random.default_rng(m)
    y = np.where(rng.random((40, m)) < 0.05, rng.integers(1, 6, (40, m)), 0).astype(np.float64)
    y[3, : m // 4] = 2.0  # one row with many relevant items widens every compact row
    s = rng.random((40, m))
    measures = ["ndcg", "idcg", "ndcg@5", "idcg(gain=exp)", "ndcg(discount=jarvelin(2))"]
    res = rankmeter.evaluate_arrays(y, s, measures)
    ref = reference(y, s, measures)
    assert np.array_equal(res.values, ref.values, equal_nan=True)
    alone = rankmeter.evaluate_arrays(y[5:6], s[5:6], measures)  # the same row evaluated alone
    assert np.array_equal(alone.values[0], res.values[5], equal_nan=True)


def test_test_cases_use_the_positive_ideal() -> None:
    for seed in range(10):
        y, s = dense_case(seed)
        assert rank_dense(y, s, ties="stable", compact_ideal=True, min_ideal_width=10).ideal_positive_only
        assert rank_dense_top(y, s, 5, ties="stable", compact_ideal=True).ideal_positive_only


# --- evaluate_arrays against the masked path ----------------------------------------------------------------------
@pytest.mark.parametrize("ties", TIE_RULES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_top_k_path_equals_reference(ties: str, seed: int, small_blocks: None) -> None:
    y, s = dense_case(seed)
    res = rankmeter.evaluate_arrays(y, s, MEASURES, ties=ties)
    assert res.metadata["ranked_top_k"] == 5
    assert_same(res, reference(y, s, MEASURES, ties=ties))


@pytest.mark.parametrize("ties", TIE_RULES + ["shuffle"])
@pytest.mark.parametrize("seed", [0, 3])
def test_full_path_with_prefix_equals_reference(ties: str, seed: int, small_blocks: None) -> None:
    y, s = dense_case(seed)
    measures = FULL + MEASURES
    res = rankmeter.evaluate_arrays(y, s, measures, ties=ties, seed=5)
    if ties == "shuffle":  # the masked path draws its shuffle keys differently: compare with one evaluation
        ref = evaluate_ranked(rank_dense(y, s, ties=ties, seed=5), measures, metadata={"input": "dense"})
    else:
        ref = reference(y, s, measures, ties=ties, seed=5)
    assert_same(res, ref)
    for key in ("queries_with_ties", "queries_with_ties_at_cutoff"):
        assert res.metadata[key] == ref.metadata[key], key
    assert "ranked_top_k" not in res.metadata


def test_prefix_tie_diagnostics_include_rest_cutoffs_and_rprec() -> None:
    y, s = dense_case(4)
    for measures in (["rprec", "ndcg@2"], ["ndcg@2", "unj@13"], ["map", "p@1", "ndcg@3"], ["ndcg@[2,9]", "ndcg"]):
        res = rankmeter.evaluate_arrays(y, s, measures)
        ref = reference(y, s, measures)
        assert_same(res, ref)
        assert res.metadata["queries_with_ties_at_cutoff"] == ref.metadata["queries_with_ties_at_cutoff"], measures


@pytest.mark.parametrize(
    "measures",
    [
        ["ndcg@3", "r(min_rel=0)@3"],  # zero grades are relevant: the ideal keeps every item
        ["ndcg(gain={0:1,1:2})@3", "map"],  # grade 0 gains 1
        ["ndcg(gain={1:-1})@3", "ndcg"],  # a negative gain
        ["bpref", "ndcg@2"],  # a family that reads the judged non-relevant items
        ["ndcg", "p(min_rel=-1)@2"],
    ],
)
def test_ideal_keeps_every_item_when_measures_need_it(measures: list[str], small_blocks: None) -> None:
    y, s = dense_case(5)
    y[2, :3] = -1.0  # negative grades
    res = rankmeter.evaluate_arrays(y, s, measures, ties="stable")
    assert_same(res, reference(y, s, measures, ties="stable"))


def test_negative_grades_with_positive_ideal(small_blocks: None) -> None:
    y, s = dense_case(6)
    y[::2, ::3] = -2.0
    measures = FULL + MEASURES
    assert_same(rankmeter.evaluate_arrays(y, s, measures), reference(y, s, measures))
    assert_same(rankmeter.evaluate_arrays(y, s, MEASURES), reference(y, s, MEASURES))


@pytest.mark.parametrize("measures", [["ndcg@4"], ["ndcg@4", "map"]])
def test_label_and_score_dtypes_give_identical_values(measures: list[str], small_blocks: None) -> None:
    y, s = dense_case(7)
    ref = rankmeter.evaluate_arrays(y, s, measures)
    for yy, ss in (
        (y.astype(np.int64), s),
        (y.astype(np.int8), s.astype(np.float32)),
        (y.astype(np.float32), s.astype(np.float32)),
        (y > 0, s),
    ):
        res = rankmeter.evaluate_arrays(yy, ss, measures)
        expected = ref if yy.dtype != bool else rankmeter.evaluate_arrays((y > 0).astype(float), s, measures)
        assert np.array_equal(res.values, expected.values, equal_nan=True), (yy.dtype, ss.dtype)
    # Fortran-ordered and strided input
    assert np.array_equal(rankmeter.evaluate_arrays(np.asfortranarray(y), s[:, ::1], measures).values, ref.values)


def test_k_at_or_beyond_the_row_length(small_blocks: None) -> None:
    y, s = dense_case(8, m=6)
    for measures in (["ndcg@6", "p@6"], ["ndcg@9", "map@7"], ["ndcg@3", "ndcg@6"]):
        assert_same(rankmeter.evaluate_arrays(y, s, measures), reference(y, s, measures))


@pytest.mark.parametrize("measures", [["ndcg@3"], ["ndcg", "map"], ["ndcg", "ndcg@2"]])
def test_non_finite_input_still_reported_with_its_position(measures: list[str], small_blocks: None) -> None:
    y, s = dense_case(9)
    bad = s.copy()
    bad[3, 4] = np.nan
    with pytest.raises(InvalidScoreError, match=r"y_score\[3, 4\]"):
        rankmeter.evaluate_arrays(y, bad, measures)
    with pytest.raises(InvalidScoreError, match=r"y_score\[3, 4\]"):
        rankmeter.evaluate_arrays(y, bad.astype(np.float32), measures, empty="error")
    bad_y = y.copy()
    bad_y[30, 1] = np.inf
    with pytest.raises(InvalidScoreError, match=r"y_true\[30, 1\]"):  # grades are checked before scores
        rankmeter.evaluate_arrays(bad_y, bad, measures)


def test_empty_shapes() -> None:
    assert rankmeter.evaluate_arrays(np.zeros((2, 0)), np.zeros((2, 0)), ["ndcg", "ndcg@2"]).aggregate == {
        "ndcg": 0.0,
        "ndcg@2": 0.0,
    }
    assert rankmeter.evaluate_arrays(np.zeros((0, 3)), np.zeros((0, 3)), ["ndcg@2"]).values.shape == (0, 1)


# --- scikit-learn ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 3, 10, None])
def test_against_scikit_learn_across_blocks(k: int | None, small_blocks: None) -> None:
    from sklearn import metrics

    rng = np.random.default_rng(11)
    n, m = 60, 45
    s = (rng.integers(0, 6, (n, m)) / 6).astype(np.float32)  # ties everywhere, also at the k-th position
    y = np.where(rng.random((n, m)) < 0.1, rng.integers(1, 6, (n, m)), 0).astype(np.float64)
    y[::7] = 0.0
    name = "ndcg" if k is None else f"ndcg@{k}"
    for measures in ([name], [name, "map"]):
        res = rankmeter.evaluate_arrays(y, s, measures)
        assert res[name] == pytest.approx(metrics.ndcg_score(y, s, k=k), abs=1e-12)
        assert rankmeter.evaluate_arrays(y, s.astype(np.float64), measures).aggregate == res.aggregate


@pytest.mark.parametrize("empty", ["zero", "skip", "nan", "one"])
@pytest.mark.parametrize("measures", [["ndcg@3", "map@5"], ["ndcg", "map", "ndcg@3"]])
def test_empty_policies_across_blocks(empty: str, measures: list[str], small_blocks: None) -> None:
    y, s = dense_case(12)
    res = rankmeter.evaluate_arrays(y, s, measures, empty=empty)
    assert_same(res, reference(y, s, measures, empty=empty))


def test_empty_error_names_every_empty_row(small_blocks: None) -> None:
    y, s = dense_case(13)  # rows 0, 5, 10, ... have no relevant item
    for measures in (["ndcg@3"], ["ndcg", "ndcg@3"]):
        with pytest.raises(rankmeter.errors.PolicyError, match=r"8 queries .*: 0, 5, 10, 15, 20 \.\.\."):
            rankmeter.evaluate_arrays(y, s, measures, empty="error")
