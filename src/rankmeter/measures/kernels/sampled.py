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
  of n negatives (a list of R + n items).

Supported families: ``ndcg``, ``dcg``, ``cg``, ``map``/``ap``, ``p``, ``r``,
``f1``, ``rr``, ``success``, ``rprec`` (any gain and discount; the AP and P
divisors; not ``min_rel``). The value of one relevant item at (p, r), k the
cutoff (infinite without one), [.] 1 when true:

==========  ==========================================================
ndcg        g_i d(r) [r <= k] / IDCG@k (IDCG of the relevant items' gains)
dcg / cg    g_i d(r) [r <= k] / g_i [r <= k]
map / ap    (p / r) [r <= k] / D, D = R (``divisor=R``), min(R, k), or k
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

import numpy as np

from rankmeter.errors import PolicyError
from rankmeter.measures.base import Measure
from rankmeter.measures.params import discount_values, gain_values

PROTOCOLS = ("per_positive", "shared")
"""``per_positive``: each relevant item against its own n negatives; ``shared``: all of them against one draw."""

SAMPLED_FAMILIES: dict[str, tuple[str, ...]] = {
    "ndcg": ("gain", "discount", "ideal"),
    "dcg": ("gain", "discount"),
    "cg": ("gain",),
    "map": ("divisor",),
    "ap": ("divisor",),
    "p": ("divisor",),
    "r": (),
    "f1": (),
    "rr": (),
    "success": (),
    "rprec": (),
}
"""The families with an exact sampled expectation, and the parameters each may carry."""

_FIRST_ONLY = ("rr", "success")  # the first relevant item alone counts


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
    names = ", ".join(SAMPLED_FAMILIES)
    for m in measures:
        allowed = SAMPLED_FAMILIES.get(m.family)
        if allowed is None:
            raise PolicyError(
                f"{m}: sampled_negatives= gives the exact expectation of {names} (sums over the relevant items "
                f"of a function of their rank); {m.family} is not one of them"
            )
        extra = [k for k, _ in m.params if k not in allowed]
        if extra:
            raise PolicyError(
                f"{m}: parameter {extra[0]}= is not available with sampled_negatives= (relevant items are those "
                "with grade > 0, the negatives those with grade <= 0)"
            )


def hypergeom_pmf(x: np.ndarray, total: np.ndarray, marked: np.ndarray, draws: np.ndarray) -> np.ndarray:
    r"""P(X = x) for X the marked items among ``draws`` drawn without replacement from ``total`` (broadcast).

    :math:`\binom{K}{x}\binom{N-K}{n-x} / \binom{N}{n}`, 0 outside the support.

    >>> hypergeom_pmf(np.arange(3), np.array(5), np.array(3), np.array(2)).round(12).tolist()
    [0.1, 0.6, 0.3]
    """
    from scipy.special import gammaln

    x, n_all, k, n = (np.asarray(v, dtype=np.float64) for v in (x, total, marked, draws))

    def log_choose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)

    ok = (x >= 0) & (x <= k) & (n - x >= 0) & (n - x <= n_all - k)
    xs, ns = np.where(ok, x, 0.0), np.where(ok, n - x, 0.0)
    with np.errstate(invalid="ignore"):
        logp = log_choose(k, np.minimum(xs, k)) + log_choose(n_all - k, np.minimum(ns, n_all - k))
        logp = logp - log_choose(n_all, np.minimum(n, n_all))
    p = np.where(ok, np.exp(logp), 0.0)
    return np.asarray(p)


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
    family = m.family
    if family in ("ndcg", "dcg"):
        value = gain * discount_values(m.param("discount", "log2"), rank)
        if family == "ndcg" and idcg is not None:
            value = np.divide(value, idcg, out=np.zeros(np.broadcast(value, idcg).shape), where=idcg > 0)
    elif family == "cg":
        value = gain * np.ones_like(rank, dtype=np.float64)
    elif family in ("map", "ap"):
        divisor = {"R": n_rel, "min": np.minimum(n_rel, k), "k": k if np.isfinite(k) else n_rel}
        value = pos / rank / divisor[m.param("divisor", "R")]
    elif family == "p":
        value = 1.0 / (np.minimum(k, length) if m.param("divisor", "k") == "min" else (k if np.isfinite(k) else length))
        value = value * np.ones_like(rank, dtype=np.float64)
    elif family == "r":
        value = 1.0 / n_rel * np.ones_like(rank, dtype=np.float64)
    elif family == "f1":
        value = 2.0 / ((k if np.isfinite(k) else length) + n_rel) * np.ones_like(rank, dtype=np.float64)
    elif family == "rprec":
        inside = rank <= n_rel
        value = 1.0 / n_rel * np.ones_like(rank, dtype=np.float64)
    else:  # rr, success: the first relevant item only
        value = (1.0 / rank if family == "rr" else np.ones_like(rank, dtype=np.float64)) * (pos == 1)
    return np.where(inside, value, 0.0)


def _widest(measures: list[Measure], counts: PositiveCounts, n: int) -> int:
    """Largest number of sampled negatives above an item that can still change a value (the pmf's width - 1)."""
    deepest = 0.0
    for m in measures:
        deepest = max(deepest, float(counts.n_positives.max(initial=0)) if m.family == "rprec" else _cutoff(m))
    return int(min(n, deepest - 1)) if np.isfinite(deepest) else n


def _tied_table(b: int, above: int, tied: int, total: int, n: int, width: int) -> np.ndarray:
    """P(U = u, X = x), shape (b + 1, width + 1): U tied relevant items and X sampled negatives above the item."""
    table = np.zeros((b + 1, width + 1))
    xs = np.arange(width + 1)
    ys = np.arange(min(tied, n) + 1)
    for y, p_y in zip(ys.tolist(), hypergeom_pmf(ys, np.array(total), np.array(tied), np.array(n)).tolist(),
                      strict=True):  # fmt: skip
        if p_y == 0.0:
            continue
        strictly = hypergeom_pmf(xs, np.array(total - tied), np.array(above), np.array(n - y))
        slots = y + b + 1
        for j in range(slots):  # the item's slot among its sampled tied items, uniform
            us = np.arange(min(b, j) + 1)
            p_u = hypergeom_pmf(us, np.array(y + b), np.array(b), np.array(j)) if j else np.ones(1)
            for u, q in zip(us.tolist(), p_u.tolist(), strict=True):
                v = j - u  # tied negatives before it
                if q == 0.0 or v > y or v > width:
                    continue
                table[u, v:] += p_y * q / slots * strictly[: width + 1 - v]
    return table


def expected_values(
    counts: PositiveCounts, n: int, protocol: str, measures: list[Measure]
) -> tuple[np.ndarray, list[str]]:
    """Expected value of each measure (one column per cutoff) of each list under ``protocol`` with n negatives.

    Lists without a relevant item get NaN (the empty-query policy decides).
    Every list must have ``n_negatives >= n`` where it has a relevant item.

    Returns
    -------
    values : ndarray, shape (n_lists, n_columns)
    names : list of str
    """
    singles = [single for m in measures for single in m.expand()]
    n_lists = len(counts.n_positives)
    alone = protocol == "per_positive"
    total = counts.n_negatives[counts.user]
    a = np.zeros_like(counts.above_pos) if alone else counts.above_pos
    b = np.zeros_like(counts.tied_pos) if alone else counts.tied_pos
    n_rel_item = np.ones(len(a)) if alone else counts.n_positives[counts.user].astype(np.float64)
    length = n_rel_item + n
    width = _widest(singles, counts, n)
    xs = np.arange(width + 1)
    untied = (b == 0) & (counts.tied_neg == 0)
    free = np.flatnonzero(untied)
    pmf = hypergeom_pmf(xs[None, :], total[free, None], counts.above_neg[free, None], np.array(n))
    tied_tables = {
        int(i): _tied_table(int(b[i]), int(counts.above_neg[i]), int(counts.tied_neg[i]), int(total[i]), n, width)
        for i in np.flatnonzero(~untied)
    }
    values = np.full((n_lists, len(singles)), np.nan)
    has = counts.n_positives > 0
    for c, m in enumerate(singles):
        gain = gain_values(m.param("gain", "linear"), counts.grade) if m.family in ("ndcg", "dcg", "cg") else 1.0
        gain = np.broadcast_to(np.asarray(gain, dtype=np.float64), a.shape)
        if m.family == "ndcg":
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
        per_list = sums / np.maximum(counts.n_positives, 1) if alone else sums
        values[has, c] = per_list[has]
    return values, [str(s) for s in singles]
