r"""Interpolated precision at recall levels, their average, and precision at multiples of R.

With R the number of relevant documents of the query, rank_m the rank of the
m-th relevant document retrieved and a recall level x turned into a number of
relevant documents as trec_eval does, :math:`c(x) = \lfloor xR + o \rfloor`
(``offset`` o = 0.5 in trec_eval 10, 0.9 in trec_eval 9 and pytrec_eval):

.. math::

    iprec(x) = \max_{m \ge c(x)} \frac{m}{rank_m} \quad (\max \text{ over all } m \text{ when } c(x) = 0;
    \ 0 \text{ when } c(x) \text{ exceeds the relevant retrieved})

    iprec\_avg(x_1..x_n) = \frac{1}{n} \sum_i iprec(x_i) \qquad
    rprec\_mult(x) = P@c'(x), \quad c'(x) = \lfloor xR + 0.9 \rfloor

``iprec_avg`` with the 11 levels 0, 0.1, ..., 1 is trec_eval's ``11pt_avg``;
``rprec_mult(mult=1)`` is R-precision. NaN when R = 0. The interpolated
measures take a maximum over the ranking, so ``ties="expected"`` raises
:class:`~rankmeter.errors.PolicyError`; ``rprec_mult`` is linear in the
ranking and handles it exactly.
"""

from __future__ import annotations

import numpy as np

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_positions
from rankmeter.measures.kernels.trec._common import deterministic_only, memo, segment_suffix_max

ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def relevant_counts(levels: np.ndarray, num_rel: np.ndarray, offset: float = 0.5) -> np.ndarray:
    """trec_eval's number of relevant documents for recall level x: floor(x R + offset), shape (Q, L).

    >>> relevant_counts(np.array([0.0, 0.1, 0.5]), np.array([10.0, 3.0])).tolist()
    [[0.0, 1.0, 5.0], [0.0, 0.0, 2.0]]
    >>> relevant_counts(np.array([0.1]), np.array([3.0]), offset=0.9).tolist()
    [[1.0]]
    """
    return np.trunc(levels[None, :] * num_rel[:, None] + offset)


def interpolated_precision(ctx: Context, min_rel: float | None, levels: np.ndarray, offset: float = 0.5) -> np.ndarray:
    """Interpolated precision of every query at every recall level: shape (Q, L)."""
    n_q = ctx.ranked.n_queries

    def suffix() -> np.ndarray:
        rel_items = np.flatnonzero(ctx.relevant(min_rel) > 0)
        counts = np.bincount(ctx.item_query[rel_items], minlength=n_q)
        rel_offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        m = segment_positions(rel_offsets, len(rel_items)) + 1.0
        best = segment_suffix_max(m / ctx.ranks[rel_items], rel_offsets)
        return np.concatenate((rel_offsets.astype(np.float64), best))

    packed = memo(ctx, ("iprec_suffix_max", min_rel), suffix)
    rel_offsets = packed[: n_q + 1].astype(np.int64)
    best = packed[n_q + 1 :]
    counts = np.diff(rel_offsets)
    c = relevant_counts(levels, ctx.num_relevant(min_rel), offset)
    out = np.zeros_like(c)
    first = rel_offsets[:-1, None] + np.zeros_like(c, dtype=np.int64)
    at = np.where(c >= 1, first + c.astype(np.int64) - 1, first)
    ok = (c <= counts[:, None]) & (counts[:, None] > 0)
    out[ok] = best[at[ok]]
    return out


def _levels(measure: Measure) -> np.ndarray:
    if measure.family == "iprec_at_recall":
        level = measure.param("recall")
        if level is None:
            raise MeasureSyntaxError(
                f"measure {str(measure)!r} needs a recall level, e.g. 'iprec_at_recall(recall=0.5)'"
            )
        return np.array([float(level)])
    return np.asarray(measure.param("levels", ELEVEN_POINTS), dtype=np.float64)


def _undefined_when_no_relevant(ctx: Context, measure: Measure, values: np.ndarray) -> np.ndarray:
    big_r = ctx.num_relevant(measure.param("min_rel"))
    values[big_r == 0] = np.nan
    return values


def iprec_at_recall(ctx: Context, measure: Measure) -> np.ndarray:
    """Interpolated precision at one recall level; NaN when R = 0.

    >>> import rankmeter
    >>> res = rankmeter.evaluate_lists([[0, 1, 0, 1]], [[4, 3, 2, 1]], "iprec_at_recall(recall=0.5)", ties="stable")
    >>> res["iprec_at_recall(recall=0.5)"]
    0.5
    """
    deterministic_only(ctx, measure)
    values = interpolated_precision(ctx, measure.param("min_rel"), _levels(measure), measure.param("offset", 0.5))
    return _undefined_when_no_relevant(ctx, measure, values)


def iprec_avg(ctx: Context, measure: Measure) -> np.ndarray:
    """Mean interpolated precision over the recall levels (11-point average by default); NaN when R = 0."""
    deterministic_only(ctx, measure)
    levels = _levels(measure)
    offset = measure.param("offset", 0.5)
    precision = interpolated_precision(ctx, measure.param("min_rel"), levels, offset)
    total = np.zeros(len(precision))
    for j in range(precision.shape[1] - 1, -1, -1):  # trec_eval adds the levels from the highest down, one by one
        total += precision[:, j]
    values = (total / max(precision.shape[1], 1))[:, None]
    return _undefined_when_no_relevant(ctx, measure, values)


def rprec_mult(ctx: Context, measure: Measure) -> np.ndarray:
    """Precision at floor(mult R + 0.9) documents (0 when that is 0); NaN when R = 0."""
    min_rel = measure.param("min_rel")
    big_r = ctx.num_relevant(min_rel)
    c = np.maximum(np.trunc(float(measure.param("mult", 1.0)) * big_r + 0.9), 0.0)
    rel = ctx.tie_mean(ctx.relevant(min_rel))
    found = ctx.sums_at(rel, [c.astype(np.int64)])[:, 0]
    values = np.divide(found, c, out=np.zeros_like(found), where=c > 0)
    values[big_r == 0] = np.nan
    return values[:, None]
