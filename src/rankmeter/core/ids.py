"""Exact id handling: interning to integer codes (never hashed), lookups and duplicate detection.

Id columns may be NumPy string arrays or pyarrow string arrays (what the fast
TREC reader produces); both are handled without building Python objects per row.
Codes follow the ids' string order (code-point order, which for UTF-8 text is
the byte order ``strcmp`` uses), so sorting by code sorts by id.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.core.arrays import sorted_unique
from rankmeter.core.string_keys import (
    StringBuffers,
    equal_strings,
    half,
    hash_keys,
    order_words,
    pair_halves,
    pair_keys,
)
from rankmeter.io.arrow import arrow_to_numpy, combined, int64_array, is_arrow, string_array, take_rows, validity
from rankmeter.io.tables import id_at  # noqa: F401  (re-exported for the core)

IdColumn = Any  # np.ndarray of str, or pyarrow (Chunked)Array of strings


def _arrow_array(col: IdColumn) -> Any:
    import pyarrow as pa

    col = combined(col)
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    if pa.types.is_large_string(col.type) or pa.types.is_string_view(col.type):
        col = col.cast(pa.string())
    return col


def to_numpy_str(col: IdColumn) -> np.ndarray:
    """Any id column as a NumPy unicode array."""
    if is_arrow(col):
        return arrow_to_numpy(_arrow_array(col))
    return np.asarray(col).astype(str, copy=False)


def _encoded(col: IdColumn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """:func:`encode` in two parts: ``(vocabulary, codes, indices)``.

    With ``indices`` None, ``codes`` holds the code of every row; otherwise
    (an arrow column whose dictionary codes come with it) ``codes`` maps each
    dictionary entry to its vocabulary code and the rows' codes are
    ``codes[indices]``, a gather left to the caller so that composed maps
    touch the rows once.
    """
    if is_arrow(col):
        import pyarrow as pa

        enc = col if isinstance(col, pa.DictionaryArray) else None  # codes come with the column (TREC fast path)
        if enc is None or enc.null_count:
            enc = _arrow_array(col).dictionary_encode()
        dictionary = to_numpy_str(enc.dictionary)
        order = np.argsort(dictionary, kind="stable")
        vocab = dictionary[order]
        if len(order) > 1 and (vocab[1:] == vocab[:-1]).any():
            return _encoded(_arrow_array(col))  # a dictionary that repeats a value: encode the strings
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return vocab, rank, arrow_to_numpy(enc.indices)
    vocab, inverse = np.unique(to_numpy_str(col), return_inverse=True)
    return vocab, inverse.astype(np.int64, copy=False).reshape(-1), None


def _row_codes(codes: np.ndarray, indices: np.ndarray | None) -> np.ndarray:
    """The code of every row from an :func:`_encoded` pair (one pass over the rows, no index widening)."""
    if indices is None:
        return codes
    if np.array_equal(codes, np.arange(len(codes))):  # dictionary already in vocabulary order (ids written sorted)
        return indices.astype(np.int64)
    return codes[indices]


def encode(col: IdColumn) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique ids and the code of each row.

    >>> import numpy as np
    >>> vocab, codes = encode(np.array(["q2", "q10", "q2"]))
    >>> vocab.tolist(), codes.tolist()
    (['q10', 'q2'], [1, 0, 1])
    """
    vocab, codes, indices = _encoded(col)
    return vocab, _row_codes(codes, indices)


def vocabulary(col: IdColumn) -> np.ndarray:
    """Sorted unique ids of a column (a pyarrow dictionary column reads only its dictionary).

    >>> import numpy as np
    >>> vocabulary(np.array(["q2", "q10", "q2"])).tolist()
    ['q10', 'q2']
    """
    return _encoded(col)[0]


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
    encoded = [_encoded(c) for c in columns]
    vocabulary = sorted_unique(np.concatenate([v for v, _, _ in encoded])) if encoded else np.zeros(0, str)
    # each column's own codes are composed with its vocabulary's place in the shared one before the rows are read
    codes = [_row_codes(np.searchsorted(vocabulary, v)[c] if len(c) else c, i) for v, c, i in encoded]
    return vocabulary, codes


def lookup(col: IdColumn, vocabulary: np.ndarray) -> np.ndarray:
    """Code of each id in a sorted ``vocabulary``, or -1 where absent (exact match).

    >>> import numpy as np
    >>> lookup(np.array(["b", "z", "a"]), np.array(["a", "b"])).tolist()
    [1, -1, 0]
    """
    if is_arrow(col):
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


def string_sort_keys(col: IdColumn, rows: np.ndarray) -> list[np.ndarray]:
    """Keys, most significant first, that sort the selected ids in string (UTF-8 byte) order.

    Arrow ids give their big-endian eight-byte words and length (no string is
    built); otherwise one array of ranks.

    >>> import numpy as np
    >>> keys = string_sort_keys(np.array(["b", "a", "c"]), np.array([0, 2, 1]))
    >>> np.lexsort(keys[::-1]).tolist()
    [2, 0, 1]
    """
    words = order_words(_arrow_array(col), rows) if is_arrow(col) and len(rows) else None
    if words is not None:
        return words
    if is_arrow(col):
        import pyarrow.compute as pc

        order = arrow_to_numpy(pc.array_sort_indices(_arrow_array(col).take(int64_array(rows)))).astype(np.int64)
    else:
        order = np.argsort(to_numpy_str(np.asarray(col)[rows]), kind="stable")
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return [ranks]


def string_ranks(col: IdColumn, rows: np.ndarray) -> np.ndarray:
    """Rank of each selected id in string order (equal ids may get different ranks).

    >>> import numpy as np
    >>> string_ranks(np.array(["b", "a", "c"]), np.array([0, 2, 1])).tolist()
    [1, 2, 0]
    """
    keys = string_sort_keys(col, rows)
    if len(keys) == 1:
        return keys[0]
    order = np.lexsort(keys[::-1])
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def document_keys(col: IdColumn) -> np.ndarray | None:
    """64-bit hash keys of an arrow id column (None for NumPy ids or ids with nulls: use exact codes).

    >>> import numpy as np
    >>> document_keys(np.array(["a"])) is None
    True
    """
    if not is_arrow(col):
        return None
    arr = _arrow_array(col)
    return None if arr.null_count else hash_keys(arr)


def match_pairs(
    run_codes: np.ndarray,
    run_docs: IdColumn,
    qrels_codes: np.ndarray,
    qrels_docs: IdColumn,
    run_keys: np.ndarray | None = None,
    qrels_rows: np.ndarray | None = None,
    run_halves: np.ndarray | None = None,
) -> np.ndarray:
    """For each run row, the qrels row with the same (query code, document id), or -1 -- exactly.

    Parameters
    ----------
    run_codes, qrels_codes : ndarray of int64
        Query code of every run / qrels row.
    run_docs, qrels_docs : id columns
        Document id of every run / qrels row.
    run_keys : ndarray of uint64, optional
        :func:`document_keys` of ``run_docs``, when already computed.
    qrels_rows : ndarray of int64, optional
        The qrels rows to match against (default: all); they must be
        distinct (query, document) pairs.
    run_halves : ndarray of uint32, optional
        ``pair_halves(run_codes, run_keys)``, when already computed.

    Returns
    -------
    ndarray of int64
        A qrels row index per run row, or -1.

    Notes
    -----
    Arrow columns are matched through 64-bit keys, a bitmap prefilter and a
    final byte-wise comparison of the few candidates; NumPy columns (or keys
    that collide inside the qrels) through exact string codes.

    Examples
    --------
    >>> import numpy as np
    >>> match_pairs(np.array([0, 0, 1]), np.array(["a", "b", "a"]), np.array([1, 0]), np.array(["a", "b"])).tolist()
    [-1, 1, 0]
    """
    n = len(run_codes)
    rows = np.arange(len(qrels_codes)) if qrels_rows is None else qrels_rows
    out = np.full(n, -1, dtype=np.int64)
    if n == 0 or len(rows) == 0:
        return out
    rkeys = document_keys(run_docs) if run_keys is None else run_keys
    qkeys = document_keys(qrels_docs)
    if rkeys is not None and qkeys is not None:
        qk = pair_keys(qrels_codes[rows], qkeys[rows])
        qorder = np.argsort(qk)
        sqk = qk[qorder]
        if not (sqk[1:] == sqk[:-1]).any():
            bits = max(12, min(24, int(len(sqk)).bit_length() + 6))  # ~1-2% of unmatched rows pass the bitmap
            mask = np.uint32((1 << bits) - 1)
            table = np.zeros(1 << bits, dtype=bool)
            table[half(sqk) & mask] = True
            if run_halves is None:
                slots = pair_halves(run_codes, rkeys)  # 32 bits of each key, masked in place
                slots &= mask
            else:
                slots = run_halves & mask
            cand = np.flatnonzero(table[slots])
            del slots
            rk = pair_keys(run_codes[cand], rkeys[cand])
            pos = np.minimum(np.searchsorted(sqk, rk), len(sqk) - 1)
            hit = sqk[pos] == rk
            cand, qrow = cand[hit], rows[qorder[pos[hit]]]
            same = (run_codes[cand] == qrels_codes[qrow]) & equal_strings(
                StringBuffers(_arrow_array(run_docs)), cand, StringBuffers(_arrow_array(qrels_docs)), qrow
            )
            out[cand[same]] = qrow[same]
            return out
    vocab, qd = encode(subset(qrels_docs, rows))
    rd = lookup(run_docs, vocab)
    width = max(len(vocab), 1)
    qk64 = qrels_codes[rows].astype(np.int64) * width + qd
    qorder = np.argsort(qk64)
    rk64 = np.where(rd >= 0, run_codes.astype(np.int64) * width + rd, -1)
    pos = np.minimum(np.searchsorted(qk64[qorder], rk64), len(qorder) - 1)
    hit = (rd >= 0) & (qk64[qorder][pos] == rk64)
    out[hit] = rows[qorder[pos[hit]]]
    return out


def subset(col: IdColumn, rows: np.ndarray) -> IdColumn:
    """The rows ``rows`` of an id column, keeping its kind (NumPy or pyarrow).

    >>> import numpy as np
    >>> subset(np.array(["a", "b", "c"]), np.array([2, 0])).tolist()
    ['c', 'a']
    """
    if is_arrow(col):
        return take_rows(col, rows)
    return np.asarray(col)[rows]


def take(col: IdColumn, rows: np.ndarray) -> np.ndarray:
    """The ids at ``rows`` as a NumPy unicode array."""
    if is_arrow(col):
        return to_numpy_str(take_rows(_arrow_array(col), rows))
    return to_numpy_str(np.asarray(col)[rows])


def duplicate_rows(
    query_codes: np.ndarray, doc_col: IdColumn, doc_keys: np.ndarray | None = None, halves: np.ndarray | None = None
) -> np.ndarray:
    """Rows that repeat an earlier (query, document) pair, as ``(first, repeat)`` index pairs, exactly.

    Candidates come from a 64-bit hash of the document id and are then
    verified by exact string comparison, so no pair is ever reported by a
    hash collision alone. ``doc_keys`` (:func:`document_keys`) and
    ``halves`` (``pair_halves(query_codes, doc_keys)``) may be passed when
    already computed.

    >>> import numpy as np
    >>> duplicate_rows(np.array([0, 0, 1, 0]), np.array(["a", "b", "a", "a"])).tolist()
    [[0, 3]]
    """
    hashes = document_keys(doc_col) if doc_keys is None else doc_keys
    if hashes is None:
        _, dcodes = encode(doc_col)
        keys = query_codes.astype(np.int64) * (int(dcodes.max()) + 1 if len(dcodes) else 1) + dcodes
        return _first_and_repeats(keys, np.arange(len(keys)))
    candidates = _repeated_pairs(query_codes, hashes, halves if doc_keys is not None else None)
    if not len(candidates):
        return np.zeros((0, 2), np.int64)
    # exact check among the (few) candidates
    text = np.char.add(np.char.add(query_codes[candidates].astype(str), "\x00"), take(doc_col, candidates))
    return _first_and_repeats(np.unique(text, return_inverse=True)[1].reshape(-1), candidates)


def _first_and_repeats(keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``(first, repeat)`` row pairs of equal ``keys``, ordered by the repeating row (``rows`` ascending).

    >>> import numpy as np
    >>> _first_and_repeats(np.array([5, 7, 5, 5, 7]), np.array([0, 2, 3, 8, 9])).tolist()
    [[0, 3], [0, 8], [2, 9]]
    """
    order = np.argsort(keys, kind="stable")  # stable: the first row of equal keys leads them
    sorted_keys = keys[order]
    head = np.ones(len(order), dtype=bool)
    head[1:] = sorted_keys[1:] != sorted_keys[:-1]
    first = rows[order[head]][np.cumsum(head) - 1]
    pairs = np.stack((first[~head], rows[order[~head]]), axis=1).astype(np.int64, copy=False)
    return pairs[np.argsort(pairs[:, 1], kind="stable")]


def _repeated_pairs(codes: np.ndarray, keys: np.ndarray, halves: np.ndarray | None = None) -> np.ndarray:
    """Rows, ascending, whose :func:`pair_keys` key occurs more than once.

    32 bits of each pair key are sorted first -- half the bytes of the full
    keys, and every repeated key repeats its half -- and only the rows whose
    half repeats (a bitmap, then a search) have their full keys built and
    compared. ``halves`` is ``pair_halves(codes, keys)`` when already computed.

    >>> import numpy as np
    >>> keys = np.array([7, 1 << 40, 7, 3, (1 << 40) + 3, 3], dtype=np.uint64)
    >>> _repeated_pairs(np.zeros(6, dtype=np.int64), keys).tolist()
    [0, 2, 3, 5]
    """
    halves = pair_halves(codes, keys) if halves is None else halves
    sorted_halves = np.sort(halves)
    repeated = sorted_halves[1:][sorted_halves[1:] == sorted_halves[:-1]]
    if not len(repeated):
        return np.zeros(0, dtype=np.int64)
    bits = max(12, min(24, int(len(repeated)).bit_length() + 6))
    mask = np.uint32((1 << bits) - 1)
    table = np.zeros(1 << bits, dtype=bool)
    table[repeated & mask] = True
    slots = np.bitwise_and(halves, mask, out=sorted_halves)  # the sorted copy is no longer needed
    rows = np.flatnonzero(table[slots])
    pos = np.minimum(np.searchsorted(repeated, halves[rows]), len(repeated) - 1)
    rows = rows[repeated[pos] == halves[rows]]
    # among those rows, the full keys
    full = pair_keys(codes[rows], keys[rows])
    order = np.argsort(full, kind="stable")
    sk = full[order]
    in_run = np.zeros(len(sk), dtype=bool)
    eq = sk[1:] == sk[:-1]
    in_run[1:] |= eq
    in_run[:-1] |= eq
    return np.sort(rows[order[in_run]])
