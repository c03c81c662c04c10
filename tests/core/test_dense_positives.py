"""Full-list dense measures under ``expected`` ties from the positive items alone (``rank_dense_positives``).

The new path stores only each row's items with a grade > 0 and its tied
groups, found with one sort of the row's scores. It is checked against the
path it replaces (every item ranked by ``rank_dense``, the same measures on
the complete rows) and against the masked path of ``evaluate_arrays``, which
shares no dense code: to the last bit on rows without ties, to 1e-12 on
tie-heavy rows (inside a tied group the grades are added in another order).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
import rankmeter.core.lists as lists
from rankmeter.core.lists import rank_dense, rank_dense_positives
from rankmeter.measures.kernels.segments import dense_row_sums, segment_sum

evaluate_module = importlib.import_module("rankmeter.by_arrays")

FULL = [
    "ndcg",
    "map",
    "rr",
    "dcg",
    "ndcg(gain=exp)",
    "ndcg(discount=jarvelin(3))",
    "map(min_rel=2)",
    "rr(min_rel=2)",
    "rprec",
    "r",
    "wap",
    "acg@40",
    "num_rel_ret",
    "num_ret",
]
WITH_CUTOFFS = [*FULL, "r@[5,50]", "ndcg@[1,10]", "map@20", "rr@3", "p@7", "success@2", "f1@4"]


def case(seed: int, n: int = 31, m: int = 260, levels: int | None = 12) -> tuple[np.ndarray, np.ndarray]:
    """Sparse graded labels (negative grades too, some empty rows); scores with few levels: big tied groups."""
    rng = np.random.default_rng(seed)
    grades = np.where(rng.random((n, m)) < 0.1, rng.integers(1, 5, (n, m)), 0).astype(np.float64)
    grades[::7] = 0.0
    grades[2, ::9] = -1.0
    if levels is None:
        scores = rng.random((n, m))
    else:
        scores = rng.integers(0, levels, (n, m)) / levels
        scores[1] = 0.25  # one row that is a single tied group
        scores[3, :40] = 0.0  # -0.0 and 0.0 tie
        scores[3, :20] = -0.0
    return grades, scores


def old_path(monkeypatch: pytest.MonkeyPatch, y: np.ndarray, s: np.ndarray, measures: list[str]):
    monkeypatch.setattr(evaluate_module, "positive_items_suffice", lambda *_: False)
    try:
        return rankmeter.evaluate_arrays(y, s, measures)
    finally:
        monkeypatch.undo()


def masked(y: np.ndarray, s: np.ndarray, measures: list[str]) -> rankmeter.EvaluationResult:
    return rankmeter.evaluate_arrays(y, s, measures, mask=np.ones(np.shape(y), dtype=bool))


def assert_close(res: rankmeter.EvaluationResult, ref: rankmeter.EvaluationResult, exact: bool) -> None:
    assert res.measure_names == ref.measure_names
    if exact:
        assert np.array_equal(res.values, ref.values, equal_nan=True)
    else:
        np.testing.assert_allclose(res.values, ref.values, rtol=0, atol=1e-12, equal_nan=True)
    assert np.array_equal(res.included, ref.included)
    for key in ("queries_evaluated", "queries_empty", "queries_with_ties", "queries_with_ties_at_cutoff"):
        assert res.metadata[key] == ref.metadata[key], key


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lists, "BLOCK_ITEMS", 500)
    monkeypatch.setattr(lists, "EVALUATION_BLOCK_ITEMS", 2000)


def test_the_path_is_taken_only_where_it_applies() -> None:
    from rankmeter.measures import parse
    from rankmeter.pipeline import positive_items_suffice

    assert positive_items_suffice([parse(m) for m in WITH_CUTOFFS])
    for measure in ("judged@5", "bpref", "r(min_rel=0)", "ndcg(gain={0:1})", "dcg(gain={1:-1})", "infap"):
        assert not positive_items_suffice([parse("ndcg"), parse(measure)]), measure


def test_evaluate_arrays_ranks_full_lists_by_their_positive_items(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def counted(*args, **kwargs):
        calls.append(1)
        return rank_dense_positives(*args, **kwargs)

    monkeypatch.setattr(evaluate_module, "rank_dense_positives", counted)
    y, s = case(0)
    rankmeter.evaluate_arrays(y, s, WITH_CUTOFFS)
    assert calls
    calls.clear()
    rankmeter.evaluate_arrays(y, s, ["ndcg@10", "map@5"])  # only tops: the top-k path
    rankmeter.evaluate_arrays(y, s, ["ndcg"], ties="stable")
    rankmeter.evaluate_arrays(y, s, ["ndcg"], sample_weight=np.ones(y.shape))  # weighted items: list by list
    assert not calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tie_heavy_rows_equal_the_complete_rows(dtype: type, seed: int, small_blocks: None, monkeypatch) -> None:
    y, s = case(seed)
    s = s.astype(dtype)
    res = rankmeter.evaluate_arrays(y, s, WITH_CUTOFFS)
    assert_close(res, old_path(monkeypatch, y, s, WITH_CUTOFFS), exact=False)
    assert_close(res, masked(y, s, WITH_CUTOFFS), exact=False)


@pytest.mark.parametrize("float_grades", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m", [1, 2, 9, 130, 300, 2000])
def test_rows_without_ties_equal_the_complete_rows_bitwise(
    dtype: type, m: int, float_grades: bool, monkeypatch
) -> None:
    y, _ = case(m, n=23, m=m)
    if float_grades:
        y = y * np.random.default_rng(m).uniform(0.1, 3.0, y.shape)
    s = np.random.default_rng(m).permuted(np.tile(np.arange(m, dtype=dtype), (23, 1)), axis=1)  # no ties
    res = rankmeter.evaluate_arrays(y, s, WITH_CUTOFFS)
    assert_close(res, old_path(monkeypatch, y, s, WITH_CUTOFFS), exact=True)
    assert_close(res, masked(y, s, WITH_CUTOFFS), exact=True)
    alone = rankmeter.evaluate_arrays(y[4:5], s[4:5], WITH_CUTOFFS)  # a row's value never depends on the others
    assert np.array_equal(alone.values[0], res.values[4], equal_nan=True)


def test_float64_scores_that_are_not_float32_take_the_same_lists() -> None:
    y, s = case(5)
    wide = s + 1e-12 * np.random.default_rng(5).integers(0, 2, s.shape)  # not float32, ties broken in places
    a = rank_dense_positives(y, wide)
    b = rank_dense(y, wide, ties="expected")
    # every stored item sits where the complete ranking has it, with its grade, and every tie group is whole
    full_groups = np.repeat(np.arange(len(b.group_starts) - 1), np.diff(b.group_starts))
    flat_positions = np.repeat(np.arange(a.n_queries), a.segment_sizes) * s.shape[1] + a.positions
    assert np.array_equal(a.scores, b.scores[flat_positions])
    keep = (b.grades > 0) | (np.diff(b.group_starts)[full_groups] > 1)
    assert np.array_equal(np.flatnonzero(keep), np.sort(flat_positions))
    for g in np.unique(full_groups[flat_positions]):  # the grades of each group, in any order
        inside = full_groups[flat_positions] == g
        assert sorted(a.grades[inside]) == sorted(np.maximum(b.grades[full_groups == g], 0))  # grades < 0 as 0


@pytest.mark.parametrize("empty", ["zero", "skip", "nan", "one"])
def test_empty_policies(empty: str, small_blocks: None) -> None:
    y, s = case(6)
    res = rankmeter.evaluate_arrays(y, s, ["ndcg", "map"], empty=empty)
    ref = rankmeter.evaluate_arrays(y, s, ["ndcg", "map"], mask=np.ones(y.shape, dtype=bool), empty=empty)
    assert_close(res, ref, exact=False)
    assert res.aggregate == pytest.approx(ref.aggregate, abs=1e-12, nan_ok=True)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 6),
    m=st.integers(1, 40),
    levels=st.integers(1, 6),
    density=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_tie_heavy_matrices(n: int, m: int, levels: int, density: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    y = np.where(rng.random((n, m)) < density, rng.integers(-1, 4, (n, m)), 0).astype(np.float64)
    s = (rng.integers(0, levels, (n, m)) / levels).astype(np.float32)
    res = rankmeter.evaluate_arrays(y, s, WITH_CUTOFFS)
    assert_close(res, masked(y, s, WITH_CUTOFFS), exact=False)


@pytest.mark.parametrize("width", [1, 2, 7, 8, 9, 16, 129, 130, 137, 300, 1000, 4097, 20000])
def test_dense_row_sums_are_numpys_sums_of_the_complete_rows(width: int) -> None:
    rng = np.random.default_rng(width)
    for density in (0.01, 0.2, 1.0):
        rows = np.where(rng.random((9, width)) < density, rng.random((9, width)) * 10.0 ** rng.integers(-8, 8), 0.0)
        row, pos = np.nonzero(rows)
        offsets = np.concatenate(([0], np.cumsum(np.bincount(row, minlength=9))))
        got = dense_row_sums(rows[row, pos], offsets, pos, width)
        assert np.array_equal(got, segment_sum(rows.reshape(-1), np.arange(10) * width)), density


def _brute_force_row(grades: list[float], scores: list[float]) -> dict[str, float]:
    """ndcg, dcg, map and rr of one row with a relevant item, averaged over every order of its tied groups."""
    import itertools
    from math import log2

    levels = sorted(set(scores), reverse=True)
    groups = [[g for g, s in zip(grades, scores, strict=True) if s == level] for level in levels]
    relevant = sum(1 for g in grades if g > 0)
    ideal = sum(g / log2(i + 2) for i, g in enumerate(sorted((max(g, 0.0) for g in grades), reverse=True)))
    totals = {"ndcg": 0.0, "dcg": 0.0, "map": 0.0, "rr": 0.0}
    orders = list(itertools.product(*(itertools.permutations(group) for group in groups)))
    for order in orders:
        ranked = [g for group in order for g in group]
        dcg = sum(max(g, 0.0) / log2(i + 2) for i, g in enumerate(ranked))
        hits = [i for i, g in enumerate(ranked) if g > 0]
        totals["dcg"] += dcg
        totals["ndcg"] += dcg / ideal
        totals["map"] += sum((k + 1) / (i + 1) for k, i in enumerate(hits)) / relevant
        totals["rr"] += 1.0 / (hits[0] + 1)
    return {name: total / len(orders) for name, total in totals.items()}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_expected_values_are_the_mean_over_every_order_of_the_tied_groups(dtype: type) -> None:
    # rows with few score levels (big tied groups), all tied, without positives, -0.0 against 0.0
    rng = np.random.default_rng(17)
    y = np.where(rng.random((40, 7)) < 0.4, rng.integers(-1, 4, (40, 7)), 0).astype(np.float64)
    s = np.round(rng.random((40, 7)) * rng.integers(1, 4, (40, 1)), 1) / 2
    s[0], y[1], s[2, :3], s[2, 3:] = 0.5, 0.0, -0.0, 0.0
    s = s.astype(dtype)
    res = rankmeter.evaluate_arrays(y, s, ["ndcg", "dcg", "map", "rr"], empty="nan")
    for i in range(len(y)):
        if not (y[i] > 0).any():  # no relevant item: empty="nan" holds for every measure
            assert np.isnan(res.values[i]).all()
            continue
        want = _brute_force_row(y[i].tolist(), s[i].tolist())
        got = dict(zip(res.measure_names, res.values[i], strict=True))
        for name, value in want.items():
            assert got[name] == pytest.approx(value, abs=1e-12, nan_ok=True), (i, name)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_a_score_that_is_not_finite_is_reported_where_it_sorts(value: float, dtype: type) -> None:
    from rankmeter.errors import InvalidScoreError

    y, s = case(8, levels=None)
    s = s.astype(dtype)
    for col in (0, 100, 259):  # NaN and inf sort last, -inf first: each is found at its row's end after the sort
        bad = s.copy()
        bad[5, col] = value
        with pytest.raises(InvalidScoreError, match=rf"y_score\[5, {col}\] is {value}"):
            rankmeter.evaluate_arrays(y, bad, ["ndcg", "map"])


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")
def test_grades_are_checked_one_by_one_when_their_sum_overflows() -> None:
    from rankmeter.errors import InvalidScoreError

    y, s = case(9, levels=None)
    y[4, :3] = 1e308  # finite grades whose sum is inf: read, then refused by the DCG kernels, never NaN
    assert_close(rankmeter.evaluate_arrays(y, s, ["map"]), masked(y, s, ["map"]), exact=False)
    with pytest.raises(InvalidScoreError, match=r"measure 'ndcg': query '4': (the ideal )?DCG is inf"):
        rankmeter.evaluate_arrays(y, s, ["ndcg", "map"])
    y[6, 2] = -np.inf
    with pytest.raises(InvalidScoreError, match=r"y_true\[6, 2\] is -inf"):
        rankmeter.evaluate_arrays(y, s, ["ndcg", "map"])


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 9),
    st.integers(1, 70),
    st.sampled_from([np.float32, np.float64]),
    st.booleans(),
    st.data(),
)
def test_count_before_is_searchsorted_of_each_segment(n_rows, width, dtype, inclusive, data) -> None:
    """The batched search equals NumPy's searchsorted of each row alone (left side, or right when inclusive)."""
    grid = data.draw(st.sampled_from([0.5, 1.0]))  # coarse values: many ties, -0.0 beside 0.0
    rows = np.round(np.random.default_rng(data.draw(st.integers(0, 10**6))).normal(size=(n_rows, width)) / grid) * grid
    rows = np.sort(rows.astype(dtype), axis=1)
    seg = np.array(data.draw(st.lists(st.integers(0, n_rows - 1), min_size=1, max_size=30)))
    needles = np.array(
        data.draw(
            st.lists(st.sampled_from([-3.0, -0.0, 0.0, 0.25, 1.0, 2.5, 9.0]), min_size=len(seg), max_size=len(seg))
        ),
        dtype=dtype,
    )
    from_row = np.array(data.draw(st.lists(st.booleans(), min_size=len(seg), max_size=len(seg))))
    columns = np.array(data.draw(st.lists(st.integers(0, width - 1), min_size=len(seg), max_size=len(seg))))
    needles = np.where(from_row, rows[seg, columns], needles).astype(dtype)  # the row's own values, as in use
    got = lists.count_before(rows.reshape(-1), seg * width, needles, width, inclusive=inclusive)
    side = "right" if inclusive else "left"
    want = [np.searchsorted(rows[r], x, side=side) for r, x in zip(seg, needles, strict=True)]
    assert got.tolist() == want
