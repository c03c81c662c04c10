r"""Yet another average precision (Robertson, ECIR 2012), as trec_eval's ``yaap``.

With S = sum over the relevant retrieved documents of (relevant documents up
to and including it) / rank, i.e. S = R * AP:

.. math:: yaap = \log \frac{1 + S}{1 + R - S}

Defined for every query (0 when R = 0). The logarithm makes it non-linear in
the ranking, so ``ties="expected"`` raises :class:`~rankmeter.errors.PolicyError`.
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.trec._common import deterministic_only


def yaap(ctx: Context, measure: Measure) -> np.ndarray:
    """log((1 + S) / (1 + R - S)) with S = R * AP.

    >>> import rankmeter
    >>> round(rankmeter.evaluate_lists([[1, 0]], [[2, 1]], "yaap", ties="stable")["yaap"], 4)
    0.6931
    """
    deterministic_only(ctx, measure)
    min_rel = measure.param("min_rel")
    b = ctx.relevant(min_rel)
    s = ctx.sums_at(ctx.prefix_products(b, b) / ctx.ranks, [None])[:, 0]
    big_r = ctx.num_relevant(min_rel)
    return np.log((1.0 + s) / (1.0 + big_r - s))[:, None]
