"""keras-rs's input conventions, checked: ``y_true`` array or ``{"labels", "mask"}``, weights of three shapes.

Shapes are checked when the metric is traced or called (they are static);
values (NaN or infinite scores and labels) only where the tensors are
concrete -- eager calls, the PyTorch backend -- since a compiled step cannot
raise on a value.
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


def standardise(
    y_true: Any, y_pred: Any, sample_weight: Any, dtype: str, *, mask_negative: bool, mask_zero_weight: bool
) -> Batch:
    """keras-rs's ``update_state`` inputs as a :class:`Batch`.

    Parameters
    ----------
    y_true : tensor or dict
        Labels, shape ``(m,)`` or ``(batch, m)``, or ``{"labels": ..., "mask": ...}``.
    y_pred : tensor
        Scores, the shape of the labels.
    sample_weight : None, scalar, ``(batch,)`` or ``(batch, m)``
        (``(m,)`` for unbatched input: per item.)
    dtype : str
        The computation dtype.
    mask_negative : bool
        Whether labels < 0 leave the list (keras-rs) or stay as judged
        non-relevant items (rankmeter).
    mask_zero_weight : bool
        Whether items of weight <= 0 leave the list (keras-rs).

    Raises
    ------
    InputFormatError
        A missing ``"labels"`` key, a rank other than 1 or 2, or shapes that
        differ (never broadcast).
    InvalidScoreError
        A NaN or infinite score or label of an unmasked item (eager calls).
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
        w = ops.cast(ops.convert_to_tensor(sample_weight), dtype)
        w_shape = _shape(w)
        if w_shape == ():
            weights = weights * w
        elif len(shape) == 2 and w_shape == (shape[0],):
            weights = weights * ops.expand_dims(w, 1)
        elif w_shape == shape:
            weights = w
        else:
            per_list = f"({shape[0]},), " if len(shape) == 2 else ""
            raise InputFormatError(
                f"sample_weight has shape {w_shape}; with y_true of shape {shape} it must be a scalar, "
                f"{per_list}or {shape}"
            )
    batched = len(shape) == 2
    if not batched:
        labels, scores, valid, weights = (ops.expand_dims(x, 0) for x in (labels, scores, valid, weights))
    if mask_negative:
        valid = ops.logical_and(valid, ops.greater_equal(labels, 0.0))
    if mask_zero_weight:
        valid = ops.logical_and(valid, ops.greater(weights, 0.0))
    _check_finite(scores, valid, "y_pred")
    _check_finite(labels, valid, "y_true")
    _check_finite(weights, valid, "sample_weight")
    zero = ops.zeros_like(labels)
    labels = ops.where(valid, labels, zero)
    weights = ops.where(valid, weights, zero)
    scores = ops.where(valid, scores, zero)
    return Batch(labels, scores, valid, weights, batched)
