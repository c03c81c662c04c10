"""Ranking metrics for PyTorch training loops, with torchmetrics's retrieval conventions.

A metric keeps every update's scores, grades and query ids (list states
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
from rankmeter.pipeline import evaluate_ranked
from rankmeter.torch.state import PlainMetric, world

try:  # a torchmetrics Metric when torchmetrics is installed, the plain stand-in otherwise
    from torchmetrics import Metric as Base
except ImportError:  # pragma: no cover - the test extra installs torchmetrics; test_torch.py runs without it too
    Base = PlainMetric  # type: ignore[misc,assignment]

STATES = ("preds", "target", "indexes")
"""The list states: every item's score, grade and query id, concatenated across processes."""

WHOLE_LIST = 2**31 - 1
"""A cutoff past the end of any list."""

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


class Metric(Base):  # type: ignore[misc,valid-type]
    """Any rankmeter measure, updated batch by batch (torchmetrics's ``Retrieval*`` conventions).

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
    ties : str, default "expected"
        Any of rankmeter's tie policies but ``trec``; ``expected`` is the exact
        average over tied orders (torchmetrics's NDCG averages ties the same
        way; its other metrics break them by ``torch.topk``).
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

    full_state_update = False
    higher_is_better = True
    is_differentiable = False

    def __init__(
        self,
        measures: Any,
        *,
        top_k: int | None = None,
        empty_target_action: str = "neg",
        ignore_index: int | None = None,
        ties: str = "expected",
        empty: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
            raise PolicyError(f"top_k must be a positive integer or None; got {top_k!r}")
        if ignore_index is not None and (isinstance(ignore_index, bool) or not isinstance(ignore_index, int)):
            raise PolicyError(f"ignore_index must be an integer or None; got {ignore_index!r}")
        action = choose(empty_target_action, tuple(EMPTY_TARGET_ACTIONS), "empty_target_action")
        self.empty = choose(empty, EMPTY_POLICIES, "empty") if empty is not None else EMPTY_TARGET_ACTIONS[action]
        self.ties = choose(ties, TIE_POLICIES, "ties")
        if self.ties == "trec":
            raise PolicyError("ties='trec' orders by document id; these lists have none: use 'stable' or 'expected'")
        self.top_k, self.ignore_index, self.seed = top_k, ignore_index, seed
        self.measures = self._measures(measures, top_k)
        self.columns = [str(single) for m in self.measures for single in m.expand()]
        for name in STATES:
            self.add_state(name, default=[], dist_reduce_fx="cat")
        self._rows = 0

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

    def _states(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if isinstance(self, PlainMetric):
            return tuple(  # type: ignore[return-value]
                _cat(self.gathered(n), d)
                for n, d in (("preds", torch.float64), ("target", torch.float64), ("indexes", torch.int64))
            )
        return _cat(self.preds, torch.float64), _cat(self.target, torch.float64), _cat(self.indexes, torch.int64)

    def compute(self) -> Any:
        """The mean over queries: a 0-d float64 tensor for one value, else ``{name: tensor}``."""
        preds, target, indexes = self._states()
        for values, name in ((preds, "preds"), (target, "target")):
            bad = ~np.isfinite(values)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise InvalidScoreError(
                    f"{name} has the value {values[i]} (item {i}, query {int(indexes[i])}); values must be finite"
                )
        order = np.argsort(indexes, kind="stable")
        queries = indexes[order]
        starts = np.flatnonzero(np.concatenate(([len(queries) > 0], queries[1:] != queries[:-1])))
        offsets = np.concatenate((starts, [len(queries)])).astype(np.int64)
        columns = np.arange(len(order)) - np.repeat(offsets[:-1], np.diff(offsets))
        flat = FlatLists(offsets, target[order], preds[order], columns, None)
        sem = Semantics.build(None, "ragged", ties=self.ties, empty=self.empty, seed=self.seed)
        ranked = rank_flat_lists(flat, ties=sem.tie_policy, seed=sem.seed)
        result = evaluate_ranked(ranked, self.measures, empty=sem.empty)
        out = {name: torch.tensor(result[name], dtype=torch.float64) for name in self.columns}
        return out[self.columns[0]] if len(out) == 1 else out

    def reset(self) -> None:
        """Forget every update (and the count of dense rows)."""
        super().reset()
        self._rows = 0


class RetrievalNormalizedDCG(Metric):
    """torchmetrics's ``RetrievalNormalizedDCG``: rankmeter's ``ndcg@top_k`` (linear gain, ties averaged)."""

    def __init__(self, top_k: int | None = None, **kwargs: Any) -> None:
        super().__init__("ndcg", top_k=top_k, **kwargs)


class RetrievalMAP(Metric):
    """``map@top_k``: AP divides by every relevant item of the query (torchmetrics: by those in the top k)."""

    def __init__(self, top_k: int | None = None, **kwargs: Any) -> None:
        super().__init__("map", top_k=top_k, **kwargs)


class RetrievalMRR(Metric):
    """torchmetrics's ``RetrievalMRR``: rankmeter's ``rr@top_k``."""

    def __init__(self, top_k: int | None = None, **kwargs: Any) -> None:
        super().__init__("rr", top_k=top_k, **kwargs)


class RetrievalRecall(Metric):
    """torchmetrics's ``RetrievalRecall``: rankmeter's ``r@top_k``."""

    def __init__(self, top_k: int | None = None, **kwargs: Any) -> None:
        super().__init__("r", top_k=top_k, **kwargs)


class RetrievalHitRate(Metric):
    """torchmetrics's ``RetrievalHitRate``: rankmeter's ``success@top_k`` (the whole list without ``top_k``)."""

    def __init__(self, top_k: int | None = None, **kwargs: Any) -> None:
        # success needs a cutoff; one beyond every list's length is the whole list
        super().__init__("success", top_k=top_k if top_k is not None else WHOLE_LIST, **kwargs)


class RetrievalPrecision(Metric):
    """torchmetrics's ``RetrievalPrecision``: rankmeter's ``p@top_k`` (relevant in the top k / k)."""

    def __init__(self, top_k: int, **kwargs: Any) -> None:
        if top_k is None:
            raise PolicyError("RetrievalPrecision needs top_k (rankmeter's p@k divides by k)")
        super().__init__("p", top_k=top_k, **kwargs)
