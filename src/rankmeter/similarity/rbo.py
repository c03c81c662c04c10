r"""Rank-biased overlap (Webber, Moffat & Zobel, TOIS 2010) of two ranked lists, with tie groups.

With ``S`` the shorter list (``s`` items) and ``L`` the longer (``l``),
``X_d`` the overlap of ``S[:min(d, s)]`` and ``L[:d]``, ``A_d = X_d / d`` the
agreement and ``U_d = d - s`` the most unseen items of ``S`` that could still
match at depth ``d > s``:

.. math::

    RBO_{MIN} &= \frac{1-p}{p}\Big(\sum_{d=1}^{l} A_d p^d
                 + X_l\big(\ln\tfrac{1}{1-p} - \sum_{d=1}^{l} \tfrac{p^d}{d}\big)\Big)

    RBO_{EXT} &= \frac{1-p}{p}\Big(\sum_{d=1}^{l} A_d p^d + \sum_{d=s+1}^{l} A_s \tfrac{d-s}{d} p^d\Big)
                 + \frac{X_l + (l - s) A_s}{l} p^l \quad\text{(eq. 32)}

    RBO_{MAX} &= \frac{1-p}{p}\Big(\sum_{d=1}^{l} \tfrac{X_d + U_d}{d} p^d
                 + \sum_{d=l+1}^{f} \tfrac{2d - l - s + X_l}{d} p^d\Big) + p^{f}, \quad f = l + s - X_l

    RBO_{RES} &= RBO_{MAX} - RBO_{MIN}, \qquad RBO@k = (1-p)\sum_{d=1}^{k} A_d p^{d-1}

Ties (docs/similarity.md): under ``expected`` an item of a tie group that
spans ranks ``t..b`` is in the depth-``d`` prefix with probability
``clip((d - t + 1) / (b - t + 1), 0, 1)``, independently in each list, so
``X_d`` is the expected overlap and every form but ``RBO_MAX`` (and hence
``RBO_RES``) is linear in the ``X_d``: the value is the exact mean over all
orderings of the tied items. Under ``equal`` (the paper's section 4.3) the
whole group enters the prefix at rank ``t`` and
``A_d = 2 X_d / (|S_{:d}| + |L_{:d}|)`` (``|S_{:d}| = d`` past the end of ``S``).
"""

from __future__ import annotations

import math

import numpy as np

from rankmeter.errors import PolicyError
from rankmeter.similarity.pairs import RankedList


def _chance(top: np.ndarray, bottom: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Probability that an item of the group spanning ranks ``top..bottom`` is among the first ``depth``."""
    return np.clip((depth - top + 1) / (bottom - top + 1), 0.0, 1.0)


def overlap(short: RankedList, long: RankedList, s: int, l: int) -> np.ndarray:  # noqa: E741
    """``X_d`` for ``d = 1..l``: the (expected) overlap of ``short[:min(d, s)]`` and ``long[:d]``.

    >>> a = RankedList(np.array([1, 2, 3]), np.array([1, 2, 3]), np.array([1, 2, 3]))
    >>> b = RankedList(np.array([2, 1, 4]), np.array([1, 1, 3]), np.array([2, 2, 3]))
    >>> overlap(a, b, 3, 3).tolist()
    [0.5, 2.0, 2.0]
    """
    _, i_s, i_l = np.intersect1d(short.items, long.items, assume_unique=True, return_indices=True)
    ts, bs, tl, bl = short.top[i_s], short.bottom[i_s], long.top[i_l], long.bottom[i_l]
    lo = np.maximum(ts, tl)
    hi = np.minimum(np.maximum(np.minimum(bs, s), bl), l)
    counts = hi - lo + 1
    item = np.repeat(np.arange(len(lo)), counts)
    depth = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts) + lo[item]
    value = _chance(ts[item], bs[item], np.minimum(depth, s)) * _chance(tl[item], bl[item], depth)
    x = np.bincount(depth - 1, weights=value, minlength=l + 1)[: l + 1]
    last = _chance(ts, bs, np.minimum(hi, s)) * _chance(tl, bl, hi)
    tail = np.bincount(hi, weights=last, minlength=l + 1)[: l + 1]  # constant from hi + 1 on
    return x[:l] + np.cumsum(tail)[:l]


def _prefix_sizes(lst: RankedList, n: int) -> np.ndarray:
    """``|lst[:d]|`` for ``d = 1..n`` when a tie group enters whole at its first rank."""
    return np.cumsum(np.bincount(np.minimum(lst.top, n + 1) - 1, minlength=n + 1)[:n]).astype(np.float64)


def rbo_forms(
    a: RankedList, b: RankedList, p: float, depth: int | None, ties: str, query: str, bounds: bool = True
) -> dict[str, float]:
    """RBO's ``ext``, ``min``, ``max`` and ``res`` (with ``bounds``) and, with a depth, ``prefix`` of one query.

    Parameters
    ----------
    a, b : RankedList
        The two lists (items of tie groups carry their group's ranks).
    p : float
        Persistence, ``0 < p < 1``.
    depth : int, optional
        Evaluation depth: both lists are cut there first.
    ties : str
        ``equal`` for the paper's tie treatment; any other value reads the
        groups as ``expected`` does (lists without ties have groups of one).
    query : str
        For error messages.
    bounds : bool
        Whether to compute ``max`` and ``res`` (which raise
        :class:`PolicyError` under ``expected`` when a tie group straddles the depth).

    Examples
    --------
    >>> a = RankedList(np.array([1, 2, 3]), np.array([1, 2, 3]), np.array([1, 2, 3]))
    >>> b = RankedList(np.array([1, 3]), np.array([1, 2]), np.array([1, 2]))
    >>> f = rbo_forms(a, b, 0.9, None, "stable", "q1")
    >>> round(f["ext"], 6), round(f["min"], 6), round(f["res"], 6)
    (0.82, 0.366686, 0.588314)
    """
    a, b = a.cut(depth), b.cut(depth)
    na, nb = len(a.items), len(b.items)
    if depth is not None:
        na, nb = min(na, depth), min(nb, depth)
    short, long, s, l = (a, b, na, nb) if na <= nb else (b, a, nb, na)  # noqa: E741
    equal = ties == "equal"
    if equal:
        short = RankedList(short.items, short.top, short.top)
        long = RankedList(long.items, long.top, long.top)
    x = overlap(short, long, s, l)
    d = np.arange(1, l + 1, dtype=np.float64)
    if equal:
        size_l = _prefix_sizes(long, l)
        size_s = np.where(d <= s, _prefix_sizes(short, l), d)
        denom = (size_s + size_l) / 2.0
        unseen_l = _prefix_sizes(RankedList(*(v[~np.isin(long.items, short.items)] for v in vars(long).values())), l)
        room = np.minimum(np.maximum(d - s, 0.0), unseen_l)
    else:
        denom = d
        room = np.maximum(d - s, 0.0)
    weights = p**d
    agree = x / denom
    a_s, x_l = float(agree[s - 1]), float(x[l - 1])
    beyond = d > s
    scale = (1.0 - p) / p
    tail_min = x_l * (math.log(1.0 / (1.0 - p)) - float(np.sum(weights / d)))
    forms = {
        "min": scale * (float(np.sum(agree * weights)) + float(tail_min)),
        "ext": scale * float(np.sum(np.where(beyond, (x + (d - s) * a_s) / denom, agree) * weights))
        + float((x_l + (l - s) * a_s) / l) * p**l,
    }
    if bounds:
        forms["max"] = scale * float(np.sum((x + room) / denom * weights)) + _max_tail(
            a, b, (na, nb), s, l, x_l, p, equal, query
        )
        forms["res"] = forms["max"] - forms["min"]
    if depth is not None:
        extra = np.arange(l + 1, depth + 1, dtype=np.float64)
        forms["prefix"] = (1.0 - p) * (
            float(np.sum(agree * p ** (d - 1))) + float(np.sum(x_l / extra * p ** (extra - 1)))
        )
    return forms


def _max_tail(
    a: RankedList,
    b: RankedList,
    seen: tuple[int, int],
    s: int,
    l: int,  # noqa: E741
    x_l: float,
    p: float,
    equal: bool,
    query: str,  # noqa: E741
) -> float:
    """RBO_MAX's part beyond depth ``l``: every unseen item matches as early as it can."""
    straddles = not equal and (bool(np.any(a.bottom > seen[0])) or bool(np.any(b.bottom > seen[1])))
    if straddles or x_l != round(x_l):
        raise PolicyError(
            f"query {query!r}: a tie group straddles the evaluation depth, so the overlap at the depth varies "
            "with the order of the tied items and RBO's upper bound has no exact mean; use ties='equal' or a "
            "policy that breaks ties (trec, stable, shuffle)"
        )
    f = l + s - int(round(x_l))
    d = np.arange(l + 1, f + 1, dtype=np.float64)
    return (1.0 - p) / p * float(np.sum((2 * d - l - s + x_l) / d * p**d)) + p**f
