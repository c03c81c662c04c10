r"""Statistics of the ranks of the relevant items: mean rank, PyKEEN's adjusted mean rank index, percentile rank.

For one query with n ranked items, rank :math:`i` of each item and binary
relevance :math:`b_i` (grade >= ``min_rel``; grade > 0 by default):

.. math::

    MR = \frac{\sum_i b_i\, i}{\sum_i b_i}, \qquad
    AMRI = 1 - \frac{MR - 1}{E[MR] - 1}, \quad E[MR] = \frac{n + 1}{2}, \qquad
    MPR = \frac{\sum_i g_i \frac{i - 1}{n - 1}}{\sum_i g_i}

AMRI is Berrendorf et al.'s adjusted arithmetic mean rank index (PyKEEN's
``AdjustedArithmeticMeanRankIndex``): 1 when every relevant item is first, 0
in expectation for a random order, -1 at worst; E[MR] is the mean rank of a
uniformly random ranking of the n candidates. MPR is Hu, Koren & Volinsky's
expected percentile rank (ICDM 2008), each item weighted by its grade
:math:`g_i` (0 for unjudged and negative grades): 0 at the top, 1 at the bottom.
Relevant documents that were not ranked are not counted. A query without
relevant documents follows the ``empty`` policy; one that has some but none
in its list (or, for AMRI and MPR, a list of one item) has no value: NaN
under every policy, left out of the mean and counted in
``metadata["queries_undefined"]``. The expected rank of an item of a tied group is the
group's mean rank, so ``ties="expected"`` is exact for all three; it is
PyKEEN's "realistic" rank.
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_sum


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(len(num), np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _mean_rank(ctx: Context, measure: Measure) -> np.ndarray:
    rel = ctx.relevant(measure.param("min_rel"))
    ranks = ctx.tie_mean(ctx.ranks)
    offsets = ctx.ranked.offsets
    return _ratio(segment_sum(rel * ranks, offsets), segment_sum(rel, offsets))


def mean_rank(ctx: Context, measure: Measure) -> np.ndarray:
    """Mean rank of the relevant items of the list (PyKEEN's ``ArithmeticMeanRank`` of one query).

    >>> import rankmeter
    >>> res = rankmeter.evaluate_lists([[0, 1, 0, 1]], [[4, 3, 2, 1]], ["mean_rank", "amri"], ties="stable")
    >>> res["mean_rank"], round(res["amri"], 12)  # (2 + 4) / 2; 1 - 2 / 1.5
    (3.0, -0.333333333333)
    """
    return _mean_rank(ctx, measure)[:, None]


def amri(ctx: Context, measure: Measure) -> np.ndarray:
    """1 - (MR - 1) / ((n + 1) / 2 - 1): PyKEEN's adjusted arithmetic mean rank index of one query."""
    chance = (ctx.lengths.astype(np.float64) + 1.0) / 2.0
    return (1.0 - _ratio(_mean_rank(ctx, measure) - 1.0, chance - 1.0))[:, None]


def mpr(ctx: Context, measure: Measure) -> np.ndarray:
    """Grade-weighted mean of the percentile ranks (i - 1) / (n - 1); lower is better.

    >>> import rankmeter
    >>> rankmeter.evaluate_lists([[2, 0, 1]], [[3, 2, 1]], "mpr", ties="stable")["mpr"]
    0.3333333333333333
    """
    gains = ctx.graded()
    n = ctx.lengths.astype(np.float64)
    spread = np.maximum(n - 1.0, 0.0)[ctx.item_query]
    percentile = np.divide(ctx.tie_mean(ctx.ranks) - 1.0, spread, out=np.zeros(len(gains)), where=spread > 0)
    offsets = ctx.ranked.offsets
    value = _ratio(segment_sum(gains * percentile, offsets), segment_sum(gains, offsets))
    return np.where(n > 1, value, np.nan)[:, None]
