r"""Expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009): ``err`` and ``nerr``.

The cascade user reads the ranking top down and stops at rank i with
probability :math:`R_i = R(g_i)`, the stopping probability of the document's
grade; ERR is the expected reciprocal of the rank where the user stops:

.. math::

    ERR@k = \sum_{i=1}^{k} \frac{R_i}{i} \prod_{j<i} (1 - R_j), \qquad
    nERR@k = ERR@k / ERR@k(\text{ideal ordering})

with the ideal ordering of all judged documents by R descending (the order
that maximises ERR: swapping two neighbours with :math:`R_a \ge R_b` changes
the sum by :math:`(R_a - R_b)(1/i - 1/(i+1)) \ge 0`). The stopping probability
(``gain=``): ``exp`` :math:`(2^g - 1)/2^{g_{max}}` (the TREC Web track's
gdeval, ``gmax=4``), ``linear`` :math:`g/g_{max}`, a table ``{grade: R}`` or a
callable returning R; unjudged documents and grades <= 0 stop nobody (R = 0
unless a table or callable gives a judged grade another value).

``ties="expected"`` is exact. Across tied groups the probability of reaching
a group is the product of :math:`1 - R` over every earlier item, whatever the
order inside earlier groups. Inside a tied group of n items ordered uniformly
at random, the first t items are a uniform random t-subset, so the expected
probability of reaching the group's offset t is :math:`D\,\bar e_t` with D the
product over earlier groups and

.. math:: \bar e_t = e_t(1 - R_1, \dots, 1 - R_n) / \binom{n}{t},

the mean over t-subsets of the product of :math:`1 - R` (an elementary
symmetric mean). The expected stop at offset t is
:math:`D(\bar e_t - \bar e_{t+1})`, divided by the (fixed) rank of that offset;
a cutoff inside the group just ends the sum. :math:`\bar e_t` is computed for
all tied groups at once by the stable recursion
:math:`\bar e_t^{(m)} = \frac{m-t}{m}\bar e_t^{(m-1)} + \frac{t}{m} q_m \bar e_{t-1}^{(m-1)}`
over the group's items with R > 0, mixed hypergeometrically with the items
that never stop anyone (q = 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError
from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_positions, segment_sum, sort_segments_desc, sums_at_cutoffs
from rankmeter.measures.params import format_number

GMAX = 4.0  # gdeval's $MAX_JUDGMENT


def stop_probability(gain: Any, gmax: float, grades: np.ndarray) -> np.ndarray:
    """Stopping probability R of each grade (before the check that it lies in [0, 1]).

    >>> stop_probability("exp", 4.0, np.array([0.0, 1.0, 4.0, -1.0])).tolist()
    [0.0, 0.0625, 0.9375, 0.0]
    >>> stop_probability("linear", 2.0, np.array([1.0, 2.0])).tolist()
    [0.5, 1.0]

    ``exp`` is computed as :math:`2^{g - g_{max}} - 2^{-g_{max}}`, which overflows for no grade up to
    ``gmax`` however large (``err(gmax=1024)`` gives grade 1024 R = 1):

    >>> stop_probability("exp", 1024.0, np.array([1024.0, 1023.0])).tolist()
    [1.0, 0.5]
    """
    g = np.asarray(grades, dtype=np.float64)
    if gain == "exp":
        with np.errstate(over="ignore"):  # a grade far above gmax: R = inf, refused by the caller
            return np.where(g > 0, np.exp2(np.maximum(g, 0.0) - gmax) - np.exp2(-gmax), 0.0)
    if gain == "linear":
        return np.where(g > 0, g / gmax, 0.0)
    return np.asarray(gain(g), dtype=np.float64)


def _checked(ctx: Context, measure: Measure, grades: np.ndarray, query: np.ndarray, what: str) -> np.ndarray:
    gain, gmax = measure.param("gain", "exp"), float(measure.param("gmax", GMAX))
    r = stop_probability(gain, gmax, grades)
    bad = np.flatnonzero(~((r >= 0) & (r <= 1)))
    if len(bad):
        i = bad[0]
        hint = f"; raise gmax (err(gmax={format_number(grades[i])}))" if gain in ("exp", "linear") else ""
        raise InputFormatError(
            f"measure {str(measure)!r}: query {str(ctx.ranked.query_ids[query[i]])!r}: {what} grade "
            f"{format_number(grades[i])} gives stopping probability {format_number(r[i])}, outside [0, 1]{hint}"
        )
    return r


def item_stop_probabilities(ctx: Context, measure: Measure) -> np.ndarray:
    """R of every ranked item: 0 when unjudged."""
    ranked = ctx.ranked
    grades = np.where(ranked.judged, ranked.grades, 0.0)
    r = _checked(ctx, measure, grades, ctx.item_query, "ranked document's")
    return np.where(ranked.judged, r, 0.0)


def segment_cumprod(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Inclusive running product restarting at every segment (a log-depth doubling scan, no Python loop per segment).

    >>> segment_cumprod(np.array([0.5, 0.5, 0.5, 2.0, 3.0]), np.array([0, 3, 5])).tolist()
    [0.5, 0.25, 0.125, 2.0, 6.0]
    """
    values = np.asarray(values, dtype=np.float64)
    lengths = np.diff(offsets)
    if not len(values):
        return values.copy()
    if np.all(lengths == lengths[0]):
        return np.cumprod(values.reshape(len(lengths), -1), axis=1).reshape(-1)
    out = values.copy()
    inside = segment_positions(offsets, len(values))
    step, longest = 1, int(lengths.max())
    while step < longest:
        ok = np.flatnonzero(inside >= step)
        out[ok] = out[ok] * out[ok - step]  # the right side is read before any write: a Hillis-Steele step
        step *= 2
    return out


def _prefix(offsets: np.ndarray, positions: np.ndarray, limit: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Items at rank < limit (a prefix of each query, ranks increase along it): (item indices, their CSR offsets)."""
    if limit is None:
        return np.arange(len(positions)), offsets
    keep = positions < limit
    counts = segment_sum(keep, offsets).astype(np.int64)
    return np.flatnonzero(keep), np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


def _deterministic(r: np.ndarray, offsets: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per item: its stop contribution R_i / rank_i * prod_{j<i}(1 - R_j), and that product."""
    inclusive = segment_cumprod(1.0 - r, offsets)
    before = np.ones(len(r))
    first = np.zeros(len(r), dtype=bool)
    first[offsets[:-1][np.diff(offsets) > 0]] = True
    before[~first] = inclusive[np.flatnonzero(~first) - 1]
    return r * before / (positions + 1.0), before


def _subset_means(
    n: np.ndarray, rel_q: np.ndarray, rel_offsets: np.ndarray, top: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    r"""For each group: :math:`\bar e_t` for t = 0..top, in CSR layout (values, offsets).

    ``n`` items per group, of which the stopping ones have 1 - R = ``rel_q``
    (CSR by ``rel_offsets``); the other n - r items have 1 - R = 1.
    """
    from scipy.special import gammaln

    r = np.diff(rel_offsets)
    d = np.minimum(r, top)  # degrees of the stopping items' means that matter
    # order groups by r descending so the groups still active at step m are a prefix
    order = np.argsort(-r, kind="stable")
    e_off = np.concatenate(([0], np.cumsum(d[order] + 1))).astype(np.int64)
    e = np.zeros(int(e_off[-1]))
    e[e_off[:-1]] = 1.0
    pair_group = np.repeat(np.arange(len(order)), d[order])  # position in `order`
    pair_t = segment_positions(np.concatenate(([0], np.cumsum(d[order]))).astype(np.int64), len(pair_group)) + 1
    pair_index = e_off[pair_group] + pair_t
    pair_end = np.concatenate(([0], np.cumsum(d[order]))).astype(np.int64)
    r_sorted = r[order]
    q_start = rel_offsets[:-1][order]
    t = pair_t.astype(np.float64)
    for m in range(1, int(r.max(initial=0)) + 1):
        active = int(np.searchsorted(-r_sorted, -m, side="right"))  # groups with r >= m
        p = slice(0, int(pair_end[active]))
        qm = rel_q[q_start[pair_group[p]] + m - 1]
        idx = pair_index[p]
        e[idx] = (m - t[p]) / m * e[idx] + t[p] / m * qm * e[idx - 1]
    # back to group order
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    e_start = e_off[:-1][inverse]
    # hypergeometric mixing: ebar_t = sum_j C(r,j) C(n-r,t-j) / C(n,t) * e_j
    t_off = np.concatenate(([0], np.cumsum(top + 1))).astype(np.int64)
    cell_group = np.repeat(np.arange(len(n)), (top + 1) * (d + 1))
    cell_local = segment_positions(
        np.concatenate(([0], np.cumsum((top + 1) * (d + 1)))).astype(np.int64), len(cell_group)
    )
    width = (d + 1)[cell_group]
    tt, jj = cell_local // width, cell_local % width
    nn, rr = n[cell_group].astype(np.float64), r[cell_group].astype(np.float64)
    ok = (jj <= tt) & (tt - jj <= nn - rr)

    def log_comb(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)

    tt_ok, jj_ok = np.where(ok, tt, 0), np.where(ok, jj, 0)
    log_w = log_comb(rr, jj_ok) + log_comb(nn - rr, tt_ok - jj_ok) - log_comb(nn, tt_ok)
    w = np.where(ok, np.exp(log_w), 0.0) * e[e_start[cell_group] + jj]
    ebar = np.bincount(t_off[cell_group] + tt, weights=w, minlength=int(t_off[-1]))
    return ebar, t_off


def _expected_groups(
    ctx: Context, r: np.ndarray, contrib: np.ndarray, before: np.ndarray, kept: np.ndarray, limit: int | None
) -> None:
    """Overwrite the contributions of tied groups with their exact expectation (in place; see the module doc)."""
    tied = ctx.tied
    if tied is None:
        return
    items, offsets, lengths, multi = tied
    positions = ctx.positions
    starts = ctx.group_starts[:-1][multi]
    a = positions[starts]
    n_stop = np.add.reduceat((r[items] > 0).astype(np.int64), offsets[:-1])
    top = lengths if limit is None else np.minimum(lengths, limit - a)
    pick = (n_stop > 0) & (top > 0)
    if not pick.any():
        return
    starts, a, n, top = starts[pick], a[pick], lengths[pick], top[pick]
    member = np.repeat(pick, lengths)
    stop_items = items[member & (r[items] > 0)]
    rel_offsets = np.concatenate(([0], np.cumsum(n_stop[pick]))).astype(np.int64)
    ebar, t_off = _subset_means(n, 1.0 - r[stop_items], rel_offsets, top)
    # items at group offsets 0..top-1 (all ranked above the limit)
    g = np.repeat(np.arange(len(n)), top)
    t = segment_positions(np.concatenate(([0], np.cumsum(top))).astype(np.int64), len(g))
    where = np.searchsorted(kept, starts)[g] + t  # kept items are a prefix of each query: consecutive
    stop = ebar[t_off[g] + t] - ebar[t_off[g] + t + 1]
    contrib[where] = before[np.searchsorted(kept, starts)][g] * stop / (a[g] + t + 1.0)


def _limit(cutoffs: list[int | None]) -> int | None:
    return None if None in cutoffs else max(k for k in cutoffs if k is not None)


def _cutoffs(measure: Measure) -> list[int | None]:
    return list(measure.cutoffs) if measure.cutoffs is not None else [None]


def stop_contributions(
    ctx: Context, r_all: np.ndarray, cutoffs: list[int | None]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """R_i / rank_i times the chance of reaching rank i, for the items above the deepest cutoff.

    Exact under ``expected`` ties (the module doc). Returns the contributions
    with their CSR offsets and 0-based positions (for :func:`sums_at_cutoffs`).
    """
    limit = _limit(cutoffs)
    kept, offsets = _prefix(ctx.ranked.offsets, ctx.positions, limit)
    positions = ctx.positions[kept]
    contrib, before = _deterministic(r_all[kept], offsets, positions)
    if ctx.expected:
        _expected_groups(ctx, r_all, contrib, before, kept, limit)
    return contrib, offsets, positions


def err(ctx: Context, measure: Measure) -> np.ndarray:
    """ERR@k of every query at every cutoff: shape (Q, C)."""
    cutoffs = _cutoffs(measure)
    contrib, offsets, positions = stop_contributions(ctx, item_stop_probabilities(ctx, measure), cutoffs)
    return sums_at_cutoffs(contrib, offsets, positions, list(cutoffs))


def ideal_err(ctx: Context, measure: Measure) -> np.ndarray:
    """ERR@k of the ideal ordering (R descending) of every query: shape (Q, C)."""
    ranked = ctx.ranked
    cutoffs = _cutoffs(measure)
    if measure.param("ideal", "judged") == "retrieved" and not ranked.ideal_is_list:
        offsets, grades, judged = ranked.offsets, ranked.grades, ranked.judged
    else:
        offsets, grades, judged = ranked.ideal_offsets, ranked.ideal_grades, np.ones(len(ranked.ideal_grades), bool)
    query = np.repeat(np.arange(ranked.n_queries), np.diff(offsets))
    r = np.where(judged, _checked(ctx, measure, np.where(judged, grades, 0.0), query, "judged document's"), 0.0)
    r = sort_segments_desc(r, offsets)
    positions = segment_positions(offsets, len(r))
    kept, sub = _prefix(offsets, positions, _limit(cutoffs))
    contrib, _ = _deterministic(r[kept], sub, positions[kept])
    return sums_at_cutoffs(contrib, sub, positions[kept], list(cutoffs))


def nerr(ctx: Context, measure: Measure) -> np.ndarray:
    """ERR@k / ideal ERR@k; NaN where the ideal is 0 (no document that stops the user)."""
    num, den = err(ctx, measure), ideal_err(ctx, measure)
    out = np.full_like(num, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out
