r"""Row-wise ranking of a dense ``(batch, list_size)`` batch in ``keras.ops``, with exact ``expected`` ties.

This is :mod:`rankmeter.core.ties` and the tie-aware kernel primitives of
:class:`rankmeter.measures.kernels.context.Context` written in ``keras.ops``,
so that a metric runs inside a compiled training step (``jax.jit``,
``tf.function``, torch) on the model's device, with no copy to the host.

Every tie policy orders a row by score descending, masked items last; the
policies differ only inside a tied group:

* ``stable`` input order, ``trec`` higher column first (the column plays the
  document id), ``shuffle`` a seeded random order, ``optimistic`` /
  ``pessimistic`` highest / lowest grade first. Each item is then its own
  group of one.
* ``expected`` keeps the tied groups and averages over every order inside
  each (McSherry & Najork, ECIR 2008), exactly:

  - a quantity linear in per-item values (DCG, rel@k) takes the group mean
    of the values at each position (:meth:`Ranked.tie_mean`);
  - the products :math:`E[b_i \sum_{j \le i} g_j]` of average precision
    follow :meth:`Ranked.prefix_products`;
  - the rank of the first relevant item follows the hypergeometric law of
    :meth:`Ranked.first_hit` (reciprocal rank, success).

A group of one makes every formula the deterministic one, so one code path
serves every policy.
"""

from __future__ import annotations

from typing import Any

import keras
from keras import ops

Tensor = Any

POLICIES = ("expected", "stable", "trec", "shuffle", "optimistic", "pessimistic")


def divide_no_nan(a: Tensor, b: Tensor) -> Tensor:
    """``a / b``, 0 where ``b`` is 0, in the inputs' dtype (``keras.ops.divide_no_nan`` gives float32 on torch)."""
    zero = ops.equal(b, 0.0)
    quotient = a / ops.where(zero, ops.ones_like(b), b)
    return ops.where(zero, ops.zeros_like(quotient), quotient)


def cumulative(x: Tensor, product: bool = False) -> Tensor:
    """Row-wise cumulative sum (or product) in ``x``'s dtype.

    keras 3's ``cumsum`` / ``cumprod`` on the PyTorch backend compute float64
    input in float32 (its ``result_type`` demotes float64 there), so torch's
    own is called on that backend.
    """
    if keras.backend.backend() == "torch":
        import torch

        return torch.cumprod(x, dim=1) if product else torch.cumsum(x, dim=1)
    return ops.cumprod(x, axis=1) if product else ops.cumsum(x, axis=1)


def segment_sum(flat: Tensor, segments: Tensor, count: int) -> Tensor:
    """Sums of ``flat`` by segment id, in its dtype (``keras.ops.segment_sum`` gives float32 on PyTorch)."""
    if keras.backend.backend() == "torch":
        import torch

        return torch.zeros(count, dtype=flat.dtype, device=flat.device).index_add_(0, segments, flat)
    return ops.segment_sum(flat, segments, num_segments=count)


def relu(x: Tensor) -> Tensor:
    """max(x, 0) in ``x``'s dtype (``keras.ops.maximum`` gives float32 on the PyTorch backend)."""
    return ops.where(x > 0, x, ops.zeros_like(x))


def _take(x: Tensor, index: Tensor) -> Tensor:
    return ops.take_along_axis(x, index, axis=1)


def _lexsort(keys: list[Tensor], columns: Tensor) -> Tensor:
    """Row-wise permutation sorting by ``keys`` ascending, most significant last (``np.lexsort``).

    Chains stable argsorts (``keras.ops.argsort`` is stable on the JAX and
    PyTorch backends), least significant key first; ties left are in column order.
    """
    perm = columns
    for key in keys:
        perm = _take(perm, ops.argsort(_take(key, perm), axis=1))
    return perm


class Ranked:
    """One batch ranked row by row: the permutation, and the tied groups at each ranked position.

    Parameters
    ----------
    scores : tensor, shape (batch, m)
        Higher first.
    valid : tensor of bool, shape (batch, m)
        ``False`` items go last, in groups of their own, and must carry zero
        values (they take positions after every valid item, which cutoffs
        beyond the list's length then read as zeros).
    ties : str
        One of :data:`POLICIES`.
    grades : tensor, optional
        Non-negative gains for ``optimistic`` / ``pessimistic``.
    noise : tensor, optional
        Random keys for ``shuffle``.

    Attributes
    ----------
    order : tensor of int, shape (batch, m)
        Column of the item at each ranked position.
    positions : tensor, shape (m,)
        0-based ranked positions as floats of the scores' dtype.
    size, start : tensor, shape (batch, m)
        Size and 0-based first position of the tied group at each ranked
        position (1 and the position itself unless ``ties='expected'``).
    """

    def __init__(
        self,
        scores: Tensor,
        valid: Tensor,
        ties: str,
        grades: Tensor | None = None,
        noise: Tensor | None = None,
    ) -> None:
        dtype = keras.backend.standardize_dtype(scores.dtype)
        batch, m = ops.shape(scores)
        columns = ops.broadcast_to(ops.expand_dims(ops.arange(m, dtype="int32"), 0), (batch, m))
        keys = [ops.negative(scores), ops.cast(ops.logical_not(valid), "int32")]
        if ties == "trec":
            keys.insert(0, ops.negative(columns))
        elif ties == "shuffle":
            keys.insert(0, noise)
        elif ties in ("optimistic", "pessimistic"):
            keys.insert(0, ops.negative(grades) if ties == "optimistic" else grades)
        self.order = _lexsort(keys, columns)
        self.expected = ties == "expected"
        self.dtype = dtype
        self.positions = ops.arange(m, dtype=dtype)
        self.rows, self.width = batch, m
        if not self.expected:
            self.size = ops.ones((batch, m), dtype=dtype)
            self.start = ops.broadcast_to(self.positions, (batch, m))
            return
        ranked = self.take(scores)
        ranked_valid = self.take(valid)
        change = ops.logical_or(
            ops.not_equal(ranked[:, 1:], ranked[:, :-1]), ops.not_equal(ranked_valid[:, 1:], ranked_valid[:, :-1])
        )
        new_group = ops.concatenate([ops.ones((batch, 1), dtype="int32"), ops.cast(change, "int32")], axis=1)
        row_base = ops.expand_dims(ops.arange(batch, dtype="int32") * m, 1)
        self.group = ops.reshape(ops.cumsum(new_group, axis=1, dtype="int32") - 1 + row_base, (-1,))
        self.size = self._gather(self._segment_sum(ops.ones((batch * m,), dtype=dtype)))
        first = ops.segment_max(
            ops.reshape(ops.broadcast_to(-self.positions, (batch, m)), (-1,)),
            self.group,
            num_segments=batch * m,
        )
        self.start = ops.cast(-self._gather(first), dtype)  # positions < 2**24: exact in any float

    # --- helpers -----------------------------------------------------------
    def take(self, values: Tensor) -> Tensor:
        """``values`` (one per item, input order) in ranked order."""
        return _take(values, self.order)

    def _segment_sum(self, flat: Tensor) -> Tensor:
        return segment_sum(flat, self.group, self.rows * self.width)

    def _gather(self, per_group: Tensor) -> Tensor:
        return ops.reshape(ops.take(per_group, self.group, axis=0), (self.rows, self.width))

    def group_sum(self, ranked: Tensor) -> Tensor:
        """Sum of ``ranked`` (ranked order) over the tied group of each position."""
        if not self.expected:
            return ranked
        return self._gather(self._segment_sum(ops.reshape(ranked, (-1,))))

    def within(self, k: int | None) -> Tensor:
        """1.0 at the positions inside the cutoff ``k`` (all when None), else 0.0: shape (m,)."""
        if k is None:
            return ops.ones_like(self.positions)
        return ops.cast(ops.less(self.positions, float(k)), self.dtype)

    # --- the tie-aware primitives --------------------------------------------
    def tie_mean(self, ranked: Tensor) -> Tensor:
        """Expected value at each position of a per-item quantity: its tied group's mean."""
        return ranked if not self.expected else self.group_sum(ranked) / self.size

    def prefix_products(self, b: Tensor, g: Tensor) -> Tensor:
        r"""E[b_i * sum_{j<=i} g_j] at each ranked position (``b``, ``g`` in ranked order).

        With n, B, G, BG the group's size and sums of b, g, b*g, t the offset
        in the group and G_before the sum of g over earlier groups:

        .. math:: E = \frac{B}{n} G_{before} + \frac{BG}{n} + t \frac{B G - BG}{n (n - 1)}
        """
        running = cumulative(g)
        if not self.expected:
            return b * running
        n = self.size
        big_b, big_g, big_bg = self.group_sum(b), self.group_sum(g), self.group_sum(b * g)
        before = _take(running - g, ops.cast(self.start, "int32"))
        t = self.positions - self.start
        pair = divide_no_nan(big_b * big_g - big_bg, n * (n - 1.0))
        return big_b / n * before + big_bg / n + t * pair

    def first_hit(self, relevant: Tensor) -> Tensor:
        r"""Probability that the first relevant item sits at each ranked position (``relevant``: 0/1, ranked).

        Only the first tied group holding a relevant item can hold it: with n
        items, r relevant, the first relevant item is at offset t (0-based)
        with probability

        .. math:: w_t = \frac{r}{n - t} \prod_{u < t} \frac{n - r - u}{n - u}

        (hypergeometric); a group of one gives probability 1 at the first
        relevant position.
        """
        m = self.width
        is_rel = ops.greater(relevant, 0.0)
        first_start = ops.min(ops.where(is_rel, self.start, ops.full_like(self.start, float(m))), axis=1, keepdims=True)
        in_first = ops.equal(self.start, first_start)
        n, r = self.size, self.group_sum(relevant)
        t = self.positions - self.start
        factor = ops.where(in_first, (n - r - t) / (n - t), ops.ones_like(n))
        before = ops.concatenate([ops.ones((self.rows, 1), dtype=self.dtype), factor[:, :-1]], axis=1)
        survive = cumulative(before, product=True)
        return ops.where(in_first, survive * r / (n - t), ops.zeros_like(n))
