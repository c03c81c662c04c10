r"""List-set values from mergeable per-item sums: the same numbers for one set of lists or its parts added up.

Every list-set value of the beyond-accuracy families (coverage, entropy, Gini, cosine personalization,
MS Recommenders' novelty, exposure disparity) depends on the set of lists only through a sum over the
lists of one number per item, and on how many non-empty lists there are (:class:`ListSetState`):

- ``catalog_coverage``, ``entropy``, ``recbole_entropy``, ``gini``, ``ms_novelty``: :math:`c_i`, the
  lists that recommend item i;
- ``personalization`` (cosine): :math:`w_i = \sum_{u \ni i} 1/\sqrt{|L_u|}`, since
  :math:`\sum_{u,v} |L_u \cap L_v| / \sqrt{|L_u||L_v|} = \sum_i w_i^2` (ordered pairs, u = v included);
  with k items in every list, :math:`w_i = c_i / \sqrt{k}`;
- ``exposure_ratio``, ``exposure_diff``: :math:`e_i = \sum_u \sum_r a(r) [i_r = i]`.

So the value of a set of lists split over partitions (Spark, Dask) or the value of a segment's lists is
:func:`finish` of the :meth:`ListSetState.merged` states of its parts. ``personalization(metric=jaccard)``
is not such a sum (its pairs' unions need both lists): it is only computed over one set of lists held whole.

>>> import numpy as np
>>> from rankmeter.io.items import Items
>>> from rankmeter.io.tables import Run
>>> from rankmeter.measures import parse
>>> from rankmeter.measures.kernels.beyond_lists import ListsContext
>>> run = Run(np.array(["u1", "u1", "u2", "u2"]), np.array(["a", "b", "a", "c"]), np.array([2.0, 1.0, 2.0, 1.0]))
>>> m, items = parse("personalization@2"), Items(catalog=["a", "b", "c", "d"])
>>> whole = ListsContext.build(run, 2, items=items)
>>> parts = [whole.subset(np.array([row])) for row in (0, 1)]
>>> merged = ListSetState.merged([partial(p, m, 2) for p in parts])
>>> round(finish(merged, m, items), 12), round(finish(partial(whole, m, 2), m, items), 12)  # 1 - cos(u1, u2) = 1 - 1/2
(0.5, 0.5)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rankmeter.errors import InputFormatError, PolicyError
from rankmeter.io.items import Items
from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.beyond_lists import ListsContext

PATIENCE = 0.8
"""Default ``patience`` of the ``rbp`` and ``cascade`` attention models."""


def attention(ctx: ListsContext, m: Measure, top: np.ndarray) -> np.ndarray:
    """The attention a(r) each position of each list gets under ``attention=`` (0 past a list's end)."""
    k = top.shape[1]
    rank = np.arange(1, k + 1, dtype=np.float64)
    model, p = m.param("attention", "ndcg"), m.param("patience", PATIENCE)
    if model == "ndcg":
        a = np.broadcast_to(1 / np.log2(rank + 1), top.shape)
    elif model == "rbp":
        a = np.broadcast_to(p ** (rank - 1), top.shape)
    else:  # cascade: past rank j with probability p (1 - rel_j)
        go_on = p * (1 - ctx.relevant[:, :k].astype(np.float64))
        a = np.cumprod(np.c_[np.ones(len(top)), go_on[:, :-1]], axis=1)
    return np.where(top >= 0, a, 0.0)


def check_groups(ctx: ListsContext, m: Measure, top: np.ndarray) -> np.ndarray:
    """The group code of each listed item (-1 for padding); an item without a group is located."""
    ctx.items.needs("groups", str(m))
    used = np.flatnonzero(np.bincount(top[top >= 0], minlength=len(ctx.universe)))  # codes into the universe
    codes = np.full(len(ctx.universe), -1, dtype=np.int64)
    try:
        codes[used] = ctx.items.group_codes(ctx.universe[used])
    except InputFormatError:
        known = ctx.items.group_codes_or_missing(ctx.universe[used])
        bad = np.zeros(len(ctx.universe), dtype=bool)
        bad[used[known < 0]] = True
        user = ctx.first_user(top, bad)
        row = int(np.flatnonzero(ctx.users == user)[0])
        item = ctx.universe[[c for c in top[row] if c >= 0 and bad[c]][0]]
        raise InputFormatError(
            f"measure {str(m)!r}, user {str(user)!r}: item {str(item)!r} has no group in Items(groups=...)"
        ) from None
    return np.where(top >= 0, codes[np.maximum(top, 0)], -1)


def gini_of(counts: np.ndarray, catalog_size: int) -> float:
    """The Gini index of the non-zero ``counts`` among ``catalog_size`` items (the others 0).

    >>> gini_of(np.array([1.0]), 2)
    0.5
    """
    c = np.sort(counts[counts > 0])
    n = max(catalog_size, len(c))
    if not len(c):
        return float("nan")
    j = np.arange(n - len(c) + 1, n + 1)
    return float(np.sum((2 * j - n - 1) * c) / c.sum() / n)


def ms_novelty_of(counts: np.ndarray, rows: np.ndarray, n_interactions: int) -> float:
    """Sum of counts_i * -log2(rows_i / n_interactions) (0 where rows_i = 0) / sum of counts.

    >>> ms_novelty_of(np.array([1.0, 1.0]), np.array([1, 0]), 4)
    1.0
    """
    info = np.where(rows > 0, -np.log2(np.maximum(rows, 1) / max(n_interactions, 1)), 0.0)
    return float((counts * info).sum() / counts.sum()) if counts.sum() else float("nan")


NOT_A_SUM = (
    "Jaccard personalization is not a sum over the lists (each pair's union needs both lists), so it is not "
    "computed from partial results (Spark, Dask); use metric=cosine, or evaluate the lists in one process"
)


@dataclass(frozen=True)
class ListSetState:
    """One number per item summed over a set of lists, and the number of non-empty lists.

    Attributes
    ----------
    ids : ndarray of str
        The items with a non-zero sum, sorted.
    sums : ndarray of float64
        The sum of each item.
    users : int
        Lists with at least one item.
    """

    ids: np.ndarray
    sums: np.ndarray
    users: int

    @staticmethod
    def merged(states: list[ListSetState]) -> ListSetState:
        """The state of the union of disjoint sets of lists: sums added item by item.

        >>> a = ListSetState(np.array(["x", "y"]), np.array([1.0, 2.0]), 2)
        >>> b = ListSetState(np.array(["y"]), np.array([3.0]), 1)
        >>> s = ListSetState.merged([a, b]); s.ids.tolist(), s.sums.tolist(), s.users
        (['x', 'y'], [1.0, 5.0], 3)
        """
        if not states:
            return ListSetState(np.zeros(0, dtype=str), np.zeros(0), 0)
        ids, inverse = np.unique(np.concatenate([s.ids.astype(str) for s in states]), return_inverse=True)
        sums = np.bincount(inverse.ravel(), weights=np.concatenate([s.sums for s in states]), minlength=len(ids))
        return ListSetState(ids, sums, sum(s.users for s in states))


def _state(ctx: ListsContext, top: np.ndarray, per_position: np.ndarray | None) -> ListSetState:
    """The per-item sums of ``per_position`` (a value for each listed position; None: 1 each) over ``top``'s lists."""
    listed = top >= 0
    codes = top[listed]
    counts = np.bincount(codes, minlength=len(ctx.universe))
    used = counts > 0
    sums = counts if per_position is None else np.bincount(codes, weights=per_position[listed], minlength=len(used))
    return ListSetState(ctx.universe[used], sums[used].astype(np.float64), int(np.count_nonzero(listed.any(axis=1))))


def _counts(ctx: ListsContext, m: Measure, k: int) -> ListSetState:
    top = ctx.top(k, measure=str(m))  # (the tie policy checked for each measure)
    if ("counts", k) not in ctx.shared:  # coverage, entropy, Gini, ... of one cutoff: one count
        ctx.shared["counts", k] = _state(ctx, top, None)
    state: ListSetState = ctx.shared["counts", k]
    return state


def _root_weights(ctx: ListsContext, m: Measure, k: int) -> ListSetState:
    if m.param("metric", "cosine") != "cosine":
        raise PolicyError(f"{m}: {NOT_A_SUM}")
    top = ctx.top(k, measure=str(m))
    n = (top >= 0).sum(axis=1)
    return _state(ctx, top, np.broadcast_to(1.0 / np.sqrt(np.maximum(n, 1))[:, None], top.shape))


def _exposure(ctx: ListsContext, m: Measure, k: int) -> ListSetState:
    top = ctx.top(k, positional=True, measure=str(m))
    check_groups(ctx, m, top)
    return _state(ctx, top, attention(ctx, m, top))


def _coverage(s: ListSetState, m: Measure, items: Items) -> float:
    items.needs("catalog", str(m))
    return float(len(s.ids) / items.catalog_size)


def _entropy(s: ListSetState, m: Measure, items: Items) -> float:
    p = s.sums / s.sums.sum() if len(s.sums) else s.sums
    return float(-(p * np.log2(p)).sum())


def _recbole_entropy(s: ListSetState, m: Measure, items: Items) -> float:
    p = s.sums / s.sums.sum() if len(s.sums) else s.sums
    return float(-(p * np.log(p)).sum() / len(p)) if len(p) else float("nan")


def _gini(s: ListSetState, m: Measure, items: Items) -> float:
    items.needs("catalog", str(m))
    return gini_of(s.sums, items.catalog_size)


def _ms_novelty(s: ListSetState, m: Measure, items: Items) -> float:
    items.needs("interactions", str(m))
    return ms_novelty_of(s.sums, items.rows_of(s.ids), items.n_interactions)


def _personalization(s: ListSetState, m: Measure, items: Items) -> float:
    if s.users < 2:
        return float("nan")
    similar = (float(s.sums @ s.sums) - s.users) / 2  # pairs u < v
    return 1.0 - similar / (s.users * (s.users - 1) / 2)


def _group_means(s: ListSetState, m: Measure, items: Items) -> np.ndarray:
    items.needs("groups", str(m))
    size = np.bincount(items.catalog_groups(), minlength=len(items.group_names)).astype(np.float64)
    total = np.bincount(items.group_codes(s.ids), weights=s.sums, minlength=len(size))
    return np.divide(total, size * max(s.users, 1), out=np.zeros(len(size)), where=size > 0)[size > 0]


def _exposure_ratio(s: ListSetState, m: Measure, items: Items) -> float:
    means = _group_means(s, m, items)
    return float(means.min() / means.max()) if len(means) and means.max() > 0 else float("nan")


def _exposure_diff(s: ListSetState, m: Measure, items: Items) -> float:
    means = _group_means(s, m, items)
    return float(means.max() - means.min()) if len(means) else float("nan")


Partial = Callable[[ListsContext, Measure, int], ListSetState]
Finish = Callable[[ListSetState, Measure, Items], float]

DECOMPOSED: dict[str, tuple[Partial, Finish]] = {
    "catalog_coverage": (_counts, _coverage),
    "entropy": (_counts, _entropy),
    "recbole_entropy": (_counts, _recbole_entropy),
    "gini": (_counts, _gini),
    "ms_novelty": (_counts, _ms_novelty),
    "personalization": (_root_weights, _personalization),
    "exposure_ratio": (_exposure, _exposure_ratio),
    "exposure_diff": (_exposure, _exposure_diff),
}
"""The partial state and the value from it, of each list-set family."""


def partial(ctx: ListsContext, m: Measure, k: int) -> ListSetState:
    """The mergeable state of one list-set measure (one cutoff ``k``) over ``ctx``'s lists."""
    if m.family not in DECOMPOSED:
        raise PolicyError(f"{m}: not a list-set measure")
    return DECOMPOSED[m.family][0](ctx, m, k)


def finish(state: ListSetState, m: Measure, items: Items) -> float:
    """The value of one list-set measure from the (merged) state of its lists."""
    return DECOMPOSED[m.family][1](state, m, items)
