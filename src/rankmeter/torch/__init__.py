"""Ranking metrics for PyTorch training loops (``pip install rankmeter[torch]``).

:class:`Metric` evaluates any rankmeter measure over the batches it was
updated with, in torchmetrics's conventions (``indexes=`` query ids or dense
rows, ``top_k``, ``empty_target_action``, ``ignore_index``; states gathered
across ``torch.distributed`` processes); the ``Retrieval*`` classes are
torchmetrics's names for the common ones. With torchmetrics installed every
class is a ``torchmetrics.Metric``; without it, a plain class with the same
methods. See docs/frameworks.md.
"""

from __future__ import annotations

from rankmeter.torch.metrics import (
    EMPTY_TARGET_ACTIONS,
    Metric,
    RetrievalHitRate,
    RetrievalMAP,
    RetrievalMRR,
    RetrievalNormalizedDCG,
    RetrievalPrecision,
    RetrievalRecall,
)

__all__ = [
    "EMPTY_TARGET_ACTIONS",
    "Metric",
    "RetrievalHitRate",
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalNormalizedDCG",
    "RetrievalPrecision",
    "RetrievalRecall",
]
