"""Id and vector matrices in the nearest-neighbour benchmarks' file formats.

===========================  ===================================================================
suffix                       layout
===========================  ===================================================================
``.npy``                     NumPy's own (no pickles)
``.ivecs``, ``.fvecs``,      each row: its length as int32, then that many int32 / float32 /
``.bvecs``                   uint8 values (the TEXMEX corpus format)
``.ibin``, ``.fbin``,        header of two uint32 (rows, columns), then the rows of int32 /
``.u8bin``, ``.i8bin``       float32 / uint8 / int8 values (big-ann-benchmarks)
===========================  ===================================================================
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError

VECS = {".ivecs": np.int32, ".fvecs": np.float32, ".bvecs": np.uint8}
"""Suffixes of the row-length-prefixed formats and their value types."""
BINS = {".ibin": np.int32, ".fbin": np.float32, ".u8bin": np.uint8, ".i8bin": np.int8}
"""Suffixes of the (rows, columns)-header formats and their value types."""


def _vecs(path: Path, dtype: Any) -> np.ndarray:
    raw = path.read_bytes()
    if len(raw) < 4:
        raise InputFormatError(f"{path}: empty {path.suffix} file")
    dim = int(np.frombuffer(raw[:4], dtype="<i4")[0])
    width = 4 + dim * np.dtype(dtype).itemsize
    if dim <= 0 or len(raw) % width:
        raise InputFormatError(f"{path}: {len(raw)} bytes are not whole rows of {dim} values (row length read first)")
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(-1, width)
    dims = rows[:, :4].copy().view("<i4").reshape(-1)
    if np.any(dims != dim):
        row = int(np.flatnonzero(dims != dim)[0])
        raise InputFormatError(f"{path}: row {row} has length {int(dims[row])}, row 0 has {dim}")
    return rows[:, 4:].copy().view(np.dtype(dtype).newbyteorder("<")).reshape(len(rows), dim)


def _bin(path: Path, dtype: Any) -> np.ndarray:
    raw = path.read_bytes()
    if len(raw) < 8:
        raise InputFormatError(f"{path}: shorter than the 8-byte (rows, columns) header")
    n, d = (int(v) for v in np.frombuffer(raw[:8], dtype="<u4"))
    need = 8 + n * d * np.dtype(dtype).itemsize
    if len(raw) != need:
        raise InputFormatError(f"{path}: the header says {n} x {d} values ({need} bytes) but the file has {len(raw)}")
    return np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<"), offset=8).reshape(n, d)


def read_matrix(source: Any, what: str) -> np.ndarray:
    """A 2-D array from a path in one of the formats above, or the array given.

    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "gt.ibin")
    >>> _ = open(path, "wb").write(np.array([2, 2], "<u4").tobytes() + np.array([[1, 2], [3, 4]], "<i4").tobytes())
    >>> read_matrix(path, "ann_ids").tolist()
    [[1, 2], [3, 4]]
    """
    if not isinstance(source, str | os.PathLike):
        return np.asarray(source)
    path = Path(source)
    if not path.exists():
        raise InputFormatError(f"{what}: file not found: {path}")
    suffix = path.suffix.lower()
    if suffix in VECS:
        return _vecs(path, VECS[suffix])
    if suffix in BINS:
        return _bin(path, BINS[suffix])
    if suffix == ".npy":
        try:
            return np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise InputFormatError(f"{what}: cannot read {path} as .npy ({exc})") from None
    known = ", ".join([".npy", *VECS, *BINS])
    raise InputFormatError(f"{what}: {path}: unknown matrix format {suffix!r}; use one of {known}")
