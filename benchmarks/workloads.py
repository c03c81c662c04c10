"""Deterministic benchmark workloads (no downloads): W1 MS MARCO-like, W2 TREC DL-like, W3 dense, W4 tiny."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

DATA = Path(os.environ.get("RANKMETER_BENCH_DATA", Path(__file__).parent / "data"))


def _write_trec(path: Path, qids: np.ndarray, docs: np.ndarray, ranks: np.ndarray, scores: np.ndarray) -> None:
    with open(path, "w") as fh:
        chunk = 500_000
        for s in range(0, len(qids), chunk):
            e = s + chunk
            lines = [
                f"{q} Q0 {d} {r} {sc:.6g} bench\n"
                for q, d, r, sc in zip(qids[s:e], docs[s:e], ranks[s:e], scores[s:e], strict=True)
            ]
            fh.writelines(lines)


def trec_workload(
    name: str, n_queries: int, depth: int, graded: bool, judged_per_query: int, seed: int
) -> tuple[Path, Path]:
    """Write (qrels, run) TREC files once; return their paths."""
    DATA.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = DATA / f"{name}.qrels", DATA / f"{name}.run"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    qids = np.repeat(np.arange(1000, 1000 + n_queries), depth).astype(str)
    doc_num = rng.integers(0, 8_000_000, size=n_queries * depth)
    docs = np.char.add("D", doc_num.astype(str))
    # make docs unique within each query
    docs = np.char.add(docs, np.char.add("_", np.tile(np.arange(depth), n_queries).astype(str)))
    ranks = np.tile(np.arange(1, depth + 1), n_queries)
    raw = -np.sort(-rng.gamma(2.0, 2.0, size=(n_queries, depth)), axis=1)
    scores = np.round(raw, 3).reshape(-1)  # rounding to 3 decimals gives a few % exact ties
    _write_trec(run_path, qids, docs, ranks, scores)
    with open(qrels_path, "w") as fh:
        for qi in range(n_queries):
            q = 1000 + qi
            picks = rng.choice(depth * 2, size=judged_per_query, replace=False)
            for p in picks:
                if p < depth:
                    d = docs[qi * depth + p]
                else:
                    d = f"U{qi}_{p}"  # judged, never retrieved
                if graded:
                    g = int(rng.choice([0, 0, 1, 2, 3]))
                else:
                    g = 1 if rng.random() < 1.5 / judged_per_query * 2 else 0
                fh.write(f"{q} 0 {d} {g}\n")
    return qrels_path, run_path


def w1() -> tuple[Path, Path]:
    """MS MARCO dev-like: 6,980 queries x 1,000 documents, 1-2 relevant, a few judged non-relevant."""
    return trec_workload("w1", 6980, 1000, graded=False, judged_per_query=4, seed=1)


def w1_copies(copies: int) -> tuple[Path, Path]:
    """W1 written ``copies`` times with query ids prefixed ``0.``, ``1.``, ...: a run of copies x 255 MB.

    Every copy holds W1's values under new query ids, so each copy's per-query
    values are W1's and the file's aggregates are W1's (up to the rounding of a longer sum).
    """
    qrels_path, run_path = DATA / f"w1x{copies}.qrels", DATA / f"w1x{copies}.run"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    source = w1()
    for src, dst in zip(source, (qrels_path, run_path), strict=True):
        data = src.read_bytes()
        partial = dst.with_suffix(".partial")
        with open(partial, "wb") as fh:
            for k in range(copies):
                prefix = f"{k}.".encode()
                fh.write(prefix + data[:-1].replace(b"\n", b"\n" + prefix) + b"\n")
        partial.rename(dst)
    return qrels_path, run_path


def w2() -> tuple[Path, Path]:
    """TREC DL-like: 200 queries x 1,000 documents, graded 0-3, ~200 judged per query."""
    return trec_workload("w2", 200, 1000, graded=True, judged_per_query=200, seed=2)


def w3(n_users: int = 20_000, n_items: int = 2_000, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Dense recommender: float32 scores and graded 0-5 labels, mostly zeros."""
    rng = np.random.default_rng(seed)
    scores = rng.random((n_users, n_items), dtype=np.float32)
    labels = np.where(rng.random((n_users, n_items)) < 0.02, rng.integers(1, 6, (n_users, n_items)), 0)
    return labels.astype(np.float64), scores


def w4() -> tuple[dict, dict]:
    """Tiny: 2 queries x 10 documents."""
    qrels = {"q1": {f"d{i}": i % 3 for i in range(10)}, "q2": {f"d{i}": (i + 1) % 2 for i in range(10)}}
    run = {q: {f"d{i}": float(10 - i) for i in range(10)} for q in ("q1", "q2")}
    return qrels, run
