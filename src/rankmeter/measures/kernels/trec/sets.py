r"""Set-based and count-based measures of trec_eval, plus relative precision and unjudged@k.

With n the number of documents retrieved, R the number of relevant judged
documents, k_rel the relevant retrieved, rel@k the relevant in the top k and
unj@k the top-k documents that are unjudged (not in the qrels, or judged with
a negative grade):

.. math::

    set\_p = k_{rel} / n \qquad set\_recall = k_{rel} / R \qquad
    set\_relative\_p = k_{rel} / \min(n, R) \qquad set\_map = k_{rel}^2 / (n R)

    set\_f(\beta) = \frac{(\beta + 1) P R_c}{\beta P + R_c}
    \quad (P = k_{rel}/n,\ R_c = k_{rel}/R;\ 0 \text{ when } k_{rel} = 0)

    relative\_p@k = rel@k / \min(k, R) \qquad unj@k = unj@k / k

    utility(a, b, c, d) = a\,k_{rel} + b\,(n - k_{rel}) + c\,(R - k_{rel}) + d\,(N + k_{rel} - n - R)

(N: ``collection``, the number of documents in the collection, trec_eval
``-N``). ``num_nonrel_judged_ret`` counts the retrieved documents judged with a
grade >= 0 that are not relevant. The set measures do not depend on the order;
relative_p and unj are linear in it, so every tie policy is exact.
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.trec._common import cutoff_list, judged_nonrelevant, ratio, unjudged


def _counts(ctx: Context, measure: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n retrieved, R, relevant retrieved) per query."""
    min_rel = measure.param("min_rel")
    n = ctx.lengths.astype(np.float64)
    found = ctx.sums_at(ctx.relevant(min_rel), [None])[:, 0]
    return n, ctx.num_relevant(min_rel), found


def set_p(ctx: Context, measure: Measure) -> np.ndarray:
    """Relevant retrieved / retrieved (0 when nothing is retrieved)."""
    n, _, found = _counts(ctx, measure)
    return np.divide(found, n, out=np.zeros_like(n), where=n > 0)[:, None]


def set_recall(ctx: Context, measure: Measure) -> np.ndarray:
    """Relevant retrieved / R; NaN when R = 0."""
    _, big_r, found = _counts(ctx, measure)
    return ratio(found, big_r)[:, None]


def set_relative_p(ctx: Context, measure: Measure) -> np.ndarray:
    """Relevant retrieved / min(retrieved, R); NaN when R = 0."""
    n, big_r, found = _counts(ctx, measure)
    den = np.minimum(n, big_r)
    values = np.divide(found, den, out=np.zeros_like(den), where=den > 0)
    values[big_r == 0] = np.nan
    return values[:, None]


def set_map(ctx: Context, measure: Measure) -> np.ndarray:
    """(Relevant retrieved)^2 / (retrieved R); NaN when R = 0."""
    n, big_r, found = _counts(ctx, measure)
    den = n * big_r
    values = np.divide(found * found, den, out=np.zeros_like(den), where=den > 0)
    values[big_r == 0] = np.nan
    return values[:, None]


def set_f(ctx: Context, measure: Measure) -> np.ndarray:
    """Weighted harmonic mean of set precision and set recall; NaN when R = 0.

    >>> import rankmeter
    >>> round(rankmeter.evaluate({"q": {"a": 1, "b": 1}}, {"q": {"a": 1, "x": 0}}, "set_f")["set_f"], 4)
    0.5
    """
    n, big_r, found = _counts(ctx, measure)
    beta = float(measure.param("beta", 1.0))
    p = np.divide(found, n, out=np.zeros_like(n), where=n > 0)
    r = np.divide(found, big_r, out=np.zeros_like(n), where=big_r > 0)
    den = beta * p + r
    values = np.divide((beta + 1.0) * p * r, den, out=np.zeros_like(n), where=(found > 0) & (den != 0))
    values[big_r == 0] = np.nan
    return values[:, None]


def utility(ctx: Context, measure: Measure) -> np.ndarray:
    """Linear utility of the retrieved set (defined for every query, also without relevant documents)."""
    n, big_r, found = _counts(ctx, measure)
    a, b = float(measure.param("a", 1.0)), float(measure.param("b", -1.0))
    c, d = float(measure.param("c", 0.0)), float(measure.param("d", 0.0))
    collection = float(measure.param("collection", 0.0))
    values = a * found + b * (n - found) + c * (big_r - found) + d * (collection + found - n - big_r)
    return values[:, None]


def num_nonrel_judged_ret(ctx: Context, measure: Measure) -> np.ndarray:
    """Retrieved documents judged (grade >= 0) and not relevant."""
    return ctx.sums_at(judged_nonrelevant(ctx, measure.param("min_rel")), [None])


def relative_p(ctx: Context, measure: Measure) -> np.ndarray:
    """rel@k / min(k, R); NaN when R = 0."""
    min_rel = measure.param("min_rel")
    cutoffs = cutoff_list(measure)
    found = ctx.sums_at(ctx.tie_mean(ctx.relevant(min_rel)), list(cutoffs))
    big_r = ctx.num_relevant(min_rel)[:, None]
    sizes = ctx.cutoff_sizes(cutoffs)
    return ratio(found, np.minimum(sizes, big_r))


def unj(ctx: Context, measure: Measure) -> np.ndarray:
    """Unjudged documents in the top k / k (documents past the end of the list count as judged)."""
    cutoffs = cutoff_list(measure)
    counts = ctx.sums_at(ctx.tie_mean(unjudged(ctx)), list(cutoffs))
    sizes = ctx.cutoff_sizes(cutoffs)
    return np.divide(counts, sizes, out=np.zeros_like(sizes), where=sizes > 0)
