r"""Kernels of the beyond-accuracy families that also read relevance or positions: serendipity,
popularity-stratified recall and exposure of item groups.

:math:`\mathrm{rel}_{u,r}` is 1 when the item at rank r of user u's list is a held-out relevant item
(grade > 0), :math:`a(r)` the attention a user gives rank r, :math:`g(i)` item i's group.

- ``ms_serendipity@k`` :math:`= \text{mean}_{i \in L_u} (1 - \text{mean}_{j \in H_u} \cos(f_i, f_j))\,
  \mathrm{rel}_i`, :math:`H_u` the user's training items (users without any have no value)
- ``rectools_serendipity@k`` :math:`= \text{mean}_{r} \max(p(r) - p_u(i_r), 0)\,\mathrm{rel}_r`,
  :math:`p(r) = (n + 1 - r)/n`, :math:`p_u(i) = (n + 1 - \text{poprank}(i))/n` (0 for a cold item),
  poprank the dense rank of the item's training interactions, most first
- ``pop_recall(gamma=)@k`` :math:`= \sum_{i \in L_u \cap T_u} w_i / \sum_{i \in T_u} w_i`,
  :math:`w_i = \max(N_i, 1)^{-\gamma}` (Steck, RecSys 2011; users without relevant items have no value)
- ``exposure(group=g)@k`` :math:`= \sum_{r \le k} a(r)\,[g(i_r) = g]`
- ``exposure_ratio@k`` / ``exposure_diff@k``: :math:`\min_g \bar E_g / \max_g \bar E_g` and
  :math:`\max_g \bar E_g - \min_g \bar E_g`, :math:`\bar E_g = \sum_u \sum_r a(r) [g(i_r) = g] /
  (|U|\,|g|)` the mean exposure of one catalogue item of group g

Attention models (``attention=``): ``ndcg`` :math:`a(r) = 1/\log_2(r + 1)`; ``rbp`` :math:`a(r) =
p^{r-1}` (p = ``patience``); ``cascade`` :math:`a(r) = \prod_{j < r} p\,(1 - \mathrm{rel}_j)`: the user
goes on past rank j with probability p unless the item there satisfied them.
"""

from __future__ import annotations

import numpy as np

from rankmeter.errors import PolicyError
from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.beyond import check_features, per_cutoff
from rankmeter.measures.kernels.beyond_lists import ListsContext
from rankmeter.measures.kernels.list_sets import PATIENCE, attention, check_groups, finish, partial

__all__ = [
    "PATIENCE",
    "exposure",
    "exposure_diff",
    "exposure_ratio",
    "ms_serendipity",
    "pop_recall",
    "rectools_serendipity",
]

GAMMA = 0.5
"""Default ``gamma`` of ``pop_recall``."""


def _unit(vectors: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norm, out=np.zeros_like(vectors), where=norm > 0)


@per_cutoff
def ms_serendipity(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """Microsoft Recommenders' serendipity with item-feature cosine similarity (``item_feature_vector``)."""
    items = ctx.items
    for what in ("interactions", "features"):
        items.needs(what, str(m))
    assert items.features is not None
    top = ctx.top(k, measure=str(m))
    check_features(ctx, m, top)
    unit = _unit(items.features)
    at = np.minimum(np.searchsorted(ctx.users, items.pairs[:, 0]), max(len(ctx.users) - 1, 0))
    mine = (ctx.users[at] == items.pairs[:, 0]) if len(ctx.users) else np.zeros(len(items.pairs), dtype=bool)
    history = np.zeros((len(ctx.users), unit.shape[1]))
    np.add.at(history, at[mine], unit[items.feature_rows(items.pairs[mine, 1], items.pairs[mine, 0], "training item")])
    n_history = np.bincount(at[mine], minlength=len(ctx.users)).astype(np.float64)
    inside = items.in_catalog(ctx.universe)
    vectors = np.zeros((len(ctx.universe), unit.shape[1]))
    vectors[inside] = unit[items.feature_rows(ctx.universe[inside])]
    similarity = np.einsum("ukd,ud->uk", vectors[np.maximum(top, 0)], history)
    similarity /= np.maximum(n_history, 1)[:, None]
    value = (1 - similarity) * ctx.relevant[:, :k]
    out = np.where(top >= 0, value, 0.0).sum(axis=1) / np.maximum((top >= 0).sum(axis=1), 1)
    return np.where(n_history > 0, out, np.nan)


@per_cutoff
def rectools_serendipity(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """rectools' Serendipity: max(p(rank) - p_u(item), 0) * rel, averaged over each list's items."""
    ctx.items.needs("interactions", str(m))
    top = ctx.top(k, positional=True, measure=str(m))
    n = ctx.items.catalog_size
    counts = ctx.items.training_rows()
    distinct = np.unique(counts)[::-1]  # most interactions first: dense rank 1, 2, ...
    rows = ctx.rows_of
    poprank = np.searchsorted(-distinct, -rows) + 1
    any_user = np.where(rows > 0, (n + 1 - poprank) / n, 0.0)
    user = (n + 1 - np.arange(1, k + 1)) / n
    value = np.maximum(user[None, :] - any_user[np.maximum(top, 0)], 0.0) * ctx.relevant[:, :k]
    return _mean_of_values(value, top)


def _mean_of_values(value: np.ndarray, top: np.ndarray) -> np.ndarray:
    n = (top >= 0).sum(axis=1)
    return np.divide(np.where(top >= 0, value, 0.0).sum(axis=1), n, out=np.zeros(len(n)), where=n > 0)


@per_cutoff
def pop_recall(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """Popularity-stratified recall: recall with each relevant item weighted by max(N_i, 1)^-gamma."""
    ctx.items.needs("interactions", str(m))
    gamma = m.param("gamma", GAMMA)
    top = ctx.top(k, measure=str(m))
    weight = np.maximum(ctx.users_of, 1).astype(np.float64) ** -gamma
    found = np.where((top >= 0) & ctx.relevant[:, :k], weight[np.maximum(top, 0)], 0.0).sum(axis=1)
    truth = ctx.truth
    assert truth is not None  # ctx.relevant raised otherwise
    rel = truth.relevance > 0
    users, items = truth.query_ids.text()[rel].astype(str), truth.doc_ids.text()[rel].astype(str)
    at = np.minimum(np.searchsorted(ctx.users, users), max(len(ctx.users) - 1, 0))
    mine = ctx.users[at] == users if len(ctx.users) else np.zeros(len(users), dtype=bool)
    w = np.maximum(ctx.items.users_of(items[mine]), 1).astype(np.float64) ** -gamma
    total = np.bincount(at[mine], weights=w, minlength=len(ctx.users))
    return np.divide(found, total, out=np.full(len(found), np.nan), where=total > 0)


@per_cutoff
def exposure(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """Attention given to the items of group ``group=`` in each list."""
    top = ctx.top(k, positional=True, measure=str(m))
    name = m.param("group")
    names = ctx.items.group_names
    if name is None or str(name) not in names:
        raise PolicyError(f"measure {str(m)!r}: group must be one of {', '.join(map(str, names))}, got {name!r}")
    target = int(np.flatnonzero(names == str(name))[0])
    return (attention(ctx, m, top) * (check_groups(ctx, m, top) == target)).sum(axis=1)


@per_cutoff
def exposure_ratio(ctx: ListsContext, m: Measure, k: int) -> float:
    """Disparity ratio: the least exposed group's per-item mean exposure / the most exposed group's."""
    return finish(partial(ctx, m, k), m, ctx.items)


@per_cutoff
def exposure_diff(ctx: ListsContext, m: Measure, k: int) -> float:
    """Disparity difference: the most exposed group's per-item mean exposure - the least exposed group's."""
    return finish(partial(ctx, m, k), m, ctx.items)
