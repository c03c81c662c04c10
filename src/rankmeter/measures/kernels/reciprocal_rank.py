r"""Reciprocal rank of the first relevant document, with an optional cutoff.

.. math:: RR@k = 1 / \mathrm{rank}_1 \text{ if } \mathrm{rank}_1 \le k \text{ else } 0

Under ``expected`` ties the rank of the first relevant document follows the
hypergeometric first-hit law of :meth:`Context.first_hit`, and RR@k is
:math:`\sum_j w_j / (a + j)` over the positions within the cutoff.
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context


def reciprocal_rank(ctx: Context, measure: Measure) -> np.ndarray:
    """RR@k (0 when no relevant document is retrieved in the top k)."""
    query, rank, prob = ctx.first_hit(ctx.relevant(measure.param("min_rel")))
    cutoffs = list(measure.cutoffs) if measure.cutoffs is not None else [None]
    out = np.empty((ctx.ranked.n_queries, len(cutoffs)))
    for c, k in enumerate(cutoffs):
        w = prob / rank if k is None else np.where(rank <= k, prob / rank, 0.0)
        out[:, c] = np.bincount(query, weights=w, minlength=ctx.ranked.n_queries)
    return out
