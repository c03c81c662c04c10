"""Shared, vectorised building blocks of the trec_eval kernels (no per-query Python loops)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_cumsum, segment_sum, sort_segments_desc
from rankmeter.measures.params import gain_values
from rankmeter.measures.traits import no_expectation


def cutoff_list(measure: Measure) -> list[int | None]:
    """The measure's cutoffs, ``[None]`` (whole list) when it has none."""
    return list(measure.cutoffs) if measure.cutoffs is not None else [None]


def deterministic_only(ctx: Context, measure: Measure) -> None:
    """Raise :class:`PolicyError` under ``ties="expected"`` for measures without an exact expectation."""
    if ctx.expected:
        raise no_expectation(measure)


def is_relevant(grades: np.ndarray, min_rel: float | None) -> np.ndarray:
    """Boolean relevance of judged grades: grade >= min_rel (grade > 0 by default)."""
    return grades > 0 if min_rel is None else grades >= min_rel


def judged_nonrelevant(ctx: Context, min_rel: float | None) -> np.ndarray:
    """1.0 for ranked documents judged with a grade >= 0 that is not relevant, else 0.0."""
    g = ctx.ranked.grades
    keep = ctx.ranked.judged & (g >= 0) & ~is_relevant(g, min_rel)
    return keep.astype(np.float64)


def unjudged(ctx: Context) -> np.ndarray:
    """1.0 for ranked documents absent from the qrels or judged with a negative grade."""
    return (~ctx.ranked.judged | (ctx.ranked.grades < 0)).astype(np.float64)


def pool_unjudged(ctx: Context) -> np.ndarray:
    """1.0 for ranked documents in the qrels with a negative grade (trec_eval's 'in pool, unjudged')."""
    return (ctx.ranked.judged & (ctx.ranked.grades < 0)).astype(np.float64)


def num_judged_nonrelevant(ctx: Context, min_rel: float | None) -> np.ndarray:
    """Judged non-relevant documents of each query (grade >= 0, not relevant), retrieved or not."""
    g = ctx.ranked.ideal_grades
    keep = (g >= 0) & ~is_relevant(g, min_rel)
    return segment_sum(keep.astype(np.float64), ctx.ranked.ideal_offsets)


def exclusive_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running sum of the values strictly before each position, restarting at every segment."""
    return segment_cumsum(values, offsets) - values


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den == 0."""
    num, den = np.broadcast_arrays(np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64))
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def segment_suffix_max(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Maximum of each value and every later value of its segment (exact; O(N log N) doubling).

    >>> import numpy as np
    >>> segment_suffix_max(np.array([0.1, 0.5, 0.2, 0.9, 0.3]), np.array([0, 3, 5])).tolist()
    [0.5, 0.5, 0.2, 0.9, 0.3]
    """
    out = np.asarray(values, dtype=np.float64).copy()
    n = len(out)
    if n == 0:
        return out
    seg_end = np.repeat(offsets[1:], np.diff(offsets))
    index = np.arange(n)
    step = 1
    longest = int(np.diff(offsets).max())
    while step < longest:
        partner = index + step
        ok = partner < seg_end
        out[ok] = np.maximum(out[ok], out[partner[ok]])
        step *= 2
    return out


def ideal_positive_gains(ctx: Context, gain: object) -> tuple[np.ndarray, np.ndarray]:
    """The ideal gain vector of each query: positive gains of its judged documents (grade >= 0), descending.

    Returns ``(gains, offsets)`` in CSR layout; the length of query q's vector
    is the number of judged documents with a positive gain (trec_eval's ideal
    stops at the first gain <= 0).
    """
    ranked = ctx.ranked
    grades = ranked.ideal_grades
    gains = np.where(grades >= 0, gain_values(gain, grades), 0.0)
    gains = sort_segments_desc(gains, ranked.ideal_offsets)
    keep = gains > 0
    counts = segment_sum(keep.astype(np.float64), ranked.ideal_offsets).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return gains[keep], offsets


def ranked_gains(ctx: Context, gain: object) -> np.ndarray:
    """Gain of each ranked document: gain(grade) when judged with grade >= 0, else 0."""
    g = ctx.ranked.grades
    ok = ctx.ranked.judged & (g >= 0)
    return np.where(ok, gain_values(gain, np.where(ok, g, 0.0)), 0.0)


def ideal_gain_at_ranks(ctx: Context, ideal: np.ndarray, ideal_offsets: np.ndarray) -> np.ndarray:
    """For every ranked position i of query q, the ideal gain at the same rank (0 past the ideal's end)."""
    pos = ctx.positions
    q = ctx.item_query
    length = np.diff(ideal_offsets)[q]
    inside = pos < length
    out = np.zeros(len(pos))
    out[inside] = ideal[ideal_offsets[q[inside]] + pos[inside]]
    return out


def memo(ctx: Context, key: tuple, build: Callable[[], np.ndarray]) -> np.ndarray:
    """Memoise a per-evaluation array on the context (shared by several kernels of one call)."""
    cache = ctx.__dict__.setdefault("_trec_cache", {})
    if key not in cache:
        cache[key] = build()
    return cache[key]
