r"""Kernels of the recommender libraries' own definitions, where their number is not a rankmeter measure's.

With b_i the binary relevance of the i-th ranked item (grade >= ``min_rel``,
> 0 by default), rel@k the relevant items in the top k, R the relevant judged
items of the user (ranked or not), N the catalogue size and
:math:`D_k = \sum_{i=1}^{k} 1/\log_2(i + 1)`:

- ``rectools_ndcg@k`` (rectools' ``NDCG(k)``, its default
  ``divide_by_achievable=False``): :math:`\sum_{i \le k} b_i / \log_2(i + 1) \,/\, D_k`, the DCG
  divided by the DCG of k relevant items whatever R is (so a user with R < k
  can never reach 1).
- ``implicit_p@k`` (implicit's ``precision_at_k``): per user ``relative_p@k``,
  rel@k / min(k, R); its aggregate is pooled,
  :math:`\sum_u rel@k_u / \sum_u \min(k, R_u)` (:func:`min_k_relevant` gives the weights).
- ``implicit_auc(n_items=N)@k`` (implicit's ``AUC_at_k``): the share of
  (relevant, non-relevant) pairs of the catalogue in order when the items
  outside the top k are in random order below it. With h = rel@k, m the
  non-relevant items of the top k and :math:`c_j` the relevant items ranked
  above the j-th of them:

  .. math:: \frac{\sum_{j \le m} c_j + \frac{h + R}{2} (N - R - m)}{R (N - R)}

- ``gauc`` (RecBole's ``GAUC``): ``auroc`` of each list, pooled by the
  number of relevant items of the list; a list without a relevant or without a
  non-relevant item weighs 0 (RecBole drops such users),
  :func:`ranked_relevant_count` gives the weights.

Every kernel is linear in products of the ranked relevance, so ``expected``
ties use :meth:`Context.tie_mean` and :meth:`Context.prefix_products`.

>>> from rankmeter import evaluate
>>> res = evaluate({"u": {"a": 1, "b": 1}}, {"u": {"a": 3, "x": 2, "y": 1}}, ["rectools_ndcg@3", "ndcg@3"])
>>> round(res["rectools_ndcg@3"], 6), round(res["ndcg@3"], 6)
(0.469279, 0.613147)
"""

from __future__ import annotations

import numpy as np

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_sum
from rankmeter.measures.kernels.trec._common import cutoff_list, ratio


def rectools_ndcg(ctx: Context, measure: Measure) -> np.ndarray:
    """Binary DCG@k / DCG of k relevant items; NaN when R = 0."""
    cutoffs = cutoff_list(measure)
    min_rel = measure.param("min_rel")
    dcg = ctx.sums_at(ctx.tie_mean(ctx.relevant(min_rel)) * ctx.discounts("log2"), list(cutoffs))
    sizes = ctx.cutoff_sizes(cutoffs).astype(np.int64)
    table = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, sizes.max(initial=0) + 2)))))
    best = table[sizes]
    out = ratio(dcg, best)
    out[ctx.num_relevant(min_rel) == 0] = np.nan
    return out


def min_k_relevant(ctx: Context, measure: Measure) -> np.ndarray:
    """min(k, R) of each user and cutoff (k = list length without a cutoff): implicit's pooling weights."""
    big_r = ctx.num_relevant(measure.param("min_rel"))[:, None]
    return np.minimum(ctx.cutoff_sizes(cutoff_list(measure)), big_r)


def implicit_auc(ctx: Context, measure: Measure) -> np.ndarray:
    """implicit's ``AUC_at_k``: catalogue AUC with the items below the top k in random order."""
    cutoffs = cutoff_list(measure)
    min_rel = measure.param("min_rel")
    if measure.param("n_items") is None:
        raise MeasureSyntaxError(
            f"measure {str(measure)!r}: give the catalogue size, e.g. implicit_auc(n_items=1000)@10"
        )
    n_items = float(measure.param("n_items"))
    b = ctx.relevant(min_rel)
    big_r = ctx.num_relevant(min_rel)[:, None]
    hits = ctx.sums_at(ctx.tie_mean(b), list(cutoffs))
    taken = np.minimum(ctx.cutoff_sizes(cutoffs), ctx.lengths.astype(np.float64)[:, None])
    misses = taken - hits
    ordered = ctx.sums_at(ctx.prefix_products(1.0 - b, b), list(cutoffs))
    negatives = n_items - big_r
    return ratio(ordered + (hits + big_r) / 2.0 * (negatives - misses), big_r * negatives)


def ranked_relevant_count(ctx: Context, measure: Measure) -> np.ndarray:
    """RecBole's GAUC weights: the relevant items of each list, 0 when the list has no non-relevant item."""
    b = ctx.relevant(measure.param("min_rel"))
    n_pos = segment_sum(b, ctx.ranked.offsets)
    weights = np.where(ctx.lengths > n_pos, n_pos, 0.0)
    return np.repeat(weights[:, None], len(cutoff_list(measure)), axis=1)
