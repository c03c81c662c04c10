"""Counting measures (summed, not averaged, over queries, as trec_eval does).

- ``num_q``       1 per evaluated query
- ``num_ret``     documents retrieved
- ``num_rel``     relevant judged documents (retrieved or not)
- ``num_rel_ret`` relevant documents retrieved
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context


def num_q(ctx: Context, measure: Measure) -> np.ndarray:
    """1 for every query."""
    return np.ones((ctx.ranked.n_queries, 1))


def num_ret(ctx: Context, measure: Measure) -> np.ndarray:
    """Number of ranked documents."""
    return ctx.lengths.astype(np.float64)[:, None]


def num_rel(ctx: Context, measure: Measure) -> np.ndarray:
    """Number of relevant judged documents."""
    return ctx.num_relevant(measure.param("min_rel"))[:, None]


def num_rel_ret(ctx: Context, measure: Measure) -> np.ndarray:
    """Number of relevant documents retrieved."""
    return ctx.sums_at(ctx.relevant(measure.param("min_rel")), [None])
