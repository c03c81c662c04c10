"""Random recommender cases shared by the oracle tests that run the recommender libraries themselves.

These tests run in their own environment (``.ci/run`` builds ``.venv-ci-recsys`` with the pinned
libraries of ``requirements.txt`` beside this file), not in the main suite: RecTools needs NumPy < 2,
Microsoft Recommenders pandas < 3. Every library is imported here at collection, so that a missing one
fails the run instead of skipping it.

A case is a catalogue of ``n_items`` items and, per user, a held-out truth set (empty for some users)
and a ranked list of distinct items (empty for some users, shorter than the cutoffs for others). Lists
are given to rankmeter as ``{user: {item: -rank}}``: the order is the ranking, with no ties.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

# RecBole 1.2.1 still spells NumPy's removed aliases of the builtins (np.float, np.bool; removed in
# NumPy 1.24); they were the builtins themselves, so restoring them changes no value
setattr(np, "float", float)  # noqa: B010
setattr(np, "bool", bool)  # noqa: B010

import implicit.evaluation  # noqa: E402,F401
import lenskit.metrics  # noqa: E402,F401
import recbole.evaluator.metrics  # noqa: E402,F401
import recommenders.evaluation.python_evaluation  # noqa: E402,F401
import rectools.metrics  # noqa: E402,F401
import torchmetrics  # noqa: E402,F401

SEEDS = [0, 1, 2, 3]


@dataclass
class Case:
    """Truth sets and ranked lists of one random case (items are ints 0 .. n_items - 1)."""

    n_items: int
    truth: dict[int, list[int]]  # user -> relevant items (may be empty)
    lists: dict[int, list[int]]  # user -> ranked items, best first (may be empty)

    def qrels(self, users: list[int] | None = None) -> dict[str, dict[str, int]]:
        """rankmeter qrels: relevant items with grade 1; a user without any gets one judged non-relevant item."""
        users = list(self.truth) if users is None else users
        out = {}
        for u in users:
            items = self.truth[u]
            out[str(u)] = {str(i): 1 for i in items} if items else {str(self.n_items + 1): 0}
        return out

    def run(self) -> dict[str, dict[str, float]]:
        """rankmeter run: score = -rank."""
        return {str(u): {str(i): -float(r) for r, i in enumerate(items, 1)} for u, items in self.lists.items() if items}


def make_case(seed: int, *, n_users: int = 60, n_items: int = 40, min_len: int = 0, max_len: int = 25) -> Case:
    """Users with 0-10 relevant items and lists of min_len-max_len distinct items (some users lack one of them)."""
    rng = np.random.default_rng(seed)
    truth, lists = {}, {}
    for u in range(n_users):
        n_rel = 0 if u % 9 == 0 else int(rng.integers(1, 11))
        truth[u] = sorted(int(i) for i in rng.choice(n_items, n_rel, replace=False))
        length = int(rng.integers(min_len, max_len + 1))
        # half the lists favour relevant items, so that hits are frequent at every rank
        pool = rng.permutation(n_items)
        if u % 2 and truth[u]:
            pool = np.concatenate([rng.permutation(truth[u]), [i for i in pool if i not in truth[u]]])
            pool = pool[np.argsort(rng.random(len(pool)) * 3 + np.arange(len(pool)) / len(pool) * 4)]
        lists[u] = [int(i) for i in pool[:length]]
    return Case(n_items, truth, lists)


@pytest.fixture(params=SEEDS, ids=[f"seed{s}" for s in SEEDS])
def case(request: pytest.FixtureRequest) -> Case:
    return make_case(request.param)


def per_user(result, measure: str) -> dict[int, float]:
    """A rankmeter result's included per-user values of one measure, keyed by the user as an int."""
    col = result.measure_names.index(measure)
    return {
        int(q): float(v)
        for q, v, inc in zip(result.query_ids, result.values[:, col], result.included[:, col], strict=True)
        if inc
    }
