r"""trec_eval's experimental gain measures: binG, G, ndcg_rel and Rndcg.

Notation for one query: g_i the gain of the document at 0-based rank i
(gain(grade) for documents judged with grade >= 0, else 0), g*_i the ideal
gain vector (the positive gains of every judged document, descending; L of
them), D(t) = sum_{i<t} g_i / log2(i+2) and D*(t) likewise on g*.

.. math::

    binG = \frac{1}{R} \sum_{i\ \mathrm{rel}} \frac{1}{\log_2(2 + n_i)}
    \quad (n_i: \text{documents above } i \text{ that are not relevant})

    G = \frac{1}{\sum_j g^*_j} \sum_{i:\ g_i \ne 0}
        \frac{g_i}{\log_2\left(2 + \sum_{j \le i} c_j - \sum_{j \le i} g_j\right)},
    \quad c_j = \max(g^*_j, 1) \ (j < L), \ c_j = 1 \ (j \ge L)

    ndcg\_rel = \frac{1}{L}\left(\sum_{i:\ g_i > 0} \frac{D(i+1)}{D^*(\min(i+1, L))}
                + (L - k)\,\frac{D(n)}{D^*(L)}\right)
    \quad (k: \text{retrieved documents with } g_i > 0, \ n: \text{number retrieved})

    Rndcg = \operatorname{mean}_{t \in T} \frac{D(\min(t, n))}{D^*(t)}
    \ (+\ \tfrac{D(n)}{D^*(L)} \text{ as one more term when } n > L + 1)

where T holds the ranks t in 1..L at which the ideal gain changes
(g*_t != g*_{t-1}, and t = L). These follow trec_eval's ``m_binG.c``,
``m_G.c``, ``m_ndcg_rel.c`` and ``m_Rndcg.c`` exactly, except that the ideal
vector is sorted by exact gain (trec_eval's comparator truncates gain
differences to integers). binG, G and ndcg_rel are NaN when their normaliser
is 0; Rndcg is NaN when R (binary, ``min_rel``) is 0. None of them is linear
in the ranking, so ``ties="expected"`` raises :class:`~rankmeter.errors.PolicyError`.
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_cumsum, segment_sum
from rankmeter.measures.kernels.trec._common import (
    deterministic_only,
    ideal_gain_at_ranks,
    ideal_positive_gains,
    ranked_gains,
    ratio,
)


def bing(ctx: Context, measure: Measure) -> np.ndarray:
    """Binary G; NaN when R = 0."""
    deterministic_only(ctx, measure)
    min_rel = measure.param("min_rel")
    rel = ctx.relevant(min_rel)
    offsets = ctx.ranked.offsets
    nonrel_above = ctx.ranks - segment_cumsum(rel, offsets)
    terms = np.where(rel > 0, 1.0 / np.log2(2.0 + nonrel_above), 0.0)
    return ratio(segment_sum(terms, offsets), ctx.num_relevant(min_rel))[:, None]


def g(ctx: Context, measure: Measure) -> np.ndarray:
    """trec_eval's G; NaN when the ideal gain sum is 0.

    >>> import rankmeter
    >>> rankmeter.evaluate_lists([[2, 1]], [[2, 1]], ["g", "bing"], ties="stable").aggregate
    {'g': 1.0, 'bing': 1.0}
    """
    deterministic_only(ctx, measure)
    gain = measure.param("gain", "linear")
    offsets = ctx.ranked.offsets
    ideal, ideal_offsets = ideal_positive_gains(ctx, gain)
    gains = ranked_gains(ctx, gain)
    cost = np.maximum(ideal_gain_at_ranks(ctx, ideal, ideal_offsets), 1.0)
    gap = segment_cumsum(cost, offsets) - segment_cumsum(gains, offsets)
    safe = np.where(gains != 0, 2.0 + gap, 2.0)
    terms = np.where(gains != 0, gains / np.log2(safe), 0.0)
    return ratio(segment_sum(terms, offsets), segment_sum(ideal, ideal_offsets))[:, None]


def _discounted(ctx: Context, gain: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ranked gains, ranked DCG prefix inclusive, ideal gains, ideal offsets, ideal discounted gains)."""
    offsets = ctx.ranked.offsets
    gains = ranked_gains(ctx, gain)
    dcg_incl = segment_cumsum(gains / np.log2(ctx.ranks + 1.0), offsets)
    ideal, ideal_offsets = ideal_positive_gains(ctx, gain)
    ideal_pos = np.arange(len(ideal)) - np.repeat(ideal_offsets[:-1], np.diff(ideal_offsets))
    return gains, dcg_incl, ideal, ideal_offsets, ideal / np.log2(ideal_pos + 2.0)


def ndcg_rel(ctx: Context, measure: Measure) -> np.ndarray:
    """nDCG averaged over the relevant documents (gain > 0); NaN when no document has a positive gain."""
    deterministic_only(ctx, measure)
    offsets = ctx.ranked.offsets
    gains, dcg_incl, ideal, ideal_offsets, ideal_disc = _discounted(ctx, measure.param("gain", "linear"))
    big_l = np.diff(ideal_offsets)
    q = ctx.item_query
    # ideal DCG at min(i + 1, L) ideal documents, per ranked position
    ideal_cum = np.concatenate(([0.0], np.cumsum(ideal_disc)))
    take = np.minimum(ctx.positions + 1, big_l[q])
    idcg_here = ideal_cum[ideal_offsets[q] + take] - ideal_cum[ideal_offsets[q]]
    hit = gains > 0
    safe = np.where(hit & (idcg_here > 0), idcg_here, 1.0)
    terms = np.where(hit, dcg_incl / safe, 0.0)
    found = segment_sum(hit.astype(np.float64), offsets)
    dcg_total = segment_sum(gains / np.log2(ctx.ranks + 1.0), offsets)
    idcg_total = segment_sum(ideal_disc, ideal_offsets)
    tail = (big_l - found) * ratio(dcg_total, idcg_total)
    total = segment_sum(terms, offsets) + np.where(big_l > found, tail, 0.0)
    values = ratio(total, big_l.astype(np.float64))
    values[(big_l > 0) & ~(total > 0)] = 0.0
    return values[:, None]


def rndcg(ctx: Context, measure: Measure) -> np.ndarray:
    """nDCG averaged at the ranks where the ideal gain changes (R levels); NaN when R = 0."""
    deterministic_only(ctx, measure)
    offsets = ctx.ranked.offsets
    gains, _, ideal, ideal_offsets, ideal_disc = _discounted(ctx, measure.param("gain", "linear"))
    n_q = ctx.ranked.n_queries
    big_l = np.diff(ideal_offsets)
    lengths = ctx.lengths
    # transitions t (1 <= t <= L): the ideal gain at t differs from the one at t - 1 (t = L always)
    ideal_pos = np.arange(len(ideal)) - np.repeat(ideal_offsets[:-1], big_l)
    ideal_q = np.repeat(np.arange(n_q), big_l)
    changed = np.zeros(len(ideal), dtype=bool)
    if len(ideal):
        changed[1:] = ideal[1:] != ideal[:-1]
    changed &= ideal_pos > 0
    t_q = np.concatenate((ideal_q[changed], np.flatnonzero(big_l > 0)))
    t = np.concatenate((ideal_pos[changed], big_l[big_l > 0])).astype(np.int64)
    disc = gains / np.log2(ctx.ranks + 1.0)
    dcg_cum = np.concatenate(([0.0], np.cumsum(disc)))
    ideal_cum = np.concatenate(([0.0], np.cumsum(ideal_disc)))
    dcg_t = dcg_cum[offsets[t_q] + np.minimum(t, lengths[t_q])] - dcg_cum[offsets[t_q]]
    idcg_t = ideal_cum[ideal_offsets[t_q] + t] - ideal_cum[ideal_offsets[t_q]]
    sums = np.bincount(t_q, weights=dcg_t / idcg_t, minlength=n_q)
    counts = np.bincount(t_q, minlength=n_q).astype(np.float64)
    extra = (lengths > big_l + 1) & (big_l > 0)
    dcg_total = dcg_cum[offsets[1:]] - dcg_cum[offsets[:-1]]
    idcg_total = ideal_cum[ideal_offsets[1:]] - ideal_cum[ideal_offsets[:-1]]
    sums = sums + np.where(extra, ratio(dcg_total, idcg_total), 0.0)
    counts = counts + extra
    values = ratio(sums, counts)
    values[ctx.num_relevant(measure.param("min_rel")) == 0] = np.nan
    return values[:, None]
