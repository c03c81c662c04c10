"""64-bit hash keys of ids and of (query code, id) pairs: *candidates* for equality, never proof.

Two different strings may share a key, so every match found through keys is
confirmed by :func:`~rankmeter.ids.buffers.equal_strings`.
"""

from __future__ import annotations

import numpy as np

from rankmeter.ids.buffers import LOW_BYTES, StringBuffers
from rankmeter.ids.column import IdColumn

_MULT = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xC2B2AE3D27D4EB4F)

HASH_MIN_ROWS = 1 << 10
"""Fewest rows whose documents are matched and checked for repeats through hash keys.

Fewer rows go through exact string codes, which takes fewer NumPy calls
(``benchmarks/run.py --only W4``: a thousand two-query jobs are quicker that way).
"""


def hash_keys(ids: IdColumn, chunk: int = 1 << 16) -> np.ndarray:
    """A 64-bit key per string, equal for equal strings and rarely equal for different ones.

    Every byte of every string enters the key (eight-byte words folded in
    polynomially, then the length), so strings that share long prefixes or
    suffixes -- ``clueweb09-en0000-00-00000`` -- still get different keys.

    Parameters
    ----------
    ids : IdColumn
    chunk : int
        Rows per step; temporaries stay cache-sized.

    Returns
    -------
    ndarray of uint64

    Examples
    --------
    >>> k = hash_keys(IdColumn(text=np.array(["D1_0", "D1_1", "D1_0", "a-much-longer-document-id"])))
    >>> bool(k[0] == k[2]), bool(k[0] == k[1]), bool(k[3] == k[0])
    (True, False, False)
    """
    buffers = StringBuffers.of(ids)
    keys = np.empty(len(ids), dtype=np.uint64)
    for lo in range(0, len(ids), chunk):
        hi = min(lo + chunk, len(ids))
        keys[lo:hi] = _fold(buffers, *buffers.spans(slice(lo, hi)))
    return keys


def _fold(buffers: StringBuffers, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Polynomial fold of the words of each string; the last word overlaps so no byte is read past its end."""
    key = lengths.astype(np.uint64)
    key *= _MULT
    if not len(lengths):
        return key
    shortest, longest = int(lengths.min()), int(lengths.max())
    word = buffers.words(starts)
    if shortest < 8:  # a string under 8 bytes: keep its own bytes only
        short = np.flatnonzero(lengths < 8)
        word[short] &= LOW_BYTES[lengths[short]]
    key *= _MIX
    key += word
    ends = starts + lengths if longest > 8 else starts
    for j in range(1, (longest + 7) // 8):  # only strings longer than 8 j bytes have a word j
        # word j starts at byte 8 j, or 8 bytes before the end of the string if that is earlier
        if shortest >= 8 * j + 8:
            at = starts + 8 * j
        elif longest <= 8 * j + 8:
            at = ends - 8
        else:
            at = np.minimum(starts + 8 * j, ends - 8)
        if shortest > 8 * j:  # every string has a word j
            key *= _MIX
            key += buffers.words(at)
            continue
        without = np.flatnonzero(lengths <= 8 * j)
        if len(without) * 4 > len(lengths) * 3:  # few strings have a word j: fold those only
            rows = np.flatnonzero(lengths > 8 * j)
            key[rows] = key[rows] * _MIX + buffers.words(at[rows])
            continue
        # most do: fold every row, then put back the keys of the strings without a word j
        kept = key[without]
        if int(ends[0]) < 8:  # those strings may point before the data (ends only grow along the rows)
            np.maximum(at, 0, out=at)
        key *= _MIX
        key += buffers.words(at)
        key[without] = kept
    key ^= key >> np.uint64(29)
    key *= _MULT
    key ^= key >> np.uint64(32)
    return key


def document_keys(ids: IdColumn) -> np.ndarray:
    """The :func:`hash_keys` of an id column, computed once per column (kept as its ``keys``; a coded one by its codes).

    >>> ids = IdColumn(text=np.array(["a", "b", "a"]))
    >>> k = document_keys(ids)
    >>> bool(k[0] == k[2]), bool(k[0] == k[1]), ids.keys is k
    (True, False, True)
    """
    if ids.keys is None:  # the duplicate check and the join share them
        ids.keys = document_keys(ids.dictionary)[ids.codes] if ids.is_coded else hash_keys(ids)
    return ids.keys


def document_pair_keys(query_codes: np.ndarray, doc_ids: IdColumn) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(document_keys(doc_ids), pair_halves(query_codes, keys))``, or ``(None, None)`` under HASH_MIN_ROWS rows.

    >>> document_pair_keys(np.array([0]), IdColumn(text=np.array(["a"])))
    (None, None)
    """
    if len(query_codes) < HASH_MIN_ROWS:
        return None, None
    keys = document_keys(doc_ids)
    return keys, pair_halves(query_codes, keys)


def pair_keys(codes: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Combine an integer code (a query) with a string key (its document) into one 64-bit key.

    Always a new array (callers may sort it in place). Codes that are small
    non-negative integers -- query codes -- are mixed once per distinct value
    and gathered; others are mixed row by row, with the same result.

    >>> import numpy as np
    >>> k = np.array([5, 5], dtype=np.uint64)
    >>> p = pair_keys(np.array([0, 1]), k)
    >>> bool(p[0] != p[1])
    True
    """
    codes = np.asarray(codes)
    table = _mixed_table(codes)
    mixed = _mix_codes(codes.astype(np.uint64)) if table is None else table[codes]
    mixed ^= keys
    return mixed


def pair_halves(codes: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """32 bits of each :func:`pair_keys` key (the same half for every row), without the 64-bit keys.

    Equal pair keys have equal halves, so halves are candidates for pair keys
    at half the memory; :func:`half` takes the same half of any key array.

    >>> import numpy as np
    >>> codes, keys = np.array([0, 3, 3]), np.array([1 << 40, 7, 1 << 40], dtype=np.uint64)
    >>> bool((pair_halves(codes, keys) == half(pair_keys(codes, keys))).all())
    True
    """
    codes = np.asarray(codes)
    table = _mixed_table(codes)
    if table is None:
        return half(pair_keys(codes, keys)).copy()
    mixed = half(table).copy()[codes]
    mixed ^= half(keys)
    return mixed


def half(keys: np.ndarray) -> np.ndarray:
    """A view of 32 bits of each 64-bit key: the half stored first (either half would do; none is assumed)."""
    return np.ascontiguousarray(keys, dtype=np.uint64).view(np.uint32)[::2]


def _mixed_table(codes: np.ndarray) -> np.ndarray | None:
    """The mix of every code ``0 .. codes.max()`` when the codes are small non-negative integers, else None."""
    if not len(codes) or codes.dtype.kind not in "iu" or int(codes.min()) < 0:
        return None
    top = int(codes.max())
    return _mix_codes(np.arange(top + 1, dtype=np.uint64)) if top < max(len(codes), 1024) else None


def _mix_codes(codes: np.ndarray) -> np.ndarray:
    """The 64-bit mix of each code (uint64, updated in place and returned)."""
    codes += np.uint64(1)
    codes *= _MIX
    codes ^= codes >> np.uint64(31)
    codes *= _MULT
    return codes
