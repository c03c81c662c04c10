"""Dense ``(n_lists, list_size)`` arrays and ragged lists -> flat, validated per-list arrays."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError
from rankmeter.io.validate import UnreadableNumber, as_floats


@dataclass(frozen=True)
class FlatLists:
    """Items of many lists, flattened row by row (masked items removed)."""

    offsets: np.ndarray
    grades: np.ndarray
    scores: np.ndarray
    columns: np.ndarray  # index of each item inside its original row
    item_weights: np.ndarray | None


def _finite(a: np.ndarray, name: str, valid: np.ndarray | None) -> None:
    """Raise for the first non-finite ``a`` where ``valid`` (None: everywhere)."""
    if a.dtype.kind in "biu":
        return
    if valid is None:
        if np.isfinite(a).all():
            return
        valid = np.ones(a.shape, dtype=bool)
    bad = valid & ~np.isfinite(a)
    if bad.any():
        row, col = (int(x) for x in np.argwhere(bad)[0])
        hint = ""
        if name == "y_score" and a[row, col] == -np.inf:
            hint = " (to leave items out of a row's ranking and ideal, pass exclude= or mask=)"
        raise InvalidScoreError(f"{name}[{row}, {col}] is {a[row, col]}; values must be finite numbers{hint}")


def check_finite(y_true: np.ndarray, y_score: np.ndarray, keep: np.ndarray | None = None) -> None:
    """Raise :class:`InvalidScoreError` for the first grade, then score, that is not finite where ``keep``.

    >>> check_finite(np.array([[1.0, 0.0]]), np.array([[0.5, np.nan]]), np.array([[True, False]]))
    >>> check_finite(np.array([[1.0, 0.0]]), np.array([[0.5, -np.inf]]))
    Traceback (most recent call last):
    ...
    rankmeter.errors.InvalidScoreError: y_score[0, 1] is -inf; values must be finite numbers (to leave items out \
of a row's ranking and ideal, pass exclude= or mask=)
    """
    _finite(y_true, "y_true", keep)
    _finite(y_score, "y_score", keep)


def _real(a: Any, name: str) -> np.ndarray:
    """``a`` as an array; text and objects read by :func:`~rankmeter.io.validate.as_floats`, complex refused."""
    arr = np.asarray(a)
    if arr.dtype.kind not in "cOUS":
        return arr
    try:
        return as_floats(arr.reshape(-1)).reshape(arr.shape)
    except UnreadableNumber as exc:
        at = "][".join(str(int(i)) for i in np.unravel_index(exc.row, arr.shape))
        raise InputFormatError(f"{name}: cannot convert to a float array ({name}[{at}] {exc.describe()})") from None


def _as_2d(a: Any, name: str, keep: str = "") -> np.ndarray:
    """``a`` as a 2-D array: float64, or its own dtype when its kind is in ``keep`` (float32 only for kind f)."""
    try:
        arr = _real(a, name)
        kind = arr.dtype.kind
        if not (kind in keep and (kind != "f" or arr.dtype in (np.float32, np.float64))):
            arr = arr.astype(np.float64, copy=False)
    except InputFormatError:
        raise
    except (TypeError, ValueError) as exc:
        raise InputFormatError(f"{name}: cannot convert to a float array ({exc})") from None
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise InputFormatError(f"{name} must have shape (n_lists, list_size), got shape {arr.shape}")
    return arr


def _contiguous(arr: np.ndarray) -> np.ndarray:
    """``arr`` C-contiguous, but a broadcast (a zero stride: one row of scores for every list) stays a view.

    The rows are read a block at a time, so a broadcast is never written out whole.

    >>> view = np.broadcast_to(np.arange(3.0), (1000, 3))
    >>> _contiguous(view).base is not None, _contiguous(view).strides, _contiguous(np.eye(2)[:, ::-1]).strides
    (True, (0, 8), (16, 8))
    """
    return arr if 0 in arr.strides and arr.size else np.ascontiguousarray(arr)


def dense_arrays(y_true: Any, y_score: Any, check_finite: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Validated C-contiguous 2-D ``y_true`` and ``y_score`` of the same shape, all finite (a broadcast stays a view).

    Nothing is copied that need not be: scores stay float32 or float64 (they
    are only compared), grades keep a boolean, integer, float32 or float64
    dtype (each grade the ranking reads becomes float64, the same number as
    converting the whole matrix); anything else becomes float64. With
    ``check_finite=False`` the caller checks that every value is finite.

    >>> t, s = dense_arrays([1, 0], [0.2, 0.1])
    >>> t.shape, t.dtype.name, s.dtype.name
    ((1, 2), 'int64', 'float64')
    """
    t = _contiguous(_as_2d(y_true, "y_true", keep="biuf"))
    s = _contiguous(_as_2d(y_score, "y_score", keep="f"))
    if t.shape != s.shape:
        raise InputFormatError(f"y_true has shape {t.shape} but y_score has shape {s.shape}")
    if check_finite:
        _finite(t, "y_true", None)
        _finite(s, "y_score", None)
    return t, s


def flatten_dense(y_true: Any, y_score: Any, mask: Any = None, sample_weight: Any = None) -> FlatLists:
    """Validate dense arrays and flatten the unmasked items row by row.

    ``sample_weight`` may be a scalar, one weight per list (shape (n_lists,)
    or (n_lists, 1)) or one per item (same shape as ``y_true``), as in
    keras-rs; as there, an item whose weight is 0 is removed like a masked one.

    >>> f = flatten_dense([[1, 0, 2]], [[0.5, 0.2, 0.9]], mask=[[True, False, True]])
    >>> f.offsets.tolist(), f.grades.tolist(), f.columns.tolist()
    ([0, 2], [1.0, 2.0], [0, 2])
    """
    t = _as_2d(y_true, "y_true")
    s = _as_2d(y_score, "y_score")
    if t.shape != s.shape:
        raise InputFormatError(f"y_true has shape {t.shape} but y_score has shape {s.shape}")
    if mask is None:
        valid = np.ones(t.shape, dtype=bool)
    else:
        valid = np.asarray(mask)
        if valid.ndim == 1 and t.shape[0] == 1:
            valid = valid[None, :]
        if valid.shape != t.shape:
            raise InputFormatError(f"mask has shape {valid.shape}, expected {t.shape}")
        if valid.dtype != bool:
            raise InputFormatError(f"mask must be boolean, got dtype {valid.dtype}")
    _finite(t, "y_true", valid)
    _finite(s, "y_score", valid)
    weights = None
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.ndim == 0:
            w = np.full(t.shape, float(w))
        elif w.ndim == 1 and w.shape[0] == t.shape[0]:
            w = np.repeat(w[:, None], t.shape[1], axis=1)
        elif w.shape == (t.shape[0], 1):
            w = np.repeat(w, t.shape[1], axis=1)
        elif w.shape != t.shape:
            raise InputFormatError(
                f"sample_weight must be a scalar, shape ({t.shape[0]},), ({t.shape[0]}, 1) or {t.shape}, "
                f"got shape {w.shape}"
            )
        _finite(w, "sample_weight", valid)
        if (w[valid] < 0).any():
            row, col = (int(x) for x in np.argwhere(valid & (w < 0))[0])
            raise InvalidScoreError(f"sample_weight[{row}, {col}] is {w[row, col]}; weights must be >= 0")
        valid = valid & (w > 0)  # keras-rs: an item of weight 0 leaves its list
        weights = w[valid]
    counts = valid.sum(axis=1)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    columns = np.nonzero(valid)[1]
    return FlatLists(offsets, t[valid], s[valid], columns.astype(np.int64), weights)


def one_weight(x: Any) -> bool:
    """Whether a ``sample_weight`` (or one list's entry of it) is a single number, not a sequence.

    >>> one_weight(2), one_weight(np.float32(1.0)), one_weight(np.array(3.0)), one_weight([1.0]), one_weight("1")
    (True, True, True, False, False)
    """
    return isinstance(x, numbers.Real | np.generic) or (isinstance(x, np.ndarray) and x.ndim == 0)


def ragged_weights(sample_weight: Any, counts: np.ndarray) -> np.ndarray:
    """The weight of every item of ragged lists of ``counts`` items, flat, from ``sample_weight``.

    ``sample_weight`` is a scalar, one weight per list, or per list a sequence of its items' weights
    (a list's entry may be one number for all its items): :func:`flatten_dense`'s forms, ragged.

    >>> ragged_weights(2.0, np.array([2, 1])).tolist(), ragged_weights([1, [2, 3]], np.array([2, 2])).tolist()
    ([2.0, 2.0, 2.0], [1.0, 1.0, 2.0, 3.0])
    """
    try:
        if one_weight(sample_weight):
            w = np.full(int(counts.sum()), float(sample_weight))
        else:
            if len(sample_weight) != len(counts):
                raise InputFormatError(
                    f"sample_weight has {len(sample_weight)} entries but there are {len(counts)} lists"
                )
            parts = []
            for i, (x, n) in enumerate(zip(sample_weight, counts.tolist(), strict=True)):
                p = np.full(n, float(x)) if one_weight(x) else np.asarray(x, dtype=np.float64).reshape(-1)
                if p.size != n:
                    raise InputFormatError(f"list {i}: y_true has {n} items but sample_weight[{i}] has {p.size}")
                parts.append(p)
            w = np.concatenate(parts) if parts else np.zeros(0)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InputFormatError):
            raise
        raise InputFormatError(f"sample_weight: cannot convert to float weights ({exc})") from None
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad):
        ends = np.cumsum(counts)
        i = int(np.searchsorted(ends, bad[0], side="right"))
        j = int(bad[0] - (ends[i] - counts[i]))
        raise InvalidScoreError(f"sample_weight[{i}][{j}] is {w[bad[0]]}; weights must be finite and >= 0")
    return w


def flatten_ragged(y_true: Sequence[Any], y_score: Sequence[Any], sample_weight: Any = None) -> FlatLists:
    """Flatten ragged lists (one array of grades and one of scores per query).

    With ``sample_weight`` (:func:`ragged_weights`), an item of weight 0 leaves its list, as in
    :func:`flatten_dense`.

    >>> f = flatten_ragged([[1, 0], [2]], [[0.3, 0.1], [0.5]])
    >>> f.offsets.tolist(), f.scores.tolist()
    ([0, 2, 3], [0.3, 0.1, 0.5])
    >>> w = flatten_ragged([[1, 0], [2]], [[0.3, 0.1], [0.5]], sample_weight=[[2, 0], 1])
    >>> w.offsets.tolist(), w.columns.tolist(), w.item_weights.tolist()
    ([0, 1, 2], [0, 0], [2.0, 1.0])
    """
    if len(y_true) != len(y_score):
        raise InputFormatError(f"y_true has {len(y_true)} lists but y_score has {len(y_score)}")
    grades, scores = [], []
    for i, (t, s) in enumerate(zip(y_true, y_score, strict=True)):
        ti = _real(t, f"y_true[{i}]").astype(np.float64).reshape(-1)
        si = _real(s, f"y_score[{i}]").astype(np.float64).reshape(-1)
        if ti.shape != si.shape:
            raise InputFormatError(f"list {i}: y_true has {ti.size} items but y_score has {si.size}")
        for arr, name in ((ti, "y_true"), (si, "y_score")):
            bad = ~np.isfinite(arr)
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                raise InvalidScoreError(f"{name}[{i}][{j}] is {arr[j]}; values must be finite numbers")
        grades.append(ti)
        scores.append(si)
    counts = np.array([len(g) for g in grades], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    columns = np.arange(int(offsets[-1])) - np.repeat(offsets[:-1], counts)
    flat_g = np.concatenate(grades) if grades else np.zeros(0)
    flat_s = np.concatenate(scores) if scores else np.zeros(0)
    if sample_weight is None:
        return FlatLists(offsets, flat_g, flat_s, columns, None)
    w = ragged_weights(sample_weight, counts)
    keep = w > 0  # keras-rs: an item of weight 0 leaves its list
    kept = np.bincount(np.repeat(np.arange(len(counts)), counts)[keep], minlength=len(counts))
    offsets = np.concatenate(([0], np.cumsum(kept))).astype(np.int64)
    return FlatLists(offsets, flat_g[keep], flat_s[keep], columns[keep], w[keep])
