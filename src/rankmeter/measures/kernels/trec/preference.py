r"""Judgment-based measures that skip unjudged documents: bpref and infAP.

With R the number of relevant documents of the query, N the number of its
judged non-relevant documents, and for the relevant document at 0-based rank
j: n_j the judged non-relevant documents ranked above it, r_j the relevant
ones and u_j those in the qrels with a negative grade (trec_eval's "in the
pool but unjudged"); documents not in the qrels are skipped by both.

.. math::

    bpref = \frac{1}{R} \sum_{j\ \mathrm{rel}} \left(1 - \frac{\min(n_j, R)}{\min(N, R)}\right)
    \quad (\text{the term is 1 when } n_j = 0)

    infAP = \frac{1}{R} \sum_{j\ \mathrm{rel}} \left(\frac{1}{j+1} + \frac{r_j + n_j + u_j}{j+1}
            \cdot \frac{r_j + \epsilon}{r_j + n_j + 2\epsilon}\right), \quad \epsilon = 10^{-5}

(Buckley & Voorhees, SIGIR 2004; Yilmaz & Aslam, CIKM 2006, as implemented by
trec_eval's ``m_bpref.c`` and ``m_infap.c``.) Both are NaN when R = 0. They are
not linear in the ranking, so ``ties="expected"`` raises
:class:`~rankmeter.errors.PolicyError`.
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_sum
from rankmeter.measures.kernels.trec._common import (
    deterministic_only,
    exclusive_cumsum,
    judged_nonrelevant,
    num_judged_nonrelevant,
    pool_unjudged,
    ratio,
)

INFAP_EPSILON = 1e-5


def bpref(ctx: Context, measure: Measure) -> np.ndarray:
    """bpref of every query; NaN when R = 0.

    >>> import rankmeter
    >>> rankmeter.evaluate({"q": {"a": 1, "b": 0, "c": 1}}, {"q": {"a": 3, "b": 2, "c": 1}}, "bpref")["bpref"]
    0.5
    """
    deterministic_only(ctx, measure)
    min_rel = measure.param("min_rel")
    rel = ctx.relevant(min_rel)
    offsets = ctx.ranked.offsets
    nonrel_before = exclusive_cumsum(judged_nonrelevant(ctx, min_rel), offsets)
    big_r = ctx.num_relevant(min_rel)
    big_n = num_judged_nonrelevant(ctx, min_rel)
    q = ctx.item_query
    r_item, n_item = big_r[q], big_n[q]
    den = np.minimum(n_item, r_item)
    penalty = np.divide(np.minimum(nonrel_before, r_item), den, out=np.zeros_like(den), where=den > 0)
    terms = np.where(nonrel_before > 0, 1.0 - penalty, 1.0) * rel
    return ratio(segment_sum(terms, offsets), big_r)[:, None]


def infap(ctx: Context, measure: Measure) -> np.ndarray:
    """Inferred AP of every query; NaN when R = 0.

    >>> import rankmeter
    >>> round(rankmeter.evaluate({"q": {"a": 1, "b": 0}}, {"q": {"b": 2, "a": 1}}, "infap")["infap"], 6)
    0.500005
    """
    deterministic_only(ctx, measure)
    min_rel = measure.param("min_rel")
    rel = ctx.relevant(min_rel)
    offsets = ctx.ranked.offsets
    rel_before = exclusive_cumsum(rel, offsets)
    nonrel_before = exclusive_cumsum(judged_nonrelevant(ctx, min_rel), offsets)
    unj_before = exclusive_cumsum(pool_unjudged(ctx), offsets)
    rank = ctx.ranks  # j + 1
    seen = rel_before + nonrel_before + unj_before
    share = (rel_before + INFAP_EPSILON) / (rel_before + nonrel_before + 2.0 * INFAP_EPSILON)
    terms = (1.0 / rank + seen / rank * share) * rel
    return ratio(segment_sum(terms, offsets), ctx.num_relevant(min_rel))[:, None]
