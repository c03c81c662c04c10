"""``exclude=`` / ``mask=`` on dense scores: the blocked paths against the list-by-list path and a brute force.

The brute force evaluates each row alone on the items left (``y[i, keep[i]]``),
so it goes through the unmasked dense code; the list-by-list path is
``flatten_dense`` + ``rank_flat_lists``, which ``evaluate_arrays`` used for
every mask before.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.core.lists import rank_dense, rank_dense_positives, rank_dense_top, rank_flat_lists
from rankmeter.errors import InputFormatError, InvalidScoreError, MeasureSyntaxError
from rankmeter.io.dense import flatten_dense
from rankmeter.io.exclude import from_mask, removed_items
from rankmeter.measures import FAMILIES, parse
from rankmeter.measures.diversity_families import NAMES
from rankmeter.pipeline import evaluate_ranked

TIES = ["expected", "stable", "trec", "optimistic", "pessimistic", "shuffle"]

# every family of the registry (diversity families read intent qrels: not dense; the beyond-accuracy ones read
# top-k lists, tests/beyond/test_entry_points.py), with cutoffs where they take them, and parameters that change
# which dense path is taken (min_rel <= 0 and gains at grade 0 need whole ideals)
RANKED = [f for f in FAMILIES if f not in NAMES and FAMILIES[f].reads != "lists"]
MEASURES = sorted(
    {f"{f}@[1,3,20]" for f in RANKED}
    | set(RANKED)
    | {"ndcg(gain=exp)@[2,5]", "p(min_rel=2)@4", "r(min_rel=0)@5", "ndcg(gain={0:1,1:2,2:4})", "map(min_rel=2)"}
)


def _usable(measure: str, ties: str) -> bool:
    """Whether ``measure`` is a whole name with values under ``ties``.

    Some families need a cutoff or a parameter (refused when parsed or by their kernel), some take none;
    under ``expected`` only the families with an exact expectation over tied orderings have values.
    """
    try:
        family = FAMILIES[parse(measure).family]
        rankmeter.evaluate_arrays([[1.0, 0.0]], [[0.5, 0.4]], [measure], ties="stable")
    except MeasureSyntaxError:
        return False
    return ties != "expected" or family.traits.expected_ties


def _data(seed: int, n: int = 40, m: int = 24) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Grades 0-2 (a third relevant), integer scores with many ties, and ~25% of the items removed."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, (n, m)).astype(np.float64) * (rng.random((n, m)) < 0.35)
    s = rng.integers(0, 6, (n, m)).astype(np.float64)
    removed = rng.random((n, m)) < 0.25
    removed[:, 0] = False  # every row keeps an item (rows without one have their own test)
    removed[3] = y[3] > 0  # a row whose relevant items are all removed
    return y, s, removed


def _slow(y: np.ndarray, s: np.ndarray, keep: np.ndarray, measures: list[str], ties: str, empty: str):
    return evaluate_ranked(rank_flat_lists(flatten_dense(y, s, keep), ties=ties, seed=7), measures, empty=empty)


def _by_row(y: np.ndarray, s: np.ndarray, keep: np.ndarray, measures: list[str], ties: str) -> np.ndarray:
    """Each row evaluated alone on its items left (empty='nan'), through the unmasked dense path."""
    rows = [
        rankmeter.evaluate_arrays(y[i, keep[i]][None], s[i, keep[i]][None], measures, ties=ties, empty="nan").values
        for i in range(len(y))
    ]
    return np.concatenate(rows)


def _same(a: np.ndarray, b: np.ndarray, atol: float = 1e-12) -> None:
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert np.allclose(np.nan_to_num(a), np.nan_to_num(b), rtol=0, atol=atol)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("form", ["sparse", "dense-exclude", "mask"])
def test_every_family_equals_the_list_by_list_path_and_a_brute_force(ties: str, form: str) -> None:
    measures = [m for m in MEASURES if _usable(m, ties)]
    assert len(measures) > 50
    y, s, removed = _data(1)
    arg = {"sparse": {"exclude": scipy.sparse.csr_array(removed)}, "dense-exclude": {"exclude": removed}}
    kwargs = arg.get(form, {"mask": ~removed})
    for chunk in range(0, len(measures), 20):  # a few measures at a time: each group takes its own dense path
        group = measures[chunk : chunk + 20]
        fast = rankmeter.evaluate_arrays(y, s, group, ties=ties, seed=7, empty="nan", **kwargs)
        slow = _slow(y, s, ~removed, group, ties, "nan")
        assert fast.measure_names == slow.measure_names
        _same(fast.values, slow.values)
        assert fast.metadata["queries_empty"] == slow.metadata["queries_empty"]
        if ties != "shuffle":  # each row alone draws other keys
            _same(fast.values, _by_row(y, s, ~removed, group, ties))


@pytest.mark.parametrize("ties", ["expected", "stable", "pessimistic"])
@pytest.mark.parametrize("measures", [["ndcg@5", "p@3", "success@2"], ["ndcg", "map", "rr"], ["ndcg@5", "map"]])
def test_each_dense_path_with_removed_items(ties: str, measures: list[str]) -> None:
    """Top-k selection, positives only and complete rows, with rows shorter than the cutoff once items go."""
    y, s, removed = _data(2, n=30, m=8)
    removed[5, 1:] = True  # one item left: shorter than every cutoff
    fast = rankmeter.evaluate_arrays(y, s, measures, ties=ties, exclude=scipy.sparse.coo_array(removed))
    slow = _slow(y, s, ~removed, measures, ties, "zero")
    _same(fast.values, slow.values)
    assert fast.aggregate == pytest.approx(slow.aggregate, abs=1e-12)


@pytest.mark.parametrize("ties", ["expected", "stable", "trec"])
def test_the_kernels_never_read_removed_scores_or_grades(ties: str) -> None:
    """Removed items may hold NaN or infinite scores and grades: they are neither ranked nor checked."""
    y, s, removed = _data(3, n=12, m=10)
    y[removed], s[removed] = np.nan, -np.inf
    y2, s2 = np.where(removed, 0.0, y), np.where(removed, 0.0, s)
    keep = ~removed
    r = from_mask(keep)
    top = rank_dense_top(y, s, 3, ties=ties, check_finite=True, removed=r)
    assert np.isfinite(top.scores).all()
    full = rank_dense(y, s, ties=ties, check_finite=True, removed=r)
    assert full.offsets.tolist() == np.concatenate(([0], np.cumsum(keep.sum(axis=1)))).tolist()
    ref = rank_flat_lists(flatten_dense(y2, s2, keep), ties=ties)
    assert full.grades.tolist() == ref.grades.tolist()
    assert full.group_starts.tolist() == ref.group_starts.tolist()
    if ties == "expected":
        pos = rank_dense_positives(y, s, check_finite=True, removed=r)
        assert pos.lengths.tolist() == keep.sum(axis=1).tolist()
    res = rankmeter.evaluate_arrays(y, s, ["ndcg@3", "map"], ties=ties, mask=keep)
    _same(res.values, _slow(y2, s2, keep, ["ndcg@3", "map"], ties, "zero").values)


def test_exclude_on_a_worked_example() -> None:
    """One user, five items; item 4 (score 70, grade 5) was seen in training."""
    y, s = [[10, 0, 0, 1, 5]], [[0.1, 0.2, 0.3, 4, 70]]
    seen = scipy.sparse.csr_array(([1], ([0], [4])), shape=(1, 5))
    res = rankmeter.evaluate_arrays(y, s, ["ndcg@2", "p@1", "r@2", "rr"], exclude=seen)
    # ranking left: item 3 (grade 1), item 2 (0), item 1 (0), item 0 (10); ideal: 10, 1
    dcg2 = 1 / np.log2(2)
    idcg2 = 10 / np.log2(2) + 1 / np.log2(3)
    assert res["ndcg@2"] == pytest.approx(dcg2 / idcg2, abs=1e-15)
    assert res["p@1"] == 1.0
    assert res["r@2"] == 0.5
    assert res["rr"] == 1.0
    assert res.metadata["semantics"]["candidates"] == "exclude"
    assert res.metadata["items_excluded"] == 1
    assert res.metadata["queries_relevant_all_excluded"] == 0


def test_counts_and_empty_rows_in_metadata() -> None:
    y = np.array([[1, 0, 2, 0], [0, 1, 0, 0], [0, 0, 0, 0]], dtype=float)
    s = np.array([[4, 3, 2, 1], [4, 3, 2, 1], [4, 3, 2, 1]], dtype=np.float32)
    seen = np.zeros((3, 4), dtype=bool)
    seen[0, [0, 2]] = True  # both relevant items of row 0
    seen[1, 0] = seen[2, 3] = True  # row 1 keeps its relevant item, now first
    for empty, want in (("zero", [0.0, 1.0, 0.0]), ("nan", [np.nan, 1.0, np.nan])):
        res = rankmeter.evaluate_arrays(y, s, "rr", exclude=seen, empty=empty)
        _same(res.values[:, 0], np.array(want))
        assert res.metadata["items_excluded"] == 4
        assert res.metadata["queries_relevant_all_excluded"] == 1
        assert res.metadata["queries_empty"] == 2
    skip = rankmeter.evaluate_arrays(y, s, "rr", exclude=scipy.sparse.csr_array(seen), empty="skip")
    assert skip["rr"] == 1.0 and skip.metadata["queries_relevant_all_excluded"] == 1
    both = rankmeter.evaluate_arrays(y, s, "rr", exclude=seen, mask=np.ones((3, 4), dtype=bool))
    assert both.metadata["semantics"]["candidates"] == "mask+exclude"


def test_a_row_with_nothing_left_follows_the_mask_rule() -> None:
    """A list with no item left gets weight 0 in the mean (the rule of mask=), on every path."""
    y, s, removed = _data(4, n=10, m=6)
    removed[2] = True
    for measures in (["ndcg@3"], ["ndcg", "map"], ["p@2", "fall_out"]):
        fast = rankmeter.evaluate_arrays(y, s, measures, exclude=scipy.sparse.csr_array(removed))
        slow = _slow(y, s, ~removed, measures, "expected", "zero")
        _same(fast.values, slow.values)
        assert fast.aggregate == pytest.approx(slow.aggregate, abs=1e-12)
        kept = rankmeter.evaluate_arrays(
            np.delete(y, 2, 0), np.delete(s, 2, 0), measures, mask=~np.delete(removed, 2, 0)
        )
        assert fast.aggregate == pytest.approx(kept.aggregate, abs=1e-12)


def test_a_mask_that_removes_nothing_is_the_unmasked_call() -> None:
    y, s, _ = _data(5)
    plain = rankmeter.evaluate_arrays(y, s, ["ndcg@5", "map"])
    for kwargs in ({"mask": np.ones(y.shape, dtype=bool)}, {"exclude": scipy.sparse.csr_array(y.shape)}):
        res = rankmeter.evaluate_arrays(y, s, ["ndcg@5", "map"], **kwargs)
        assert res.values.tolist() == plain.values.tolist()
        assert res.metadata["items_excluded"] == 0
    assert "candidates" not in plain.metadata["semantics"]


def test_sparse_entries_stored_as_zero_or_twice() -> None:
    """A stored 0 removes nothing; an entry stored twice removes its item once."""
    y = np.array([[1.0, 0.0, 1.0]])
    s = np.array([[0.9, 0.5, 0.1]])
    coo = scipy.sparse.coo_array(([1, 1, 0], ([0, 0, 0], [0, 0, 2])), shape=(1, 3))
    res = rankmeter.evaluate_arrays(y, s, ["rr", "r@1"], exclude=coo)
    assert res.metadata["items_excluded"] == 1
    assert res["rr"] == 0.5 and res["r@1"] == 0.0
    assert removed_items(None, coo, (1, 3)).flat.tolist() == [0]


def test_shuffle_with_exclude_draws_keys_for_the_items_left() -> None:
    y, s, removed = _data(6)
    fast = rankmeter.evaluate_arrays(y, s, ["ndcg@5", "map"], ties="shuffle", seed=3, exclude=removed)
    ragged = rankmeter.evaluate_lists(
        [y[i, ~removed[i]] for i in range(len(y))], [s[i, ~removed[i]] for i in range(len(y))],
        ["ndcg@5", "map"], ties="shuffle", seed=3,
    )  # fmt: skip
    _same(fast.values, ragged.values)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 12),
    m=st.integers(1, 15),
    seed=st.integers(0, 2**32 - 1),
    share=st.floats(0.0, 0.9),
    ties=st.sampled_from(TIES[:-1]),
)
def test_property_exclude_equals_removing_the_items_by_hand(n: int, m: int, seed: int, share: float, ties: str) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, (n, m)).astype(float)
    s = rng.integers(0, 4, (n, m)).astype(np.float32)
    removed = rng.random((n, m)) < share
    removed[:, rng.integers(0, m)] = False
    measures = ["ndcg@3", "map", "p@2", "r@4", "rr", "fall_out", "auroc"]
    for arg in (scipy.sparse.csr_array(removed), removed):
        fast = rankmeter.evaluate_arrays(y, s, measures, ties=ties, exclude=arg, empty="nan")
        _same(fast.values, _by_row(y, s, ~removed, measures, ties))
        emptied = (y > 0).any(axis=1) & ~((y > 0) & ~removed).any(axis=1)
        assert fast.metadata["queries_relevant_all_excluded"] == int(emptied.sum())
        assert fast.metadata["items_excluded"] == int(removed.sum())


def test_bad_exclude_arguments_are_located() -> None:
    y, s = np.zeros((2, 3)), np.zeros((2, 3))
    with pytest.raises(
        InputFormatError, match=r"exclude has shape \(2, 4\), expected \(2, 3\) \(the shape of y_score\)"
    ):
        rankmeter.evaluate_arrays(y, s, "rr", exclude=scipy.sparse.csr_array((2, 4)))
    with pytest.raises(InputFormatError, match=r"exclude has shape \(3, 3\), expected \(2, 3\)$"):
        rankmeter.evaluate_arrays(y, s, "rr", exclude=np.zeros((3, 3), dtype=bool))
    with pytest.raises(InputFormatError, match=r"exclude must be boolean or a scipy.sparse matrix, got dtype int64"):
        rankmeter.evaluate_arrays(y, s, "rr", exclude=np.zeros((2, 3), dtype=np.int64))
    with pytest.raises(InputFormatError, match=r"mask must be boolean, got dtype float64"):
        rankmeter.evaluate_arrays(y, s, "rr", mask=np.ones((2, 3)), exclude=scipy.sparse.csr_array((2, 3)))


def test_non_finite_values_are_named_once_without_a_chained_traceback() -> None:
    y, s = np.zeros((3, 4)), np.ones((3, 4))
    s[1, 2] = -np.inf
    with pytest.raises(
        InvalidScoreError, match=r"^y_score\[1, 2\] is -inf; values must be finite numbers \(to leave items out"
    ) as info:
        rankmeter.evaluate_arrays(y, s, "ndcg@2")
    assert info.value.__context__ is None and info.value.__cause__ is None
    s[1, 2] = np.nan
    with pytest.raises(InvalidScoreError, match=r"^y_score\[1, 2\] is nan; values must be finite numbers$") as info:
        rankmeter.evaluate_arrays(y, s, "map", exclude=scipy.sparse.csr_array(([True], ([0], [1])), shape=(3, 4)))
    assert info.value.__context__ is None
    # the same value on a removed item is never read
    res = rankmeter.evaluate_arrays(y, s, "map", exclude=scipy.sparse.csr_array(([True], ([1], [2])), shape=(3, 4)))
    assert res.metadata["items_excluded"] == 1


def test_masks_take_the_blocked_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mask or exclude= ranks through rank_dense_positives / rank_dense_top / rank_dense, never list by list."""
    evaluate_module = importlib.import_module("rankmeter.by_arrays")

    calls: list[str] = []

    def counted(name: str, fn):  # noqa: ANN001, ANN202
        def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            calls.append(name)
            return fn(*args, **kwargs)

        return wrapper

    for name in ("rank_dense_positives", "rank_dense_top", "rank_dense", "rank_flat_lists"):
        monkeypatch.setattr(evaluate_module, name, counted(name, getattr(evaluate_module, name)))
    y, s, removed = _data(7)
    rankmeter.evaluate_arrays(y, s, ["ndcg", "map"], mask=~removed)
    rankmeter.evaluate_arrays(y, s, ["ndcg@5"], exclude=scipy.sparse.csr_array(removed))
    rankmeter.evaluate_arrays(y, s, ["fall_out"], ties="stable", exclude=removed)
    rankmeter.evaluate_arrays(y, s, ["ndcg"], mask=np.ones(y.shape, dtype=bool))
    assert calls == ["rank_dense_positives", "rank_dense_top", "rank_dense", "rank_dense_positives"]
    calls.clear()
    rankmeter.evaluate_arrays(y, s, ["ndcg"], ties="shuffle", exclude=removed)  # keys drawn for the items left
    assert calls == ["rank_flat_lists"]


@pytest.mark.parametrize("library", ["torch", "jax"])
def test_exclude_on_the_array_api_device_path(library: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Torch and JAX rows evaluated by the array-API kernels: exclude= joins the mask there, same values."""
    monkeypatch.setenv("RANKMETER_ARRAY_API", "device")
    y, s, removed = _data(8, n=20, m=12)
    keep = np.ones(y.shape, dtype=bool)
    keep[1, :3] = False
    if library == "torch":
        import torch

        yt, st_, kt = torch.asarray(y), torch.asarray(s), torch.asarray(keep)
    else:
        import jax.numpy as jnp

        yt, st_, kt = jnp.asarray(y, dtype=jnp.float32), jnp.asarray(s, dtype=jnp.float32), jnp.asarray(keep)
    measures = ["ndcg@5", "map", "rr", "p@3"]
    ref = rankmeter.evaluate_arrays(y, s, measures, mask=keep, exclude=scipy.sparse.csr_array(removed))
    for kwargs in ({"exclude": scipy.sparse.csr_array(removed), "mask": kt}, {"exclude": removed, "mask": kt}):
        res = rankmeter.evaluate_arrays(yt, st_, measures, **kwargs)
        assert res.metadata["array_api"]["path"] == "device"
        _same(res.values, ref.values, 1e-12 if library == "torch" else 1e-6)  # JAX computes in float32 here
        for key in ("items_excluded", "queries_relevant_all_excluded", "queries_empty"):
            assert res.metadata[key] == ref.metadata[key], key
        assert res.metadata["semantics"]["candidates"] == "mask+exclude"


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 6),
    m=st.integers(1, 1500),
    k=st.integers(1, 30),
    levels=st.sampled_from([3, 50, 10**6]),
    removed=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    order=st.sampled_from(["random", "ascending", "descending"]),
)
def test_top_items_are_every_item_at_least_the_kth_score(
    n: int, m: int, k: int, levels: int, removed: float, seed: int, order: str
) -> None:
    """The sampled lower bound never loses an item of the top k: ties, removed items, sorted rows."""
    from rankmeter.core.lists import top_items

    k = min(k, m)
    rng = np.random.default_rng(seed)
    s = rng.integers(0, levels, (n, m)).astype(np.float32)
    if order != "random":
        s.sort(axis=1)
        if order == "descending":
            s = s[:, ::-1].copy()
    kth = np.sort(s, axis=1)[:, m - k]
    assert top_items(s, k).tolist() == np.flatnonzero(s >= kth[:, None]).tolist()
    gone = rng.random((n, m)) < removed
    left = np.where(gone, -np.inf, s)
    kth = np.sort(left, axis=1)[:, m - k]
    want = np.flatnonzero((left >= kth[:, None]) & ~gone).tolist()
    for form in (from_mask(~gone), removed_items(None, scipy.sparse.csr_array(gone), (n, m))):
        s_read = np.where(gone, np.float32(levels + 1), s)  # a removed item's own score is never read
        assert top_items(s_read, k, form).tolist() == want


def test_a_mask_that_is_a_transposed_view() -> None:
    """A mask that is not C-contiguous (a transposed array) removes the same items, with exclude= too."""
    y, s, removed = _data(9, n=20, m=20)
    keep_t = np.ascontiguousarray((~removed).T).T  # the same values, Fortran order
    extra = np.zeros_like(removed)
    extra[:, 1] = True
    ref = _slow(y, s, ~removed & ~extra, ["ndcg", "p@3"], "expected", "zero")
    res = rankmeter.evaluate_arrays(y, s, ["ndcg", "p@3"], mask=keep_t, exclude=scipy.sparse.csr_array(extra))
    _same(res.values, ref.values)


def test_top_items_selects_among_sampled_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Long rows take the sampled path, with and without removed items (its candidates are padded once)."""
    from rankmeter.core import lists

    widths: list[int] = []
    pad = lists._pad_rows

    def counted(values, counts, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        widths.append(int(counts.max()))
        return pad(values, counts, *args, **kwargs)

    monkeypatch.setattr(lists, "_pad_rows", counted)
    s = np.random.default_rng(0).random((4, 3000))
    gone = np.zeros(s.shape, dtype=bool)
    gone[:, np.argsort(-s[0])[:5]] = True  # the five best items of row 0 are removed
    kth = np.sort(np.where(gone, -np.inf, s), axis=1)[:, -10]
    want = np.flatnonzero((s >= kth[:, None]) & ~gone).tolist()
    assert lists.top_items(s, 10, removed_items(None, scipy.sparse.csr_array(gone), s.shape)).tolist() == want
    assert lists.top_items(s, 10, from_mask(~gone)).tolist() == want
    assert len(widths) == 2 and max(widths) < 3000 // 4


@pytest.mark.parametrize("measures", [["ndcg@10", "p@5"], ["ndcg", "map"], ["ndcg@10", "ndcg", "auroc"]])
def test_a_mask_removing_few_items_equals_the_sparse_exclude_across_blocks(
    measures: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mask removing 1% of the items, long rows in many blocks: the values and counts of exclude= and of a by-hand removal."""
    from rankmeter.core import lists

    monkeypatch.setattr(lists, "EVALUATION_BLOCK_ITEMS", 30 * 700)
    monkeypatch.setattr(lists, "BLOCK_ITEMS", 7 * 700)
    rng = np.random.default_rng(11)
    n, m = 200, 700
    y = np.where(rng.random((n, m)) < 0.01, rng.integers(1, 4, (n, m)), 0).astype(np.float64)
    s = rng.random((n, m), dtype=np.float32)
    gone = rng.random((n, m)) < 0.01
    gone[5] |= y[5] > 0  # lists that lose every relevant item, in different blocks
    gone[77] |= y[77] > 0
    gone[150] |= y[150] > 0
    keep = ~gone
    masked = rankmeter.evaluate_arrays(y, s, measures, mask=keep, empty="nan")
    sparse = rankmeter.evaluate_arrays(y, s, measures, exclude=scipy.sparse.csr_array(gone), empty="nan")
    assert masked.values.tobytes() == sparse.values.tobytes()
    _same(masked.values, _by_row(y, s, keep, measures, "expected"))
    emptied = (y > 0).any(axis=1) & ~((y > 0) & keep).any(axis=1)
    assert int(emptied.sum()) >= 3
    for res in (masked, sparse):
        assert res.metadata["items_excluded"] == int(gone.sum())
        assert res.metadata["queries_relevant_all_excluded"] == int(emptied.sum())
