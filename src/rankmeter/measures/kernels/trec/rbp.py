r"""Rank-biased precision (Moffat & Zobel, TOIS 2008) and its residual, as trec_eval 10 computes them.

.. math::

    RBP(p) = (1 - p) \sum_{i \ge 0} g'_i\, p^{i} \qquad
    RBP\_resid(p) = p^{n} + (1 - p) \sum_{i:\ \mathrm{unjudged}} p^{i}
    \quad (0 \text{ when no retrieved document is unjudged})

with 0-based ranks i, n the number retrieved and g'_i the document's gain
scaled into [0, 1]: trec_eval collects the gains of the query's grade levels
0..max (and of every explicit gain-table entry) and, when one of them lies
outside [0, 1], maps every gain to (g - min) / (max - min) over that
collection. So binary qrels keep gains 0/1 and graded qrels 0..3 use g / 3.
Unjudged documents (absent from the qrels or with a negative grade) have gain
0 for RBP and are the ones counted by the residual. Both are linear in the
ranking, so ``ties="expected"`` is exact.
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_sum
from rankmeter.measures.kernels.trec._common import ranked_gains, unjudged
from rankmeter.measures.params import GainTable, gain_values


def _segment_extreme(values: np.ndarray, offsets: np.ndarray, fill: float, ufunc: np.ufunc) -> np.ndarray:
    out = np.full(len(offsets) - 1, fill)
    nonempty = np.diff(offsets) > 0
    if nonempty.any():
        out[nonempty] = ufunc.reduceat(values, offsets[:-1][nonempty])
    return out


def gain_range(ctx: Context, gain: object) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the smallest and largest gain of its grade levels 0..max and of the gain-table entries."""
    ranked = ctx.ranked
    grades = ranked.ideal_grades
    offsets = ranked.ideal_offsets
    ok = grades >= 0
    top = _segment_extreme(np.where(ok, np.floor(grades), -1.0), offsets, -1.0, np.maximum)
    n_levels = int(top.max()) + 1 if len(top) else 0
    lo = np.full(len(top), np.inf)
    hi = np.full(len(top), -np.inf)
    if n_levels > 0:
        level_gains = gain_values(gain, np.arange(n_levels, dtype=np.float64))
        low = np.minimum.accumulate(level_gains)
        high = np.maximum.accumulate(level_gains)
        has = top >= 0
        at = top[has].astype(np.int64)
        lo[has], hi[has] = low[at], high[at]
    judged_gains = np.where(ok, gain_values(gain, np.where(ok, grades, 0.0)), np.nan)
    lo = np.fmin(lo, _segment_extreme(np.where(ok, judged_gains, np.inf), offsets, np.inf, np.minimum))
    hi = np.fmax(hi, _segment_extreme(np.where(ok, judged_gains, -np.inf), offsets, -np.inf, np.maximum))
    if isinstance(gain, GainTable) and gain.entries:
        entry_gains = np.array([v for _, v in gain.entries])
        lo = np.minimum(lo, entry_gains.min())
        hi = np.maximum(hi, entry_gains.max())
    return lo, hi


def scaled_gains(ctx: Context, gain: object) -> np.ndarray:
    """Gain of each ranked document, scaled into [0, 1] per query as trec_eval's rbp does."""
    gains = ranked_gains(ctx, gain)
    lo, hi = gain_range(ctx, gain)
    scale = ((lo < 0) | (hi > 1)) & (hi > lo)
    q = ctx.item_query
    judged = ctx.ranked.judged & (ctx.ranked.grades >= 0)
    rescale = scale[q] & judged
    span = np.where(scale, hi - lo, 1.0)[q]
    return np.where(rescale, (gains - lo[q]) / span, gains)


def rbp(ctx: Context, measure: Measure) -> np.ndarray:
    """(1 - p) * sum of scaled gains discounted by p^i.

    >>> import rankmeter
    >>> rankmeter.evaluate_lists([[1, 0, 1]], [[3, 2, 1]], "rbp(p=0.5)", ties="stable")["rbp(p=0.5)"]
    0.625
    """
    p = float(measure.param("p", 0.9))
    gains = ctx.tie_mean(scaled_gains(ctx, measure.param("gain", "linear")))
    weights = np.power(p, ctx.positions.astype(np.float64))
    return ((1.0 - p) * segment_sum(gains * weights, ctx.ranked.offsets))[:, None]


def rbp_resid(ctx: Context, measure: Measure) -> np.ndarray:
    """The most RBP could rise if every unjudged retrieved document (and everything past the list) had gain 1."""
    p = float(measure.param("p", 0.9))
    offsets = ctx.ranked.offsets
    unj = unjudged(ctx)
    weights = np.power(p, ctx.positions.astype(np.float64))
    seen = segment_sum(ctx.tie_mean(unj) * weights, offsets)
    residual = np.power(p, ctx.lengths.astype(np.float64)) + (1.0 - p) * seen
    return np.where(segment_sum(unj, offsets) > 0, residual, 0.0)[:, None]
