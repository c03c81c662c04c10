"""Ranking metrics for PyTorch training loops, with torchmetrics's retrieval conventions.

:class:`Metric` gives rankmeter's measures; the ``Retrieval*`` classes give
torchmetrics 1.9's numbers, quirks included: rankmeter's measures with
torchmetrics's parameters (``auroc(all_relevant=0,max_fpr=...)``, ``p(divisor=...)@k``,
...) on its items, and :mod:`rankmeter.torch.peer` for AP, recall, NDCG and the
curves. A
metric keeps every update's scores, grades and query ids (list states
concatenated across processes) and evaluates them all at ``compute`` with
rankmeter's own kernels (:func:`rankmeter.pipeline.evaluate_ranked` on the
queries formed by ``indexes``): the values are rankmeter's, exactly, whatever
the batching. ``compute`` converts the states to float64 / int64 and copies
them to the host once; ``update`` only detaches and keeps them (views of the
tensors given, as torchmetrics keeps them: no copy per batch).

Input, as torchmetrics's ``Retrieval*`` metrics take it:

* flat: ``update(preds, target, indexes=query_ids)``, any shape, flattened;
  items with the same index form one query's list, across updates;
* dense: ``update(preds, target)`` with ``(batch, list_size)`` tensors, a
  query per row (each row of each update its own query).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from rankmeter.core.lists import rank_flat_lists
from rankmeter.core.semantics import EMPTY_POLICIES, TIE_POLICIES, Semantics, choose
from rankmeter.errors import InputFormatError, InvalidScoreError, MeasureSyntaxError, PolicyError
from rankmeter.io.dense import FlatLists
from rankmeter.measures import Measure, parse
from rankmeter.measures.kernels.segments import segment_sum
from rankmeter.pipeline import evaluate_ranked
from rankmeter.torch import peer
from rankmeter.torch.state import PlainMetric, world

try:  # a torchmetrics Metric when torchmetrics is installed, the plain stand-in otherwise
    from torchmetrics import Metric as Base
except ImportError:  # pragma: no cover - the test extra installs torchmetrics; test_torch.py runs without it too
    Base = PlainMetric  # type: ignore[misc,assignment]

STATES = ("preds", "target", "indexes")
"""The list states: every item's score, grade and query id, concatenated across processes."""

EMPTY_TARGET_ACTIONS = {"neg": "zero", "pos": "one", "skip": "skip", "error": "error"}
"""torchmetrics's ``empty_target_action`` -> rankmeter's ``empty`` policy."""


def _cat(state: Any, dtype: torch.dtype) -> np.ndarray:
    """A list state (or the tensor torchmetrics's sync made of it) as one NumPy array."""
    if isinstance(state, torch.Tensor):
        tensor = state
    elif len(state) == 0:
        tensor = torch.zeros(0, dtype=dtype)
    else:
        tensor = torch.cat([t.reshape(-1).to(dtype) for t in state])
    return tensor.detach().to(dtype).cpu().numpy()


def _check_aggregation(aggregation: Any) -> Any:
    if not (callable(aggregation) or aggregation in peer.AGGREGATIONS):
        raise PolicyError(
            f"aggregation must be one of {', '.join(peer.AGGREGATIONS)} or a callable(values, dim=None); "
            f"got {aggregation!r}"
        )
    return aggregation


def _check_top_k(top_k: Any, name: str = "top_k") -> int | None:
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
        raise PolicyError(f"{name} must be a positive integer or None; got {top_k!r}")
    return top_k


class Retrieval(Base):  # type: ignore[misc,valid-type]
    """The states, ``update`` and input checks every rankmeter.torch metric shares (torchmetrics's conventions)."""

    full_state_update = False
    higher_is_better = True
    is_differentiable = False

    def __init__(
        self,
        empty_target_action: str = "neg",
        ignore_index: int | None = None,
        aggregation: Any = "mean",
        **kwargs: Any,
    ) -> None:  # torchmetrics's order, that of RetrievalRPrecision
        super().__init__(**kwargs)
        if ignore_index is not None and (isinstance(ignore_index, bool) or not isinstance(ignore_index, int)):
            raise PolicyError(f"ignore_index must be an integer or None; got {ignore_index!r}")
        self.empty_target_action = choose(empty_target_action, tuple(EMPTY_TARGET_ACTIONS), "empty_target_action")
        self.ignore_index = ignore_index
        self.aggregation = _check_aggregation(aggregation)
        for name in STATES:
            self.add_state(name, default=[], dist_reduce_fx="cat")
        self._rows = 0

    def update(self, preds: torch.Tensor, target: torch.Tensor, indexes: torch.Tensor | None = None) -> None:
        """Keep a batch: flat with ``indexes`` (query ids), or dense ``(batch, list_size)`` rows."""
        preds = preds if isinstance(preds, torch.Tensor) else torch.as_tensor(preds)
        target = target if isinstance(target, torch.Tensor) else torch.as_tensor(target)
        if preds.shape != target.shape:
            raise InputFormatError(f"preds has shape {tuple(preds.shape)} but target has shape {tuple(target.shape)}")
        if not preds.is_floating_point():
            raise InputFormatError(f"preds must be a floating-point tensor; got dtype {preds.dtype}")
        if indexes is None:
            if preds.dim() != 2:
                raise InputFormatError(
                    f"without indexes, preds must have shape (batch, list_size); got shape {tuple(preds.shape)}"
                )
            rank, size = world()
            rows = torch.arange(self._rows, self._rows + preds.shape[0], device=preds.device) * size + rank
            self._rows += preds.shape[0]
            indexes = rows[:, None].expand(preds.shape)
        else:
            indexes = indexes if isinstance(indexes, torch.Tensor) else torch.as_tensor(indexes)
            if indexes.shape != preds.shape:
                raise InputFormatError(
                    f"indexes has shape {tuple(indexes.shape)} but preds has shape {tuple(preds.shape)}"
                )
            if indexes.is_floating_point() or indexes.dtype == torch.bool:
                raise InputFormatError(f"indexes must be an integer tensor; got dtype {indexes.dtype}")
        flat = preds.detach().flatten(), target.detach().flatten(), indexes.flatten()  # views: compute converts
        if self.ignore_index is not None:
            keep = flat[1] != self.ignore_index
            flat = flat[0][keep], flat[1][keep], flat[2][keep]
        for name, tensor in zip(STATES, flat, strict=True):
            getattr(self, name).append(tensor)

    def states(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every kept item's score, grade and query id (float64, float64, int64), checked finite."""
        if isinstance(self, PlainMetric):
            got = tuple(
                _cat(self.gathered(n), d)
                for n, d in (("preds", torch.float64), ("target", torch.float64), ("indexes", torch.int64))
            )
        else:
            got = _cat(self.preds, torch.float64), _cat(self.target, torch.float64), _cat(self.indexes, torch.int64)
        preds, target, indexes = got
        for values, name in ((preds, "preds"), (target, "target")):
            bad = ~np.isfinite(values)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise InvalidScoreError(
                    f"{name} has the value {values[i]} (item {i}, query {int(indexes[i])}); values must be finite"
                )
        return preds, target, indexes

    def reduce(self, values: np.ndarray) -> torch.Tensor:
        """The per-query values (float64) aggregated by ``aggregation``; 0 without any value, as torchmetrics."""
        if len(values) == 0:
            return torch.tensor(0.0, dtype=torch.float64)
        return peer.aggregate(torch.as_tensor(values, dtype=torch.float64), self.aggregation)

    def reset(self) -> None:
        """Forget every update (and the count of dense rows)."""
        super().reset()
        self._rows = 0


class Metric(Retrieval):
    """Any rankmeter measure, updated batch by batch (torchmetrics's ``Retrieval*`` conventions).

    The values are rankmeter's (``Metric("map@10")`` divides AP by every
    relevant item of the query, as trec_eval); the ``Retrieval*`` classes give
    torchmetrics's numbers.

    Parameters
    ----------
    measures : str, Measure or list of them
        ``"ndcg@10"``, ``"map"``, ``"ndcg(gain=exp)@[5,10]"`` ...; without a
        cutoff, ``top_k`` (when given) becomes the cutoff of each measure.
    top_k : int, optional
        torchmetrics's cutoff.
    empty_target_action : {"neg", "pos", "skip", "error"}, default "neg"
        A query with no relevant item counts 0 (``neg``: rankmeter's
        ``empty="zero"``), 1 (``pos``: ``"one"``), is left out (``skip``) or raises
        (``error``).
    ignore_index : int, optional
        Items whose target equals it are dropped.
    aggregation : {"mean", "median", "min", "max"} or callable, default "mean"
        How per-query values combine, as torchmetrics: ``median`` is the lower
        middle value (``torch.median``); a callable gets the float64 tensor of
        per-query values and ``dim=None``.
    ties : str, default "expected"
        Any of rankmeter's tie policies but ``trec``; ``expected`` is the exact
        average over tied orders.
    empty : str, optional
        rankmeter's name of the empty policy; overrides ``empty_target_action``.
    seed : int, optional
        For ``ties="shuffle"``.
    **kwargs
        Passed to ``torchmetrics.Metric`` (``dist_sync_on_step``, ``sync_on_compute``, ...).

    Examples
    --------
    >>> m = Metric("ndcg", top_k=2)
    >>> m.update(torch.tensor([0.9, 0.2, 0.8, 0.4]), torch.tensor([0, 1, 1, 0]), indexes=torch.tensor([0, 0, 1, 1]))
    >>> round(float(m.compute()), 6)  # query 0: 1/log2(3); query 1: 1
    0.815465
    """

    def __init__(
        self,
        measures: Any,
        *,
        top_k: int | None = None,
        empty_target_action: str = "neg",
        ignore_index: int | None = None,
        aggregation: Any = "mean",
        ties: str = "expected",
        empty: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            empty_target_action=empty_target_action, ignore_index=ignore_index, aggregation=aggregation, **kwargs
        )
        _check_top_k(top_k)
        self.empty = (
            choose(empty, EMPTY_POLICIES, "empty")
            if empty is not None
            else EMPTY_TARGET_ACTIONS[self.empty_target_action]
        )
        self.ties = choose(ties, TIE_POLICIES, "ties")
        if self.ties == "trec":
            raise PolicyError("ties='trec' orders by document id; these lists have none: use 'stable' or 'expected'")
        self.top_k, self.seed = top_k, seed
        self.measures = self._measures(measures, top_k)
        self.columns = [str(single) for m in self.measures for single in m.expand()]

    @staticmethod
    def _measures(measures: Any, top_k: int | None) -> list[Measure]:
        items = [measures] if isinstance(measures, str | Measure) else list(measures)
        if not items:
            raise MeasureSyntaxError("no measures given; e.g. Metric('ndcg@10')")
        if top_k is not None:  # a name without a cutoff takes top_k (before parsing: some families need one)
            items = [f"{m}@{top_k}" if isinstance(m, str) and "@" not in m else m for m in items]
        parsed = [m if isinstance(m, Measure) else parse(m) for m in items]
        if top_k is None:
            return parsed
        return [parse(f"{m}@{top_k}") if m.cutoffs is None else m for m in parsed]

    def compute(self) -> Any:
        """The aggregate over queries: a 0-d float64 tensor for one value, else ``{name: tensor}``."""
        preds, target, indexes = self.states()
        order = np.argsort(indexes, kind="stable")
        queries = indexes[order]
        starts = np.flatnonzero(np.concatenate(([len(queries) > 0], queries[1:] != queries[:-1])))
        offsets = np.concatenate((starts, [len(queries)])).astype(np.int64)
        columns = np.arange(len(order)) - np.repeat(offsets[:-1], np.diff(offsets))
        flat = FlatLists(offsets, target[order], preds[order], columns, None)
        sem = Semantics.build(None, "ragged", ties=self.ties, empty=self.empty, seed=self.seed)
        ranked = rank_flat_lists(flat, ties=sem.tie_policy, seed=sem.seed)
        result = evaluate_ranked(ranked, self.measures, empty=sem.empty)
        if self.aggregation == "mean":
            out = {name: torch.tensor(result[name], dtype=torch.float64) for name in self.columns}
        else:
            out = {}
            for j, name in enumerate(result.measure_names):
                keep = result.included[:, j] & ~np.isnan(result.values[:, j])
                out[name] = self.reduce(result.values[keep, j])
        return out[self.columns[0]] if len(out) == 1 else {name: out[name] for name in self.columns}


class TorchmetricsRetrieval(Retrieval):
    """A torchmetrics retrieval class: its formula per query, its empty-target rule and its aggregation."""

    binary = True  # torchmetrics refuses targets other than 0 and 1 (all but NDCG)

    def values(self, queries: peer.Queries) -> np.ndarray:  # pragma: no cover - every subclass defines it
        """One value per query."""
        raise NotImplementedError

    def empty_queries(self, queries: peer.Queries) -> np.ndarray:
        """torchmetrics's empty target: the targets of the query sum to 0."""
        return segment_sum(queries.target, queries.offsets) == 0

    def grouped(self) -> peer.Queries:
        """The kept items grouped by query, binary targets checked."""
        preds, target, indexes = self.states()
        if self.binary and len(target) and not np.isin(target, (0.0, 1.0)).all():
            i = int(np.flatnonzero(~np.isin(target, (0.0, 1.0)))[0])
            raise InputFormatError(
                f"{type(self).__name__} takes targets 0 and 1, as torchmetrics; got {target[i]} (item {i}, query "
                f"{int(indexes[i])}); for graded relevance use rankmeter.torch.Metric"
            )
        return peer.Queries.of(preds, target, indexes)

    def apply_empty(self, queries: peer.Queries, values: np.ndarray) -> np.ndarray:
        """Values (or rows of values) of torchmetrics's empty queries set by ``empty_target_action``."""
        empty = self.empty_queries(queries)
        if empty.any() and self.empty_target_action == "error":
            raise PolicyError(
                f"{int(empty.sum())} queries have no {self.empty_what} (first: query position "
                f"{int(np.flatnonzero(empty)[0])} in id order); empty_target_action='error'"
            )
        action = self.empty_target_action
        if action == "skip":
            return values[~empty]
        return np.where(empty.reshape(-1, *[1] * (values.ndim - 1)), 1.0 if action == "pos" else 0.0, values)

    empty_what = "relevant item (target 1)"

    def compute(self) -> torch.Tensor:
        """torchmetrics's value: a 0-d float64 tensor."""
        queries = self.grouped()
        return self.reduce(self.apply_empty(queries, self.values(queries)))


class _TopK(TorchmetricsRetrieval):
    """torchmetrics's constructor of the top-k classes: ``empty_target_action, ignore_index, top_k, aggregation``."""

    def __init__(
        self,
        empty_target_action: str = "neg",
        ignore_index: int | None = None,
        top_k: int | None = None,
        aggregation: Any = "mean",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            empty_target_action=empty_target_action, ignore_index=ignore_index, aggregation=aggregation, **kwargs
        )
        self.top_k = _check_top_k(top_k)


class RetrievalNormalizedDCG(_TopK):
    """torchmetrics's ``RetrievalNormalizedDCG``: linear gain, ties averaged, the ideal of the targets.

    Targets are gains as given (graded, negative ones included); a query whose
    targets sum to 0 is torchmetrics's empty target. rankmeter's NDCG:
    ``Metric("ndcg@10")`` (the same number for targets >= 0).

    >>> m = RetrievalNormalizedDCG(top_k=2)
    >>> m.update(torch.tensor([0.9, 0.2, 0.8, 0.4]), torch.tensor([0, 1, 1, 0]), indexes=torch.tensor([0, 0, 1, 1]))
    >>> round(float(m.compute()), 6)
    0.815465
    """

    binary = False

    def values(self, queries: peer.Queries) -> np.ndarray:
        return peer.normalized_dcg(queries, self.top_k)


class RetrievalMAP(_TopK):
    """torchmetrics's ``RetrievalMAP``: AP@k divides by the relevant items *in the top k*; scores <= 0 don't count.

    rankmeter's (and trec_eval's) MAP@k, which divides by every relevant
    item of the query: ``Metric("map@10")``.

    >>> preds, target, query = torch.tensor([0.9, 0.8, 0.7]), torch.tensor([0, 1, 1]), torch.tensor([0, 0, 0])
    >>> theirs, ours = RetrievalMAP(top_k=2), Metric("map@2")
    >>> theirs.update(preds, target, indexes=query); ours.update(preds, target, indexes=query)
    >>> float(theirs.compute()), float(ours.compute())  # 1 hit in the top 2, at rank 2: (1/2) / 1 and (1/2) / 2
    (0.5, 0.25)
    """

    def values(self, queries: peer.Queries) -> np.ndarray:
        return peer.average_precision(queries, self.top_k)


class RetrievalMRR(_TopK):
    """torchmetrics's ``RetrievalMRR``: 1 / rank of the first relevant item scored > 0 in the top k.

    rankmeter's ``rr@k`` (any score): ``Metric("rr@10")``.
    """

    def values(self, queries: peer.Queries) -> np.ndarray:
        """rankmeter's ``rr@k`` of the items scored > 0."""
        return _core_values(queries, f"rr@{_cut(queries, self.top_k)}", target=queries.positive())[:, 0]


class RetrievalRecall(_TopK):
    """torchmetrics's ``RetrievalRecall``: relevant items scored > 0 in the top k / relevant items.

    rankmeter's ``r@k`` (any score): ``Metric("r@10")``.
    """

    def values(self, queries: peer.Queries) -> np.ndarray:
        return peer.recall(queries, self.top_k)


class RetrievalHitRate(_TopK):
    """torchmetrics's ``RetrievalHitRate``: 1 when a relevant item is in the top k (any score): ``success@k``."""

    def values(self, queries: peer.Queries) -> np.ndarray:
        """rankmeter's ``success@k``."""
        return _core_values(queries, f"success@{_cut(queries, self.top_k)}")[:, 0]


class RetrievalFallOut(_TopK):
    """torchmetrics's ``RetrievalFallOut``: non-relevant items in the top k / non-relevant items (lower is better).

    Its empty target is a query *without a non-relevant item*, and its
    default ``empty_target_action`` is ``"pos"`` (1). rankmeter's measure:
    ``Metric("fall_out@10")``.
    """

    higher_is_better = False
    empty_what = "non-relevant item (target 0)"

    def __init__(self, empty_target_action: str = "pos", *args: Any, **kwargs: Any) -> None:
        # torchmetrics's arguments (ignore_index, top_k, aggregation), with "pos" as the default action
        super().__init__(empty_target_action, *args, **kwargs)

    def empty_queries(self, queries: peer.Queries) -> np.ndarray:
        return segment_sum(1.0 - queries.target, queries.offsets) == 0

    def values(self, queries: peer.Queries) -> np.ndarray:
        """rankmeter's ``fall_out(all_relevant=0)@k`` (torchmetrics's preset ``retrieval_fall_out`` sets 1)."""
        return _core_values(queries, f"fall_out(all_relevant=0)@{_cut(queries, self.top_k)}")[:, 0]


class RetrievalPrecision(_TopK):
    """torchmetrics's ``RetrievalPrecision``: relevant items scored > 0 in the top k / k.

    Without ``top_k``, k is the list's size; past the end of a short list
    the divisor stays k unless ``adaptive_k=True`` (then the list's size).
    rankmeter's ``p@k`` (any score; trec_eval's P): ``Metric("p@10")``.
    """

    def __init__(
        self,
        empty_target_action: str = "neg",
        ignore_index: int | None = None,
        top_k: int | None = None,
        adaptive_k: bool = False,
        aggregation: Any = "mean",
        **kwargs: Any,
    ) -> None:
        super().__init__(empty_target_action, ignore_index, top_k, aggregation, **kwargs)
        if not isinstance(adaptive_k, bool):
            raise PolicyError(f"adaptive_k must be True or False; got {adaptive_k!r}")
        self.adaptive_k = adaptive_k

    def values(self, queries: peer.Queries) -> np.ndarray:
        """rankmeter's ``p@k`` of the items scored > 0; ``divisor=min`` with ``adaptive_k`` or without ``top_k``."""
        divisor = "min" if self.adaptive_k or self.top_k is None else "k"
        name = f"p(divisor={divisor})@{_cut(queries, self.top_k)}"
        return _core_values(queries, name, target=queries.positive())[:, 0]


class RetrievalRPrecision(TorchmetricsRetrieval):
    """torchmetrics's ``RetrievalRPrecision``: relevant items in the top R / R (any score); rankmeter's ``rprec``."""

    def values(self, queries: peer.Queries) -> np.ndarray:
        """rankmeter's ``rprec``."""
        return _core_values(queries, "rprec")[:, 0]


class RetrievalAUROC(_TopK):
    """torchmetrics's ``RetrievalAUROC``: the AUROC of each query's top k; McClish-standardised below ``max_fpr``.

    A top k without both a relevant and a non-relevant item counts 0 (after
    the empty-target rule). rankmeter's measure: ``Metric("auroc")``.
    """

    def __init__(
        self,
        empty_target_action: str = "neg",
        ignore_index: int | None = None,
        top_k: int | None = None,
        max_fpr: float | None = None,
        aggregation: Any = "mean",
        **kwargs: Any,
    ) -> None:
        super().__init__(empty_target_action, ignore_index, top_k, aggregation, **kwargs)
        if max_fpr is not None and (isinstance(max_fpr, bool) or not isinstance(max_fpr, float | int)
                                    or not 0 < max_fpr <= 1):  # fmt: skip
            raise PolicyError(f"max_fpr must be a float in (0, 1] or None; got {max_fpr!r}")
        self.max_fpr = None if max_fpr is None else float(max_fpr)

    def values(self, queries: peer.Queries) -> np.ndarray:
        """rankmeter's ``auroc(all_relevant=0,max_fpr=...)`` (torchmetrics's preset) of each query's top k."""
        name = "auroc(all_relevant=0)" if self.max_fpr is None else f"auroc(all_relevant=0,max_fpr={self.max_fpr!r})"
        return _core_values(queries, name, keep=queries.cut(self.top_k), ties="expected")[:, 0]


def _core_values(
    queries: peer.Queries,
    measure: str,
    *,
    keep: np.ndarray | None = None,
    ties: str = "stable",
    target: np.ndarray | None = None,
) -> np.ndarray:
    """rankmeter's ``measure`` on each query's items (or its ``keep`` ones), 0 where undefined: shape (Q, C).

    The items keep torchmetrics's order (``stable``: tied scores in input
    order) unless ``ties="expected"`` groups them; ``target`` replaces the
    grades (torchmetrics's relevance of the items scored > 0).
    """
    keep = np.ones(len(queries.preds), dtype=bool) if keep is None else keep
    grades = queries.target if target is None else target
    sizes = segment_sum(keep.astype(np.float64), queries.offsets).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    columns = np.arange(offsets[-1]) - np.repeat(offsets[:-1], sizes)
    flat = FlatLists(offsets, grades[keep], queries.preds[keep], columns, None)
    result = evaluate_ranked(rank_flat_lists(flat, ties=ties), [parse(measure)], empty="zero")
    return np.nan_to_num(result.values, nan=0.0)


def _cut(queries: peer.Queries, top_k: int | None) -> int:
    """torchmetrics's ``top_k``, or the longest query (every item) without one."""
    return top_k if top_k is not None else int(queries.sizes.max(initial=1))


class RetrievalPrecisionRecallCurve(TorchmetricsRetrieval):
    """torchmetrics's ``RetrievalPrecisionRecallCurve``: ``(precision, recall, top_k)`` at k = 1..max_k, aggregated.

    Each query's curve counts relevant items at any score; ``max_k`` defaults
    to the longest query; ``adaptive_k`` caps k at the list's size. A query
    without a relevant item gives a curve of zeros (``neg``), ones (``pos``),
    is left out (``skip``) or raises (``error``).

    >>> m = RetrievalPrecisionRecallCurve(max_k=2)
    >>> m.update(torch.tensor([0.9, 0.8, 0.3, 0.6]), torch.tensor([0, 1, 1, 1]), indexes=torch.tensor([0, 0, 1, 1]))
    >>> [t.tolist() for t in m.compute()]
    [[0.5, 0.75], [0.25, 1.0], [1, 2]]
    """

    def __init__(
        self,
        max_k: int | None = None,
        adaptive_k: bool = False,
        empty_target_action: str = "neg",
        ignore_index: int | None = None,
        aggregation: Any = "mean",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            empty_target_action=empty_target_action, ignore_index=ignore_index, aggregation=aggregation, **kwargs
        )
        self.max_k = _check_top_k(max_k, "max_k")
        if not isinstance(adaptive_k, bool):
            raise PolicyError(f"adaptive_k must be True or False; got {adaptive_k!r}")
        self.adaptive_k = adaptive_k

    def compute(self) -> Any:
        """``(precision, recall, top_k)``: two float64 tensors of length max_k and ``1..max_k``."""
        queries = self.grouped()
        max_k = self.max_k if self.max_k is not None else int(queries.sizes.max(initial=1))
        precision, recall = peer.precision_recall_curve(queries, max_k, self.adaptive_k)
        precision, recall = (self.apply_empty(queries, c) for c in (precision, recall))
        curves = [
            peer.aggregate(torch.as_tensor(c, dtype=torch.float64), self.aggregation, dim=0)
            if len(c)
            else torch.zeros(max_k, dtype=torch.float64)
            for c in (precision, recall)
        ]
        return curves[0], curves[1], torch.arange(1, max_k + 1)


class RetrievalRecallAtFixedPrecision(RetrievalPrecisionRecallCurve):
    """torchmetrics's ``RetrievalRecallAtFixedPrecision``: the best recall where the aggregated precision >= a minimum.

    Returns ``(recall, k)``: the largest recall whose precision reaches
    ``min_precision`` and, among equal recalls, the largest k; ``(0, max_k)``
    when none does or the best recall is 0.

    >>> m = RetrievalRecallAtFixedPrecision(min_precision=0.6, max_k=2)
    >>> m.update(torch.tensor([0.9, 0.8, 0.3, 0.6]), torch.tensor([0, 1, 1, 1]), indexes=torch.tensor([0, 0, 1, 1]))
    >>> [float(t) for t in m.compute()]
    [1.0, 2.0]
    """

    def __init__(
        self,
        min_precision: float = 0.0,
        max_k: int | None = None,
        adaptive_k: bool = False,
        empty_target_action: str = "neg",
        ignore_index: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(max_k, adaptive_k, empty_target_action, ignore_index, **kwargs)
        if isinstance(min_precision, bool) or not isinstance(min_precision, float) or not 0 <= min_precision <= 1:
            raise PolicyError(f"min_precision must be a float in [0, 1]; got {min_precision!r}")
        self.min_precision = min_precision

    def compute(self) -> Any:
        """``(recall, k)``: a float64 tensor and an int64 tensor."""
        precision, recall, top_k = super().compute()
        ok = (precision >= self.min_precision).numpy()
        if not ok.any():
            return torch.tensor(0.0, dtype=torch.float64), torch.tensor(len(top_k))
        pairs = sorted(zip(recall.numpy()[ok].tolist(), top_k.numpy()[ok].tolist(), strict=True))
        best, k = pairs[-1]
        return torch.tensor(best, dtype=torch.float64), torch.tensor(len(top_k) if best == 0.0 else k)
