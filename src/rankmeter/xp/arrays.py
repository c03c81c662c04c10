"""Inputs of the on-device path: one namespace and one device for all arrays, checked where they live.

The checks mirror :func:`rankmeter.io.dense.dense_arrays` and
:func:`rankmeter.io.dense.flatten_dense` (same messages): shapes, a boolean
mask of the same shape, finite grades and scores where the mask keeps them.
Only what an error message needs (a count, the first bad position) comes
back to the host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError
from rankmeter.io.foreign import array_library, host_array

Array = Any


@dataclass(frozen=True)
class Placement:
    """Where the arrays of one call live."""

    xp: Any  # the array-API namespace (array_api_compat's wrapper for torch and CuPy, jax.numpy for JAX); None
    # without array-api-compat (CPU arrays, read through NumPy)
    device: Any  # the device object of the arrays
    library: str  # "torch", "jax" or "cupy"

    @property
    def device_name(self) -> str:
        """The device as users write it: ``cpu``, ``cuda:0`` (torch, CuPy) or ``cpu:0`` / ``gpu:0`` (JAX)."""
        d = self.device
        if self.library == "jax" and hasattr(d, "platform"):
            return f"{d.platform}:{d.id}"
        if self.library == "cupy":
            return f"cuda:{getattr(d, 'id', 0)}"
        return str(d)

    @property
    def on_cpu(self) -> bool:
        """Whether the arrays sit in host memory (NumPy can view them without a copy)."""
        d = self.device
        return self.library != "cupy" and (getattr(d, "type", None) == "cpu" or getattr(d, "platform", None) == "cpu")

    def asarray(self, x: Any) -> Array:
        """``x`` on this device: arrays of the library stay as they are; NumPy arrays and lists are copied over."""
        if array_library(x) == self.library:
            return x.detach() if self.library == "torch" else x  # never track gradients through an evaluation
        return self.xp.asarray(host_array(x), device=self.device)

    def to_host(self, x: Array) -> Any:
        """A small result array (per-row values) as NumPy."""
        import numpy as np

        return np.asarray(host_array(x))


def _device(library: str, x: Any, compat: Any) -> Any:
    """The device of ``x``: array-api-compat's answer, else the library's own attribute."""
    if compat is not None:
        return compat.device(x)
    return next(iter(x.devices())) if library == "jax" else x.device


def placement(named: dict[str, Any]) -> Placement | None:
    """The placement of the foreign arrays among ``named`` (argument name -> value), or None when there are none.

    Raises :class:`InputFormatError` when they come from two libraries or sit on two devices. Without
    ``array-api-compat``, CPU arrays get a placement without a namespace (NumPy reads them: ``xp`` is
    None); arrays on another device raise ``ModuleNotFoundError`` naming the package to install.

    >>> placement({"y_true": [1, 0], "y_score": [0.5, 0.2]}) is None
    True
    """
    foreign = {name: (array_library(x), x) for name, x in named.items() if array_library(x) is not None}
    if not foreign:
        return None
    compat: Any
    try:
        import array_api_compat as compat
    except ModuleNotFoundError:  # CPU arrays are read through NumPy without it
        compat = None
    first_name, (library, first) = next(iter(foreign.items()))
    xp = compat.array_namespace(first) if compat is not None else None
    here = Placement(xp, _device(library or "", first, compat), library or "")
    for name, (lib, x) in foreign.items():
        if lib != library:
            raise InputFormatError(f"{first_name} is a {library} array but {name} is a {lib} array; pass one library")
        other = Placement(xp, _device(lib or "", x, compat), lib or "")
        if other.device != here.device:
            raise InputFormatError(
                f"{first_name} is on device {here.device_name} but {name} is on {other.device_name}; "
                "move them to one device"
            )
    if compat is None and not here.on_cpu:
        raise ModuleNotFoundError(
            f"{first_name} is a {library} array on {here.device_name}: evaluating it there needs array-api-compat "
            '(pip install array-api-compat, or pip install "rankmeter[torch]")',
            name="array_api_compat",
        )
    return here


def as_rows(where: Placement, x: Any, name: str) -> Array:
    """``x`` on the device as a 2-D array (a 1-D array is one row)."""
    a = where.asarray(x)
    if a.ndim == 1:
        a = where.xp.reshape(a, (1, a.shape[0]))
    if a.ndim != 2:
        raise InputFormatError(f"{name} must have shape (n_lists, list_size), got shape {tuple(a.shape)}")
    return a


def checked_rows(where: Placement, y_true: Any, y_score: Any, mask: Any) -> tuple[Array, Array, Array]:
    """Validated ``(y_true, y_score, valid)`` on the device; ``valid`` is all True without a mask."""
    xp = where.xp
    t, s = as_rows(where, y_true, "y_true"), as_rows(where, y_score, "y_score")
    if tuple(t.shape) != tuple(s.shape):
        raise InputFormatError(f"y_true has shape {tuple(t.shape)} but y_score has shape {tuple(s.shape)}")
    for a, name in ((t, "y_true"), (s, "y_score")):
        if not (xp.isdtype(a.dtype, ("real floating", "integral")) or a.dtype == xp.bool):
            raise InputFormatError(f"{name}: cannot convert to a float array (dtype {a.dtype})")
    if mask is None:
        valid = xp.ones(tuple(t.shape), dtype=xp.bool, device=where.device)
    else:
        valid = where.asarray(mask)
        if valid.ndim == 1 and t.shape[0] == 1:
            valid = xp.reshape(valid, (1, valid.shape[0]))
        if tuple(valid.shape) != tuple(t.shape):
            raise InputFormatError(f"mask has shape {tuple(valid.shape)}, expected {tuple(t.shape)}")
        if valid.dtype != xp.bool:
            raise InputFormatError(f"mask must be boolean, got dtype {valid.dtype}")
    for a, name in ((t, "y_true"), (s, "y_score")):
        if xp.isdtype(a.dtype, "real floating"):
            _finite(where, a, name, valid)
    return t, s, valid


def _finite(where: Placement, a: Array, name: str, valid: Array) -> None:
    xp = where.xp
    bad = xp.logical_and(valid, xp.logical_not(xp.isfinite(a)))
    if not bool(xp.any(bad)):
        return
    rows, cols = xp.nonzero(bad)
    row, col = int(rows[0]), int(cols[0])
    raise InvalidScoreError(f"{name}[{row}, {col}] is {float(a[row, col])}; values must be finite numbers")


def removal_counts_on_device(where: Placement, t: Array, valid: Array) -> dict[str, int]:
    """:func:`rankmeter.io.exclude.removal_counts` of rows on the device whose items left are ``valid``."""
    xp = where.xp
    relevant = t > 0
    emptied = xp.logical_and(xp.any(relevant, axis=1), xp.logical_not(xp.any(xp.logical_and(relevant, valid), axis=1)))
    return {
        "items_excluded": int(xp.sum(xp.astype(xp.logical_not(valid), index_dtype(xp, where.device)))),
        "queries_relevant_all_excluded": int(xp.sum(xp.astype(emptied, index_dtype(xp, where.device)))),
    }


def padded_rows(where: Placement, y_true: Any, y_score: Any) -> tuple[Array, Array, Array]:
    """Ragged lists (sequences of 1-D arrays, or 2-D arrays) as zero-padded rows and their mask, on the device.

    The same checks as :func:`rankmeter.io.dense.flatten_ragged` (same messages).
    """
    xp = where.xp
    if array_library(y_true) is not None and array_library(y_score) is not None:
        return (*(as_rows(where, x, name) for x, name in ((y_true, "y_true"), (y_score, "y_score"))), None)
    if len(y_true) != len(y_score):
        raise InputFormatError(f"y_true has {len(y_true)} lists but y_score has {len(y_score)}")
    grades, scores = [], []
    for i, (t, s) in enumerate(zip(y_true, y_score, strict=True)):
        ti, si = (where.asarray(x) for x in (t, s))
        ti, si = (a if a.ndim == 1 else xp.reshape(a, (-1,)) for a in (ti, si))
        if ti.shape[0] != si.shape[0]:
            raise InputFormatError(f"list {i}: y_true has {ti.shape[0]} items but y_score has {si.shape[0]}")
        grades.append(ti)
        scores.append(si)
    lengths = np.array([int(g.shape[0]) for g in grades], dtype=np.int64)  # shapes, not values
    width = int(lengths.max(initial=0))
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1])) if len(lengths) else lengths
    columns = np.arange(width)
    kept = columns[None, :] < lengths[:, None]
    # one gather from the concatenated lists (padding reads item 0 and is masked): a few device ops for any count
    positions = np.where(kept, offsets[:, None] + columns[None, :], 0).reshape(-1)
    index = xp.asarray(positions, dtype=index_dtype(xp, where.device), device=where.device)
    valid = xp.asarray(kept, device=where.device)

    def pad(items: list[Array]) -> Array:
        if not items or not width:
            return xp.zeros((len(items), width), dtype=xp.float64, device=where.device)
        dtype = xp.result_type(*items)
        flat = xp.concat([a if a.dtype == dtype else xp.astype(a, dtype) for a in items])
        rows = xp.reshape(xp.take(flat, index), (len(items), width))
        return xp.where(valid, rows, xp.zeros_like(rows))

    return pad(grades), pad(scores), valid


def index_dtype(xp: Any, device: Any) -> Any:
    """The namespace's integer dtype for indices on ``device`` (int64; int32 on JAX without x64)."""
    try:
        return xp.__array_namespace_info__().default_dtypes(device=device)["indexing"]
    except (AttributeError, TypeError):  # pragma: no cover - namespaces without the inspection API
        return xp.int64


def working_dtype(where: Placement) -> Any:
    """float64 where the device has it (CPU, CUDA), else float32 (e.g. Apple's MPS)."""
    xp = where.xp
    try:
        kinds = xp.__array_namespace_info__().dtypes(device=where.device, kind="real floating")
    except (AttributeError, TypeError):  # pragma: no cover - namespaces without the inspection API
        return xp.float64
    return xp.float64 if "float64" in kinds else xp.float32
