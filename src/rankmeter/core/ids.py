"""Exact id handling: interning to integer codes (never hashed), lookups and duplicate detection.

Id columns may be NumPy string arrays or pyarrow string arrays (what the fast
TREC reader produces); both are handled without building Python objects per row.
Codes follow the ids' string order (code-point order, which for UTF-8 text is
the byte order ``strcmp`` uses), so sorting by code sorts by id.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.io.arrow import arrow_to_numpy, int64_array, string_array, validity
from rankmeter.io.tables import id_at  # noqa: F401  (re-exported for the core)

IdColumn = Any  # np.ndarray of str, or pyarrow (Chunked)Array of strings


def _is_arrow(col: IdColumn) -> bool:
    return type(col).__module__.startswith("pyarrow")


def _arrow_array(col: IdColumn) -> Any:
    import pyarrow as pa

    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if pa.types.is_large_string(col.type) or pa.types.is_string_view(col.type):
        col = col.cast(pa.string())
    return col


def to_numpy_str(col: IdColumn) -> np.ndarray:
    """Any id column as a NumPy unicode array."""
    if _is_arrow(col):
        return arrow_to_numpy(_arrow_array(col))
    return np.asarray(col).astype(str, copy=False)


def encode(col: IdColumn) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique ids and the code of each row.

    >>> import numpy as np
    >>> vocab, codes = encode(np.array(["q2", "q10", "q2"]))
    >>> vocab.tolist(), codes.tolist()
    (['q10', 'q2'], [1, 0, 1])
    """
    if _is_arrow(col):
        import pyarrow.compute as pc

        enc = pc.dictionary_encode(_arrow_array(col))
        dictionary = to_numpy_str(enc.dictionary)
        order = np.argsort(dictionary, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return dictionary[order], rank[arrow_to_numpy(enc.indices).astype(np.int64)]
    vocab, inverse = np.unique(to_numpy_str(col), return_inverse=True)
    return vocab, inverse.astype(np.int64).reshape(-1)


def intern(*columns: IdColumn) -> tuple[np.ndarray, list[np.ndarray]]:
    """Intern several id columns into one shared, sorted vocabulary.

    Returns
    -------
    vocabulary : ndarray of str
        Sorted unique ids; ``vocabulary[code]`` is the id.
    codes : list of ndarray of int64
        One code array per input column.

    Examples
    --------
    >>> import numpy as np
    >>> vocab, (a, b) = intern(np.array(["d2", "d10"]), np.array(["d2", "d1"]))
    >>> vocab.tolist(), a.tolist(), b.tolist()
    (['d1', 'd10', 'd2'], [2, 1], [2, 0])
    """
    encoded = [encode(c) for c in columns]
    vocabulary = np.unique(np.concatenate([v for v, _ in encoded])) if encoded else np.zeros(0, str)
    codes = [np.searchsorted(vocabulary, v)[c] if len(c) else c for v, c in encoded]
    return vocabulary, codes


def lookup(col: IdColumn, vocabulary: np.ndarray) -> np.ndarray:
    """Code of each id in a sorted ``vocabulary``, or -1 where absent (exact match).

    >>> import numpy as np
    >>> lookup(np.array(["b", "z", "a"]), np.array(["a", "b"])).tolist()
    [1, -1, 0]
    """
    if _is_arrow(col):
        import pyarrow as pa
        import pyarrow.compute as pc

        idx = pc.index_in(_arrow_array(col), value_set=string_array(vocabulary))
        if isinstance(idx, pa.ChunkedArray):
            idx = idx.combine_chunks()
        positions = np.frombuffer(idx.buffers()[1], dtype=np.int32)[idx.offset : idx.offset + len(idx)]
        return np.where(validity(idx), positions, -1).astype(np.int64)
    values = to_numpy_str(col)
    if len(vocabulary) == 0:
        return np.full(len(values), -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(vocabulary, values), len(vocabulary) - 1)
    return np.where(vocabulary[pos] == values, pos, -1).astype(np.int64)


def string_ranks(col: IdColumn, rows: np.ndarray) -> np.ndarray:
    """Rank of each selected id in string order (equal ids may get different ranks).

    >>> import numpy as np
    >>> string_ranks(np.array(["b", "a", "c"]), np.array([0, 2, 1])).tolist()
    [1, 2, 0]
    """
    if _is_arrow(col):
        import pyarrow.compute as pc

        order = arrow_to_numpy(pc.array_sort_indices(_arrow_array(col).take(int64_array(rows)))).astype(np.int64)
    else:
        order = np.argsort(to_numpy_str(np.asarray(col)[rows]), kind="stable")
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def take(col: IdColumn, rows: np.ndarray) -> np.ndarray:
    """The ids at ``rows`` as a NumPy unicode array."""
    if _is_arrow(col):
        return to_numpy_str(_arrow_array(col).take(int64_array(rows)))
    return to_numpy_str(np.asarray(col)[rows])


def _words(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The 8 bytes starting at each offset of ``data`` (zero-padded), as uint64."""
    # an overlapping view: element i is the 8 bytes starting at byte i
    as_u8 = np.ndarray(shape=(len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))
    return as_u8[at]


def _string_keys(col: IdColumn, chunk: int = 1 << 20) -> np.ndarray | None:
    """A 64-bit key per string of an arrow column, equal for equal strings (None if unsuitable).

    Mixes the length with the first, middle and last 8 bytes; distinct strings
    can share a key, so callers verify candidates exactly. Works through the
    column in chunks so that temporaries stay small.
    """
    arr = _arrow_array(col)
    if arr.null_count or len(arr) == 0:
        return None
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    raw = arr.buffers()[2]
    data = np.frombuffer(raw, dtype=np.uint8) if raw is not None else np.zeros(0, np.uint8)
    keys = np.empty(len(arr), dtype=np.uint64)
    for lo in range(0, len(arr), chunk):
        hi = min(lo + chunk, len(arr))
        base = int(offsets[lo])
        piece = np.concatenate((data[base : int(offsets[hi])], np.zeros(16, np.uint8)))
        keys[lo:hi] = _mix(
            piece, offsets[lo:hi].astype(np.int64) - base, np.diff(offsets[lo : hi + 1]).astype(np.int64)
        )
    return keys


def _mix(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    first = _words(data, starts)
    last = _words(data, starts + np.maximum(lengths - 8, 0))
    middle = _words(data, starts + np.maximum(lengths // 2 - 4, 0))
    if len(lengths) and lengths.min() < 8:  # short strings: drop the bytes read past their end
        short = np.minimum(lengths, 8).astype(np.uint64) * np.uint64(8)
        mask = np.where(short >= 64, np.uint64(0xFFFFFFFFFFFFFFFF), (np.uint64(1) << np.minimum(short, 63)) - 1)
        first, last, middle = first & mask, last & mask, middle & mask
    with np.errstate(over="ignore"):
        key = lengths.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        for word, mult in ((first, 0xC2B2AE3D27D4EB4F), (middle, 0x165667B19E3779F9), (last, 0x27D4EB2F165667C5)):
            key = (key ^ word) * np.uint64(mult)
            key ^= key >> np.uint64(29)
    return key


def duplicate_rows(query_codes: np.ndarray, doc_col: IdColumn) -> np.ndarray:
    """Rows that repeat an earlier (query, document) pair, as ``(first, repeat)`` index pairs, exactly.

    Candidates come from a 64-bit hash of the document id and are then
    verified by exact string comparison, so no pair is ever reported by a
    hash collision alone.

    >>> import numpy as np
    >>> duplicate_rows(np.array([0, 0, 1, 0]), np.array(["a", "b", "a", "a"])).tolist()
    [[0, 3]]
    """
    hashes = _string_keys(doc_col) if _is_arrow(doc_col) else None
    if hashes is None:
        _, dcodes = encode(doc_col)
        keys = query_codes.astype(np.int64) * (int(dcodes.max()) + 1 if len(dcodes) else 1) + dcodes
        order = np.argsort(keys, kind="stable")
        same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
        return np.stack((order[same], order[same + 1]), axis=1) if len(same) else np.zeros((0, 2), np.int64)
    with np.errstate(over="ignore"):
        keys = hashes ^ (query_codes.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    if not (np.diff(np.sort(keys)) == 0).any():
        return np.zeros((0, 2), np.int64)
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    in_run = np.zeros(len(sk), dtype=bool)
    eq = sk[1:] == sk[:-1]
    in_run[1:] |= eq
    in_run[:-1] |= eq
    candidates = np.sort(order[in_run])
    if not len(candidates):
        return np.zeros((0, 2), np.int64)
    # exact check among the (few) candidates
    text = np.char.add(np.char.add(query_codes[candidates].astype(str), "\x00"), take(doc_col, candidates))
    _, inverse = np.unique(text, return_inverse=True)
    inverse = inverse.reshape(-1)
    first_of = np.full(int(inverse.max()) + 1, -1, dtype=np.int64)
    seen_order = np.argsort(inverse, kind="stable")
    grp = inverse[seen_order]
    head = np.concatenate(([True], grp[1:] != grp[:-1]))
    first_of[grp[head]] = candidates[seen_order[head]]
    repeat = ~head
    pairs = np.stack((first_of[grp[repeat]], candidates[seen_order[repeat]]), axis=1)
    return pairs[np.argsort(pairs[:, 1], kind="stable")]
