"""keras-rs's input conventions, checked: ``y_true`` array or ``{"labels", "mask"}``, weights of every shape it takes.

Shapes are checked when the metric is traced or called (they are static);
values (NaN or infinite scores, labels and weights) raise where the tensors
are concrete -- eager calls, the PyTorch backend; inside a compiled step,
which cannot raise on a value, the list's value becomes NaN and so does the
metric's result until it is reset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from keras import ops

from rankmeter.errors import InputFormatError, InvalidScoreError

Tensor = Any


@dataclass
class Batch:
    """A standardised batch: ``(batch, m)`` labels, scores, validity and item weights, in ``dtype``."""

    labels: Tensor
    scores: Tensor
    valid: Tensor
    weights: Tensor
    batched: bool
    bad: Tensor  # (batch,) bool: a list holding a NaN or infinite value (its value becomes NaN)


def _shape(x: Tensor) -> tuple[int | None, ...]:
    return tuple(ops.shape(x))


def _concrete(flag: Tensor) -> bool | None:
    """The value of a boolean scalar tensor, or None while tracing (nothing concrete to read)."""
    try:
        return bool(ops.convert_to_numpy(flag))
    except Exception:  # a tracer (jax.jit, tf.function) cannot be read; values are checked where they can be
        return None


def _check_finite(x: Tensor, valid: Tensor, name: str) -> None:
    bad = ops.logical_and(valid, ops.logical_not(ops.isfinite(x)))
    if not _concrete(ops.any(bad)):
        return
    where = np.argwhere(ops.convert_to_numpy(bad))[0]
    value = ops.convert_to_numpy(x)[tuple(where)]
    place = ", ".join(str(int(i)) for i in where)
    raise InvalidScoreError(f"{name}[{place}] is {value}; values must be finite numbers")


def _broadcast_weights(w: Tensor, shape: tuple[int | None, ...]) -> Tensor:
    """keras-rs's weight shapes: a scalar, one per list ``(batch,)``, or any ``(batch, m)``-broadcastable rank 2.

    Unbatched lists take a scalar or one weight per item.
    """
    w_shape = _shape(w)
    if len(w_shape) == 1 and len(shape) == 2:
        if w_shape[0] in (shape[0], None, 1):
            return ops.expand_dims(w, 1)
    elif len(w_shape) in (0, len(shape)) and all(
        a in (b, 1, None) or b is None for a, b in zip(w_shape, shape, strict=False)
    ):
        return w
    per_list = f"({shape[0]},), " if len(shape) == 2 else ""
    example = f" (e.g. ({shape[0]}, 1))" if len(shape) == 2 else ""
    raise InputFormatError(
        f"sample_weight has shape {w_shape}; with y_true of shape {shape} it must be a scalar, {per_list}"
        f"or broadcast to {shape}{example}"
    )


def standardise(y_true: Any, y_pred: Any, sample_weight: Any, dtype: str) -> Batch:
    """keras-rs's ``update_state`` inputs as a :class:`Batch`.

    Parameters
    ----------
    y_true : tensor or dict
        Labels, shape ``(m,)`` or ``(batch, m)``, or ``{"labels": ..., "mask": ...}``.
    y_pred : tensor
        Scores, the shape of the labels.
    sample_weight : None, scalar, ``(batch,)`` or rank 2 broadcasting to ``(batch, m)``
        (``(batch, 1)``, ``(1, m)``, ...; ``(m,)`` for unbatched input: per item.)
    dtype : str
        The computation dtype.

    Raises
    ------
    InputFormatError
        A missing ``"labels"`` key, a rank other than 1 or 2, scores or mask of
        another shape, or weights that do not broadcast.
    InvalidScoreError
        A NaN or infinite score, label or weight of an unmasked item (eager
        calls; inside a compiled step the list's value becomes NaN instead,
        ``Batch.bad``).
    """
    mask = None
    if isinstance(y_true, dict):
        unknown = sorted(set(y_true) - {"labels", "mask"})
        if "labels" not in y_true or unknown:
            raise InputFormatError(f"y_true as a dict takes the keys 'labels' and 'mask'; got keys {sorted(y_true)}")
        mask = y_true.get("mask")
        y_true = y_true["labels"]
    labels = ops.cast(ops.convert_to_tensor(y_true), dtype)
    scores = ops.cast(ops.convert_to_tensor(y_pred), dtype)
    shape = _shape(labels)
    if len(shape) not in (1, 2):
        raise InputFormatError(f"y_true must have shape (list_size,) or (batch, list_size); got shape {shape}")
    if _shape(scores) != shape:
        raise InputFormatError(f"y_pred has shape {_shape(scores)} but y_true has shape {shape}")
    valid = ops.ones(shape, dtype="bool")
    if mask is not None:
        mask = ops.convert_to_tensor(mask)
        if _shape(mask) != shape:
            raise InputFormatError(f"y_true['mask'] has shape {_shape(mask)} but y_true['labels'] has shape {shape}")
        valid = ops.cast(mask, "bool")
    weights = ops.ones(shape, dtype=dtype)
    if sample_weight is not None:
        weights = weights * _broadcast_weights(ops.cast(ops.convert_to_tensor(sample_weight), dtype), shape)
    batched = len(shape) == 2
    if not batched:
        labels, scores, valid, weights = (ops.expand_dims(x, 0) for x in (labels, scores, valid, weights))
    _check_finite(labels, valid, "y_true")
    _check_finite(weights, valid, "sample_weight")
    broken = ops.logical_and(valid, ops.logical_not(ops.logical_and(ops.isfinite(labels), ops.isfinite(weights))))
    # keras-rs's rule: labels < 0 (padding) and items of weight 0 leave the list
    valid = ops.logical_and(valid, ops.logical_and(ops.greater_equal(labels, 0.0), ops.greater(weights, 0.0)))
    _check_finite(scores, valid, "y_pred")
    broken = ops.logical_or(broken, ops.logical_and(valid, ops.logical_not(ops.isfinite(scores))))
    bad = ops.any(broken, axis=1)
    zero = ops.zeros_like(labels)
    finite = ops.logical_and(valid, ops.logical_not(ops.expand_dims(bad, 1)))
    labels, weights, scores = (ops.where(finite, x, zero) for x in (labels, weights, scores))
    return Batch(labels, scores, finite, weights, batched, bad)
