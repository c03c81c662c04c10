r"""Exact expected measures when each list's relevant items are ranked against n sampled negatives.

A user's candidates are their relevant items (grade > 0) and N negatives
(grade <= 0, not excluded). A *sampled* list keeps the relevant items and n
negatives drawn uniformly without replacement; the measure of that list is a
random variable whose expectation this module computes in closed form.

Every supported measure is a sum over the relevant items i of a function of
(p_i, r_i), p_i the item's position among the relevant items and r_i its rank
in the sampled list, times a factor fixed by the relevant items alone (IDCG,
R, k). By linearity the expectation needs only each item's marginal law of
(p_i, r_i). With a_i relevant items and R_i negatives scored strictly above
item i, b_i other relevant items and T_i negatives tied with it:

* no ties: p_i = a_i + 1 and r_i = a_i + 1 + X, X ~ Hypergeometric(N, R_i, n)
  the sampled negatives above it;
* ``expected`` ties (the mean over every order of each tied group): the
  sampled tied negatives Y ~ Hypergeometric(N, T_i, n), the sampled negatives
  strictly above X_s | Y ~ Hypergeometric(N - T_i, R_i, n - Y), and item i
  takes a uniform slot J among its Y + b_i + 1 tied items, U | J ~
  Hypergeometric(Y + b_i, b_i, J) of them relevant: p_i = a_i + U + 1,
  r_i = a_i + U + X_s + (J - U) + 1;
* deterministic tie orders (``stable``, ``trec``, ``optimistic``,
  ``pessimistic``) order every tie before sampling: the counts already say who
  comes first, and no tie is left (a sample of a total order keeps its order).

Protocols (``protocol=``):

* ``per_positive``: each relevant item is ranked alone against its own n
  negatives (a list of 1 + n items; Krichene & Rendle, KDD 2020; the leave-one-out
  protocol of He et al., WWW 2017); the user's value is the mean over their
  relevant items of the value of each such list;
* ``shared``: all the user's relevant items are ranked together with one draw
  of n negatives (a list of R + n items);
* ``recbole_uni``: RecBole's ``uniN`` protocol: R n negatives drawn uniformly
  *with* replacement, all the user's relevant items ranked together with the
  distinct negatives drawn (a repeated negative is one candidate). The
  negatives above item i in the sampled list are the distinct items hit among
  its R_i by m = R n draws over N: X ~ the occupancy law of
  :func:`distinct_hits_pmf`, and r_i = a_i + 1 + X. The list's length is
  random, so the measures must have a cutoff and not read the length
  (``p(divisor=min)`` is refused).

Supported families (those whose ``sampled`` trait names one of the formulas
below): ``ndcg``, ``dcg``, ``cg``, ``map``/``ap``, ``p``, ``r``, ``f1``,
``rr``, ``success``, ``rprec`` (any gain and discount; the AP and P divisors;
not ``min_rel``). The value of one relevant item at (p, r), k the cutoff
(infinite without one), [.] 1 when true, by formula:

==========  ==========================================================
ndcg        g_i d(r) [r <= k] / IDCG@k (IDCG of the relevant items' gains)
dcg / cg    g_i d(r) [r <= k] / g_i [r <= k]
ap          (p / r) [r <= k] / D, D = R (``divisor=R``), min(R, k), or k (list length without k)
p           [r <= k] / k (``divisor=min``: / min(k, list length))
r           [r <= k] / R
f1          2 [r <= k] / (k + R)
rr          [p = 1] [r <= k] / r
success     [p = 1] [r <= k]
rprec       [r <= R] / R
==========  ==========================================================

Examples
--------
One user, one relevant item with 3 of its N = 5 negatives scored above it;
n = 2 negatives sampled: the item's sampled rank is 1, 2 or 3 with
probabilities C(2,2)/C(5,2) = 0.1, C(3,1)C(2,1)/10 = 0.6 and C(3,2)/10 = 0.3.

>>> from rankmeter.measures import parse
>>> counts = PositiveCounts.untied(user=[0], grade=[1.0], above_pos=[0], above_neg=[3], n_negatives=[5])
>>> value = expected_values(counts, 2, "shared", [parse("rr")])[0]
>>> round(float(value[0, 0]), 12), round(0.1 + 0.6 / 2 + 0.3 / 3, 12)
(0.5, 0.5)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rankmeter.errors import PolicyError
from rankmeter.measures.base import Measure
from rankmeter.measures.params import discount_values, gain_values

PROTOCOLS = ("per_positive", "shared", "recbole_uni")
"""``per_positive``: each relevant item against its own n negatives; ``shared``: all of them against one draw;
``recbole_uni``: all of them against the distinct negatives of R n draws with replacement (RecBole's ``uniN``)."""

WITH_REPLACEMENT = ("recbole_uni",)
"""The protocols that draw the negatives with replacement."""

FORMULAS: dict[str, tuple[str, ...]] = {
    "ndcg": ("gain", "discount", "ideal"),
    "dcg": ("gain", "discount"),
    "cg": ("gain",),
    "ap": ("divisor",),
    "p": ("divisor",),
    "r": (),
    "f1": (),
    "rr": (),
    "success": (),
    "rprec": (),
}
"""The formulas of :func:`rank_values` (a family names its own in ``Traits.sampled``) and the parameters each
may carry."""


def formula_of(m: Measure) -> str | None:
    """The sampled formula of ``m``'s family (its ``sampled`` trait), None when it has none.

    >>> from rankmeter.measures import parse
    >>> formula_of(parse("map@5")), formula_of(parse("err@10"))
    ('ap', None)
    """
    from rankmeter.measures import traits_of

    return traits_of(m).sampled


def sampled_families() -> list[str]:
    """The families that declare a sampled formula, in the registry's order.

    >>> sampled_families()[:3]
    ['ndcg', 'dcg', 'cg']
    """
    from rankmeter.measures import FAMILIES

    return [name for name, family in FAMILIES.items() if family.traits.sampled is not None]


_MANY_TIED = 16
"""From this many tied negatives (and no tied relevant item), :func:`tied_above_pmf`'s O(n) form."""


def check_sampled_measures(measures: list[Measure]) -> None:
    """Raise :class:`PolicyError` for a measure whose sampled expectation is not a sum over relevant items.

    >>> from rankmeter.measures import parse
    >>> check_sampled_measures([parse("ndcg@10"), parse("map(divisor=min)@5")])
    >>> try:
    ...     check_sampled_measures([parse("err@10")])
    ... except PolicyError as err:
    ...     print(str(err)[-22:])
    err is not one of them
    """
    for m in measures:
        formula = formula_of(m)
        if formula is None:
            names = ", ".join(sampled_families())
            raise PolicyError(
                f"{m}: sampled_negatives= gives the exact expectation of {names} (sums over the relevant items "
                f"of a function of their rank); {m.family} is not one of them"
            )
        extra = [k for k, _ in m.params if k not in FORMULAS[formula]]
        if extra:
            raise PolicyError(
                f"{m}: parameter {extra[0]}= is not available with sampled_negatives= (relevant items are those "
                "with grade > 0, the negatives those with grade <= 0)"
            )


def hypergeom_pmf(total: Any, marked: Any, draws: int, width: int) -> np.ndarray:
    r"""P(X = x), x = 0..width, for X the marked items among ``draws`` drawn without replacement from ``total``.

    :math:`\binom{K}{x}\binom{N-K}{n-x} / \binom{N}{n}`, 0 outside the support;
    ``total`` and ``marked`` broadcast, the result has one more axis (x) at
    the end. Computed in log space from the lowest point of the support,
    x_0 = max(0, n - (N - K)), where the probability is a product of n or
    N - K ratios (summed as ``log1p``), then by the ratio
    P(x + 1) / P(x) = (K - x)(n - x) / ((x + 1)(N - K - n + x + 1)): relative
    error about 1e-13 at any catalogue size (``lgamma`` differences lose
    digits as N grows).

    >>> hypergeom_pmf(5, 3, 2, 2).round(12).tolist()
    [0.1, 0.6, 0.3]
    """
    n_all, k = np.broadcast_arrays(np.asarray(total, dtype=np.float64), np.asarray(marked, dtype=np.float64))
    n_all, k = n_all[..., None], k[..., None]
    lowest = np.maximum(0.0, draws - (n_all - k))
    # log P(x_0): C(N-K, n) / C(N, n) = prod_{i<n} (1 - K / (N - i)) when x_0 = 0, else
    # C(K, x_0) / C(N, n) = prod_{i<N-K} (1 - (N - n) / (N - i))
    i = np.arange(draws, dtype=np.float64)
    start_zero = lowest == 0
    count = np.where(start_zero, draws, n_all - k)
    cut = np.where(start_zero, k, n_all - draws)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(i < count, np.log1p(-cut / (n_all - i)), 0.0)
        log_start = terms.sum(axis=-1, keepdims=True)
        x = np.arange(width + 1, dtype=np.float64)
        j = x[:-1]
        ratio = np.log((k - j) * (draws - j)) - np.log((j + 1) * (n_all - k - draws + j + 1))
        ratio = np.where(j >= lowest, ratio, 0.0)
        steps = np.concatenate([np.zeros(ratio.shape[:-1] + (1,)), np.cumsum(ratio, axis=-1)], axis=-1)
        inside = (x >= lowest) & (x <= np.minimum(k, draws)) & (k <= n_all) & (draws <= n_all)
        return np.where(inside, np.exp(log_start + steps), 0.0)


def check_pooled_measures(measures: list[Measure], protocol: str) -> None:
    """Raise :class:`PolicyError` for a measure that reads the sampled list's length under a protocol where it varies.

    >>> from rankmeter.measures import parse
    >>> check_pooled_measures([parse("ndcg@10"), parse("rr")], "shared")
    >>> try:
    ...     check_pooled_measures([parse("rr")], "recbole_uni")
    ... except PolicyError as err:
    ...     print(str(err)[:60])
    rr: sampling='recbole_uni' draws the negatives with replacem
    """
    if protocol not in WITH_REPLACEMENT:
        return
    for m in measures:
        formula = formula_of(m)
        if (not m.cutoffs and formula != "rprec") or (formula == "p" and m.param("divisor", "k") == "min"):
            raise PolicyError(
                f"{m}: sampling={protocol!r} draws the negatives with replacement, so the sampled list's length "
                "varies with the draw; give the measure a cutoff (@k) and, for p, divisor=k"
            )


def distinct_hits_pmf(total: Any, marked: Any, draws: Any, width: int) -> np.ndarray:
    r"""P(X = x), x = 0..width: X the distinct marked items hit by ``draws`` uniform draws with replacement.

    Each draw picks one of ``total`` items uniformly, ``marked`` of them marked
    (one row per entry of the broadcast arrays). In closed form
    :math:`P(X = x) = \binom{K}{x} \sum_{j=0}^{x} (-1)^j \binom{x}{j}
    \left(\frac{N - K + x - j}{N}\right)^m`, whose alternating terms cancel;
    it is computed instead by the exact recursion over the draws of the
    pure-birth chain (x hit: the next draw hits a new one with probability
    (K - x) / N), each row up to its own number of draws, mass beyond
    ``width`` left out.

    >>> distinct_hits_pmf(3, 2, 2, 2).round(12).tolist()  # 9 draws of 2: none hit 1, one 4 (2+2), both 2 of 4 ...
    [0.111111111111, 0.666666666667, 0.222222222222]
    """
    n_all, k, m = np.broadcast_arrays(np.asarray(total, dtype=np.float64), np.asarray(marked, dtype=np.float64),
                                      np.asarray(draws, dtype=np.int64))  # fmt: skip
    n_all, k, m = n_all.ravel(), k.ravel(), m.ravel()
    order = np.argsort(-m, kind="stable")
    n_all, k, m = n_all[order], k[order], m[order]
    x = np.arange(width + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        stay = np.nan_to_num((n_all[:, None] - k[:, None] + x) / n_all[:, None])
        move = np.nan_to_num(np.maximum(k[:, None] - x, 0.0) / n_all[:, None])
    p = np.zeros((len(m), width + 1))
    p[:, 0] = 1.0
    active = np.searchsorted(-m, -np.arange(1, int(m.max(initial=0)) + 1), side="right")  # rows with m >= step
    for a in active.tolist():
        q = p[:a]
        hit = q[:, :-1] * move[:a, :-1]
        q *= stay[:a]
        q[:, 1:] += hit
    out = np.empty_like(p)
    out[order] = p
    return out.reshape(np.broadcast(np.asarray(total), np.asarray(marked), np.asarray(draws)).shape + (width + 1,))


@dataclass(frozen=True)
class PositiveCounts:
    """Where each relevant item of a set of lists stands among the others (one entry per relevant item).

    Attributes
    ----------
    user : ndarray of int64
        The list (row) of each relevant item, ascending.
    grade : ndarray of float64
    above_pos, tied_pos : ndarray of int64
        Other relevant items of its list scored strictly above it / tied with it.
    above_neg, tied_neg : ndarray of int64
        Negatives of its list scored strictly above it / tied with it.
    n_positives, n_negatives : ndarray of int64, one per list
        R and N of each list.
    """

    user: np.ndarray
    grade: np.ndarray
    above_pos: np.ndarray
    tied_pos: np.ndarray
    above_neg: np.ndarray
    tied_neg: np.ndarray
    n_positives: np.ndarray
    n_negatives: np.ndarray

    @classmethod
    def untied(
        cls, *, user: list[int], grade: list[float], above_pos: list[int], above_neg: list[int], n_negatives: list[int]
    ) -> PositiveCounts:
        """Counts of lists without ties (``n_positives`` counted from ``user``)."""
        u = np.asarray(user, dtype=np.int64)
        zeros = np.zeros(len(u), dtype=np.int64)
        neg = np.asarray(n_negatives, dtype=np.int64)
        return cls(
            u, np.asarray(grade, dtype=np.float64), np.asarray(above_pos, dtype=np.int64), zeros,
            np.asarray(above_neg, dtype=np.int64), zeros.copy(), np.bincount(u, minlength=len(neg)), neg,
        )  # fmt: skip


def _cutoff(m: Measure) -> float:
    return float(m.cutoffs[0]) if m.cutoffs else np.inf


def _ideal_dcg(m: Measure, counts: PositiveCounts) -> np.ndarray:
    """IDCG@k of each list from its relevant items' gains (positions 1, 2, ... by gain descending)."""
    gains = gain_values(m.param("gain", "linear"), counts.grade)
    order = np.lexsort((-gains, counts.user))
    starts = np.concatenate(([0], np.cumsum(counts.n_positives)[:-1]))
    position = np.arange(len(order)) - np.repeat(starts, counts.n_positives) + 1
    within = position <= _cutoff(m)
    terms = np.where(within, gains[order] * discount_values(m.param("discount", "log2"), position), 0.0)
    return np.bincount(counts.user[order], weights=terms, minlength=len(counts.n_positives))


def rank_values(
    m: Measure, pos: np.ndarray, rank: np.ndarray, gain: np.ndarray, n_rel: np.ndarray, length: np.ndarray,
    idcg: np.ndarray | None,
) -> np.ndarray:  # fmt: skip
    """The value a relevant item adds to its list's measure at position ``pos`` among the relevant and ``rank``.

    Broadcasts ``pos``, ``rank`` and the per-item ``gain`` (the measure's gain
    of its grade), ``n_rel`` (R of its list), ``length`` (items of its list)
    and ``idcg`` (``ndcg`` only).

    >>> from rankmeter.measures import parse
    >>> one = np.ones(3)
    >>> rank_values(parse("ndcg@2"), one, np.array([1, 2, 3]), one, one, one * 101, one).round(6).tolist()
    [1.0, 0.63093, 0.0]
    """
    k = _cutoff(m)
    inside = rank <= k
    formula = formula_of(m)
    if formula in ("ndcg", "dcg"):
        value = gain * discount_values(m.param("discount", "log2"), rank)
        if formula == "ndcg" and idcg is not None:
            value = np.divide(value, idcg, out=np.zeros(np.broadcast(value, idcg).shape), where=idcg > 0)
    elif formula == "cg":
        value = gain * np.ones_like(rank, dtype=np.float64)
    elif formula == "ap":
        divisor = {"R": n_rel, "min": np.minimum(n_rel, k), "k": k if np.isfinite(k) else length}
        value = pos / rank / divisor[m.param("divisor", "R")]
    elif formula == "p":
        value = 1.0 / (np.minimum(k, length) if m.param("divisor", "k") == "min" else (k if np.isfinite(k) else length))
        value = value * np.ones_like(rank, dtype=np.float64)
    elif formula == "r":
        value = 1.0 / n_rel * np.ones_like(rank, dtype=np.float64)
    elif formula == "f1":
        value = 2.0 / ((k if np.isfinite(k) else length) + n_rel) * np.ones_like(rank, dtype=np.float64)
    elif formula == "rprec":
        inside = rank <= n_rel
        value = 1.0 / n_rel * np.ones_like(rank, dtype=np.float64)
    else:  # rr, success: the first relevant item only
        value = (1.0 / rank if formula == "rr" else np.ones_like(rank, dtype=np.float64)) * (pos == 1)
    return np.where(inside, value, 0.0)


def _widest(measures: list[Measure], counts: PositiveCounts, n: int) -> int:
    """Largest number of sampled negatives above an item that can still change a value (the pmf's width - 1)."""
    deepest = 0.0
    for m in measures:
        deepest = max(deepest, float(counts.n_positives.max(initial=0)) if formula_of(m) == "rprec" else _cutoff(m))
    return int(min(n, deepest - 1)) if np.isfinite(deepest) else n


def _tied_table(b: int, above: int, tied: int, total: int, n: int, width: int, draws: int = 0) -> np.ndarray:
    """P(U = u, X = x), shape (b + 1, width + 1): U tied relevant items and X sampled negatives above the item.

    In a uniform order of the tied group (the item, b relevant items, T negatives), the item is the
    (u + 1)-th of its b + 1 tied relevant items with probability 1 / (b + 1), with
    V = v tied negatives before it with the negative hypergeometric probability
    C(u + v, u) C(T - v + b - u, b - u) / C(T + b + 1, b + 1); a uniform sample of the
    negatives keeps that order, so X | V = v ~ Hypergeometric(N, R + v, n); with ``draws`` (> 0), the draws
    with replacement of ``recbole_uni``, X | V = v is the distinct-hit law of R + v marked items.
    """
    from scipy.special import gammaln

    u = np.arange(b + 1)[:, None]
    v = np.arange(tied + 1)[None, :]

    def log_choose(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
        return np.asarray(gammaln(top + 1) - gammaln(bottom + 1) - gammaln(top - bottom + 1))

    log_w = log_choose(u + v, u + 0 * v) + log_choose(tied - v + b - u, b - u + 0 * v)
    weights = np.exp(log_w - log_choose(np.array(tied + b + 1), np.array(b + 1))) / (b + 1)
    if draws:
        below = distinct_hits_pmf(total, above + v[0], draws, width)
    else:
        below = hypergeom_pmf(total, above + v[0], n, width)
    return np.asarray(weights @ below)


def tied_above_pmf(above: np.ndarray, tied: np.ndarray, total: np.ndarray, n: int, width: int) -> np.ndarray:
    r"""P(X = x), x = 0..width, for items tied with T negatives and with no other relevant item (one row each).

    The item takes a uniform place among its T tied negatives, so X mixes
    Hypergeometric(N, R + v, n) over v = 0..T uniformly. With H_M ~
    Hypergeometric(N + 1, M, n + 1), summing the (x + 1)-th order statistic of
    a random (n + 1)-subset of {0..N} over its positions R..R+T gives

    .. math::

        P(X = x) = \frac{N + 1}{(n + 1)(T + 1)} \left[P(H_{R+T+1} > x) - P(H_R > x)\right],

    O(n) per item whatever T.

    >>> p = tied_above_pmf(np.array([1]), np.array([2]), np.array([4]), 2, 2)
    >>> want = [hypergeom_pmf(4, k, 2, 2) for k in (1, 2, 3)]
    >>> bool(np.allclose(p[0], np.mean(want, axis=0)))
    True
    """
    big = np.asarray(total, dtype=np.float64)[:, None] + 1

    def survival(marked: np.ndarray) -> np.ndarray:
        pmf = hypergeom_pmf(big[:, 0], marked, n + 1, n + 1)
        tail = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]  # P(H >= h)
        return np.asarray(tail[:, 1 : width + 2])  # P(H > x) = P(H >= x + 1), x = 0..width

    scale = big / ((n + 1) * (np.asarray(tied, dtype=np.float64)[:, None] + 1))
    return np.asarray(np.maximum(scale * (survival(above + tied + 1) - survival(above)), 0.0))


def expected_values(
    counts: PositiveCounts, n: int, protocol: str, measures: list[Measure]
) -> tuple[np.ndarray, list[str]]:
    """Expected value of each measure (one column per cutoff) of each list under ``protocol`` with n negatives.

    Lists without a relevant item get NaN (the empty-query policy decides). nDCG is NaN (undefined) where
    the ideal DCG is 0, as on the full catalogue: a list whose relevant items all have gain 0 (``shared``),
    and under ``per_positive`` a positive of gain 0, which is left out of its list's mean (NaN when no
    positive is left).
    Every list must have ``n_negatives >= n`` where it has a relevant item.

    Returns
    -------
    values : ndarray, shape (n_lists, n_columns)
    names : list of str
    """
    singles = [single for m in measures for single in m.expand()]
    n_lists = len(counts.n_positives)
    alone = protocol == "per_positive"
    pooled = protocol in WITH_REPLACEMENT
    total = counts.n_negatives[counts.user]
    draws = n * counts.n_positives[counts.user] if pooled else np.zeros(len(total), dtype=np.int64)
    a = np.zeros_like(counts.above_pos) if alone else counts.above_pos
    b = np.zeros_like(counts.tied_pos) if alone else counts.tied_pos
    n_rel_item = np.ones(len(a)) if alone else counts.n_positives[counts.user].astype(np.float64)
    length = n_rel_item + n if not pooled else np.full(len(a), np.nan)  # pooled: no measure reads it
    width = _widest(singles, counts, int(draws.max(initial=n)) if pooled else n)
    xs = np.arange(width + 1)
    untied = (b == 0) & (counts.tied_neg == 0)
    many = (b == 0) & (counts.tied_neg >= _MANY_TIED) & (not pooled)  # tied with negatives only: the O(n) form
    free = np.flatnonzero(untied | many)
    pmf = np.empty((len(free), width + 1))
    plain = untied[free]
    if pooled:
        pmf[plain] = distinct_hits_pmf(total[free[plain]], counts.above_neg[free[plain]], draws[free[plain]], width)
    else:
        pmf[plain] = hypergeom_pmf(total[free[plain]], counts.above_neg[free[plain]], n, width)
    crowd = free[~plain]
    if len(crowd):
        pmf[~plain] = tied_above_pmf(counts.above_neg[crowd], counts.tied_neg[crowd], total[crowd], n, width)
    tied_tables = {
        int(i): _tied_table(
            int(b[i]), int(counts.above_neg[i]), int(counts.tied_neg[i]), int(total[i]), n, width, int(draws[i])
        )  # fmt: skip
        for i in np.flatnonzero(~(untied | many))
    }
    values = np.full((n_lists, len(singles)), np.nan)
    has = counts.n_positives > 0
    for c, m in enumerate(singles):
        gain = gain_values(m.param("gain", "linear"), counts.grade) if formula_of(m) in ("ndcg", "dcg", "cg") else 1.0
        gain = np.broadcast_to(np.asarray(gain, dtype=np.float64), a.shape)
        if formula_of(m) == "ndcg":
            idcg = gain * discount_values(m.param("discount", "log2"), np.ones(1)) if alone else (
                _ideal_dcg(m, counts)[counts.user])  # fmt: skip
        else:
            idcg = None
        item = np.zeros(len(a))
        if len(free):
            pos = (a[free] + 1.0)[:, None]
            f = rank_values(m, pos, pos + xs[None, :], gain[free, None], n_rel_item[free, None], length[free, None],
                            None if idcg is None else idcg[free, None])  # fmt: skip
            item[free] = (pmf * f).sum(axis=1)
        for i, table in tied_tables.items():
            pos = a[i] + 1.0 + np.arange(table.shape[0])[:, None]
            f = rank_values(m, pos, pos + xs[None, :], gain[i], n_rel_item[i], length[i],
                            None if idcg is None else idcg[i])  # fmt: skip
            item[i] = float((table * f).sum())
        sums = np.bincount(counts.user, weights=item, minlength=n_lists)
        if idcg is None:  # defined wherever the list has a relevant item
            per_list = sums / np.maximum(counts.n_positives, 1) if alone else sums
        else:  # nDCG is undefined where the ideal DCG is 0 (every relevant item's gain 0), as on the full catalogue
            defined = np.bincount(counts.user, weights=np.broadcast_to(idcg > 0, a.shape), minlength=n_lists)
            per_list = np.full(n_lists, np.nan)
            if alone:  # the mean over the positives whose own list has a positive ideal DCG
                np.divide(sums, defined, out=per_list, where=defined > 0)
            else:
                per_list[defined > 0] = sums[defined > 0]
        values[has, c] = per_list[has]
    return values, [str(s) for s in singles]
