r"""Compatibility (Clarke, Vtyurina & Smucker, ACM TOIS 2021), as ir_measures' ``Compat`` computes it.

Rank-biased overlap between the ranking and an ideal ranking, to the depth
:math:`D = \max(n, |I|)`:

.. math::

    RBO(A, B) = \frac{\sum_{d=1}^{D} p^{d-1} |A_{:d} \cap B_{:d}| / d}{\sum_{d=1}^{D} p^{d-1}}, \qquad
    Compat = RBO(\text{run}, I) / RBO(I, I)

(without ``normalize``, RBO(run, I) alone). The ideal I holds the judged
documents with a grade > 0, by grade descending; documents of equal grade
follow the ranking (retrieved ones in rank order, then the others), the
order most compatible with the run, as in the paper. A relevant document at
rank r and ideal position s is in the overlap from depth max(r, s) on, so
the numerator is :math:`\sum S(\max(r, s))` over the retrieved relevant
documents, with :math:`S(m) = \sum_{d=m}^{D} p^{d-1}/d`, and
:math:`RBO(I, I)` is :math:`\sum_{j \le |I|} S(j)` over the same normaliser.
Not linear in the ranking: ``ties="expected"`` raises
:class:`~rankmeter.errors.PolicyError`.
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_cumsum, segment_positions, segment_sum
from rankmeter.measures.kernels.trec._common import deterministic_only


def _suffix_weights(p: float, depth: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    r"""Per query (CSR ``offsets`` of ``depth[q]`` entries), :math:`S(m) = \sum_{d=m}^{D} p^{d-1}/d` for m = 1..D+1."""
    d = segment_positions(offsets, int(offsets[-1])).astype(np.float64) + 1.0
    w = np.power(p, d - 1.0) / d
    before = segment_cumsum(w, offsets) - w
    return np.repeat(segment_sum(w, offsets), np.diff(offsets)) - before


def compat(ctx: Context, measure: Measure) -> np.ndarray:
    """RBO of the ranking against the ideal, divided by the ideal's own (``normalize=false``: not divided).

    >>> import rankmeter
    >>> round(rankmeter.evaluate({"q": {"a": 1, "b": 1}}, {"q": {"b": 2.0, "c": 1.0}}, "compat")["compat"], 6)
    0.75641
    """
    deterministic_only(ctx, measure)
    p = float(measure.param("p", 0.95))
    ranked = ctx.ranked
    n_q = ranked.n_queries
    ideal_rel = ranked.ideal_grades > 0
    n_ideal = segment_sum(ideal_rel.astype(np.float64), ranked.ideal_offsets).astype(np.int64)
    depth = np.maximum(ctx.lengths.astype(np.int64), n_ideal)
    offsets = np.concatenate(([0], np.cumsum(depth))).astype(np.int64)
    suffix = np.append(_suffix_weights(p, depth, offsets), 0.0)  # S(D + 1) = 0 reads the appended 0

    # ideal position of each retrieved relevant document: higher grades first, then the ranking's order
    rel = np.flatnonzero(ranked.judged & (ranked.grades > 0))
    q, grade, rank = ctx.item_query[rel], ranked.grades[rel], ctx.ranks[rel]
    ideal_q = np.repeat(np.arange(n_q), np.diff(ranked.ideal_offsets))[ideal_rel]
    ideal_g = ranked.ideal_grades[ideal_rel]
    levels, codes = np.unique(np.concatenate((ideal_g, grade)), return_inverse=True)
    width = len(levels) + 1
    ideal_key = np.sort(ideal_q * width + (len(levels) - codes[: len(ideal_g)]))
    key = q * width + (len(levels) - codes[len(ideal_g) :])
    higher = np.searchsorted(ideal_key, key, side="left") - np.searchsorted(ideal_key, q * width, side="left")
    order = np.lexsort((rank, key))
    starts = np.concatenate(([True], key[order][1:] != key[order][:-1])) if len(order) else np.zeros(0, bool)
    run_start = np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))
    same_before = np.empty(len(order), dtype=np.int64)
    same_before[order] = np.arange(len(order)) - run_start
    ideal_pos = higher + same_before + 1

    at = np.maximum(rank, ideal_pos).astype(np.int64)  # 1-based depth from which the document overlaps
    overlap = np.zeros(n_q)
    np.add.at(overlap, q, suffix[offsets[q] + at - 1])
    if measure.param("normalize", True):
        first = np.repeat(offsets[:-1], n_ideal) + segment_positions(
            np.concatenate(([0], np.cumsum(n_ideal))).astype(np.int64), int(n_ideal.sum())
        )
        best = np.zeros(n_q)
        np.add.at(best, np.repeat(np.arange(n_q), n_ideal), suffix[first])
    else:
        d = segment_positions(offsets, int(offsets[-1])).astype(np.float64)
        best = segment_sum(np.power(p, d), offsets)
    out = np.zeros(n_q)
    np.divide(overlap, best, out=out, where=best > 0)
    return out[:, None]
