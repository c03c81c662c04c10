r"""Per-list sums at cutoffs in ``keras.ops``: the formulas of :mod:`rankmeter.measures.kernels` on dense rows.

Every function takes items in input order, shape ``(batch, m)``, ranks them
with a :class:`~rankmeter.keras.ranking.Ranked` and returns ``(batch, C)``, a
column per cutoff (``None``: the whole list; every cutoff within the ranking's depth):

* ``dcg_at``      :math:`\sum_{i \le k} E[g_{(i)}] d(i)` -- tie means are exact for DCG, which is linear in the gains
* ``ideal_at``    the same over the gains sorted descending (no ties matter)
* ``relevant_at`` :math:`\sum_{i \le k} E[b_{(i)}]` (rel@k)
* ``precision_sum_at`` :math:`\sum_{i \le k} E[b_{(i)} \sum_{j \le i} g_{(j)}] / i` (AP times R)
* ``first_hit_at``  :math:`\sum_{i \le k} P(\text{first relevant at } i) / i` (RR) or without the 1/i (success)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from keras import ops

from rankmeter.keras.ranking import Ranked, divide_no_nan

Tensor = Any
Cutoffs = list[int | None]


def at_cutoffs(ranked: Ranked, per_position: Tensor, cutoffs: Cutoffs) -> Tensor:
    """Row sums of ``per_position`` (ranked order) over the top k, for every cutoff: ``(batch, C)``."""
    return ops.stack([ops.sum(per_position * ranked.within(k), axis=1) for k in cutoffs], axis=1)


def discounts(discount: Any, ranked: Ranked) -> Tensor:
    """Discount at ranks 1..m: a keras-ops callable on the ranks, or a rankmeter discount (static: m is known)."""
    ranks = ranked.positions + 1.0
    if discount is None:
        return 1.0 / ops.log2(ranks + 1.0)
    if isinstance(discount, np.ndarray):
        return ops.convert_to_tensor(discount[: ranked.width].astype(ranked.dtype))
    return ops.cast(discount(ranks), ranked.dtype)


def dcg_at(ranked: Ranked, gains: Tensor, discount: Tensor, cutoffs: Cutoffs) -> Tensor:
    """Expected DCG@k of each row (``gains`` per item, input order)."""
    return at_cutoffs(ranked, ranked.mean_at(gains) * discount, cutoffs)


def ideal_at(ranked: Ranked, gains: Tensor, discount: Tensor, cutoffs: Cutoffs) -> Tensor:
    """IDCG@k: the largest gains of each row, descending (as many as the ranking keeps)."""
    return at_cutoffs(ranked, ops.top_k(gains, ranked.width, sorted=True)[0] * discount, cutoffs)


def relevant_at(ranked: Ranked, relevant: Tensor, cutoffs: Cutoffs) -> Tensor:
    """Expected number of relevant items in the top k (``relevant`` per item, input order)."""
    return at_cutoffs(ranked, ranked.mean_at(relevant), cutoffs)


def precision_sum_at(ranked: Ranked, b: Tensor, g: Tensor, cutoffs: Cutoffs) -> Tensor:
    """:math:`\\sum_{i \\le k} E[b_i \\sum_{j \\le i} g_j] / i`: AP@k times the number of relevant items."""
    products = ranked.prefix_products(b, g)
    return at_cutoffs(ranked, products / (ranked.positions + 1.0), cutoffs)


def first_hit_at(ranked: Ranked, relevant: Tensor, cutoffs: Cutoffs, reciprocal: bool = True) -> Tensor:
    """Expected reciprocal rank of the first relevant item within k (or the probability it is within k)."""
    prob = ranked.first_hit(relevant)
    return at_cutoffs(ranked, prob / (ranked.positions + 1.0) if reciprocal else prob, cutoffs)


def list_weights(weights: Tensor, relevance: Tensor) -> Tensor:
    r"""keras-rs's per-list weights, shape ``(batch,)`` (:func:`rankmeter.aggregate.keras_list_weights` on rows).

    .. math:: w_q = \frac{\sum_i w_i \, rel_i}{\sum_i rel_i}

    Lists with no relevance take the mean weight of the lists with some (1
    when there are none); lists whose weights sum to 0 (masked out) take 0.
    """
    sum_w = ops.sum(weights, axis=1)
    sum_rel = ops.sum(relevance, axis=1)
    per_list = divide_no_nan(ops.sum(weights * relevance, axis=1), sum_rel)
    some = ops.cast(ops.logical_and(sum_w > 0, sum_rel > 0), weights.dtype)
    n_some = ops.sum(some)
    default = ops.where(n_some > 0, divide_no_nan(ops.sum(per_list * some), n_some), ops.ones_like(n_some))
    return ops.where(sum_w > 0, ops.where(sum_rel > 0, per_list, default), ops.zeros_like(per_list))
