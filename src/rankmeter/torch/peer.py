r"""torchmetrics's retrieval conventions that no rankmeter family parameter states yet, in NumPy.

The ``Retrieval*`` classes compute every other number with rankmeter's own
kernels (:mod:`rankmeter.torch.metrics`: ``auroc(all_relevant=0,max_fpr=...)``,
``success@k``, ``fall_out(all_relevant=0)@k``, ``p(divisor=...)@k``, ``rr@k``,
``rprec``, on the items grouped here).
Four formulas stay here, as torchmetrics 1.9's functional ``retrieval_*``
computes them, quirks included:

* ``average_precision`` at ``top_k`` divides by the relevant items found in
  the top k (not by every relevant item of the query) and counts an item as
  relevant only when its score is > 0;
* ``recall`` counts the relevant items scored > 0 in the top k, over every
  relevant item of the query;
* ``normalized_dcg`` uses the targets as linear gains, negative ones too,
  and averages over the orders of tied scores;
* ``precision_recall_curve`` gives precision and recall at every k up to
  ``max_k`` from one running count per query (rankmeter's ``p@[1,...,K]``
  sums each cutoff on its own, K passes over the items).

Scores are compared in float32 (torchmetrics casts ``preds.float()``). On
tied scores torchmetrics takes ``torch.topk``'s order, which no
specification fixes; here tied items keep their input order (first
updated, first ranked). ``normalized_dcg`` and AUROC do not depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from rankmeter.measures.kernels.segments import segment_sum


@dataclass(frozen=True)
class Queries:
    """Items grouped by query and sorted by descending float32 score (ties in input order)."""

    offsets: np.ndarray  # (n_queries + 1,) int64
    preds: np.ndarray  # float64 holding the float32 values
    target: np.ndarray  # float64
    position: np.ndarray  # 1-based rank of each item in its query

    @classmethod
    def of(cls, preds: np.ndarray, target: np.ndarray, indexes: np.ndarray) -> Queries:
        """Group flat items by query id (ascending ids, as torchmetrics sorts them).

        >>> q = Queries.of(np.array([0.2, 0.9, 0.5]), np.array([1.0, 0.0, 1.0]), np.array([7, 3, 7]))
        >>> q.offsets.tolist(), q.target.tolist(), q.position.tolist()
        ([0, 1, 3], [0.0, 1.0, 1.0], [1, 1, 2])
        """
        scores = preds.astype(np.float32).astype(np.float64)
        order = np.lexsort((np.arange(len(scores)), -scores, indexes))
        ids = indexes[order]
        starts = np.flatnonzero(np.concatenate(([len(ids) > 0], ids[1:] != ids[:-1])))
        offsets = np.concatenate((starts, [len(ids)])).astype(np.int64)
        position = np.arange(len(ids)) - np.repeat(offsets[:-1], np.diff(offsets)) + 1
        return cls(offsets, scores[order], target[order].astype(np.float64), position)

    @property
    def sizes(self) -> np.ndarray:
        """Items per query."""
        return np.diff(self.offsets)

    def per_item(self, per_query: np.ndarray) -> np.ndarray:
        """A per-query array repeated over each query's items."""
        return np.repeat(per_query, self.sizes)

    def cut(self, top_k: int | None) -> np.ndarray:
        """Which items lie in their query's top ``top_k`` (all for None)."""
        return np.ones(len(self.position), dtype=bool) if top_k is None else self.position <= top_k

    def positive(self) -> np.ndarray:
        """torchmetrics's relevance for AP, RR, P and R: target where the score is > 0, else 0."""
        return np.where(self.preds > 0, self.target, 0.0)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros_like(num, dtype=np.float64), where=den != 0)


def average_precision(q: Queries, top_k: int | None) -> np.ndarray:
    r"""torchmetrics's AP: :math:`\frac{1}{|H|}\sum_{i \in H} \frac{|\{j \in H: j \le i\}|}{i}`, H: hits in the top k.

    >>> q = Queries.of(np.array([0.9, 0.8, 0.7]), np.array([0.0, 1.0, 1.0]), np.zeros(3, dtype=np.int64))
    >>> average_precision(q, 2).tolist()  # one hit in the top 2, at rank 2: 1/2
    [0.5]
    """
    hits = q.positive() * q.cut(top_k)
    seen = np.cumsum(hits) - q.per_item(np.concatenate(([0.0], np.cumsum(hits)))[q.offsets[:-1]])
    return _ratio(segment_sum(hits * seen / q.position, q.offsets), segment_sum(hits, q.offsets))


def recall(q: Queries, top_k: int | None) -> np.ndarray:
    """Relevant (score > 0) in the top k / every relevant item of the query."""
    return _ratio(segment_sum(q.positive() * q.cut(top_k), q.offsets), segment_sum(q.target, q.offsets))


def normalized_dcg(q: Queries, top_k: int | None) -> np.ndarray:
    r"""Linear-gain NDCG@k averaged over the orders of tied scores; 0 when the ideal DCG is 0.

    .. math:: \mathrm{DCG@k} = \sum_{g} \bar t_g \sum_{i \in g, i \le k} \frac{1}{\log_2(i + 1)}

    over the groups g of tied scores, :math:`\bar t_g` their mean target.

    >>> q = Queries.of(np.array([0.5, 0.5, 0.1]), np.array([1.0, 0.0, 2.0]), np.zeros(3, dtype=np.int64))
    >>> ideal = 2 + 1 / np.log2(3)
    >>> bool(np.isclose(normalized_dcg(q, None)[0], (0.5 + 0.5 / np.log2(3) + 2 / np.log2(4)) / ideal))
    True
    """
    discount = np.where(q.cut(top_k), 1.0 / np.log2(q.position + 1.0), 0.0)
    new = np.ones(len(q.preds), dtype=bool)
    new[1:] = (q.preds[1:] != q.preds[:-1]) | (q.position[1:] == 1)
    groups = np.concatenate((np.flatnonzero(new), [len(q.preds)]))
    mean_target = segment_sum(q.target, groups) / np.diff(groups)
    dcg = segment_sum(np.repeat(mean_target, np.diff(groups)) * discount, q.offsets)
    query = np.repeat(np.arange(len(q.sizes)), q.sizes)
    ideal_order = np.lexsort((-q.target, query))
    ideal = segment_sum(q.target[ideal_order] * discount, q.offsets)
    return _ratio(dcg, ideal)


def precision_recall_curve(q: Queries, max_k: int, adaptive_k: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per query, precision@1..max_k and recall@1..max_k (each ``(n_queries, max_k)``).

    >>> q = Queries.of(np.array([0.9, 0.8]), np.array([0.0, 1.0]), np.zeros(2, dtype=np.int64))
    >>> [a.tolist() for a in precision_recall_curve(q, 3, False)]
    [[[0.0, 0.5, 0.3333333333333333]], [[0.0, 1.0, 1.0]]]
    """
    n = len(q.sizes)
    found = np.zeros((n, max_k))
    keep = q.position <= max_k
    found[np.repeat(np.arange(n), q.sizes)[keep], q.position[keep] - 1] = q.target[keep]
    found = np.cumsum(found, axis=1)
    ks = np.tile(np.arange(1, max_k + 1, dtype=np.float64), (n, 1))
    if adaptive_k:
        ks = np.minimum(ks, q.sizes[:, None])
    return found / ks, _ratio(found, segment_sum(q.target, q.offsets)[:, None] * np.ones((1, max_k)))


AGGREGATIONS = ("mean", "median", "min", "max")


def aggregate(values: torch.Tensor, aggregation: Any, dim: int | None = None) -> torch.Tensor:
    """torchmetrics's aggregation of per-query values: mean, median (the lower middle value), min, max or a callable.

    >>> aggregate(torch.tensor([0.1, 0.4, 0.3, 0.2], dtype=torch.float64), "median")
    tensor(0.2000, dtype=torch.float64)
    """
    if aggregation == "mean":
        return values.mean() if dim is None else values.mean(dim=dim)
    if aggregation in ("median", "min", "max"):
        method = getattr(values, aggregation)
        return method() if dim is None else method(dim=dim).values
    return aggregation(values, dim=dim)
