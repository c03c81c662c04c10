"""Beyond-accuracy measures: their cost against a matrix product and against the accuracy table.

1. ``ild@10`` for 138,000 users from 64-d item embeddings, against one batched matrix product of the
   lists' embeddings (``E[top] @ E[top].T`` per user, the least a pairwise-distance computation does).
   Timed twice: the kernel on lists already taken (``ListsContext``), and the whole ``rankmeter.evaluate``
   call from a 2-D array of ids (reading the run, ordering, ids to catalogue rows included).
2. W5's shape (138,000 users x top 100 from a 20,000-item catalogue, 10 held-out and 20 training items
   per user): the whole beyond-accuracy table (coverage, entropy, Gini, novelty, ILD, personalization,
   ARP, APLT, ACLT at 10) against the accuracy table (nDCG, recall, precision, MAP, MRR at 10), each one
   ``rankmeter.evaluate`` call with ``exclude=`` the training pairs.

    python benchmarks/bench_beyond.py [--users 138000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import rankmeter
from rankmeter.io.items import Items
from rankmeter.measures import parse
from rankmeter.measures.kernels import beyond
from rankmeter.measures.kernels.beyond_lists import ListsContext

ACCURACY = ["ndcg@10", "r@10", "p@10", "map@10", "rr@10"]
BEYOND = ["catalog_coverage@10", "entropy@10", "gini@10", "novelty@10", "ild@10", "personalization@10",
          "arp@10", "aplt@10", "aclt@10"]  # fmt: skip


def best(call: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """The fastest of ``repeats`` timed calls after one warm-up call, and the last result."""
    call()
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - start)
    return min(times), out


def ild_part(n_users: int, repeats: int) -> None:
    rng = np.random.default_rng(0)
    n_items, dim = 20_000, 64
    embeddings = rng.normal(size=(n_items, dim))
    top = np.stack([rng.choice(n_items, 10, replace=False) for _ in range(n_users)])
    items = Items(features=embeddings, catalog=np.arange(n_items).astype(str))
    run = rankmeter.ranked_lists(top)
    ctx = ListsContext.build(run, 10, items=items)
    m = parse("ild@10")

    def product() -> np.ndarray:
        x = embeddings[top]
        return np.matmul(x, x.transpose(0, 2, 1))

    matmul, _ = best(product, repeats)
    kernel, values = best(lambda: beyond.ild(ctx, m), repeats)
    whole, res = best(lambda: rankmeter.evaluate(None, run, m, items=items), repeats)
    x = embeddings[top] / np.linalg.norm(embeddings[top], axis=2, keepdims=True)
    gram = np.matmul(x, x.transpose(0, 2, 1))
    upper = np.triu_indices(10, 1)
    check = (1 - gram[:, upper[0], upper[1]]).mean(axis=1)
    assert np.allclose(values.ravel()[np.argsort(ctx.users.astype(int))], check, atol=1e-12)
    assert abs(res["ild@10"] - check.mean()) < 1e-12
    print(f"ild@10, {n_users} users, 64-d: batched matmul {matmul:.3f} s")
    print(
        f"  kernel {kernel:.3f} s ({kernel / matmul:.2f}x the matmul); evaluate() {whole:.3f} s ({whole / matmul:.2f}x)"
    )


def table_part(n_users: int, repeats: int) -> None:
    rng = np.random.default_rng(1)
    n_items, k = 20_000, 100
    users = np.arange(n_users)
    pop = rng.zipf(1.3, size=n_items * 4) % n_items
    seen = np.stack([rng.choice(pop, 30) for _ in range(n_users)])
    train = pd.DataFrame({"user_id": np.repeat(users, 20), "item_id": seen[:, :20].ravel()}).drop_duplicates()
    test = pd.DataFrame({"user_id": np.repeat(users, 10), "item_id": seen[:, 20:].ravel()}).drop_duplicates()
    top = (np.argsort(rng.random((n_users, 2 * k)), axis=1)[:, :k] + rng.integers(0, n_items, (n_users, 1))) % n_items
    run = rankmeter.ranked_lists(top, users=users)
    items = Items(interactions=train, features=rng.normal(size=(n_items, 64)), catalog=np.arange(n_items))
    acc, a = best(lambda: rankmeter.evaluate(test, run, ACCURACY, exclude=train), repeats)
    bey, b = best(lambda: rankmeter.evaluate(test, run, BEYOND, items=items, exclude=train), repeats)
    print(f"W5 shape, {n_users} users x top {k}: accuracy table {acc:.2f} s, beyond-accuracy table {bey:.2f} s")
    print(f"  beyond / accuracy = {bey / acc:.2f}x; {len(b.aggregate)} beyond values, {len(a.aggregate)} accuracy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=138_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    ild_part(args.users, args.repeats)
    table_part(args.users, args.repeats)


if __name__ == "__main__":
    main()
