"""ANN recall@k: hand-made ties and duplicates, brute force over small random sets, files and errors."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter


def _plain_recall(ann: list[int], q: list[float], base: list[list[float]], k: int) -> float:
    """The definition term by term: distinct vectors, the k-th distance among them, distinct hits within it."""
    dist = {tuple(x): sum((a - b) ** 2 for a, b in zip(x, q, strict=True)) for x in base}
    d_k = sorted(dist.values())[k - 1]
    hits = {tuple(base[i]) for i in ann[:k] if i >= 0 and dist[tuple(base[i])] <= d_k}
    return len(hits) / k


def _ann_benchmarks_recall(run_distances: list[float], exact_distances: list[float], k: int) -> float:
    """ann-benchmarks' knn recall: returned distances within the k-th exact distance + 1e-3."""
    return sum(d <= exact_distances[k - 1] + 1e-3 for d in run_distances[:k]) / k


def test_ten_copies_of_one_point_do_not_give_full_recall() -> None:
    base = [[1.0, 1.0]] * 10 + [[float(i), 0.0] for i in range(2, 30)]
    ann = [list(range(10))]
    res = rankmeter.ann_recall(ann, queries=[[1.0, 1.0]], base=base)
    assert res["ann_recall@10"] == 0.1
    assert res.metadata["duplicate_base_rows"] == 9
    # ann-benchmarks counts each copy: the exact list is the ten copies at distance 0
    assert _ann_benchmarks_recall([0.0] * 10, [0.0] * 10, 10) == 1.0


def _big_ann_recall(true_ids: list[int], true_dists: list[float], run_ids: list[int], k: int) -> float:
    """big-ann-benchmarks' count_ties rule, restated: the ids of the first k distance groups (1e-6 merged)."""
    groups: list[list[int]] = []
    first = None
    for i, d in zip(true_ids, true_dists, strict=True):
        if first is not None and abs(d - first) < 1e-6:
            groups[-1].append(i)
        else:
            groups.append([i])
            first = d
    truth = {i for g in groups[:k] for i in g}
    return len(truth & set(run_ids)) / k


def test_the_kth_distance_bounds_the_neighbourhood_where_big_ann_benchmarks_takes_k_groups() -> None:
    base = [[1.0, 0.0], [0.0, 1.0], [2.0, 0.0], [3.0, 0.0]]  # squared distances 1, 1, 4, 9 from (0, 0)
    res = rankmeter.ann_recall([[0, 2]], queries=[[0.0, 0.0]], base=base)
    assert res["ann_recall@2"] == 0.5
    assert _big_ann_recall([0, 1, 2, 3], [1.0, 1.0, 4.0, 9.0], [0, 2], 2) == 1.0


def test_points_at_exactly_the_kth_distance_count() -> None:
    base = [[0.0], [2.0], [-2.0], [3.0]]  # from 0.0: distances 0, 4, 4, 9
    res = rankmeter.ann_recall([[0, 2], [2, 3]], queries=[[0.0], [0.0]], base=base, k=2)
    assert res.by_query("ann_recall@2") == {"0": 1.0, "1": 0.5}
    assert res.metadata["queries_with_ties_at_k"] == 2


def test_missing_results_and_repeated_ids_count_once() -> None:
    base = [[0.0], [1.0], [2.0]]
    res = rankmeter.ann_recall([[0, 0, -1]], queries=[[0.0]], base=base)
    assert res["ann_recall@3"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("seed", range(8))
def test_brute_force_on_small_random_sets(seed: int) -> None:
    rng = np.random.default_rng(seed)
    base = rng.integers(-2, 3, size=(25, 2)).astype(float)  # many duplicates and equal distances
    queries = rng.integers(-2, 3, size=(6, 2)).astype(float)
    ann = rng.integers(-1, 25, size=(6, 5))
    for k in (1, 3, 5):
        res = rankmeter.ann_recall(ann, k, queries=queries, base=base)
        want = [_plain_recall(ann[i].tolist(), queries[i].tolist(), base.tolist(), k) for i in range(6)]
        assert res.values[:, 0].tolist() == pytest.approx(want, abs=1e-15)


def test_exact_lists_give_the_vectors_value_when_they_hold_the_ties() -> None:
    rng = np.random.default_rng(11)
    base = rng.integers(-3, 4, size=(40, 2)).astype(float)
    queries = rng.integers(-3, 4, size=(5, 2)).astype(float)
    ann = rng.integers(0, 40, size=(5, 4))
    dist = ((queries[:, None, :] - base[None, :, :]) ** 2).sum(-1)
    exact_ids = np.argsort(dist, axis=1, kind="stable")
    exact_d = np.take_along_axis(dist, exact_ids, axis=1)
    by_vectors = rankmeter.ann_recall(ann, queries=queries, base=base)
    by_lists = rankmeter.ann_recall(ann, exact_ids=exact_ids, exact_distances=exact_d, base=base)
    np.testing.assert_array_equal(by_vectors.values, by_lists.values)
    assert by_lists.metadata["mode"] == "lists"
    assert by_lists.metadata["queries_with_ties_at_k"] == by_vectors.metadata["queries_with_ties_at_k"]
    assert by_lists.metadata["lists_ending_at_kth_distance"] == 0
    assert by_lists.metadata["queries_undefined"] == by_vectors.metadata["queries_undefined"] == {}  # found / k
    head = rankmeter.ann_recall(ann, exact_ids=exact_ids[:, :4], exact_distances=exact_d[:, :4])
    assert head.metadata["lists_ending_at_kth_distance"] == 5  # four columns: every list ends at its 4th distance


def test_cosine_and_inner_product() -> None:
    base = [[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]]  # cosine: rows 0 and 1 tie at distance 0 from (1, 0)
    res = rankmeter.ann_recall([[1]], queries=[[1.0, 0.0]], base=base, metric="cosine")
    assert res["ann_recall@1"] == 1.0
    res = rankmeter.ann_recall([[0]], queries=[[1.0, 0.0]], base=base, metric="inner")  # row 1 is the best
    assert res["ann_recall@1"] == 0.0


def _write_ivecs(path: Path, rows: np.ndarray) -> None:
    n, d = rows.shape
    out = np.empty((n, d + 1), "<i4")
    out[:, 0] = d
    out[:, 1:] = rows
    path.write_bytes(out.tobytes())


def test_files_npy_ivecs_ibin_fvecs_fbin(tmp_path: Path) -> None:
    ann = np.array([[0, 1], [2, 1]])
    base = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 5.0]], dtype=np.float32)
    queries = np.array([[0.0, 0.0], [5.0, 5.0]], dtype=np.float32)
    _write_ivecs(tmp_path / "ann.ivecs", ann)
    (tmp_path / "ann.ibin").write_bytes(np.array(ann.shape, "<u4").tobytes() + ann.astype("<i4").tobytes())
    np.save(tmp_path / "ann.npy", ann)
    fvecs = np.concatenate([np.full((3, 1), 2, "<i4").view("<f4"), base], axis=1)
    (tmp_path / "base.fvecs").write_bytes(fvecs.astype("<f4").tobytes())
    (tmp_path / "q.fbin").write_bytes(np.array(queries.shape, "<u4").tobytes() + queries.astype("<f4").tobytes())
    want = rankmeter.ann_recall(ann, queries=queries, base=base).values
    for name in ("ann.ivecs", "ann.ibin", "ann.npy"):
        got = rankmeter.ann_recall(tmp_path / name, queries=tmp_path / "q.fbin", base=tmp_path / "base.fvecs")
        np.testing.assert_array_equal(got.values, want)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 3}, "k=3 but ann_ids has 2 columns"),
        ({"ann_ids": [[0, 7]]}, r"ann_ids\[0, 1\] = 7 is not a row of base \(0..2\) nor -1"),
        ({"queries": [[0.0], [1.0]]}, "ann_ids has 1 rows but queries has 2"),
        ({"ann_ids": [0, 1]}, r"ann_ids must have shape \(n_queries, k\), got shape \(2,\)"),
        ({"ann_ids": [[0.5, 1.0]]}, "ann_ids must hold integer ids, got dtype float64"),
        ({"base": [[1.0], [1.0], [1.0]]}, "k=2 but base holds only 1 distinct points"),
        ({"queries": None}, "give either queries= and base="),
        ({"base": None}, "queries= needs base="),
        ({"base": [0.0, 1.0]}, r"base must have shape \(n, dim\)"),
        ({"metric": "hamming"}, "metric 'hamming': ANN recall takes one of euclidean, cosine, inner"),
        ({"queries": [[0.0, 1.0]]}, "queries have 2 features"),
    ],
)
def test_bad_input_with_vectors(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"ann_ids": [[0, 1]], "queries": [[0.0]], "base": [[0.0], [1.0], [2.0]]} | kwargs
    with pytest.raises(rankmeter.RankmeterError, match=message):
        rankmeter.ann_recall(args.pop("ann_ids"), args.pop("k", None), **args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 2, "exact_ids": [[0]], "exact_distances": [[0.0]]}, "k=2 but exact_ids holds 1 neighbours per query"),
        ({"exact_distances": [[0.0]]}, r"exact_ids has shape \(1, 2\) but exact_distances has shape \(1, 1\)"),
        ({"exact_distances": [[1.0, 0.0]]}, "exact_distances row 0 is not in ascending order"),
        ({"exact_distances": None}, "exact_ids= needs exact_distances="),
        (
            {"exact_ids": [[0, 1], [1, 0]], "exact_distances": [[0.0, 1.0]] * 2},
            "ann_ids has 1 rows but exact_ids has 2",
        ),
        ({"base": [[0.0]], "k": 1}, r"ann_ids\[0, 0\] = 1 is not a row of base \(0..0\)"),
        ({"base": [[0.0], [0.0]]}, "k=2 but exact_ids row 0 holds 1 distinct points"),
    ],
)
def test_bad_input_with_exact_lists(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"exact_ids": [[0, 1]], "exact_distances": [[0.0, 1.0]]} | kwargs
    with pytest.raises(rankmeter.RankmeterError, match=message):
        rankmeter.ann_recall([[1, 0]], args.pop("k", None), **args)  # type: ignore[arg-type]


def test_bad_files(tmp_path: Path) -> None:
    (tmp_path / "bad.ibin").write_bytes(np.array([2, 2], "<u4").tobytes() + b"\0" * 4)
    with pytest.raises(rankmeter.InputFormatError, match=r"bad.ibin: the header says 2 x 2 values \(24 bytes\)"):
        rankmeter.ann_recall(tmp_path / "bad.ibin", queries=[[0.0]], base=[[0.0]])
    (tmp_path / "bad.ivecs").write_bytes(np.array([2, 1, 1, 3, 1, 1, 1], "<i4").tobytes())
    with pytest.raises(rankmeter.InputFormatError, match="bad.ivecs: 28 bytes are not whole rows of 2 values"):
        rankmeter.ann_recall(tmp_path / "bad.ivecs", queries=[[0.0]], base=[[0.0]])
    with pytest.raises(rankmeter.InputFormatError, match="ann_ids: file not found"):
        rankmeter.ann_recall(tmp_path / "none.npy", queries=[[0.0]], base=[[0.0]])
    (tmp_path / "x.txt").write_text("1 2\n")
    with pytest.raises(rankmeter.InputFormatError, match="unknown matrix format '.txt'"):
        rankmeter.ann_recall(tmp_path / "x.txt", queries=[[0.0]], base=[[0.0]])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4))
def test_recall_does_not_depend_on_the_order_of_base_rows(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    base = rng.integers(-2, 3, size=(12, 2)).astype(float)
    queries = rng.integers(-2, 3, size=(3, 2)).astype(float)
    ann = rng.integers(-1, 12, size=(3, 4))
    perm = rng.permutation(12)  # new row i holds old row perm[i]
    where = np.argsort(perm)
    moved = np.where(ann >= 0, where[np.maximum(ann, 0)], -1)
    first = rankmeter.ann_recall(ann, k, queries=queries, base=base)
    again = rankmeter.ann_recall(moved, k, queries=queries, base=base[perm])
    np.testing.assert_array_equal(first.values, again.values)


@pytest.mark.parametrize("metric", ["euclidean", "cosine", "inner"])
def test_blocks_of_queries_and_points_give_the_same_values(metric: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(4)
    base = rng.integers(-2, 3, size=(30, 3)).astype(float)
    queries = rng.integers(-2, 3, size=(9, 3)).astype(float)
    ann = rng.integers(-1, 30, size=(9, 5))
    whole = rankmeter.ann_recall(ann, queries=queries, base=base, metric=metric)
    module = importlib.import_module("rankmeter.agreement.ann")
    monkeypatch.setattr(module, "_BLOCK_ELEMENTS", 7)  # 2 points x 3 dims a block, 1 query a block
    blocks = rankmeter.ann_recall(ann, queries=queries, base=base, metric=metric)
    np.testing.assert_array_equal(whole.values, blocks.values)
    assert whole.metadata == blocks.metadata
