"""Keras 3 metrics that run inside compiled training steps, on every backend (``pip install rankmeter[keras]``).

keras-rs's six ranking metrics under keras-rs's names, constructor arguments,
input conventions and aggregation -- :class:`NDCG`, :class:`DCG`,
:class:`MeanReciprocalRank`, :class:`MeanAveragePrecision`,
:class:`PrecisionAtK`, :class:`RecallAtK` -- plus rankmeter's tie policies
(``ties="expected"``, the exact average over the orders of tied scores, is
the default) and :class:`Metric`, any of rankmeter's dense measures by name
(``Metric("ndcg(gain=exp)@[5,10]")``, one value per cutoff).

Everything is written with ``keras.ops`` (no copy to the host per batch);
the backend is Keras's (``KERAS_BACKEND``; ``pip install "rankmeter[keras-jax]"``,
``[keras-torch]`` or ``[keras-tensorflow]`` installs Keras with one). See
docs/frameworks.md.
"""

from __future__ import annotations

import os

try:
    import keras  # noqa: F401
except ModuleNotFoundError as exc:  # Keras imports its backend first: say which to install, in one line
    if exc.name not in ("tensorflow", "jax", "torch"):
        raise
    backend = os.environ.get("KERAS_BACKEND", "tensorflow")
    raise ModuleNotFoundError(
        f"Keras's backend {exc.name!r} is not installed (KERAS_BACKEND={backend}): "
        'pip install "rankmeter[keras-jax]" (or keras-torch, keras-tensorflow), '
        "or set KERAS_BACKEND to an installed backend",
        name=exc.name,
    ) from None

from rankmeter.keras.metrics import (  # noqa: E402
    DCG,
    NDCG,
    MeanAveragePrecision,
    MeanReciprocalRank,
    Metric,
    PrecisionAtK,
    RecallAtK,
    default_gain_fn,
    default_rank_discount_fn,
)

__all__ = [
    "DCG",
    "NDCG",
    "MeanAveragePrecision",
    "MeanReciprocalRank",
    "Metric",
    "PrecisionAtK",
    "RecallAtK",
    "default_gain_fn",
    "default_rank_discount_fn",
]
