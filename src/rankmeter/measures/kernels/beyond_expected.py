r"""Expected exposure of stochastic rankings (Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020).

A stochastic ranker gives each user several sampled rankings (the run given as a list of runs, one per
sample). Under RBP's browsing model with patience :math:`\gamma`, an item at rank r (r ≤ k) gets
exposure :math:`\gamma^{r-1}`; item d's expected exposure for user u is the mean over the S samples,
:math:`\epsilon_d = \frac1S \sum_s \gamma^{\mathrm{rank}_s(d) - 1}` (0 in a sample that does not list it
in its top k; a user absent from a sample has an empty list there).

The target :math:`\epsilon^*` is the expected exposure of the ideal stochastic ranker: the user's
relevant items by grade, highest first, items of one grade in a uniformly random order, then the rest
of the catalogue (n items in all) in a random order. An item's target is the mean of
:math:`\gamma^{r-1}[r \le k]` over the positions its grade level occupies; every non-relevant catalogue
item shares positions m+1 … n (m relevant items).

- ``ee_disparity@k`` :math:`= \sum_d \epsilon_d^2` (EE-D)
- ``ee_relevance@k`` :math:`= 2 \sum_d \epsilon_d\,\epsilon^*_d` (EE-R)
- ``ee_loss@k`` :math:`= \lVert \epsilon - \epsilon^* \rVert^2 = \text{EE-D} - \text{EE-R} + \sum_d
  {\epsilon^*_d}^2` (EE-L)
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.beyond import per_cutoff
from rankmeter.measures.kernels.beyond_lists import ListsContext

EE_PATIENCE = 0.5
"""Default ``patience`` of the expected-exposure families (Diaz et al.'s gamma)."""


def _index(sorted_ids: np.ndarray, ids: np.ndarray) -> np.ndarray:
    at = np.minimum(np.searchsorted(sorted_ids, ids), max(len(sorted_ids) - 1, 0))
    return np.where(sorted_ids[at] == ids, at, -1) if len(sorted_ids) else np.full(len(ids), -1)


def _system(ctx: ListsContext, k: int, gamma: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(user index, item index into ctx.universe, expected exposure) of every exposed pair."""
    samples = ctx.samples or [ctx]
    users, items, weights = [], [], []
    for s in samples:
        top = s.top(k, positional=True, measure="expected exposure")
        u, r = np.nonzero(top >= 0)
        users.append(_index(ctx.users, s.users[u]))
        items.append(_index(ctx.universe, s.universe[top[u, r]]))
        weights.append(gamma ** r.astype(np.float64))
    u, i, w = np.concatenate(users), np.concatenate(items), np.concatenate(weights) / len(samples)
    key, inverse = np.unique(u * max(len(ctx.universe), 1) + i, return_inverse=True)
    exposure = np.bincount(inverse, weights=w, minlength=len(key))
    return key // max(len(ctx.universe), 1), key % max(len(ctx.universe), 1), exposure


def _target(ctx: ListsContext, k: int, gamma: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Targets: (user, item id, target) of each relevant item, each user's non-relevant target and sum of squares."""
    truth = ctx.held_out()
    rel = truth.relevance > 0
    users = _index(ctx.users, truth.query_ids.text()[rel].astype(str))
    keep = users >= 0
    users, items, grades = users[keep], truth.doc_ids.text()[rel].astype(str)[keep], truth.relevance[rel][keep]
    order = np.lexsort((-grades, users))
    users, items, grades = users[order], items[order], grades[order]
    starts = np.flatnonzero(np.r_[True, users[1:] != users[:-1]]) if len(users) else np.zeros(0, dtype=np.int64)
    sizes = np.diff(np.r_[starts, len(users)])
    pos = np.arange(len(users)) - np.repeat(starts, sizes)
    level = np.cumsum(np.r_[True, (users[1:] != users[:-1]) | (grades[1:] != grades[:-1])]) - 1 if len(users) else pos
    share = np.bincount(level, weights=np.where(pos < k, gamma**pos, 0.0)) / np.bincount(level)
    target = share[level] if len(users) else np.zeros(0)
    m = np.bincount(users, minlength=len(ctx.users)).astype(np.float64)
    n = float(max(ctx.items.catalog_size, 1))
    rest = np.where(m < k, (gamma**m - gamma**k) / (1 - gamma), 0.0) if gamma < 1 else np.maximum(k - m, 0)
    non = np.divide(rest, n - m, out=np.zeros(len(m)), where=n - m > 0)
    squares = np.bincount(users, weights=target**2, minlength=len(ctx.users)) + (n - m) * non**2
    return users, items, target, np.c_[non, squares]


def _parts(ctx: ListsContext, m: Measure, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """EE-D, EE-R and the sum of squared targets of each user."""
    gamma = m.param("patience", EE_PATIENCE)
    u, i, eps = _system(ctx, k, gamma)
    disparity = np.bincount(u, weights=eps**2, minlength=len(ctx.users))
    t_users, t_items, target, extra = _target(ctx, k, gamma)
    t_item = _index(ctx.universe, t_items)
    key = u * max(len(ctx.universe), 1) + i
    t_key = np.where(t_item >= 0, t_users * max(len(ctx.universe), 1) + t_item, -1)
    order = np.argsort(t_key)
    at = _index(t_key[order], key) if len(t_key) else np.full(len(key), -1)
    star = np.where(at >= 0, target[order][np.maximum(at, 0)] if len(target) else 0.0, extra[u, 0])
    relevance = 2 * np.bincount(u, weights=eps * star, minlength=len(ctx.users))
    return disparity, relevance, extra[:, 1]


@per_cutoff
def ee_disparity(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """EE-D: the sum of squared expected exposures of a user's items."""
    return _parts(ctx, m, k)[0]


@per_cutoff
def ee_relevance(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """EE-R: twice the dot product of the expected and the target exposures."""
    return _parts(ctx, m, k)[1]


@per_cutoff
def ee_loss(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """EE-L: the squared distance between the expected and the target exposures."""
    disparity, relevance, squares = _parts(ctx, m, k)
    return disparity - relevance + squares
