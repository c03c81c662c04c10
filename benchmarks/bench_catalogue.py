"""Full-catalogue evaluation from user and item embeddings: time and peak memory of ``rankmeter.evaluate_embeddings``.

Two shapes, each with float32 64-d embeddings, ~20 seen (training) items per
user excluded and ~10 test items per user (grades 1-5) as the ground truth:

* ``scale``: 100,000 users x 50,000 items (a 5e9-score matrix, 20 GB as
  float32, never held: blocks of users are scored, ranked and measured);
* ``w5``: W5's shape, MovieLens-20M-like, 138,493 users x 26,744 items.

Each shape is evaluated once with ``ndcg@10, r@20, map@10, success@10``
(cutoffs only: the top of every row is selected) and once with ``ndcg, map``
(no cutoff: every relevant item at its exact rank among all items). The table
gives wall and CPU seconds (all threads), the peak resident memory of the
process (``resource.getrusage``; it includes the inputs) and the peak of the
memory NumPy allocated during the call (``tracemalloc``). The first
``--check`` users are evaluated again through ``evaluate_arrays`` on their
materialised scores, and the per-user values compared.

Run::

    nice python benchmarks/bench_catalogue.py                # both shapes
    nice python benchmarks/bench_catalogue.py --shape w5 --users 20000
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import tracemalloc
from typing import Any

import numpy as np
import scipy.sparse

import rankmeter

SHAPES = {"scale": (100_000, 50_000), "w5": (138_493, 26_744)}
MEASURE_SETS = (["ndcg@10", "r@20", "map@10", "success@10"], ["ndcg", "map"])


def interactions(n: int, m: int, seed: int, seen: int, test: int) -> tuple[Any, Any]:
    """(truth, seen): CSR matrices with ``test`` graded and ``seen`` binary items per user, disjoint."""
    rng = np.random.default_rng(seed)
    flat_seen = np.unique(np.repeat(np.arange(n, dtype=np.int64), seen) * m + rng.integers(0, m, n * seen))
    flat_test = np.unique(np.repeat(np.arange(n, dtype=np.int64), test) * m + rng.integers(0, m, n * test))
    flat_test = flat_test[~np.isin(flat_test, flat_seen, assume_unique=True)]

    def csr(flat: np.ndarray, values: np.ndarray) -> Any:
        return scipy.sparse.csr_array((values, (flat // m, flat % m)), shape=(n, m))

    grades = rng.integers(1, 6, len(flat_test)).astype(np.float32)
    return csr(flat_test, grades), csr(flat_seen, np.ones(len(flat_seen), dtype=np.float32))


def peak_rss_mb() -> float:
    """The process's peak resident memory so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(shape: str, n: int, m: int, args: argparse.Namespace) -> None:
    rng = np.random.default_rng(11)
    users = rng.standard_normal((n, args.dim), dtype=np.float32)
    items = rng.standard_normal((m, args.dim), dtype=np.float32)
    truth, seen = interactions(n, m, 12, args.seen, args.test)
    inputs_mb = (users.nbytes + items.nbytes + sum(x.data.nbytes + x.indices.nbytes for x in (truth, seen))) / 2**20
    print(f"\n## {shape}: {n:,} users x {m:,} items x {args.dim} dims (float32), {seen.nnz / n:.1f} seen items "
          f"excluded and {truth.nnz / n:.1f} test items per user\n")  # fmt: skip
    print(f"inputs: {inputs_mb:.0f} MB; the full score matrix would be {n * m * 4 / 2**30:.1f} GiB as float32; "
          f"peak RSS before the calls: {peak_rss_mb():.0f} MB\n")  # fmt: skip
    print("| measures | wall s | CPU s | users / s | peak RSS MB | NumPy peak during the call MB |")
    print("|---|---:|---:|---:|---:|---:|")
    results = []
    sets = MEASURE_SETS if args.sets == "both" else MEASURE_SETS[:1] if args.sets == "top" else MEASURE_SETS[1:]
    for measures in sets:
        tracemalloc.start()
        wall, cpu = time.perf_counter(), time.process_time()
        res = rankmeter.evaluate_embeddings(users, items, truth, measures, exclude=seen)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        traced = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        results.append(res)
        print(
            f"| {', '.join(measures)} | {wall:.1f} | {cpu:.1f} | {n / wall:,.0f} | {peak_rss_mb():.0f} | {traced:.0f} |"
        )
    print()
    for res in results:
        print("; ".join(f"{k} {v:.6f}" for k, v in res.aggregate.items()))
    print(f"items excluded: {results[0].metadata['items_excluded']:,}; "
          f"users left with no relevant item: {results[0].metadata['queries_relevant_all_excluded']}")  # fmt: skip
    k = min(args.check, n)
    if k:
        worst = 0.0
        for measures, res in zip(sets, results, strict=True):
            ref = rankmeter.evaluate_arrays(truth[:k].toarray(), users[:k] @ items.T, measures, exclude=seen[:k])
            worst = max(worst, float(np.max(np.abs(ref.values - res.values[:k]))))
        print(f"first {k:,} users through evaluate_arrays on their materialised scores: largest difference {worst:.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=[*SHAPES, "both"], default="both")
    parser.add_argument("--users", type=int, default=None, help="users (default: the shape's)")
    parser.add_argument("--items", type=int, default=None, help="items (default: the shape's)")
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--seen", type=int, default=20, help="seen items per user, excluded")
    parser.add_argument("--test", type=int, default=10, help="test items per user (the ground truth)")
    parser.add_argument("--check", type=int, default=2000, help="users checked against evaluate_arrays")
    parser.add_argument("--sets", choices=["both", "top", "exact"], default="both",
                        help="top: the measures with cutoffs only; exact: ndcg, map only")  # fmt: skip
    args = parser.parse_args()
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    print(f"# evaluate_embeddings, full catalogue\n\n{cpus} CPUs; load average (1 min) at the start: "
          f"{os.getloadavg()[0]:.1f}")  # fmt: skip
    for shape in SHAPES if args.shape == "both" else [args.shape]:
        n, m = SHAPES[shape]
        run(shape, args.users or n, args.items or m, args)
    print(f"\nload average (1 min) at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
