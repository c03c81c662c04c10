"""A small random recommender split shared by the recsys tests: truth, training interactions and top-K lists."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd


class Split(NamedTuple):
    test: pd.DataFrame  # user_id, item_id, rating (1 to 3)
    train: pd.DataFrame  # user_id, item_id
    top: np.ndarray  # users x k item ids, rank order; some items seen in training
    users: np.ndarray  # the user id of each row of ``top``


def split(seed: int = 0, n_users: int = 30, n_items: int = 50, k: int = 12) -> Split:
    """Disjoint train and test interactions per user; top-K lists drawn from the whole catalogue.

    Users 0 and 1 have no test interactions beyond training (user 1's only test items are excluded
    when the caller passes them in ``exclude``); user ids start at 100 so that row order never
    matches them by accident.
    """
    rng = np.random.default_rng(seed)
    users = np.arange(100, 100 + n_users)
    test_rows, train_rows = [], []
    for u in users:
        items = rng.permutation(n_items)
        n_train, n_test = int(rng.integers(2, 9)), int(rng.integers(1, 7))
        train_rows += [(u, int(i)) for i in items[:n_train]]
        test_rows += [(u, int(i), int(rng.integers(1, 4))) for i in items[n_train : n_train + n_test]]
    top = np.stack([rng.permutation(n_items)[:k] for _ in users])
    test = pd.DataFrame(test_rows, columns=["user_id", "item_id", "rating"])
    train = pd.DataFrame(train_rows, columns=["user_id", "item_id"])
    return Split(test, train, top, users)


def as_dict(top: np.ndarray, users: np.ndarray) -> dict[int, list[int]]:
    """``{user: [item, ...]}`` of a users x k array."""
    return {int(u): [int(i) for i in row] for u, row in zip(users, top, strict=True)}


def rank_frame(top: np.ndarray, users: np.ndarray, rank: str = "rank") -> pd.DataFrame:
    """The long table ``user_id, item_id, <rank>`` (1 = top) of a users x k array, rows shuffled."""
    n, k = top.shape
    frame = pd.DataFrame(
        {"user_id": np.repeat(users, k), "item_id": top.ravel(), rank: np.tile(np.arange(1, k + 1), n)}
    )
    return frame.sample(frac=1.0, random_state=3).reset_index(drop=True)


def score_dict(top: np.ndarray, users: np.ndarray) -> dict[str, dict[str, float]]:
    """The same lists as ``{user: {item: -rank}}`` scores."""
    return {str(u): {str(i): -float(r + 1) for r, i in enumerate(row)} for u, row in zip(users, top, strict=True)}
