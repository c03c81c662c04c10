"""Ranking metrics for PyTorch training loops (``pip install rankmeter[torch]``).

:class:`Metric` evaluates any rankmeter measure over the batches it was
updated with, in torchmetrics's conventions (``indexes=`` query ids or dense
rows, ``top_k``, ``empty_target_action``, ``ignore_index``, ``aggregation``;
states gathered across ``torch.distributed`` processes). The ``Retrieval*``
classes carry torchmetrics's names, constructor arguments and numbers
(its conventions as rankmeter measure parameters; :mod:`rankmeter.torch.peer`
for the formulas no parameter states yet). With torchmetrics
installed every class is a ``torchmetrics.Metric``; without it, a plain class
with the same methods. See docs/frameworks.md.
"""

from __future__ import annotations

from rankmeter.torch.metrics import (
    EMPTY_TARGET_ACTIONS,
    Metric,
    RetrievalAUROC,
    RetrievalFallOut,
    RetrievalHitRate,
    RetrievalMAP,
    RetrievalMRR,
    RetrievalNormalizedDCG,
    RetrievalPrecision,
    RetrievalPrecisionRecallCurve,
    RetrievalRecall,
    RetrievalRecallAtFixedPrecision,
    RetrievalRPrecision,
)

__all__ = [
    "EMPTY_TARGET_ACTIONS",
    "Metric",
    "RetrievalAUROC",
    "RetrievalFallOut",
    "RetrievalHitRate",
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalNormalizedDCG",
    "RetrievalPrecision",
    "RetrievalPrecisionRecallCurve",
    "RetrievalRPrecision",
    "RetrievalRecall",
    "RetrievalRecallAtFixedPrecision",
]
