r"""Average precision and its graded variant, weighted average precision.

.. math::

    AP@k = \frac{1}{R} \sum_{i=1}^{k} b_i \, \frac{\sum_{j \le i} b_j}{i}, \qquad
    WAP@k = \frac{1}{R} \sum_{i=1}^{k} b_i \, ACG@i, \quad
    ACG@i = \frac{1}{i} \sum_{j \le i} r_j

b_i is binary relevance (grade >= ``min_rel``, > 0 by default), r_j the
non-negative grade and R the number of relevant judged documents of the query
(trec_eval's ``map`` / ``map_cut`` divide by R, never by min(R, k)). WAP is
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


def _normalised(ctx: Context, measure: Measure, terms: np.ndarray, divisor: np.ndarray | None = None) -> np.ndarray:
    cutoffs = list(measure.cutoffs) if measure.cutoffs is not None else [None]
    sums = ctx.sums_at(terms / ctx.ranks, list(cutoffs))
    big_r = (ctx.num_relevant(measure.param("min_rel")) if divisor is None else divisor)[:, None]
    out = np.full_like(sums, np.nan)
    np.divide(sums, big_r, out=out, where=big_r > 0)
    return out


def average_precision(ctx: Context, measure: Measure) -> np.ndarray:
    """AP@k; NaN when R = 0."""
    b = ctx.relevant(measure.param("min_rel"))
    ranked = ctx.ranked
    if ranked.item_weights is None or ranked.ideal_weights is None:
        return _normalised(ctx, measure, ctx.prefix_products(b, b))
    min_rel, grades = measure.param("min_rel"), ranked.ideal_grades
    relevant = (grades > 0) if min_rel is None else (grades >= min_rel)
    divisor = segment_sum(ranked.ideal_weights * relevant, ranked.ideal_offsets)  # keras-rs: sum of w * rel
    return _normalised(ctx, measure, ctx.prefix_products(b * ranked.item_weights, b), divisor)


def weighted_average_precision(ctx: Context, measure: Measure) -> np.ndarray:
    """WAP@k; NaN when R = 0."""
    b = ctx.relevant(measure.param("min_rel"))
    return _normalised(ctx, measure, ctx.prefix_products(b, ctx.graded()))
