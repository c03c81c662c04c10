r"""Cumulative-gain family: cg, dcg, idcg, ndcg.

.. math::

    CG@k = \sum_{i=1}^{k} g(r_i), \qquad
    DCG@k = \sum_{i=1}^{k} g(r_i)\, d(i), \qquad
    nDCG@k = DCG@k / IDCG@k

with gain g (``linear`` r, ``exp`` 2^r - 1, a table or a callable), discount d
(``log2``: 1/log2(i+1); ``jarvelin(b)``; a callable) and IDCG@k the DCG@k of
the ideal ranking: all judged documents of the query sorted by gain
(``ideal=judged``, trec_eval) or the ranked list's own documents sorted by gain
(``ideal=retrieved``, scikit-learn and keras-rs). Without a cutoff the whole
list is used (and the whole ideal list). Per-item weights (dense input) scale
the gains and the ideal is sorted by weighted gain, as keras-rs does. Under
``expected`` ties each position's gain is the mean gain of its tied group,
which is exact because DCG is linear in the gains (McSherry & Najork, 2008).
"""

from __future__ import annotations

import numpy as np

from rankmeter.errors import InvalidScoreError
from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_positions, sort_segments_desc, sums_at_cutoffs
from rankmeter.measures.params import discount_values, format_number, gain_values


def _cutoffs(measure: Measure) -> list[int | None]:
    return list(measure.cutoffs) if measure.cutoffs is not None else [None]


def _finite(ctx: Context, measure: Measure, sums: np.ndarray, what: str) -> np.ndarray:
    """``sums`` (one row per query), or :class:`InvalidScoreError` naming the first query whose gains overflow.

    ``gain=exp`` gives 2^r - 1, beyond the float range from grade 1024 on (and a sum of large gains can be):
    such a value is refused, never reported as 0 or NaN.
    """
    bad = ~np.isfinite(sums)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1) if sums.ndim == 2 else bad)[0])
        ranked = ctx.ranked
        grades = ranked.ideal_grades[ranked.ideal_offsets[row] : ranked.ideal_offsets[row + 1]]
        top = f" (its highest grade is {format_number(float(grades.max()))})" if len(grades) else ""
        raise InvalidScoreError(
            f"measure {str(measure)!r}: query {str(ranked.query_ids[row])!r}: {what} is {sums[bad][0]}{top}; "
            "gains must keep sums within the float range (gain=exp overflows from grade 1024: use gain=linear, "
            "a gain table or smaller grades)"
        )
    return sums


def _item_gains(ctx: Context, measure: Measure) -> np.ndarray:
    ranked = ctx.ranked
    gains = np.where(ranked.judged, gain_values(measure.param("gain", "linear"), ranked.grades), 0.0)
    if ranked.item_weights is not None:
        gains = gains * ranked.item_weights
    return gains


def ideal_dcg(ctx: Context, measure: Measure, discounted: bool = True) -> np.ndarray:
    """IDCG (or ICG) of every query at every cutoff: shape (Q, C); an overflow is refused, naming the query."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _finite(ctx, measure, _ideal_dcg(ctx, measure, discounted), "the ideal DCG")


def _ideal_dcg(ctx: Context, measure: Measure, discounted: bool) -> np.ndarray:
    ranked = ctx.ranked
    gain = measure.param("gain", "linear")
    source = "retrieved" if measure.param("ideal", "judged") == "retrieved" and not ranked.ideal_is_list else "judged"
    if source == "retrieved":
        offsets, grades, weights = ranked.offsets, ranked.grades, ranked.item_weights
        gains = np.where(ranked.judged, gain_values(gain, grades), 0.0)
    else:
        offsets, grades, weights = ranked.ideal_offsets, ranked.ideal_grades, ranked.ideal_weights
        gains = gain_values(gain, grades)
    if weights is not None:
        gains = gains * weights
    cutoffs = _cutoffs(measure)
    # dense rows only: a query's value must never depend on which other queries are evaluated with it
    top = _top_of_equal_segments(gains, offsets, cutoffs) if ranked.ideal_is_list else None
    if top is not None:
        d = discount_values(measure.param("discount", "log2"), np.arange(1, top.shape[1] + 1, dtype=np.float64))
        running = np.cumsum(top * d if discounted else top, axis=1)
        return running[:, [k - 1 for k in cutoffs if k is not None]]
    gains = ctx.cached(
        ("ideal-sorted", source, _key(gain), weights is not None),
        lambda: _sort_desc(gains, offsets, ranked.ideal_is_list),
    )
    positions = ctx.cached(("ideal-positions", source), lambda: segment_positions(offsets, len(gains)))
    if discounted:
        gains = gains * ctx.discount_table(measure.param("discount", "log2"))[positions]
    return sums_at_cutoffs(gains, offsets, positions, list(_cutoffs(measure)))


def _key(value: object) -> object:
    return value if isinstance(value, str) else id(value)


def _sort_desc(gains: np.ndarray, offsets: np.ndarray, rows: bool) -> np.ndarray:
    """Gains sorted descending inside each segment; row-wise when the segments are the rows of a matrix."""
    lengths = np.diff(offsets)
    if rows and len(lengths) and np.all(lengths == lengths[0]) and lengths[0] > 0:
        return -np.sort(-gains.reshape(len(lengths), -1), axis=1).reshape(-1)
    return sort_segments_desc(gains, offsets)


def _top_of_equal_segments(gains: np.ndarray, offsets: np.ndarray, cutoffs: list[int | None]) -> np.ndarray | None:
    """The K largest gains of each segment, sorted descending, when every segment has the same length L > K.

    Partial selection (np.partition) on the (segments, L) matrix: O(L) per row instead of a sort.
    """
    lengths = np.diff(offsets)
    if not len(lengths) or None in cutoffs or np.any(lengths != lengths[0]):
        return None
    width = int(lengths[0])
    k = max(c for c in cutoffs if c is not None)
    if k >= width:
        return None
    rows = gains.reshape(len(lengths), width)
    largest = np.partition(rows, width - k, axis=1)[:, width - k :]
    return -np.sort(-largest, axis=1)


def cg(ctx: Context, measure: Measure) -> np.ndarray:
    """Cumulative gain of the top k (no discount)."""
    with np.errstate(over="ignore"):  # refused by _finite, naming the query
        sums = ctx.sums_at(ctx.tie_mean(_item_gains(ctx, measure)), list(_cutoffs(measure)))
    return _finite(ctx, measure, sums, "CG")


def dcg(ctx: Context, measure: Measure) -> np.ndarray:
    """Discounted cumulative gain of the top k."""
    gains = ctx.tie_mean(_item_gains(ctx, measure))
    discounts = ctx.discounts(measure.param("discount", "log2"))
    with np.errstate(over="ignore"):  # refused by _finite, naming the query
        sums = ctx.sums_at(gains * discounts, list(_cutoffs(measure)))
    return _finite(ctx, measure, sums, "DCG")


def idcg(ctx: Context, measure: Measure) -> np.ndarray:
    """DCG of the ideal ranking at k."""
    return ideal_dcg(ctx, measure)


def ndcg(ctx: Context, measure: Measure) -> np.ndarray:
    """DCG / IDCG; NaN where IDCG is 0 (no relevant document); at most 1 where no ordering beats the ideal.

    With gains and weights >= 0 and a non-increasing, non-negative discount,
    DCG <= IDCG under every tie policy (the ideal puts the largest gains at
    the largest discounts, and an expectation over orderings is at most
    their maximum); the two sums are added in different orders, so a
    ranking as good as the ideal can come out one unit in the last place
    above 1: :func:`bounded_by_ideal` says when the ratio is then exactly 1.
    """
    num = dcg(ctx, measure)
    den = ideal_dcg(ctx, measure)
    out = np.full_like(num, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    if bounded_by_ideal(ctx, measure):
        np.minimum(out, 1.0, out=out)  # NaN stays NaN
    return out


def bounded_by_ideal(ctx: Context, measure: Measure) -> bool:
    """Whether DCG <= IDCG is a theorem here: gains and item weights >= 0, the discount non-increasing and >= 0.

    ``gain=linear`` and ``exp`` are never negative; a gain table or callable is checked on the grades at
    hand, a callable discount on the ranks at hand.

    >>> import rankmeter
    >>> rankmeter.evaluate_lists([[3, 3, 2, 2, 0, 1]], [[2, 2, 1, 1, 0, 0]], "ndcg(ideal=retrieved)@4")[
    ...     "ndcg(ideal=retrieved)@4"]  # DCG 6.754142376861159 over IDCG 6.754142376861158
    1.0
    """
    ranked = ctx.ranked
    gain = measure.param("gain", "linear")
    weights = [w for w in (ranked.item_weights, ranked.ideal_weights) if w is not None]
    if any(len(w) and w.min() < 0 for w in weights):
        return False
    if not (isinstance(gain, str) or (gain_values(gain, ranked.ideal_grades).min(initial=0.0) >= 0
                                      and _item_gains(ctx, measure).min(initial=0.0) >= 0)):  # fmt: skip
        return False
    table = ctx.discount_table(measure.param("discount", "log2"))
    return bool(np.all(table >= 0) and np.all(np.diff(table) <= 0))
