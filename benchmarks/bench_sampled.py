"""What ``sampled_negatives=`` costs: the exact expected sampled value against the full-catalogue call alone.

Two inputs, each timed side by side in one process (the full-catalogue call
alone, then the same call with ``sampled_negatives=``, which computes both):

* ``embeddings``: ``evaluate_embeddings`` with float32 64-d embeddings, ~20
  seen items per user excluded and ~10 test items per user (W5-like: 26,744
  items; ``--users`` users);
* ``ties``: ``evaluate_arrays`` on integer popularity scores shared by every
  user (large tied groups: the closed form's costliest case), 5 relevant
  items per user.

Each row gives the best of ``--repeats`` wall times and the ratio.

Run::

    nice python benchmarks/bench_sampled.py
    nice python benchmarks/bench_sampled.py --users 20000 --negatives 100
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse

import rankmeter


def best(call: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """The shortest wall time of ``repeats`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return min(times), result


def pairs(rng: np.random.Generator, n: int, m: int, k: int) -> Any:
    """A binary users x items CSR matrix with about ``k`` items per user."""
    flat = np.unique(np.repeat(np.arange(n, dtype=np.int64), k) * m + rng.integers(0, m, n * k))
    return scipy.sparse.csr_array((np.ones(len(flat)), (flat // m, flat % m)), shape=(n, m))


def embeddings(args: argparse.Namespace, measures: list[str]) -> None:
    rng = np.random.default_rng(0)
    n, m = args.users, args.items
    users = rng.standard_normal((n, 64), dtype=np.float32)
    items = rng.standard_normal((m, 64), dtype=np.float32)
    test, seen = pairs(rng, n, m, 10), pairs(rng, n, m, 20)
    seen = (seen - seen.multiply(test)).tocsr()
    seen.eliminate_zeros()

    def call(**kw: Any) -> Any:
        return rankmeter.evaluate_embeddings(users, items, test, measures, exclude=seen, threads=1, **kw)

    full_s, full = best(call, args.repeats)
    sampled_s, sampled = best(lambda: call(sampled_negatives=args.negatives, sampling=args.sampling), args.repeats)
    print(f"| embeddings {n:,} x {m:,} | {', '.join(measures)} | {full_s:.1f} | {sampled_s:.1f} | "
          f"{sampled_s / full_s:.2f} |")  # fmt: skip
    assert sampled.metadata["full_catalogue"] == full.aggregate


def ties(args: argparse.Namespace, measures: list[str]) -> None:
    rng = np.random.default_rng(1)
    n, m = args.tie_users, 5000
    y = np.zeros((n, m))
    y[np.repeat(np.arange(n), 5), rng.integers(0, m, 5 * n)] = 1.0
    popularity = np.floor(rng.pareto(1.5, m) * 3)  # integer popularity: thousands of items tied at 0
    s = np.tile(popularity, (n, 1))

    def call(**kw: Any) -> Any:
        return rankmeter.evaluate_arrays(y, s, measures, **kw)

    full_s, _ = best(call, args.repeats)
    sampled_s, _ = best(lambda: call(sampled_negatives=args.negatives, sampling=args.sampling), args.repeats)
    print(f"| tied popularity {n:,} x {m:,} | {', '.join(measures)} | {full_s:.1f} | {sampled_s:.1f} | "
          f"{sampled_s / full_s:.2f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=5000)
    parser.add_argument("--items", type=int, default=26_744)
    parser.add_argument("--tie-users", type=int, default=300)
    parser.add_argument("--negatives", type=int, default=100)
    parser.add_argument("--sampling", choices=["per_positive", "shared"], default="per_positive")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    print(f"# sampled_negatives={args.negatives} ({args.sampling})\n\n{os.cpu_count()} CPUs; load average (1 min) "
          f"at the start: {os.getloadavg()[0]:.1f}\n")  # fmt: skip
    print("| input | measures | full catalogue s | with the sampled expectation s | ratio |")
    print("|---|---|---:|---:|---:|")
    for measures in (["ndcg@10", "r@20"], ["ndcg@10", "map"]):
        embeddings(args, measures)
    for measures in (["ndcg@10"], ["ndcg@10", "map"]):
        ties(args, measures)
    print(f"\nload average (1 min) at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
