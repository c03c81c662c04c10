r"""The dense families' formulas against an array-API namespace: per-row values at every cutoff, on the device.

Each kernel takes a :class:`~rankmeter.xp.ranking.RankedRows`, the grades
in ranked order (masked items 0) and a :class:`~rankmeter.measures.Measure`,
and returns ``(n, C)``, a column per cutoff. The formulas are those of
:mod:`rankmeter.measures.kernels` on complete dense rows (every item judged,
the ideal from the row itself); the tests hold the two to 1e-12:

* ``dcg@k`` :math:`\sum_{i \le k} E[g_{(i)}] d(i)`, ``cg@k`` without the
  discount, ``idcg@k`` over the gains sorted descending, ``ndcg`` their ratio
  (NaN without relevant items);
* ``p@k`` rel@k / k, ``r@k`` rel@k / R, ``f1@k`` 2 rel@k / (k + R),
  ``hits@k`` rel@k, ``rprec`` rel@R / R, ``judged@k``, ``acg@k`` the mean
  grade of the top k, ``fall_out@k``;
* ``ap@k`` (``map``) :math:`\frac{1}{R}\sum_{i \le k} E[b_i \sum_{j \le i} b_j] / i`,
  ``wap@k`` the same with the grades in the running sum;
* ``rr@k`` :math:`\sum_{i \le k} P(\text{first relevant at } i) / i`,
  ``success@k`` :math:`\sum_{i \le k} P(\text{first relevant at } i)`;
* the counts ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rankmeter.measures import Measure, traits_of
from rankmeter.measures.params import GainTable, discount_values
from rankmeter.xp.ranking import RankedRows, ratio

Array = Any
Cutoffs = list[int | None]


def cutoffs_of(measure: Measure) -> Cutoffs:
    """The measure's cutoffs, ``[None]`` (the whole list) when it has none."""
    return list(measure.cutoffs) if measure.cutoffs is not None else [None]


def gains(xp: Any, gain: Any, grades: Array) -> Array:
    """Gains of ``grades`` (:func:`rankmeter.measures.params.gain_values` in ``xp``; a callable is not supported)."""
    zero = xp.zeros_like(grades)
    positive = xp.where(grades > 0, grades, zero)
    if gain == "linear":
        return positive
    if gain == "exp":
        return xp.where(grades > 0, xp.pow(2.0, positive) - 1.0, zero)
    if isinstance(gain, GainTable):
        out = positive
        for grade, value in gain.entries:
            out = xp.where(grades == grade, xp.full_like(grades, value), out)
        return out
    raise TypeError(f"gain {gain!r} has no array-API form")


def on_device(xp: Any, rows: RankedRows) -> Callable[[np.ndarray], Array]:
    """Copies a small host table (a discount per rank) to the rows' device."""
    target = rows.device
    return lambda table: xp.asarray(table, dtype=rows.dtype, device=target)


class Kernels:
    """The families' kernels over one ranked block; shared per-item arrays are computed once."""

    def __init__(self, rows: RankedRows, ranked_grades: Array, ideal_grades: Array) -> None:
        self.rows, self.xp = rows, rows.xp
        self.g = ranked_grades  # ranked order, masked items 0
        self.ideal_source = ideal_grades  # input order, masked items -inf (never in the ideal)
        self._cache: dict[object, Array] = {}
        self.lengths = self.xp.astype(rows.lengths, rows.dtype)

    def _cached(self, key: object, compute: Callable[[], Array]) -> Array:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    # --- per item ---------------------------------------------------------------
    def relevant(self, min_rel: float | None) -> Array:
        """Binary relevance in ranked order (valid items with grade > 0, or >= min_rel)."""
        xp, g = self.xp, self.g

        def compute() -> Array:
            rel = g > 0 if min_rel is None else xp.logical_and(g >= min_rel, self.rows.valid)
            return xp.astype(rel, self.rows.dtype)

        return self._cached(("rel", min_rel), compute)

    def num_relevant(self, min_rel: float | None) -> Array:
        """R of each row: shape (n, 1)."""
        return self._cached(("R", min_rel), lambda: self.xp.sum(self.relevant(min_rel), axis=1, keepdims=True))

    def discount(self, discount: Any) -> Array:
        """Discount at ranks 1..m (a host table of m values, copied to the device once)."""
        key = ("d", discount if isinstance(discount, str) else id(discount))
        ranks = np.arange(1, self.rows.m + 1, dtype=np.float64)
        return self._cached(key, lambda: on_device(self.xp, self.rows)(discount_values(discount, ranks)))

    def sizes(self, cutoffs: Cutoffs, divisor: str = "k") -> Array:
        """The k of each cutoff per row (the list length for None; min(k, length) with divisor="min")."""
        xp, length = self.xp, self.lengths
        cols = [length if k is None else xp.full_like(length, float(k)) for k in cutoffs]
        out = xp.concat(cols, axis=1)
        return xp.minimum(out, length) if divisor == "min" else out

    def relevant_at(self, m: Measure) -> Array:
        """Expected relevant items in the top k."""
        return self.rows.sums_at(self.rows.tie_mean(self.relevant(m.param("min_rel"))), cutoffs_of(m))

    # --- families ---------------------------------------------------------------
    def dcg(self, m: Measure, discounted: bool = True) -> Array:
        xp, rows = self.xp, self.rows
        per_item = rows.tie_mean(xp.where(rows.valid, gains(xp, m.param("gain", "linear"), self.g), 0.0))
        if discounted:
            per_item = per_item * self.discount(m.param("discount", "log2"))
        return rows.sums_at(per_item, cutoffs_of(m))

    def idcg(self, m: Measure) -> Array:
        xp, rows = self.xp, self.rows
        gain = m.param("gain", "linear")

        def ideal() -> Array:
            source = self.ideal_source
            g = xp.where(xp.isfinite(source), gains(xp, gain, source), xp.full_like(source, -float("inf")))
            best = xp.flip(xp.sort(g, axis=1), axis=1)  # masked (-inf) last
            return xp.where(xp.isfinite(best), best, xp.zeros_like(best))

        best = self._cached(("ideal", gain if isinstance(gain, str) else str(gain)), ideal)
        return rows.sums_at(best * self.discount(m.param("discount", "log2")), cutoffs_of(m))

    def ndcg(self, m: Measure) -> Array:
        return ratio(self.xp, self.dcg(m), self.idcg(m), float("nan"))

    def cg(self, m: Measure) -> Array:
        return self.dcg(m, discounted=False)

    def p(self, m: Measure) -> Array:
        sizes = self.sizes(cutoffs_of(m), m.param("divisor", "k"))
        return ratio(self.xp, self.relevant_at(m), sizes, 0.0)

    def hits(self, m: Measure) -> Array:
        return self.relevant_at(m)

    def r(self, m: Measure) -> Array:
        return ratio(self.xp, self.relevant_at(m), self.num_relevant(m.param("min_rel")), float("nan"))

    def f1(self, m: Measure) -> Array:
        xp = self.xp
        big_r = self.num_relevant(m.param("min_rel"))
        out = ratio(xp, 2.0 * self.relevant_at(m), self.sizes(cutoffs_of(m)) + big_r, float("nan"))
        return xp.where(big_r > 0, out, xp.full_like(out, float("nan")))

    def rprec(self, m: Measure) -> Array:
        xp, rows = self.xp, self.rows
        big_r = self.num_relevant(m.param("min_rel"))
        at_r = rows.sums_at_rows(rows.tie_mean(self.relevant(m.param("min_rel"))), xp.astype(big_r, rows.index))
        return ratio(xp, at_r, big_r, float("nan"))

    def judged(self, m: Measure) -> Array:
        xp, rows = self.xp, self.rows
        counts = rows.sums_at(rows.tie_mean(xp.astype(rows.valid, rows.dtype)), cutoffs_of(m))
        return ratio(xp, counts, self.sizes(cutoffs_of(m), m.param("divisor", "k")), 0.0)

    def acg(self, m: Measure) -> Array:
        xp, rows = self.xp, self.rows
        graded = xp.where(self.g > 0, self.g, xp.zeros_like(self.g))
        return ratio(xp, rows.sums_at(rows.tie_mean(graded), cutoffs_of(m)), self.sizes(cutoffs_of(m)), 0.0)

    def fall_out(self, m: Measure) -> Array:
        xp, rows = self.xp, self.rows
        other = rows.tie_mean(xp.astype(rows.valid, rows.dtype) - self.relevant(m.param("min_rel")))
        top, total = rows.sums_at(other, cutoffs_of(m)), rows.sums_at(other, [None])
        # a non-empty list without a non-relevant item gets ``all_relevant`` (default 0), an empty one 0
        fill = xp.where(self.lengths > 0, float(m.param("all_relevant", 0.0)), 0.0)
        return xp.where(total > 0, top / xp.where(total > 0, total, xp.ones_like(total)), fill + xp.zeros_like(top))

    def _average_precision(self, m: Measure, g: Array) -> Array:
        rows = self.rows
        b = self.relevant(m.param("min_rel"))
        sums = rows.sums_at(rows.prefix_products(b, g) / (rows.positions + 1.0), cutoffs_of(m))
        return ratio(self.xp, sums, self.num_relevant(m.param("min_rel")), float("nan"))

    def map(self, m: Measure) -> Array:
        return self._average_precision(m, self.relevant(m.param("min_rel")))

    def wap(self, m: Measure) -> Array:
        xp = self.xp
        return self._average_precision(m, xp.where(self.g > 0, self.g, xp.zeros_like(self.g)))

    def _first_hit(self, m: Measure) -> Array:
        min_rel = m.param("min_rel")
        return self._cached(("hit", min_rel), lambda: self.rows.first_hit(self.relevant(min_rel)))

    def rr(self, m: Measure) -> Array:
        return self.rows.sums_at(self._first_hit(m) / (self.rows.positions + 1.0), cutoffs_of(m))

    def success(self, m: Measure) -> Array:
        sums = self.rows.sums_at(self._first_hit(m), cutoffs_of(m))
        return self.xp.minimum(sums, self.xp.ones_like(sums))  # summed probabilities can round to 1 + 1e-16

    def num_q(self, m: Measure) -> Array:
        return self.xp.ones_like(self.lengths)

    def num_ret(self, m: Measure) -> Array:
        return self.lengths

    def num_rel(self, m: Measure) -> Array:
        return self.num_relevant(m.param("min_rel"))

    def num_rel_ret(self, m: Measure) -> Array:
        return self.num_relevant(m.param("min_rel"))


KERNELS: dict[str, Callable[[Kernels, Measure], Array]] = {
    "ndcg": Kernels.ndcg,
    "dcg": Kernels.dcg,
    "idcg": Kernels.idcg,
    "cg": Kernels.cg,
    "p": Kernels.p,
    "hits": Kernels.hits,
    "r": Kernels.r,
    "f1": Kernels.f1,
    "rprec": Kernels.rprec,
    "judged": Kernels.judged,
    "acg": Kernels.acg,
    "fall_out": Kernels.fall_out,
    "map": Kernels.map,
    "wap": Kernels.wap,
    "rr": Kernels.rr,
    "success": Kernels.success,
    "num_q": Kernels.num_q,
    "num_ret": Kernels.num_ret,
    "num_rel": Kernels.num_rel,
    "num_rel_ret": Kernels.num_rel_ret,
}
"""The formulas computed on the device, by name; a family names its own in ``Traits.array_api``, and a family that
names none takes the host path (``metadata['array_api']``)."""


def unsupported(measure: Measure) -> str | None:
    """Why ``measure`` cannot be computed on the device, or None when it can."""
    traits = traits_of(measure)
    if traits.array_api is None:
        return f"family {measure.family!r} has no array-API kernel"
    gain = measure.param("gain", "linear")
    if traits.graded and not (gain in ("linear", "exp") or isinstance(gain, GainTable)):
        return "a callable gain works on NumPy arrays"
    if traits.array_api == "map" and measure.param("divisor", "R") != "R":
        return "AP divided by min(R, k) or k works on NumPy arrays"
    return None
