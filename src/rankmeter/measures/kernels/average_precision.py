r"""Average precision and its graded variant, weighted average precision.

.. math::

    AP@k = \frac{1}{R} \sum_{i=1}^{k} b_i \, \frac{\sum_{j \le i} b_j}{i}, \qquad
    WAP@k = \frac{1}{R} \sum_{i=1}^{k} b_i \, ACG@i, \quad
    ACG@i = \frac{1}{i} \sum_{j \le i} r_j

b_i is binary relevance (grade >= ``min_rel``, > 0 by default), r_j the
non-negative grade and R the number of relevant judged documents of the query
(trec_eval's ``map`` / ``map_cut`` divide by R). ``divisor`` replaces R in the
AP denominator: ``min`` divides by min(R, k) (Spark's ``meanAveragePrecisionAt``,
RecBole's ``MAP``, ml_metrics' ``apk``, implicit's ``mean_average_precision_at_k``),
``k`` by k (rectools' ``MAP(divide_by_k=True)``); without a cutoff, k is the
list length for ``k`` and unbounded for ``min`` (so min(R, k) = R). A query with
R = 0 is empty (NaN) under every divisor. WAP is
the weighted mAP of Zhao et al., "Deep Semantic Ranking Based Hashing for
Multi-Label Image Retrieval" (CVPR 2015), built on ACG (Järvelin &
Kekäläinen, SIGIR 2000); rankmeter normalises it by R like AP, which equals
the paper's form when the whole database is ranked. Under ``expected`` ties
the expectation of each product b_i * sum_{j<=i} g_j is exact
(:meth:`Context.prefix_products`); AP is linear in those products.

With item weights w (``sample_weight`` of dense input) AP is keras-rs's
item-weighted AP, :math:`\sum_{i \le k} w_i b_i P@i / \sum_i w_i b_i`
(plain AP when the weights of a list are equal).
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_sum


def _normalised(ctx: Context, measure: Measure, terms: np.ndarray, weighted_r: np.ndarray | None = None) -> np.ndarray:
    cutoffs: list[int | None] = list(measure.cutoffs) if measure.cutoffs is not None else [None]
    sums = ctx.sums_at(terms / ctx.ranks, list(cutoffs))
    big_r = (ctx.num_relevant(measure.param("min_rel")) if weighted_r is None else weighted_r)[:, None]
    divisor = measure.param("divisor", "R")
    den = np.broadcast_to(big_r, sums.shape)
    if divisor == "min":
        den = np.minimum(big_r, [np.inf if k is None else k for k in cutoffs])
    elif divisor == "k":
        den = ctx.cutoff_sizes(cutoffs)
    out = np.full_like(sums, np.nan)
    np.divide(sums, den, out=out, where=(big_r > 0) & (den > 0))
    return out


def average_precision(ctx: Context, measure: Measure) -> np.ndarray:
    """AP@k divided by R (``divisor="R"``), min(R, k) (``"min"``) or k (``"k"``); NaN when R = 0."""
    b = ctx.relevant(measure.param("min_rel"))
    ranked = ctx.ranked
    if ranked.item_weights is None or ranked.ideal_weights is None:
        return _normalised(ctx, measure, ctx.prefix_products(b, b))
    min_rel, grades = measure.param("min_rel"), ranked.ideal_grades
    relevant = (grades > 0) if min_rel is None else (grades >= min_rel)
    weighted_r = segment_sum(ranked.ideal_weights * relevant, ranked.ideal_offsets)  # keras-rs: sum of w * rel
    return _normalised(ctx, measure, ctx.prefix_products(b * ranked.item_weights, b), weighted_r)


def weighted_average_precision(ctx: Context, measure: Measure) -> np.ndarray:
    """WAP@k; NaN when R = 0."""
    b = ctx.relevant(measure.param("min_rel"))
    return _normalised(ctx, measure, ctx.prefix_products(b, ctx.graded()))
