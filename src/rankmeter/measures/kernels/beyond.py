r"""Kernels of the beyond-accuracy families: they read each user's top-k list and :class:`~rankmeter.Items`.

Notation: :math:`L_u` is user u's top-k list (its first k items, fewer when the run ranks fewer),
:math:`U` the users with a non-empty list, :math:`c_i` how many lists recommend item i, :math:`n`
the catalogue's size, :math:`N_i` the training users of item i and :math:`N` the training users.

List-set values (one number for the whole set of lists):

- ``catalog_coverage@k`` :math:`= |\bigcup_u L_u| / n`
- ``entropy@k`` :math:`= -\sum_i p_i \log_2 p_i`, :math:`p_i = c_i / \sum_j c_j`
- ``gini@k`` :math:`= \sum_{j=1}^{n} (2j - n - 1)\, c_{(j)} / (n \sum_j c_j)`, counts in non-decreasing
  order, the :math:`n - |\bigcup_u L_u|` unrecommended items counted with 0
- ``personalization@k`` :math:`= 1 - \text{mean}_{u < v} \cos(L_u, L_v)` (binary item vectors)

Per-user values (the mean over users is the aggregate):

- ``novelty@k`` :math:`= \text{mean}_{i \in L_u} -\log_2(\max(N_i, 1) / N)`
- ``ild@k`` :math:`= \text{mean}_{i < j \in L_u} d(f_i, f_j)` (0 for a list of fewer than 2 items); d is the
  cosine distance 1 - cos (default), the euclidean distance or the hamming distance (features that differ)
- ``arp@k`` :math:`= \text{mean}_{i \in L_u} \text{rows}_i` (training interactions of each item)
- ``aplt@k`` / ``aclt@k``: the share / the count of tail items in :math:`L_u`

>>> import numpy as np
>>> from rankmeter.io.items import Items
>>> from rankmeter.io.tables import Run
>>> from rankmeter.measures import parse
>>> from rankmeter.measures.kernels.beyond_lists import ListsContext
>>> run = Run(np.array(["u1", "u1", "u2"]), np.array(["a", "b", "a"]), np.array([2.0, 1.0, 1.0]))
>>> ctx = ListsContext.build(run, 2, items=Items(interactions={"x": ["a", "b"], "y": ["a"]}))
>>> catalog_coverage(ctx, parse("catalog_coverage@2")).tolist(), novelty(ctx, parse("novelty@2")).ravel().tolist()
([1.0], [0.5, 0.0])
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError
from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.beyond_lists import ListsContext
from rankmeter.measures.kernels.list_sets import finish, partial

HEAD_SHARE = 0.2
"""Default ``head=`` of aplt/aclt: the most popular 20% of the catalogue is the head (Abdollahpouri et al.)."""


def per_cutoff(fn: Callable[[ListsContext, Measure, int], Any]) -> Callable[[ListsContext, Measure], np.ndarray]:
    """A kernel from a function of one cutoff: (U, n_cutoffs) for per-user values, (n_cutoffs,) for list-set."""

    def kernel(ctx: ListsContext, m: Measure) -> np.ndarray:
        return np.stack([np.asarray(fn(ctx, m, k), dtype=np.float64) for k in m.cutoffs or ()], axis=-1)

    kernel.__name__ = fn.__name__
    kernel.__doc__ = fn.__doc__
    return kernel


def mean_over_list(values: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Mean of per-item ``values`` (over the universe) over each list (0 for an empty list)."""
    filled = np.append(values, 0.0)[top]  # padding (-1) reads the 0 put last
    n = np.count_nonzero(top >= 0, axis=1)
    return np.divide(filled.sum(axis=1), n, out=np.zeros(len(top)), where=n > 0)


def _from_state(ctx: ListsContext, m: Measure, k: int) -> float:
    """A list-set value from the per-item sums of the lists (:mod:`rankmeter.measures.kernels.list_sets`)."""
    return finish(partial(ctx, m, k), m, ctx.items)


@per_cutoff
def catalog_coverage(ctx: ListsContext, m: Measure, k: int) -> float:
    """Distinct items in the top-k lists / the catalogue's size (RecBole ItemCoverage, rectools CatalogCoverage)."""
    return _from_state(ctx, m, k)


@per_cutoff
def entropy(ctx: ListsContext, m: Measure, k: int) -> float:
    """Shannon entropy in bits of the recommendation counts (Microsoft Recommenders' distributional_coverage)."""
    return _from_state(ctx, m, k)


@per_cutoff
def recbole_entropy(ctx: ListsContext, m: Measure, k: int) -> float:
    """RecBole's ShannonEntropy: natural-log entropy of the counts, divided by the recommended items."""
    return _from_state(ctx, m, k)


@per_cutoff
def gini(ctx: ListsContext, m: Measure, k: int) -> float:
    """Gini index of the recommendation counts over the whole catalogue, zeros included (RecBole GiniIndex)."""
    return _from_state(ctx, m, k)


@per_cutoff
def personalization(ctx: ListsContext, m: Measure, k: int) -> float:
    """1 - the mean similarity of two users' lists (binary item vectors), over every pair of non-empty lists."""
    if m.param("metric", "cosine") == "cosine":  # a sum over items (list_sets)
        return _from_state(ctx, m, k)
    top = ctx.top(k, measure=str(m))
    n = (top >= 0).sum(axis=1)
    top, n = top[n > 0], n[n > 0]
    users = len(n)
    if users < 2:
        return float("nan")
    # jaccard: the intersections of every pair from a sparse product, a block of users at a time
    from scipy import sparse

    rows = np.repeat(np.arange(users), n)
    a = sparse.csr_matrix((np.ones(len(rows)), (rows, top[top >= 0])), shape=(users, len(ctx.universe)))
    similar = 0.0
    for start in range(0, users, 2048):
        inter = (a[start : start + 2048] @ a.T).tocoo()
        u, v = inter.row + start, inter.col
        upper = u < v
        u, v, x = u[upper], v[upper], inter.data[upper]
        similar += float((x / (n[u] + n[v] - x)).sum())
    return 1.0 - similar / (users * (users - 1) / 2)


@per_cutoff
def novelty(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """Mean self-information -log2(N_i / N) of each list's items; unseen items count as seen by one user."""
    ctx.items.needs("interactions", str(m))
    info = -np.log2(np.maximum(ctx.users_of, 1) / max(ctx.items.n_users, 1))
    return mean_over_list(info, ctx.top(k, measure=str(m)))


@per_cutoff
def ms_novelty(ctx: ListsContext, m: Measure, k: int) -> float:
    """Microsoft Recommenders' novelty: -log2(rows_i / rows) summed over every recommendation, / recommendations.

    Items absent from the training interactions add 0 (but count in the divisor), as its merge drops them.
    """
    return _from_state(ctx, m, k)


@per_cutoff
def arp(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """Mean training interactions of each list's items (rectools AvgRecPopularity; unseen items 0)."""
    ctx.items.needs("interactions", str(m))
    return mean_over_list(ctx.rows_of.astype(np.float64), ctx.top(k, measure=str(m)))


def tail_items(ctx: ListsContext, m: Measure) -> np.ndarray:
    """Whether each universe item is a tail item.

    ``tail_max=c``: items with at most c training users. Otherwise ``head=h``: the catalogue's items
    ordered by training users, the first ceil(h n) form the head, with every item as popular as the
    last of them (ties go to the head); every other item (unseen ones too) is in the tail.
    """
    ctx.items.needs("interactions", str(m))
    limit = m.param("tail_max")
    if limit is not None:
        return ctx.users_of <= limit
    share = m.param("head", HEAD_SHARE)
    pop = np.sort(ctx.items.users_of(ctx.items.catalog))[::-1]
    size = int(np.ceil(share * len(pop)))
    if size == 0:
        return np.ones(len(ctx.universe), dtype=bool)
    return ctx.users_of < max(pop[size - 1], 1)


@per_cutoff
def aplt(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """Share of each list's items that are in the long tail (Abdollahpouri et al.)."""
    return mean_over_list(tail_items(ctx, m).astype(np.float64), ctx.top(k, measure=str(m)))


@per_cutoff
def aclt(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """Number of each list's items that are in the long tail."""
    top = ctx.top(k, measure=str(m))
    tail = tail_items(ctx, m)
    return np.where(top >= 0, tail[np.maximum(top, 0)] if len(tail) else False, False).sum(axis=1)


def _unit_rows(ctx: ListsContext, m: Measure, top: np.ndarray) -> np.ndarray:
    """The feature vectors of each list's items, shape (U, k, d), zero for padding; unit length for cosine."""
    ctx.items.needs("features", str(m))
    features = ctx.items.features
    assert features is not None
    inside = ctx.items.in_catalog(ctx.universe)
    vectors = np.zeros((len(ctx.universe), features.shape[1]))
    vectors[inside] = features[ctx.items.feature_rows(ctx.universe[inside])]
    used = np.zeros(len(ctx.universe), dtype=bool)
    used[top[top >= 0]] = True
    if m.param("metric", "cosine") == "cosine":
        norm = np.linalg.norm(vectors, axis=1)
        bad = used & (norm == 0)
        if bad.any():
            raise InputFormatError(
                f"measure {str(m)!r}: item {str(ctx.universe[bad][0])!r} has a zero feature vector "
                "(cosine distance undefined); use metric=euclidean"
            )
        vectors = np.divide(vectors, norm[:, None], out=vectors, where=norm[:, None] > 0)
    out = vectors[np.maximum(top, 0)]
    out[top < 0] = 0.0
    return out


def check_features(ctx: ListsContext, m: Measure, top: np.ndarray) -> None:
    """A located error for the first listed item without features."""
    outside = ~ctx.items.in_catalog(ctx.universe)
    user = ctx.first_user(top, outside)
    if user is not None:
        row = np.flatnonzero(ctx.users == user)[0]
        item = ctx.universe[[c for c in top[row] if c >= 0 and outside[c]][0]]
        raise InputFormatError(f"measure {str(m)!r}, user {str(user)!r}: item {str(item)!r} has no features")


@per_cutoff
def ild(ctx: ListsContext, m: Measure, k: int) -> np.ndarray:
    """Mean distance between the pairs of each list's items (0 under 2 items): cosine (1 - cos), euclidean, hamming."""
    top = ctx.top(k, measure=str(m))
    ctx.items.needs("features", str(m))
    check_features(ctx, m, top)
    e = _unit_rows(ctx, m, top)
    n = (top >= 0).sum(axis=1).astype(np.float64)
    pairs = n * (n - 1) / 2
    if m.param("metric", "cosine") == "cosine":
        total = e.sum(axis=1)
        cos_sum = (np.einsum("ud,ud->u", total, total) - n) / 2  # sum over pairs i < j of cos(i, j)
        dist = pairs - cos_sum
    elif m.param("metric") == "hamming":  # features that differ, pair by pair of positions (not of users)
        dist = np.zeros(len(n))
        for a, b in itertools.combinations(range(top.shape[1]), 2):
            both = (top[:, a] >= 0) & (top[:, b] >= 0)
            dist += np.where(both, (e[:, a] != e[:, b]).sum(axis=1), 0)
    else:
        gram = np.einsum("uid,ujd->uij", e, e)
        sq = np.einsum("uii->ui", gram)
        d2 = np.maximum(sq[:, :, None] + sq[:, None, :] - 2 * gram, 0.0)
        valid = (top >= 0)[:, :, None] & (top >= 0)[:, None, :]
        dist = np.where(valid, np.sqrt(d2), 0.0).sum(axis=(1, 2)) / 2
    return np.divide(dist, pairs, out=np.zeros(len(n)), where=pairs > 0)
