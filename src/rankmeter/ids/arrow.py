"""pyarrow columns as :class:`~rankmeter.ids.column.IdColumn`: their buffers lent without a copy.

pyarrow is imported only when a pyarrow column is passed (:func:`is_arrow`
tells by the type's module, without importing it).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from rankmeter.ids.column import IdColumn, coded_text
from rankmeter.ids.integers import integer_column


def is_arrow(col: Any) -> bool:
    """Whether ``col`` is a pyarrow array or chunked array (the columnar readers' ids), not NumPy.

    >>> import pyarrow as pa
    >>> is_arrow(pa.array(["a"])), is_arrow(np.array(["a"]))
    (True, False)
    """
    return type(col).__module__.startswith("pyarrow")


@cache
def memory_pool() -> Any:
    """The pyarrow memory pool rankmeter's readers allocate from: jemalloc where pyarrow ships it, else the default.

    pyarrow's default mimalloc pool hands the CSV reader's freed blocks back
    to the system and faults them in again; jemalloc keeps them for reuse.
    ``python benchmarks/run.py --only CHOICES`` measures it on W1: a lower
    peak memory, read whole or in blocks, and equal or shorter times.
    Passing the pool to each call changes nothing for other pyarrow
    users in the process.
    """
    import pyarrow as pa

    try:
        return pa.jemalloc_memory_pool()
    except (NotImplementedError, pa.ArrowNotImplementedError):  # pragma: no cover - builds without jemalloc
        return pa.default_memory_pool()


def combined(arr: Any) -> Any:
    """A chunked pyarrow array as one array (dictionaries unified first), allocated from :func:`memory_pool`.

    >>> import pyarrow as pa
    >>> combined(pa.chunked_array([["a"], ["b"]])).to_pylist()
    ['a', 'b']
    """
    import pyarrow as pa

    if not isinstance(arr, pa.ChunkedArray):
        return arr
    if pa.types.is_dictionary(arr.type):
        arr = arr.unify_dictionaries(memory_pool())
    return arr.combine_chunks(memory_pool())


def arrow_ids(col: Any, coded: bool) -> IdColumn:
    """A pyarrow string, integer-dictionary or string-dictionary column as an :class:`IdColumn`.

    A dictionary column keeps its codes (a dictionary that repeats a value
    is coded again); with ``coded`` a plain column is dictionary-encoded.

    Raises
    ------
    ValueError
        A column with nulls (ids must be present).

    >>> import pyarrow as pa
    >>> ids = arrow_ids(pa.array(["b", "a", "b"]).dictionary_encode(), False)
    >>> ids.codes.tolist(), ids.dictionary.tolist()
    ([0, 1, 0], ['b', 'a'])
    """
    import pyarrow as pa

    col = combined(col)
    if pa.types.is_dictionary(col.type):
        if col.null_count:
            raise ValueError("id columns must be without nulls")
        codes = np.frombuffer(col.indices.buffers()[1], dtype=col.type.index_type.to_pandas_dtype())
        codes = codes[col.offset : col.offset + len(col)]
        if pa.types.is_integer(col.dictionary.type):  # integer values: coded without text, as integer_column
            values = integer_column(np.asarray(col.dictionary.to_numpy(zero_copy_only=False)))
            return IdColumn(codes=values.codes[codes], dictionary=values.dictionary)
        dictionary = _plain_arrow(col.dictionary)
        distinct = coded_text(dictionary.text())
        if len(distinct.dictionary) != len(dictionary):  # a dictionary that repeats a value
            return IdColumn(codes=distinct.codes[codes], dictionary=distinct.dictionary)
        return IdColumn(codes=codes, dictionary=dictionary)
    if coded:
        return arrow_ids(col.dictionary_encode(), coded)
    return _plain_arrow(col)


def _plain_arrow(arr: Any) -> IdColumn:
    """A pyarrow string-like array (no dictionary) as a plain column sharing its buffers."""
    import pyarrow as pa

    if arr.null_count:
        raise ValueError("id columns must be without nulls")
    if pa.types.is_string_view(arr.type) or not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = arr.cast(pa.string())
    width = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(arr.buffers()[1], dtype=width)[arr.offset : arr.offset + len(arr) + 1]
    raw = arr.buffers()[2]
    data = np.frombuffer(raw, dtype=np.uint8) if raw is not None else np.zeros(0, np.uint8)
    return IdColumn(offsets, data)
