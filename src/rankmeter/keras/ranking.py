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
    of the values at each position (:meth:`Ranked.mean_at`);
  - the products :math:`E[b_i \sum_{j \le i} g_j]` of average precision
    follow :meth:`Ranked.prefix_products`;
  - the rank of the first relevant item follows the hypergeometric law of
    :meth:`Ranked.first_hit` (reciprocal rank, success).

A group of one makes every formula the deterministic one, so one code path
serves every policy.

Only the first ``depth`` positions are kept (the largest cutoff), found with
``top_k`` rather than a sort of the whole row. Under ``expected`` with a small
depth (at most :data:`SMALL_DEPTH`) the tied groups come from comparing the
``depth`` top scores with one another, a ``(batch, depth, depth)`` matrix,
and the one group that may run past the depth (the group of the last kept
position) from comparing its score with the whole row; a larger depth sorts
the row once and sums each group by segment.
"""

from __future__ import annotations

from typing import Any

import keras
from keras import ops

Tensor = Any

POLICIES = ("expected", "stable", "trec", "shuffle", "optimistic", "pessimistic")
SMALL_DEPTH = 64
"""Largest depth whose ``expected`` groups come from the ``(batch, depth, depth)`` comparisons."""


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


def _valid_first(perm: Tensor | None, masked: Tensor) -> Tensor:
    """The columns of ``perm`` (all columns when None), the valid ones first, each part in ``perm``'s order.

    >>> import numpy as np
    >>> masked = ops.convert_to_tensor(np.array([[1, 0, 1, 0]], dtype="int32"))
    >>> ops.convert_to_numpy(_valid_first(None, masked)).tolist()
    [[1, 3, 0, 2]]
    """
    if perm is None:
        return ops.argsort(masked, axis=1)  # stable: each part keeps the column order
    return _take(perm, ops.argsort(_take(masked, perm), axis=1))


def top_columns(key: Tensor, depth: int) -> Tensor:
    """Columns of the ``depth`` largest keys of each row, largest first, equal keys in column order.

    ``top_k`` keeps equal keys in column order on JAX and TensorFlow; PyTorch's
    ``topk`` does not, so that backend sorts the row stably.

    >>> import numpy as np
    >>> ops.convert_to_numpy(top_columns(ops.convert_to_tensor(np.array([[1.0, 3.0, 1.0, 3.0]])), 3)).tolist()
    [[1, 3, 0]]
    """
    if keras.backend.backend() == "torch":
        import torch

        return torch.sort(key, dim=1, descending=True, stable=True).indices[:, :depth]
    return ops.top_k(key, depth, sorted=True)[1]


class Ranked:
    """One batch ranked row by row: the first ``depth`` positions and the tied groups at each.

    Parameters
    ----------
    scores : tensor, shape (batch, m)
        Higher first; infinite scores rank like any other (``-inf`` still
        before every masked item), equal infinities tie.
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
    depth : int, optional
        Positions needed (the largest cutoff); None or more than m: all m.
        ``expected`` keeps all m beyond :data:`SMALL_DEPTH`.

    Attributes
    ----------
    order : tensor of int, shape (batch, depth)
        Column of the item at each ranked position (under ``expected``, one
        item of the position's tied group).
    positions : tensor, shape (depth,)
        0-based ranked positions as floats of the scores' dtype.
    size, start : tensor, shape (batch, depth)
        Size and 0-based first position of the tied group at each ranked
        position (1 and the position itself unless ``ties='expected'``).

    Every method taking per-item values takes them in input order, shape ``(batch, m)``.
    """

    def __init__(
        self,
        scores: Tensor,
        valid: Tensor,
        ties: str,
        grades: Tensor | None = None,
        noise: Tensor | None = None,
        depth: int | None = None,
    ) -> None:
        dtype = keras.backend.standardize_dtype(scores.dtype)
        batch, m = ops.shape(scores)
        depth = m if depth is None else min(depth, m)
        self.expected = ties == "expected"
        self.small = self.expected and depth <= SMALL_DEPTH
        if self.expected and not self.small:
            depth = m  # the segment sums need each group whole
        self.dtype = dtype
        self.positions = ops.arange(depth, dtype=dtype)
        self.rows, self.width = batch, depth
        key = ops.where(valid, scores, ops.full_like(scores, float("-inf")))  # masked items last
        key = ops.where(ops.equal(key, 0.0), ops.zeros_like(key), key)  # -0.0 ties 0.0 (JAX's top_k puts it after)
        masked = ops.cast(ops.logical_not(valid), "int32")  # sorts a valid -inf before the masked items' -inf
        if self.small:
            self._top_groups(key, valid, depth, _valid_first(None, masked))
            return
        if ties in ("stable", "expected"):
            front = _valid_first(None, masked)
            self.order = _take(front, top_columns(_take(key, front), depth))
        elif ties == "shuffle":
            front = _valid_first(ops.argsort(noise, axis=1), masked)  # a random order, then stable within it
            self.order = _take(front, top_columns(_take(key, front), depth))
        else:
            columns = ops.broadcast_to(ops.expand_dims(ops.arange(m, dtype="int32"), 0), (batch, m))
            first = grades if ties == "pessimistic" else ops.negative(columns if ties == "trec" else grades)
            self.order = _lexsort([first, ops.negative(key), masked], columns)[:, :depth]
        if not self.expected:
            self.size = ops.ones((batch, depth), dtype=dtype)
            self.start = ops.broadcast_to(self.positions, (batch, depth))
            return
        ranked, live = self.take(key), self.take(valid)
        both_valid = ops.logical_and(live[:, 1:], live[:, :-1])  # a masked item is a group of its own
        change = ops.cast(
            ops.logical_or(ops.not_equal(ranked[:, 1:], ranked[:, :-1]), ops.logical_not(both_valid)), "int32"
        )
        new_group = ops.concatenate([ops.ones((batch, 1), dtype="int32"), change], axis=1)
        row_base = ops.expand_dims(ops.arange(batch, dtype="int32") * depth, 1)
        self.group = ops.reshape(ops.cumsum(new_group, axis=1, dtype="int32") - 1 + row_base, (-1,))
        self.size = self._gather(self._segment_sum(ops.ones((batch * depth,), dtype=dtype)))
        first = ops.segment_max(
            ops.reshape(ops.broadcast_to(-self.positions, (batch, depth)), (-1,)),
            self.group,
            num_segments=batch * depth,
        )
        self.start = ops.cast(-self._gather(first), dtype)  # positions < 2**24: exact in any float

    def _top_groups(self, key: Tensor, valid: Tensor, depth: int, front: Tensor) -> None:
        """``expected`` at a small depth: the groups among the top ``depth`` scores, and the last one's rest.

        ``front`` lists the valid columns first, so that ``top_k`` keeps a valid ``-inf`` before a masked item.
        """
        self.order = _take(front, top_columns(_take(key, front), depth))  # the order inside a group does not matter
        values, live = self.take(key), self.take(valid)  # masked items hold -inf, as a valid -inf does
        row, col = ops.expand_dims(values, 2), ops.expand_dims(values, 1)
        live_col = ops.expand_dims(live, 1)
        same = ops.logical_and(ops.equal(row, col), ops.equal(ops.expand_dims(live, 2), live_col))
        self._same = ops.cast(same, self.dtype)
        self._above = ops.cast(ops.logical_and(ops.greater(col, row), live_col), self.dtype)
        last = values[:, -1:]
        self._in_last = ops.logical_and(ops.equal(values, last), live)  # the group that may run past the depth
        self._last = ops.cast(ops.logical_and(ops.equal(key, last), valid), self.dtype)
        size = self.group_sum(ops.ones_like(key))
        start = ops.sum(self._above, axis=2)
        self.size = ops.where(live, size, ops.ones_like(size))  # masked positions: groups of one
        self.start = ops.where(live, start, ops.broadcast_to(self.positions, ops.shape(start)))

    # --- helpers -----------------------------------------------------------
    def take(self, values: Tensor) -> Tensor:
        """``values`` (one per item, input order) at the ranked positions."""
        return _take(values, self.order)

    def _segment_sum(self, flat: Tensor) -> Tensor:
        return segment_sum(flat, self.group, self.rows * self.width)

    def _gather(self, per_group: Tensor) -> Tensor:
        return ops.reshape(ops.take(per_group, self.group, axis=0), (self.rows, self.width))

    def group_sum(self, values: Tensor) -> Tensor:
        """Sum of ``values`` over the tied group of each position."""
        taken = self.take(values)
        if not self.expected:
            return taken
        if self.small:
            inside = ops.sum(self._same * ops.expand_dims(taken, 1), axis=2)
            return ops.where(self._in_last, ops.sum(self._last * values, axis=1, keepdims=True), inside)
        return self._gather(self._segment_sum(ops.reshape(taken, (-1,))))

    def sum_before(self, values: Tensor) -> Tensor:
        """Sum of ``values`` over the groups ranked before each position's group."""
        taken = self.take(values)
        if self.small:
            return ops.sum(self._above * ops.expand_dims(taken, 1), axis=2)
        before = cumulative(taken) - taken
        return before if not self.expected else _take(before, ops.cast(self.start, "int32"))

    def within(self, k: int | None) -> Tensor:
        """1.0 at the positions inside the cutoff ``k`` (all when None), else 0.0: shape (depth,)."""
        if k is None:
            return ops.ones_like(self.positions)
        return ops.cast(ops.less(self.positions, float(k)), self.dtype)

    # --- the tie-aware primitives --------------------------------------------
    def mean_at(self, values: Tensor) -> Tensor:
        """Expected value at each position of a per-item quantity: its tied group's mean."""
        return self.take(values) if not self.expected else self.group_sum(values) / self.size

    def prefix_products(self, b: Tensor, g: Tensor) -> Tensor:
        r"""E[b_i * sum_{j<=i} g_j] at each ranked position.

        With n, B, G, BG the group's size and sums of b, g, b*g, t the offset
        in the group and G_before the sum of g over earlier groups:

        .. math:: E = \frac{B}{n} G_{before} + \frac{BG}{n} + t \frac{B G - BG}{n (n - 1)}
        """
        if not self.expected:
            return self.take(b) * cumulative(self.take(g))
        n = self.size
        big_b, big_g, big_bg = self.group_sum(b), self.group_sum(g), self.group_sum(b * g)
        t = self.positions - self.start
        pair = divide_no_nan(big_b * big_g - big_bg, n * (n - 1.0))
        return big_b / n * self.sum_before(g) + big_bg / n + t * pair

    def first_hit(self, relevant: Tensor) -> Tensor:
        r"""Probability that the first relevant item sits at each ranked position (``relevant``: 0/1).

        Only the first tied group holding a relevant item can hold it: with n
        items, r relevant, the first relevant item is at offset t (0-based)
        with probability

        .. math:: w_t = \frac{r}{n - t} \prod_{u < t} \frac{n - r - u}{n - u}

        (hypergeometric); a group of one gives probability 1 at the first
        relevant position.
        """
        n, r = self.size, self.group_sum(relevant)
        has = ops.greater(r, 0.0)
        first_start = ops.min(ops.where(has, self.start, ops.full_like(self.start, 2.0**24)), axis=1, keepdims=True)
        in_first = ops.equal(self.start, first_start)
        t = self.positions - self.start
        factor = ops.where(in_first, (n - r - t) / (n - t), ops.ones_like(n))
        before = ops.concatenate([ops.ones((self.rows, 1), dtype=self.dtype), factor[:, :-1]], axis=1)
        survive = cumulative(before, product=True)
        return ops.where(in_first, survive * r / (n - t), ops.zeros_like(n))
