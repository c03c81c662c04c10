"""Layer 2: external oracles and the core's own path.

- scikit-learn's tie-averaged ``ndcg_score`` (linear gain, ideal from the row)
  on relevance vs minus the distance: the same semantics as ``ndcg@k`` here;
- the NumPy script of R7's tutorial (docs/reference-values.md: ``np.argsort`` of the distance,
  made stable) for ``ties="stable"``;
- the core's dense entry point ``evaluate_arrays`` on the materialised grade and
  distance matrices, for every measure family and tie policy: the Hamming bucket
  path must equal the general (sorting) path to 1e-9;
- the row-wise ranking of the general path equals ``rank_flat_lists``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as sklearn_metrics

from rankmeter import evaluate_arrays
from rankmeter.core.lists import rank_flat_lists
from rankmeter.io.dense import FlatLists
from rankmeter.vectors import evaluate_vectors, hamming_distance, relevance_matrix
from rankmeter.vectors.distances import prepare_features, score_block
from rankmeter.vectors.ranking import rank_block


def _hash_data(rng: np.random.Generator, n_q: int, n_d: int, bits: int, n_labels: int):
    q = rng.choice([-1, 1], size=(n_q, bits))
    db = rng.choice([-1, 1], size=(n_d, bits))
    ql = (rng.random((n_q, n_labels)) < 0.3).astype(int)
    dl = (rng.random((n_d, n_labels)) < 0.3).astype(int)
    return q, db, ql, dl


# --- scikit-learn --------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 3, 10, 50, None])
def test_sklearn_ndcg_score_tie_averaged(k: int | None) -> None:
    rng = np.random.default_rng(11)
    q, db, ql, dl = _hash_data(rng, 40, 120, 8, 5)
    grades = relevance_matrix(ql, dl)
    dist = hamming_distance(q, db)
    name = "ndcg" if k is None else f"ndcg@{k}"
    res = evaluate_vectors(q, db, name, query_labels=ql, database_labels=dl)
    want = sklearn_metrics.ndcg_score(grades, -dist, k=k, ignore_ties=False)
    assert res[name] == pytest.approx(want, abs=1e-12)
    # per query too (sklearn gives 0 to a query without relevant items, as empty="zero")
    for i in range(0, 40, 7):
        one = sklearn_metrics.ndcg_score(grades[i : i + 1], -dist[i : i + 1], k=k, ignore_ties=False)
        assert res.by_query(name)[str(i)] == pytest.approx(one, abs=1e-12)


def test_sklearn_exp_gain_and_euclidean() -> None:
    """Exponential gain = scikit-learn on y_true = 2^rel - 1; Euclidean distance on integer features."""
    rng = np.random.default_rng(12)
    q = rng.integers(-2, 3, size=(30, 4)).astype(float)
    db = rng.integers(-2, 3, size=(90, 4)).astype(float)
    ql, dl = rng.integers(0, 4, size=30), rng.integers(0, 4, size=90)
    grades = relevance_matrix(ql, dl)
    sq = ((q[:, None, :] - db[None, :, :]) ** 2).sum(axis=2)
    res = evaluate_vectors(q, db, "ndcg(gain=exp)@[5,20]", query_labels=ql, database_labels=dl, metric="euclidean")
    for k in (5, 20):
        want = sklearn_metrics.ndcg_score(2.0**grades - 1.0, -sq, k=k, ignore_ties=False)
        assert res[f"ndcg(gain=exp)@{k}"] == pytest.approx(want, abs=1e-12)
    assert res.metadata["queries_with_ties"] > 0  # integer features tie often


# --- a seed-style NumPy script ------------------------------------------------------------------
def seed_multi_ndcg(dist: np.ndarray, rel: np.ndarray, ks: list[int]) -> np.ndarray:
    """R7's tutorial's ``multi_nDCG`` (docs/reference-values.md; gain 2^rel - 1, log2 discount), with a stable argsort."""
    n, m = dist.shape
    gains = 2.0**rel - 1
    disc = np.log2(2 + np.arange(m))
    rank = np.argsort(dist, axis=1, kind="stable")
    out = np.zeros(len(ks))
    for g, rnk in zip(gains, rank, strict=True):
        g_desc = np.sort(g)[::-1]
        if g_desc[0] == 0:
            continue
        best = (g_desc / disc).cumsum()
        got = (g[rnk] / disc).cumsum()
        for i, k in enumerate(ks):
            out[i] += got[k - 1] / best[k - 1]
    return out / n


def seed_map(dist: np.ndarray, rel: np.ndarray) -> float:
    """Hashing-paper mAP over the whole ranking (binary rel > 0), stable argsort; 0 for queries without positives."""
    aps = []
    for d, r in zip(dist, rel, strict=True):
        hit = (r[np.argsort(d, kind="stable")] > 0).astype(float)
        n_rel = hit.sum()
        prec = np.cumsum(hit) / np.arange(1, len(hit) + 1)
        aps.append((prec * hit).sum() / n_rel if n_rel else 0.0)
    return float(np.mean(aps))


@pytest.mark.parametrize("metric", ["hamming", "euclidean"])
def test_stable_matches_seed_style_script(metric: str) -> None:
    rng = np.random.default_rng(13)
    if metric == "hamming":
        q, db, ql, dl = _hash_data(rng, 25, 80, 6, 4)
        dist = (q.shape[1] - q @ db.T) // 2  # the seed's hamming()
    else:
        q = rng.integers(-1, 2, size=(25, 3)).astype(float)
        db = rng.integers(-1, 2, size=(80, 3)).astype(float)
        ql, dl = (rng.random((25, 4)) < 0.3).astype(int), (rng.random((80, 4)) < 0.3).astype(int)
        dist = (q**2).sum(1)[:, None] - 2 * q @ db.T + (db**2).sum(1)[None, :]  # the seed's euclidean()
    rel = ql @ dl.T
    ks = [1, 5, 10, 80]
    res = evaluate_vectors(
        q, db, ["ndcg(gain=exp)@[1,5,10,80]", "map"], query_labels=ql, database_labels=dl, metric=metric, ties="stable"
    )
    want = seed_multi_ndcg(dist, rel, ks)
    for i, k in enumerate(ks):
        assert res[f"ndcg(gain=exp)@{k}"] == pytest.approx(want[i], abs=1e-12)
    assert res["map"] == pytest.approx(seed_map(dist, rel), abs=1e-12)


# --- the core's dense path ----------------------------------------------------------------------
ALL_FAMILIES = [
    "ndcg",
    "ndcg@[1,3,5,20]",
    "ndcg(gain=exp)@[2,7]",
    "ndcg(discount=jarvelin(2))@5",
    "ndcg(ideal=retrieved)@3",
    "dcg@4",
    "idcg@4",
    "cg@3",
    "map",
    "map@[1,4,9]",
    "map(min_rel=2)@5",
    "wap",
    "wap@[3,10]",
    "p@[1,3,8]",
    "p(min_rel=2)@3",
    "r",
    "r@[2,5]",
    "f1@[3]",
    "rprec",
    "acg@[1,4]",
    "rr",
    "rr@[2,5]",
    "success@[1,3]",
    "judged@[5,30]",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
]


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "stable"])
def test_every_family_equals_the_dense_core_path(ties: str) -> None:
    """Bucket path (expected/optimistic/pessimistic) and sorting path (stable) vs evaluate_arrays."""
    rng = np.random.default_rng(14)
    worst = 0.0
    for trial in range(60):
        bits = int(rng.integers(2, 9))
        n_q, n_d = int(rng.integers(1, 6)), int(rng.integers(1, 25))
        q, db, ql, dl = _hash_data(rng, n_q, n_d, bits, int(rng.integers(1, 5)))
        exclude = bool(trial % 3 == 0) and n_q <= n_d
        if exclude:
            q, ql = db[:n_q].copy(), dl[:n_q].copy()
        mask = None
        if exclude:
            mask = np.ones((n_q, n_d), dtype=bool)
            mask[np.arange(n_q), np.arange(n_q)] = False
        grades, dist = relevance_matrix(ql, dl), hamming_distance(q, db)
        res = evaluate_vectors(
            q, db, ALL_FAMILIES, query_labels=ql, database_labels=dl, ties=ties, exclude_self=exclude, empty="nan"
        )
        ref = evaluate_arrays(grades, -dist.astype(float), ALL_FAMILIES, ties=ties, mask=mask, empty="nan")
        assert res.measure_names == ref.measure_names
        assert np.array_equal(np.isnan(res.values), np.isnan(ref.values))
        worst = max(worst, float(np.nanmax(np.abs(res.values - ref.values), initial=0.0)))
        for key in ("queries_empty", "queries_with_ties", "queries_with_ties_at_cutoff"):
            assert res.metadata[key] == ref.metadata[key], key
        path = "sort" if ties == "stable" else "bucket"
        assert set(res.metadata["paths"].values()) == {path}
    assert worst < 1e-9


@pytest.mark.parametrize("metric", ["cosine", "euclidean", "inner"])
@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "stable"])
def test_float_metrics_equal_the_dense_core_path(metric: str, ties: str) -> None:
    rng = np.random.default_rng(15)
    measures = ["ndcg@[1,3,20]", "map", "map@4", "wap@5", "p@3", "r@5", "acg@2", "rr", "success@2", "rprec"]
    topk = ["ndcg@[1,3,20]", "ndcg(ideal=retrieved)@4", "map@4", "wap@5", "p@3", "r@5", "acg@2", "rr@3", "success@2"]
    for _ in range(15):
        n_q, n_d = int(rng.integers(1, 8)), int(rng.integers(1, 30))
        q = rng.integers(-2, 3, size=(n_q, 3)).astype(float)
        db = rng.integers(-2, 3, size=(n_d, 3)).astype(float)
        ql, dl = rng.integers(0, 3, size=n_q), rng.integers(0, 3, size=n_d)
        fq, fd = prepare_features(q, db, metric)
        scores = score_block(fq, fd, metric, 0, n_q)
        grades = relevance_matrix(ql, dl)
        exclude = bool(rng.integers(0, 2))
        mask = np.ones((n_q, n_d), dtype=bool)
        if exclude:
            i = np.arange(min(n_q, n_d))
            mask[i, i] = False
        for ms in (measures, topk):  # topk: the general path keeps only the top of each row
            res = evaluate_vectors(
                q,
                db,
                ms,
                query_labels=ql,
                database_labels=dl,
                metric=metric,
                ties=ties,
                empty="nan",
                batch_size=int(rng.integers(1, 4)),
                exclude_self=exclude,
            )
            ref = evaluate_arrays(grades, scores, ms, ties=ties, empty="nan", mask=mask)
            assert np.array_equal(np.isnan(res.values), np.isnan(ref.values))
            assert np.nanmax(np.abs(res.values - ref.values), initial=0.0) < 1e-9
            assert res.metadata["queries_with_ties_at_cutoff"] == ref.metadata["queries_with_ties_at_cutoff"]


@pytest.mark.parametrize("ties", ["stable", "expected", "optimistic", "pessimistic"])
def test_rank_block_equals_rank_flat_lists(ties: str) -> None:
    rng = np.random.default_rng(16)
    for _ in range(20):
        b, n = int(rng.integers(1, 6)), int(rng.integers(1, 40))
        key = rng.integers(0, 5, size=(b, n)).astype(np.uint8)
        grades = rng.integers(-1, 3, size=(b, n)).astype(float)
        mine = rank_block(key, grades, ties=ties, query_rows=np.arange(b))
        flat = FlatLists(
            np.arange(b + 1) * n, grades.reshape(-1), -key.reshape(-1).astype(float), np.tile(np.arange(n), b), None
        )
        core = rank_flat_lists(flat, ties=ties)
        for field in ("offsets", "grades", "scores", "group_starts", "ideal_offsets", "ideal_grades"):
            assert np.array_equal(getattr(mine, field), getattr(core, field)), field
