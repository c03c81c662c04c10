"""Small pyarrow helpers shared by the readers (those that read id columns live in :mod:`rankmeter.ids.arrow`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.ids.arrow import combined


def arrow_to_numpy(arr: Any) -> np.ndarray:
    """A null-free pyarrow numeric or string array as NumPy, without pyarrow's pandas shim."""
    import pyarrow as pa

    arr = combined(arr)
    if arr.null_count:
        raise ValueError("arrow_to_numpy needs a column without nulls")
    if pa.types.is_floating(arr.type) or pa.types.is_integer(arr.type):
        kind = "f" if pa.types.is_floating(arr.type) else ("i" if pa.types.is_signed_integer(arr.type) else "u")
        dtype = np.dtype(f"{kind}{arr.type.bit_width // 8}")
        return np.frombuffer(arr.buffers()[1], dtype=dtype)[arr.offset : arr.offset + len(arr)]
    return np.array(arr.to_pylist(), dtype=str)


def string_array(values: np.ndarray) -> Any:
    """A pyarrow string array built from buffers (``pa.array`` would import pandas if it is installed)."""
    import pyarrow as pa

    encoded = [str(v).encode("utf-8", "surrogateescape") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return pa.StringArray.from_buffers(len(encoded), pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded)))


def int64_array(values: np.ndarray) -> Any:
    """A pyarrow int64 array sharing NumPy's buffer."""
    import pyarrow as pa

    data = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


def dictionary_array(codes: np.ndarray, values: np.ndarray) -> Any:
    """A pyarrow dictionary array of ``values[codes]`` built from buffers (``pa.array`` would import pandas).

    >>> dictionary_array(np.array([1, 0, 1]), np.array(["a", "b"])).to_pylist()
    ['b', 'a', 'b']
    """
    import pyarrow as pa

    data = np.ascontiguousarray(codes, dtype=np.int32)
    indices = pa.Array.from_buffers(pa.int32(), len(data), [None, pa.py_buffer(data)])
    return pa.DictionaryArray.from_arrays(indices, string_array(values))


def take_rows(arr: Any, rows: np.ndarray) -> Any:
    """``arr.take(rows)`` for a null-free string or dictionary array, without importing ``pyarrow.compute``.

    >>> import pyarrow as pa
    >>> take_rows(pa.array(["ab", "", "cde"]).slice(1), np.array([1, 0, 1])).to_pylist()
    ['cde', '', 'cde']
    >>> taken = take_rows(pa.array(["x", "y", "z"]).dictionary_encode(), np.array([2, 0, 2]))
    >>> taken.to_pylist(), taken.dictionary.to_pylist()
    (['z', 'x', 'z'], ['x', 'z'])
    """
    import pyarrow as pa

    arr = combined(arr)
    rows = np.asarray(rows, dtype=np.int64)
    if arr.null_count:  # pragma: no cover - id columns are checked for nulls first
        return arr.take(int64_array(rows))
    if pa.types.is_dictionary(arr.type) and pa.types.is_int32(arr.type.index_type):
        codes = arrow_to_numpy(arr.indices)[rows]
        used = np.sort(codes)  # the dictionary keeps only the entries taken (no np.unique: it imports numpy.ma)
        used = used[np.concatenate(([True], used[1:] != used[:-1]))] if len(used) else used
        codes = np.searchsorted(used, codes)
        indices = pa.Array.from_buffers(pa.int32(), len(codes), [None, pa.py_buffer(codes.astype(np.int32))])
        return pa.DictionaryArray.from_arrays(indices, take_rows(arr.dictionary, used))
    if not pa.types.is_string(arr.type):
        return arr.take(int64_array(rows))  # other layouts: pyarrow's own kernel
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    starts = offsets[rows].astype(np.int64)
    lengths = offsets[rows + 1] - starts
    bounds = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    if bounds[-1] >= 2**31:  # pragma: no cover - over 2 GiB of text taken
        return arr.take(int64_array(rows))
    data = arr.buffers()[2]
    chars = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    gather = np.arange(int(bounds[-1])) + np.repeat(starts - bounds[:-1], lengths)
    return pa.StringArray.from_buffers(len(rows), pa.py_buffer(bounds.astype(np.int32)), pa.py_buffer(chars[gather]))
