r"""Dense rows ranked on their own device, written once against an array-API namespace ``xp``.

This is :mod:`rankmeter.core.ties` and the tie-aware primitives of
:class:`rankmeter.measures.kernels.context.Context` for a dense
``(n_lists, list_size)`` block whose items never leave their device. Every
tie policy orders a row by score descending, masked items last; they differ
only inside a tied group:

* ``stable`` input order, ``trec`` higher column first (the column plays the
  document id), ``optimistic`` / ``pessimistic`` highest / lowest grade first;
* ``expected`` keeps each tied group and averages over every order inside it
  (McSherry & Najork, ECIR 2008): a quantity linear in per-item values takes
  the group mean at each position (:meth:`RankedRows.tie_mean`), the products
  of average precision follow :meth:`RankedRows.prefix_products` and the rank
  of the first relevant item the hypergeometric law of
  :meth:`RankedRows.first_hit`.

Group sums come from row-wise running sums, :math:`S_{[a, b)} = C_b - C_a`
with :math:`C` the running sum including 0 (no scatter: the array API has
none), so every step is a sort, a gather or a running sum along the rows.
A group of one makes every formula the deterministic one.
"""

from __future__ import annotations

from typing import Any

from rankmeter.xp.arrays import index_dtype

Array = Any

POLICIES = ("expected", "stable", "trec", "optimistic", "pessimistic")
"""Tie policies computed on the device (``shuffle`` draws NumPy's random order: host path)."""


def running_sum(xp: Any, x: Array) -> Array:
    """Row-wise running sum with a leading 0: shape ``(n, m + 1)``, ``out[:, j]`` = sum of the first j values."""
    return xp.cumulative_sum(x, axis=1, include_initial=True)


def running_product(xp: Any, x: Array) -> Array:
    """Row-wise running product (``cumulative_prod``; ``cumprod`` where the namespace predates it)."""
    if hasattr(xp, "cumulative_prod"):
        return xp.cumulative_prod(x, axis=1)
    return xp.cumprod(x, axis=1)  # pragma: no cover - namespaces older than the 2024.12 standard


def ratio(xp: Any, num: Array, den: Array, fill: float) -> Array:
    """``num / den`` where ``den > 0``, else ``fill`` (NaN for undefined measures, 0 for empty cutoffs)."""
    positive = den > 0
    return xp.where(positive, num / xp.where(positive, den, xp.ones_like(den)), xp.full_like(num, fill))


def _sort_key(xp: Any, scores: Array, valid: Array, dtype: Any) -> Array:
    """Ascending key: minus the score, masked items (+inf) last. Exact: negation and infinity lose nothing.

    ``+ 0.0`` turns -0.0 into 0.0: the two are equal scores, but some sorts
    (JAX's) order them by their bits.
    """
    s = xp.astype(scores, dtype) if scores.dtype != dtype else scores
    return xp.where(valid, -s + 0.0, xp.full_like(s, float("inf")))


class RankedRows:
    """One block of dense rows ranked on the device: the permutation and each position's tied group.

    Parameters
    ----------
    xp : namespace
        The array-API namespace of the arrays (``array_api_compat.array_namespace``).
    scores : array, shape (n, m)
        Real scores, compared in their own floating dtype (higher first).
    valid : array of bool, shape (n, m)
        ``False`` items are ranked after every valid one and carry no value.
    grades : array, shape (n, m)
        Grades in the working dtype (for ``optimistic`` / ``pessimistic``).
    ties : str
        One of :data:`POLICIES`.

    Attributes
    ----------
    order : array of int, shape (n, m)
        Column of the item at each ranked position.
    lengths : array, shape (n, 1)
        Valid items per row (the list lengths).
    new_group : array of bool, shape (n, m)
        Whether a ranked position starts a group of equal scores (every
        position under a deterministic policy's arithmetic, but kept for the
        tie diagnostics whatever the policy).
    start, end : array of int, shape (n, m)
        First and one-past-last position of the tied group at each position
        (the position itself and the next unless ``ties='expected'``).

    Examples
    --------
    >>> import numpy as np
    >>> from array_api_compat import array_namespace
    >>> s, v = np.array([[0.5, 0.9, 0.5]]), np.ones((1, 3), dtype=bool)
    >>> r = RankedRows(array_namespace(s), s, v, np.array([[1.0, 0.0, 0.0]]), "expected")
    >>> r.order.tolist(), r.start.tolist(), r.end.tolist()
    ([[1, 0, 2]], [[0, 1, 1]], [[1, 3, 3]])
    """

    def __init__(self, xp: Any, scores: Array, valid: Array, grades: Array, ties: str) -> None:
        n, m = scores.shape
        dtype = grades.dtype
        self.xp, self.n, self.m, self.dtype = xp, n, m, dtype
        self.device = _device(scores)
        key_dtype = scores.dtype if xp.isdtype(scores.dtype, "real floating") else dtype
        key = _sort_key(xp, scores, valid, key_dtype)
        if ties == "trec":  # equal scores: higher column first = stable order of the reversed row, mapped back
            self.order = (m - 1) - xp.argsort(xp.flip(key, axis=1), axis=1, stable=True)
        elif ties in ("optimistic", "pessimistic"):
            clipped = xp.where(grades > 0, grades, xp.zeros_like(grades))  # negative grades gain like 0
            inner = (-clipped if ties == "optimistic" else clipped) + 0.0  # -0.0 is 0.0 (see _sort_key)
            first = xp.argsort(inner, axis=1, stable=True)
            then = xp.argsort(xp.take_along_axis(key, first, axis=1), axis=1, stable=True)
            self.order = xp.take_along_axis(first, then, axis=1)
        else:
            self.order = xp.argsort(key, axis=1, stable=True)
        self.expected = ties == "expected"
        self.positions = xp.arange(m, dtype=dtype, device=_device(scores))
        self.index = index_dtype(xp, _device(scores))
        self.lengths = xp.sum(xp.astype(valid, self.index), axis=1, keepdims=True)
        ranked_key = xp.take_along_axis(key, self.order, axis=1)
        change = ranked_key[:, 1:] != ranked_key[:, :-1]
        self.new_group = xp.concat([xp.ones((n, min(m, 1)), dtype=xp.bool, device=_device(scores)), change], axis=1)
        self.valid = xp.take_along_axis(valid, self.order, axis=1)
        index = xp.arange(m, dtype=self.index, device=_device(scores))
        if self.expected:
            self.start, self.end = _group_bounds(xp, self.new_group, index)
        else:
            self.start = xp.broadcast_to(index, (n, m))
            self.end = self.start + 1
        self.size = xp.astype(self.end - self.start, dtype)

    # --- helpers -----------------------------------------------------------
    def take(self, values: Array) -> Array:
        """``values`` (one per item, input order) in ranked order."""
        return self.xp.take_along_axis(values, self.order, axis=1)

    def group_sum(self, ranked: Array) -> Array:
        """Sum of ``ranked`` (ranked order) over the tied group of each position."""
        if not self.expected:
            return ranked
        xp = self.xp
        c = running_sum(xp, ranked)
        return xp.take_along_axis(c, self.end, axis=1) - xp.take_along_axis(c, self.start, axis=1)

    def sums_at(self, per_position: Array, cutoffs: list[int | None]) -> Array:
        """Row sums of ``per_position`` over the top k for every cutoff (``None``: the whole row): ``(n, C)``."""
        xp = self.xp
        c = running_sum(xp, per_position)
        return xp.stack([c[:, self.m if k is None else min(k, self.m)] for k in cutoffs], axis=1)

    def sums_at_rows(self, per_position: Array, k: Array) -> Array:
        """Row sums of ``per_position`` over each row's own top ``k`` (int array, shape (n, 1)): ``(n, 1)``."""
        xp = self.xp
        return xp.take_along_axis(running_sum(xp, per_position), xp.clip(k, 0, self.m), axis=1)

    # --- the tie-aware primitives --------------------------------------------
    def tie_mean(self, ranked: Array) -> Array:
        """Expected value at each position of a per-item quantity (ranked order): its tied group's mean."""
        return ranked if not self.expected else self.group_sum(ranked) / self.size

    def prefix_products(self, b: Array, g: Array) -> Array:
        r"""E[b_i * sum_{j<=i} g_j] at each ranked position (``b``, ``g`` in ranked order).

        With n, B, G, BG the group's size and sums of b, g, b*g, t the offset
        in the group and G_before the sum of g over earlier groups:

        .. math:: E = \frac{B}{n} G_{before} + \frac{BG}{n} + t \frac{B G - BG}{n (n - 1)}
        """
        xp = self.xp
        c = running_sum(xp, g)
        if not self.expected:
            return b * c[:, 1:]
        n = self.size
        big_b, big_g, big_bg = self.group_sum(b), self.group_sum(g), self.group_sum(b * g)
        before = xp.take_along_axis(c, self.start, axis=1)
        t = self.positions - xp.astype(self.start, self.dtype)
        pair = ratio(xp, big_b * big_g - big_bg, n * (n - 1.0), 0.0)
        return big_b / n * before + big_bg / n + t * pair

    def first_hit(self, relevant: Array) -> Array:
        r"""Probability that the first relevant item sits at each ranked position (``relevant``: 0/1, ranked).

        Only the first tied group holding a relevant item can hold it: with n
        items, r relevant, the first relevant item is at offset t (0-based)
        with probability

        .. math:: w_t = \frac{r}{n - t} \prod_{u < t} \frac{n - r - u}{n - u}

        (hypergeometric); a group of one gives probability 1 at the first
        relevant position.
        """
        xp = self.xp
        is_rel = relevant > 0
        start = self.start
        first_start = xp.min(xp.where(is_rel, start, xp.full_like(start, self.m)), axis=1, keepdims=True)
        in_first = start == first_start
        n, r = self.size, self.group_sum(relevant)
        t = self.positions - xp.astype(start, self.dtype)
        one = xp.ones_like(n)
        factor = xp.where(in_first, (n - r - t) / xp.where(in_first, n - t, one), one)
        before = xp.concat(
            [xp.ones((self.n, min(self.m, 1)), dtype=self.dtype, device=_device(n)), factor[:, :-1]], axis=1
        )
        survive = running_product(xp, before)
        return xp.where(in_first, survive * r / xp.where(in_first, n - t, one), xp.zeros_like(n))

    # --- tie diagnostics -----------------------------------------------------
    def tied_rows(self) -> Array:
        """Whether each row has a group of two or more equal valid scores: shape (n,)."""
        xp = self.xp
        joins = xp.logical_and(xp.logical_not(self.new_group), self.valid)
        return xp.any(joins, axis=1)

    def straddles(self, cutoffs: list[int], per_row: list[Array]) -> Array:
        """Whether a tied group straddles a cutoff (``a < k < a + n``) in each row: shape (n,).

        ``per_row``: per-row cutoffs (int arrays of shape (n, 1)), e.g. R for R-precision.
        """
        xp = self.xp
        joins = xp.logical_and(xp.logical_not(self.new_group), self.valid)  # position k continues k-1's group
        out = xp.zeros((self.n,), dtype=xp.bool, device=_device(joins))
        for k in cutoffs:
            if 0 < k < self.m:
                out = xp.logical_or(out, joins[:, k])
        padded = xp.concat([joins, xp.zeros((self.n, 1), dtype=xp.bool, device=_device(joins))], axis=1)
        for k in per_row:
            inside = xp.logical_and(k > 0, k < self.m)
            hit = xp.take_along_axis(padded, xp.clip(k, 0, self.m), axis=1)[:, 0]
            out = xp.logical_or(out, xp.logical_and(inside[:, 0], hit))
        return out


def _group_bounds(xp: Any, new_group: Array, index: Array) -> tuple[Array, Array]:
    """First and one-past-last position of the group at each position, from the group starts of each row.

    The starts of a row, in order, are the stable sort of its positions by
    "not a start"; the group at position i is the (c_i)-th, c the running
    count of starts, and ends where the next group starts (or at the row's end).
    """
    n, m = new_group.shape
    starts = xp.argsort(xp.astype(xp.logical_not(new_group), xp.int8), axis=1, stable=True)
    count = xp.cumulative_sum(xp.astype(new_group, index.dtype), axis=1)  # 1-based group number
    start = xp.take_along_axis(starts, count - 1, axis=1)
    groups = count[:, -1:] if m else count
    following = xp.take_along_axis(starts, xp.clip(count, 0, max(m - 1, 0)), axis=1)
    end = xp.where(count < groups, following, xp.full_like(following, m))
    return start, end


def _device(x: Array) -> Any:
    """The device of ``x``; None (the default device) for a JAX tracer inside ``jax.jit``."""
    from array_api_compat import device

    try:
        return device(x)
    except Exception:  # noqa: BLE001 - tracers have no committed device
        return None
