"""Precision-recall curves (by Hamming radius, by rank) and precision@k curves."""

from __future__ import annotations

import numpy as np
import pytest

from rankmeter.errors import PolicyError
from rankmeter.vectors import evaluate_vectors, hamming_distance, pr_curve, precision_at_k_curve, relevance_matrix


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(21)
    q = rng.choice([-1, 1], size=(30, 10))
    db = rng.choice([-1, 1], size=(200, 10))
    ql = (rng.random((30, 5)) < 0.25).astype(int)
    dl = (rng.random((200, 5)) < 0.25).astype(int)
    return q, db, ql, dl


@pytest.mark.parametrize("empty", ["zero", "skip"])
def test_radius_curve_matches_direct_counts(data, empty: str) -> None:
    q, db, ql, dl = data
    dist, rel = hamming_distance(q, db), relevance_matrix(ql, dl) > 0
    has_rel = rel.any(axis=1)
    keep = has_rel if empty == "skip" else np.ones(len(q), dtype=bool)
    curve = pr_curve(q, db, query_labels=ql, database_labels=dl, empty=empty, batch_size=7)
    assert curve.kind == "radius" and curve.x.tolist() == list(range(11))
    assert curve.n_queries == int(keep.sum())
    for r in range(11):
        inside = dist <= r
        n_in = inside.sum(axis=1)
        hits = (inside & rel).sum(axis=1)
        p = np.where(n_in > 0, hits / np.maximum(n_in, 1), 0.0)
        rc = np.where(has_rel, hits / np.maximum(rel.sum(axis=1), 1), 0.0)
        assert curve.precision[r] == pytest.approx(p[keep].mean(), abs=1e-12)
        assert curve.recall[r] == pytest.approx(rc[keep].mean(), abs=1e-12)
        assert curve.retrieved[r] == pytest.approx(n_in[keep].mean(), abs=1e-12)
    assert curve.recall[-1] == pytest.approx(has_rel[keep].mean())


def test_radius_curve_equals_radius_measures(data) -> None:
    q, db, ql, dl = data
    curve = pr_curve(q, db, query_labels=ql, database_labels=dl)
    res = evaluate_vectors(q, db, [], query_labels=ql, database_labels=dl, radius=range(11))
    for r in range(11):
        assert res[f"p(radius={r})"] == pytest.approx(curve.precision[r], abs=1e-12)
        assert res[f"r(radius={r})"] == pytest.approx(curve.recall[r], abs=1e-12)


@pytest.mark.parametrize(
    ("metric", "ties"),
    [("hamming", "expected"), ("hamming", "optimistic"), ("hamming", "stable"), ("euclidean", "expected")],
)
def test_rank_curve_equals_p_and_r_at_k(data, metric: str, ties: str) -> None:
    q, db, ql, dl = data
    ks = [1, 2, 5, 17, 100, 200, 250]
    curve = precision_at_k_curve(
        q, db, query_labels=ql, database_labels=dl, ks=ks, metric=metric, ties=ties, batch_size=4, exclude_self=False
    )
    assert curve.kind == "rank" and curve.x.tolist() == ks
    res = evaluate_vectors(q, db, [f"p@{ks}", f"r@{ks}"], query_labels=ql, database_labels=dl, metric=metric, ties=ties)
    for i, k in enumerate(ks):
        assert curve.precision[i] == pytest.approx(res[f"p@{k}"], abs=1e-12)
        assert curve.recall[i] == pytest.approx(res[f"r@{k}"], abs=1e-12)
    assert curve.retrieved.tolist() == [min(k, 200) for k in ks]


def test_rank_curve_defaults_to_every_k_and_exclude_self(data) -> None:
    _, db, _, dl = data
    curve = pr_curve(db[:40], db, query_labels=dl[:40], database_labels=dl, by="rank", exclude_self=True)
    assert curve.x.tolist() == list(range(1, 201))
    res = evaluate_vectors(
        db[:40], db, ["p@[1,50,199,200]", "r@199"], query_labels=dl[:40], database_labels=dl, exclude_self=True
    )
    for k in (1, 50, 199, 200):
        assert curve.precision[k - 1] == pytest.approx(res[f"p@{k}"], abs=1e-12)
    assert curve.recall[198] == pytest.approx(res["r@199"], abs=1e-12)
    assert np.all(np.diff(curve.recall) >= -1e-15)  # recall@k never decreases


def test_curve_errors(data) -> None:
    q, db, ql, dl = data
    with pytest.raises(PolicyError, match="a curve by Hamming radius needs metric='hamming'"):
        pr_curve(q, db, query_labels=ql, database_labels=dl, metric="cosine", by="radius")
    with pytest.raises(PolicyError, match="ks must be positive integers"):
        precision_at_k_curve(q, db, query_labels=ql, database_labels=dl, ks=[0, 5])
    with pytest.raises(PolicyError, match="curves take empty='zero' or 'skip'"):
        pr_curve(q, db, query_labels=ql, database_labels=dl, empty="nan")
    with pytest.raises(PolicyError, match="by must be 'radius' or 'rank'"):
        pr_curve(q, db, query_labels=ql, database_labels=dl, by="score")
