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
from dataclasses import dataclass

import numpy as np

from rankmeter.agreement.pairs import RankedList
from rankmeter.errors import PolicyError


def _chance(top: np.ndarray, bottom: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Probability that an item of the group spanning ranks ``top..bottom`` is among the first ``depth``."""
    return np.clip((depth - top + 1) / (bottom - top + 1), 0.0, 1.0)


@dataclass(frozen=True)
class _Side:
    """One run's lists laid end to end after the depth cut: query index, document, group ranks, and lengths."""

    query: np.ndarray
    items: np.ndarray
    top: np.ndarray
    bottom: np.ndarray
    length: np.ndarray

    @classmethod
    def of(cls, lists: list[RankedList], depth: int | None, equal: bool) -> _Side:
        cut = [lst.cut(depth) for lst in lists]
        sizes = np.array([len(c.items) for c in cut], dtype=np.int64)
        items = np.concatenate([c.items for c in cut]) if cut else np.zeros(0, np.int64)
        top = np.concatenate([c.top for c in cut]) if cut else np.zeros(0, np.int64)
        bottom = top if equal else (np.concatenate([c.bottom for c in cut]) if cut else np.zeros(0, np.int64))
        length = sizes if depth is None else np.minimum(sizes, depth)
        return cls(np.repeat(np.arange(len(cut)), sizes), items, top, bottom, length)


def _segment_cumsum(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Cumulative sums restarting at each segment (segments laid end to end, none empty)."""
    total = np.cumsum(values)
    before = total[starts] - values[starts]
    return total - np.repeat(before, lengths)


def _ranges(first: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row ``i``, the integers ``first[i] .. first[i] + counts[i] - 1``: (row of each, the integer)."""
    row = np.repeat(np.arange(len(counts)), counts)
    value = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts) + first[row]
    return row, value


def rbo_batch(
    a: list[RankedList],
    b: list[RankedList],
    p: float,
    depth: int | None,
    ties: str,
    query_ids: list[str],
    bounds: bool = True,
) -> dict[str, np.ndarray]:
    """RBO's ``ext``, ``min``, ``max`` and ``res`` (with ``bounds``) and, with a depth, ``prefix``, per query.

    Every query's depths are laid end to end and each form is a segmented sum:
    no loop over queries.

    Parameters
    ----------
    a, b : list of RankedList
        The two runs' lists of each query (items of a tie group carry its ranks).
    p : float
        Persistence, ``0 < p < 1``.
    depth : int, optional
        Evaluation depth: both lists are cut there first.
    ties : str
        ``equal`` for the paper's tie treatment; any other value reads the
        groups as ``expected`` does (lists without ties have groups of one).
    query_ids : list of str
        For error messages.
    bounds : bool
        Whether to compute ``max`` and ``res`` (which raise
        :class:`PolicyError` under ``expected`` when a tie group straddles the depth).

    Examples
    --------
    >>> a = RankedList(np.array([1, 2, 3]), np.array([1, 2, 3]), np.array([1, 2, 3]))
    >>> b = RankedList(np.array([1, 3]), np.array([1, 2]), np.array([1, 2]))
    >>> f = rbo_batch([a], [b], 0.9, None, "stable", ["q1"])
    >>> round(float(f["ext"][0]), 6), round(float(f["min"][0]), 6), round(float(f["res"][0]), 6)
    (0.82, 0.366686, 0.588314)
    """
    equal = ties == "equal"
    sa, sb = _Side.of(a, depth, equal), _Side.of(b, depth, equal)
    n_q = len(a)
    a_short = sa.length <= sb.length
    s = np.minimum(sa.length, sb.length)
    l = np.maximum(sa.length, sb.length)  # noqa: E741
    off = np.cumsum(l) - l
    total = int(l.sum())
    width = int(max(sa.items.max(initial=0), sb.items.max(initial=0))) + 1
    _, ia, ib = np.intersect1d(
        sa.query * width + sa.items, sb.query * width + sb.items, assume_unique=True, return_indices=True
    )
    qc = sa.query[ia]
    short_a = a_short[qc]
    ts = np.where(short_a, sa.top[ia], sb.top[ib])
    bs = np.where(short_a, sa.bottom[ia], sb.bottom[ib])
    tl = np.where(short_a, sb.top[ib], sa.top[ia])
    bl = np.where(short_a, sb.bottom[ib], sa.bottom[ia])
    sq, lq = s[qc], l[qc]
    lo = np.maximum(ts, tl)
    hi = np.minimum(np.maximum(np.minimum(bs, sq), bl), lq)
    item, at = _ranges(lo, hi - lo + 1)
    value = _chance(ts[item], bs[item], np.minimum(at, sq[item])) * _chance(tl[item], bl[item], at)
    x = np.bincount(off[qc[item]] + at - 1, weights=value, minlength=total)
    rest = hi < lq  # the product stays at its value at ``hi`` from ``hi + 1`` to ``l``
    last = _chance(ts, bs, np.minimum(hi, sq)) * _chance(tl, bl, hi)
    tail = np.bincount((off[qc] + hi)[rest], weights=last[rest], minlength=total)
    x = x + _segment_cumsum(tail, off, l)
    qpos = np.repeat(np.arange(n_q), l)
    d = (np.arange(total) - np.repeat(off, l) + 1).astype(np.float64)
    s_at = s[qpos]
    if equal:
        common_a = np.zeros(len(sa.items), dtype=bool)
        common_a[ia] = True
        common_b = np.zeros(len(sb.items), dtype=bool)
        common_b[ib] = True

        def prefix_sizes(short_side: bool, only_unique: bool = False) -> np.ndarray:
            counts = np.zeros(total)
            for side, on_short, common in ((sa, a_short, common_a), (sb, ~a_short, common_b)):
                pick = on_short[side.query] == short_side
                if only_unique:
                    pick &= ~common
                np.add.at(counts, off[side.query[pick]] + side.top[pick] - 1, 1.0)
            return _segment_cumsum(counts, off, l)

        size_l = prefix_sizes(False)
        size_s = np.where(d <= s_at, prefix_sizes(True), d)
        denom = (size_s + size_l) / 2.0
        room = np.minimum(np.maximum(d - s_at, 0.0), prefix_sizes(False, only_unique=True))
    else:
        denom = d
        room = np.maximum(d - s_at, 0.0)

    def per_query(v: np.ndarray) -> np.ndarray:
        return np.bincount(qpos, weights=v, minlength=n_q)

    weights = p**d
    agree = x / denom
    a_s, x_l = agree[off + s - 1], x[off + l - 1]
    scale = (1.0 - p) / p
    forms = {
        "min": scale * (per_query(agree * weights) + x_l * (math.log(1.0 / (1.0 - p)) - per_query(weights / d))),
        "ext": scale * per_query(np.where(d > s_at, (x + (d - s_at) * a_s[qpos]) / denom, agree) * weights)
        + (x_l + (l - s) * a_s) / l * p**l,
    }
    if bounds:
        _check_straddle(sa, sb, equal, query_ids)
        f = l + s - np.rint(x_l).astype(np.int64)
        row, beyond = _ranges(l + 1, f - l)
        beyond_f = beyond.astype(np.float64)
        terms = (2 * beyond_f - l[row] - s[row] + x_l[row]) / beyond_f * p**beyond_f
        forms["max"] = scale * (
            per_query((x + room) / denom * weights) + np.bincount(row, weights=terms, minlength=n_q)
        ) + p ** f.astype(np.float64)
        forms["res"] = forms["max"] - forms["min"]
    if depth is not None:
        ranks = np.arange(1, depth + 1, dtype=np.float64)
        after = np.concatenate((np.cumsum((p ** (ranks - 1) / ranks)[::-1])[::-1], [0.0]))  # sum from rank on
        forms["prefix"] = (1.0 - p) * (per_query(agree * p ** (d - 1)) + x_l * after[l])
    return forms


def _check_straddle(sa: _Side, sb: _Side, equal: bool, query_ids: list[str]) -> None:
    """Under ``expected``, a tie group past a list's evaluated length makes RBO_MAX's mean inexact: an error."""
    if equal:
        return
    for side in (sa, sb):
        past = np.flatnonzero(side.bottom > side.length[side.query])
        if len(past):
            query = query_ids[int(side.query[past[0]])]
            raise PolicyError(
                f"query {query!r}: a tie group straddles the evaluation depth, so the overlap at the depth varies "
                "with the order of the tied items and RBO's upper bound has no exact mean; use ties='equal' or a "
                "policy that breaks ties (trec, stable, shuffle)"
            )
