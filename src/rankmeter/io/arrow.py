"""Small pyarrow helpers shared by the readers and the core."""

from __future__ import annotations

from typing import Any

import numpy as np


def arrow_to_numpy(arr: Any) -> np.ndarray:
    """A null-free pyarrow numeric or string array as NumPy, without pyarrow's pandas shim."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_floating(arr.type) or pa.types.is_integer(arr.type):
        dtype = np.dtype(arr.type.to_pandas_dtype())
        return np.frombuffer(arr.buffers()[1], dtype=dtype)[arr.offset : arr.offset + len(arr)]
    return np.array(arr.to_pylist(), dtype=str)
