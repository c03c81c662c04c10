r"""NTCIREVAL's Q-measure, graded average precision (GAP) and intentwise rank-biased utility (iRBU).

As ``ntcir_eval compute`` (Sakai; version 190111) defines them, for a ranking
with relevance b_i (judged, grade > 0), gains g_i (the ``gain`` of the grade,
NTCIREVAL's ``-g``; 0 when not relevant), C(i) relevant documents and cg(i)
gain in the top i, cg*(i) the gain of the top i of the ideal ranking (every
judged document, grade descending) and R relevant judged documents:

.. math::

    Q@k = \frac{1}{\min(R, k)} \sum_{i \le k} b_i\, \frac{C(i) + \beta\, cg(i)}{i + \beta\, cg^*(i)}

    GAP@k = \frac{\sum_{i \le k} \frac{b_i}{i} \sum_{j \le i} h(\min(l_i, l_j))}
                 {\sum_{m \le \min(R, k)} h(l^*_m)}, \qquad h(l) = l\,(l + 1)

    iRBU@k = \sum_{i \le k} p^i\, \rho_i \prod_{j<i} (1 - \rho_j), \qquad
    \rho_i = \frac{g_i}{g(g_{max}) + 1}

with l_i the grade (0 when not relevant; NTCIREVAL compares the levels, not
their gains) and :math:`l^*` the ideal's grades, descending. Without a cutoff,
k is the list length and the divisors use R. ``q_measure`` is exact under
``ties="expected"`` (its terms are AP's pairwise products over a fixed
denominator, :meth:`Context.prefix_products`); so is ``irbu`` (ERR's cascade
with the discount :math:`p^i` in place of 1/i, the expectation of
:mod:`rankmeter.measures.kernels.err`); ``gap`` pairs each relevant document
with every one above it through a minimum, which has no such form, and raises
:class:`~rankmeter.errors.PolicyError` there.
"""

from __future__ import annotations

import numpy as np

from rankmeter.errors import InputFormatError, MeasureSyntaxError
from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.err import stop_contributions
from rankmeter.measures.kernels.segments import segment_cumsum, sort_segments_desc, sums_at_cutoffs
from rankmeter.measures.kernels.trec._common import cutoff_list, deterministic_only
from rankmeter.measures.params import gain_values


def _relevant_gains(ctx: Context, gain: object) -> tuple[np.ndarray, np.ndarray]:
    """b_i and g_i of each ranked item: judged with a grade > 0, and its gain (0 otherwise)."""
    b = ctx.relevant(None)
    grades = np.where(b > 0, ctx.ranked.grades, 0.0)
    return b, np.where(b > 0, gain_values(gain, grades), 0.0)


def _ideal_prefix(ctx: Context, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the running sum of ``values`` of the relevant judged documents sorted descending, with offsets."""
    ranked = ctx.ranked
    keep = ranked.ideal_grades > 0
    counts = np.bincount(
        np.repeat(np.arange(ranked.n_queries), np.diff(ranked.ideal_offsets))[keep], minlength=ranked.n_queries
    )
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return segment_cumsum(sort_segments_desc(values[keep], offsets), offsets), offsets


def _read_prefix(prefix: np.ndarray, offsets: np.ndarray, query: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Sum of the first ``count`` entries of each query's prefix (all of them past its end; 0 for none)."""
    lengths = np.diff(offsets)[query]
    take = np.minimum(count, lengths).astype(np.int64)
    out = np.zeros(len(query))
    some = take > 0
    out[some] = prefix[offsets[query[some]] + take[some] - 1]
    return out


def _divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def q_measure(ctx: Context, measure: Measure) -> np.ndarray:
    """Q-measure@k (Sakai): AP with the blended ratio (C(i) + beta cg(i)) / (i + beta cg*(i)) for precision.

    NTCIREVAL's example (``README``: ``sample.res`` against ``sample.rel``, ``-g 1:2:3``): documents of
    grades 0, 3, unjudged, 2, with 10 relevant judged documents (three of grade 3, three of 2, four of 1):

    >>> import rankmeter
    >>> qrels = {"q": {**{f"d{i}": g for i, g in enumerate([3, 3, 3, 2, 2, 2, 1, 1, 1, 1], 1)}, "d11": 0}}
    >>> run = {"q": {"d11": 4.0, "d1": 3.0, "d12": 2.0, "d4": 1.0}}
    >>> res = rankmeter.evaluate(qrels, run, ["q_measure", "q_measure@2"])
    >>> round(res["q_measure"], 4), res["q_measure@2"]  # ((1 + 3)/(2 + 6) + (2 + 5)/(4 + 11)) / 10; 0.5 / 2
    (0.0967, 0.25)
    """
    beta = float(measure.param("beta", 1.0))
    b, g = _relevant_gains(ctx, measure.param("gain", "linear"))
    ideal_grades = ctx.ranked.ideal_grades
    ideal_gains = np.where(ideal_grades > 0, gain_values(measure.param("gain", "linear"), ideal_grades), 0.0)
    prefix, offsets = _ideal_prefix(ctx, ideal_gains)
    ideal_cg = _read_prefix(prefix, offsets, ctx.item_query, ctx.positions + 1)
    terms = ctx.prefix_products(b, b) + beta * ctx.prefix_products(b, g)
    ratio = terms / (ctx.ranks + beta * ideal_cg)
    cutoffs = cutoff_list(measure)
    sums = ctx.sums_at(ratio, list(cutoffs))
    big_r = ctx.num_relevant(None)
    divisor = np.stack([big_r if k is None else np.minimum(big_r, k) for k in cutoffs], axis=1)
    return _divide(sums, divisor)


def _h(levels: np.ndarray) -> np.ndarray:
    return levels * (levels + 1.0)


def gap(ctx: Context, measure: Measure) -> np.ndarray:
    """GAP@k as NTCIREVAL computes it (Robertson, Kanoulas & Yilmaz's graded AP with level weights l (l + 1)).

    >>> import rankmeter
    >>> res = rankmeter.evaluate({"q": {"a": 2, "b": 1}}, {"q": {"b": 2.0, "a": 1.0}}, "gap")
    >>> res["gap"]  # (h(1) / 1 + (h(1) + h(2)) / 2) / (h(2) + h(1)) = (2 + 4) / 8
    0.75
    """
    deterministic_only(ctx, measure)
    b = ctx.relevant(None)
    levels = np.where(b > 0, ctx.ranked.grades, 0.0)
    offsets = ctx.ranked.offsets
    pair_sum = np.zeros(len(levels))
    for v in np.unique(levels[levels > 0]):
        at_least = segment_cumsum((levels >= v).astype(np.float64), offsets)
        below = segment_cumsum(np.where(levels < v, _h(levels), 0.0), offsets)
        here = levels == v
        pair_sum[here] = _h(v) * at_least[here] + below[here]
    cutoffs = cutoff_list(measure)
    sums = ctx.sums_at(pair_sum / ctx.ranks, list(cutoffs))
    ideal = ctx.ranked.ideal_grades
    prefix, ideal_offsets = _ideal_prefix(ctx, np.where(ideal > 0, _h(np.maximum(ideal, 0.0)), 0.0))
    queries = np.arange(ctx.ranked.n_queries)
    big_r = ctx.num_relevant(None)
    divisor = np.stack(
        [_read_prefix(prefix, ideal_offsets, queries, big_r if k is None else np.minimum(big_r, k)) for k in cutoffs],
        axis=1,
    )
    return _divide(sums, divisor)


def irbu(ctx: Context, measure: Measure) -> np.ndarray:
    """iRBU@k: the cascade of ERR with stopping probability g / (g(gmax) + 1), each stop worth p^rank.

    >>> import rankmeter
    >>> res = rankmeter.evaluate_lists([[0, 2, 1]], [[3, 2, 1]], "irbu(gmax=2,p=0.5)", ties="stable")
    >>> rho = [0, 2 / 3, 1 / 3]  # g / (g(2) + 1)
    >>> round(res["irbu(gmax=2,p=0.5)"], 12) == round(0.5**2 * rho[1] + 0.5**3 * (1 - rho[1]) * rho[2], 12)
    True
    """
    p, gmax = measure.param("p"), measure.param("gmax")
    if p is None or gmax is None:
        raise MeasureSyntaxError(
            f"measure {str(measure)!r} needs p (persistence) and gmax (the highest grade), e.g. irbu(p=0.99,gmax=3)"
        )
    gain = measure.param("gain", "linear")
    top = float(gain_values(gain, np.array([float(gmax)]))[0])
    _, g = _relevant_gains(ctx, gain)
    stop = g / (top + 1.0)
    bad = np.flatnonzero(~((stop >= 0) & (stop < 1)))
    if len(bad):
        i = bad[0]
        raise InputFormatError(
            f"measure {str(measure)!r}: query {str(ctx.ranked.query_ids[ctx.item_query[i]])!r}: grade "
            f"{ctx.ranked.grades[i]:g} has a gain above that of gmax={gmax:g}; raise gmax"
        )
    cutoffs = cutoff_list(measure)
    contrib, offsets, positions = stop_contributions(ctx, stop, cutoffs)  # stop . reach / rank
    rank = positions + 1.0
    contrib = contrib * rank * np.power(float(p), rank)
    return sums_at_cutoffs(contrib, offsets, positions, list(cutoffs))
