r"""Set-based measures on binary relevance (grade >= ``min_rel``; grade > 0 by default).

With rel@k the number of relevant documents in the top k and R the number of
relevant judged documents of the query:

- ``p@k``       rel@k / k (k, not the number retrieved: trec_eval's P)
- ``r@k``       rel@k / R
- ``f1@k``      2 rel@k / (k + R), the harmonic mean of p@k and r@k
- ``hits@k``    rel@k (ranx's ``hits``)
- ``fall_out@k`` (non-relevant items in the top k) / (non-relevant items of the list); 0 when every
  item of a non-empty list is relevant (torchmetrics' functional ``retrieval_fall_out``), or
  ``all_relevant``'s value (``retrieval_fall_out``, torchmetrics' ``RetrievalFallOut``: 1); 0 for an
  empty list
- ``rprec``     rel@R / R
- ``success@k`` 1 if rel@k > 0 else 0 (hit rate)
- ``judged@k``  judged documents in the top k / k
- ``acg@k``     sum of the grades of the top k / k (average cumulative gain,
  Järvelin & Kekäläinen, SIGIR 2000; used for multi-label retrieval by Zhao et
  al., CVPR 2015)

All are linear in the items' relevance except success, so under ``expected``
ties they use the tie-group mean at each position; success uses the
first-hit distribution of :meth:`Context.first_hit`. Without a cutoff the
whole list is used (k = number retrieved).
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context


def _cutoffs(measure: Measure) -> list[int | None]:
    return list(measure.cutoffs) if measure.cutoffs is not None else [None]


def relevant_at(ctx: Context, measure: Measure) -> np.ndarray:
    """Expected number of relevant documents in the top k: shape (Q, C)."""
    cutoffs = list(_cutoffs(measure))
    return _counted(ctx, ctx.relevant(measure.param("min_rel")), cutoffs, ctx.cutoff_sizes(cutoffs))


def _counted(ctx: Context, rel: np.ndarray, cutoffs: list, sizes: np.ndarray) -> np.ndarray:
    """Expected count of ``rel`` (0/1 per item) in the top k, never above the list's count nor k (``sizes``).

    Under ``expected`` ties the count sums tie-group means, which round: a tied group inside the top k
    can add up to one unit in the last place more than its count (r = 1.0000000000000002). The true
    expectation is at most both bounds (integers, exact in float64), so the sum is capped there.

    >>> import rankmeter
    >>> grades, scores = [1, 0, 0, 0, 0, 1, 0, 1], [0, 0, 0, 0, 0, 1, 0, 1]  # six tied, 1/6 relevant each
    >>> rankmeter.evaluate_lists([grades], [scores], "r", ties="expected")["r"]  # 1 + 1 + 6 x 1/6 over R = 3
    1.0
    """
    found = ctx.sums_at(ctx.tie_mean(rel), cutoffs)
    if not ctx.expected:
        return found
    bound = np.minimum(ctx.sums_at(rel, [None]), sizes)
    return np.minimum(found, bound)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def precision(ctx: Context, measure: Measure) -> np.ndarray:
    """rel@k / k; rel@k / min(k, list length) with ``divisor="min"`` (keras-rs' ``PrecisionAtK``)."""
    sizes = ctx.cutoff_sizes(_cutoffs(measure))
    if measure.param("divisor", "k") == "min":
        sizes = np.minimum(sizes, ctx.lengths.astype(np.float64)[:, None])
    return np.divide(relevant_at(ctx, measure), sizes, out=np.zeros_like(sizes), where=sizes > 0)


def hits(ctx: Context, measure: Measure) -> np.ndarray:
    """rel@k, the number of relevant documents in the top k."""
    return relevant_at(ctx, measure)


def fall_out(ctx: Context, measure: Measure) -> np.ndarray:
    """Non-relevant ranked items in the top k / non-relevant ranked items of the list.

    A non-empty list without a non-relevant item gets ``all_relevant`` (default 0), an empty one 0.
    """
    other = ctx.tie_mean(1.0 - ctx.relevant(measure.param("min_rel")))
    top = ctx.sums_at(other, list(_cutoffs(measure)))
    total = ctx.sums_at(other, [None])
    fill = np.where(ctx.lengths[:, None] > 0, float(measure.param("all_relevant", 0.0)), 0.0)
    return np.divide(top, total, out=np.broadcast_to(fill, top.shape).copy(), where=total > 0)


def recall(ctx: Context, measure: Measure) -> np.ndarray:
    """rel@k / R; NaN when R = 0."""
    return _ratio(relevant_at(ctx, measure), ctx.num_relevant(measure.param("min_rel"))[:, None])


def f1(ctx: Context, measure: Measure) -> np.ndarray:
    """2 rel@k / (k + R); NaN when R = 0."""
    sizes = ctx.cutoff_sizes(_cutoffs(measure))
    big_r = ctx.num_relevant(measure.param("min_rel"))[:, None]
    out = _ratio(2.0 * relevant_at(ctx, measure), sizes + big_r)
    out[np.broadcast_to(big_r == 0, out.shape)] = np.nan
    return out


def rprec(ctx: Context, measure: Measure) -> np.ndarray:
    """rel@R / R; NaN when R = 0."""
    min_rel = measure.param("min_rel")
    big_r = ctx.num_relevant(min_rel)
    found = _counted(ctx, ctx.relevant(min_rel), [big_r], big_r[:, None].astype(np.float64))
    return _ratio(found, big_r[:, None])


def success(ctx: Context, measure: Measure) -> np.ndarray:
    """1 if a relevant document is in the top k (its probability under expected ties)."""
    query, rank, prob = ctx.first_hit(ctx.relevant(measure.param("min_rel")))
    cutoffs = _cutoffs(measure)
    out = np.empty((ctx.ranked.n_queries, len(cutoffs)))
    for c, k in enumerate(cutoffs):
        w = prob if k is None else np.where(rank <= k, prob, 0.0)
        out[:, c] = np.bincount(query, weights=w, minlength=ctx.ranked.n_queries)
    return np.minimum(out, 1.0)  # a probability: summed first-hit probabilities can round to 1 + 1e-16


def judged(ctx: Context, measure: Measure) -> np.ndarray:
    """Judged documents in the top k / k; / min(k, list length) with ``divisor="min"`` (ir_measures' Judged)."""
    sizes = ctx.cutoff_sizes(_cutoffs(measure))
    if measure.param("divisor", "k") == "min":
        sizes = np.minimum(sizes, ctx.lengths.astype(np.float64)[:, None])
    counts = ctx.sums_at(ctx.tie_mean(ctx.ranked.judged.astype(np.float64)), list(_cutoffs(measure)))
    return np.divide(counts, sizes, out=np.zeros_like(sizes), where=sizes > 0)


def acg(ctx: Context, measure: Measure) -> np.ndarray:
    """Mean grade of the top k (grade sum / k)."""
    sizes = ctx.cutoff_sizes(_cutoffs(measure))
    sums = ctx.sums_at(ctx.tie_mean(ctx.graded()), list(_cutoffs(measure)))
    return np.divide(sums, sizes, out=np.zeros_like(sizes), where=sizes > 0)
