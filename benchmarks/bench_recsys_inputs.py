"""Recommender inputs side by side: top-K lists without scores in each form, with and without ``exclude=``.

3,000 users x top-20 lists from a 1,500-item catalogue, 20 training items per user excluded, 10 held-out
items per user, the five measures of a recommender report. Also timed, as the reference a user would
otherwise write: the training pairs removed by hand with pandas (an anti-join) and the lists passed as
``{user: {item: -rank}}`` scores. Last, the integer-id writer these forms use (``io.recsys.integer_ids``)
against NumPy's ``astype(str)`` with its UTF-8 encoding, on 60,000, one million and 13.8 million ids.

    python benchmarks/bench_recsys_inputs.py [--repeats 5]
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import pandas as pd
from harness import best

import rankmeter

MEASURES = ["ndcg(gain=exp)@10", "r@20", "success@10", "rr@10", "p@10"]


def data(n_users: int = 3000, n_items: int = 1500, k: int = 20, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    seen = np.stack([rng.choice(n_items, 30, replace=False) for _ in range(n_users)])
    users = np.arange(n_users)
    train = pd.DataFrame({"user_id": np.repeat(users, 20), "item_id": seen[:, :20].ravel()})
    test = pd.DataFrame({"user_id": np.repeat(users, 10), "item_id": seen[:, 20:].ravel()})
    top = np.stack([rng.choice(n_items, k, replace=False) for _ in range(n_users)])
    recs = pd.DataFrame(
        {"user_id": np.repeat(users, k), "item_id": top.ravel(), "rank": np.tile(np.arange(1, k + 1), n_users)}
    )
    return {"train": train, "test": test, "top": top, "recs": recs, "users": users}


def by_hand(d: dict[str, Any]) -> rankmeter.EvaluationResult:
    """What a user writes without ``exclude=``: pandas anti-joins, then scores -rank in a dict of dicts."""
    recs = d["recs"].merge(d["train"], how="left", indicator=True)
    recs = recs[recs["_merge"] == "left_only"]
    scores: dict[str, dict[str, float]] = {}
    for u, i, r in zip(recs["user_id"].tolist(), recs["item_id"].tolist(), recs["rank"].tolist(), strict=True):
        scores.setdefault(str(u), {})[str(i)] = -float(r)
    return rankmeter.evaluate(d["test"], scores, MEASURES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    d = data()
    lists = {int(u): row.tolist() for u, row in zip(d["users"], d["top"], strict=True)}
    forms: dict[str, Any] = {
        "rank table (pandas)": d["recs"],
        "{user: [item, ...]}": lists,
        "ranked_lists(2-D array)": rankmeter.ranked_lists(d["top"], users=d["users"]),
    }
    reference_time, reference = best(lambda: by_hand(d), args.repeats)
    print(f"{'form':28} {'no exclude':>11} {'exclude=':>11} {'by hand/exclude':>16}")
    for name, run in forms.items():
        plain, _ = best(lambda run=run: rankmeter.evaluate(d["test"], run, MEASURES), args.repeats)
        excluded, res = best(
            lambda run=run: rankmeter.evaluate(d["test"], run, MEASURES, exclude=d["train"]), args.repeats
        )
        assert res.aggregate == reference.aggregate, (res.aggregate, reference.aggregate)
        print(f"{name:28} {plain:10.3f}s {excluded:10.3f}s {reference_time / excluded:15.1f}x")
    print(f"by hand (pandas anti-join + dict of scores): {reference_time:.3f} s; values equal")
    id_writer(args.repeats)


def id_writer(repeats: int) -> None:
    """Integer ids as text: rankmeter's writer against NumPy's ``astype(str)`` and UTF-8 encoding, same values."""
    from rankmeter.io.recsys import integer_ids

    print(f"\n{'integer ids as text':28} {'integer_ids':>11} {'astype(str)':>12} {'ratio':>7}")
    rng = np.random.default_rng(1)
    for n, high in ((60_000, 1_500), (1_000_000, 27_000), (13_800_000, 138_000)):
        ids = rng.integers(0, high, n)
        ours, column = best(lambda ids=ids: integer_ids(ids), repeats)
        numpy, text = best(lambda ids=ids: np.char.encode(ids.astype(str), "utf-8"), repeats)
        assert column.tolist()[:1000] == [t.decode() for t in text[:1000].tolist()]
        print(f"{n:>12,} ids < {high:<10,} {ours:10.4f}s {numpy:11.4f}s {numpy / ours:6.1f}x")


if __name__ == "__main__":
    main()
