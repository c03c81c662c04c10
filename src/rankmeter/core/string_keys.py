"""Vectorised keys over the bytes of id columns: hashing and string-order sort keys.

Nothing here builds a Python object per row: every function reads the
UTF-8 offsets and data buffers of an :class:`~rankmeter.io.ids.IdColumn`
(Arrow's string layout) directly, eight bytes at a time. Hash keys are
*candidates* only -- two different strings may share one -- so callers confirm
every match by comparing the strings themselves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.io.ids import as_ids

_MULT = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xC2B2AE3D27D4EB4F)
# _LOW_BYTES[n]: the low n bytes of a little-endian word (n = 0..8)
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)


class StringBuffers:
    """The offsets and bytes of an id column, with 8-byte reads at any offset.

    Parameters
    ----------
    arr : IdColumn
        The ids (any other id column is converted by :func:`~rankmeter.io.ids.as_ids`).

    Examples
    --------
    >>> import pyarrow as pa
    >>> b = StringBuffers(pa.array(["ab", "cdefghijk"]))
    >>> b.spans(np.arange(2))
    (array([0, 2]), array([2, 9]))
    >>> hex(int(b.words(np.array([2]))[0]))
    '0x6a69686766656463'
    """

    def __init__(self, arr: Any) -> None:
        self.offsets, self.data = as_ids(arr).buffers()
        n = len(self.data)
        # element i of this overlapping view is the 8 bytes starting at byte i
        self._view = np.ndarray(shape=(max(n - 7, 0),), dtype="<u8", buffer=self.data, strides=(1,))
        self._tail_base = max(n - 8, 0)
        self._tail = np.ndarray(
            shape=(n - self._tail_base + 1,),
            dtype="<u8",
            buffer=np.concatenate((self.data[self._tail_base :], np.zeros(8, np.uint8))),
            strides=(1,),
        )

    @classmethod
    def of(cls, arr: Any) -> StringBuffers:
        """The reader of an id column's bytes, built once per column (kept in its ``memo``).

        >>> import numpy as np
        >>> from rankmeter.io.ids import as_ids
        >>> ids = as_ids(np.array(["a"]))
        >>> StringBuffers.of(ids) is StringBuffers.of(ids)
        True
        """
        ids = as_ids(arr)
        found = ids.memo.get("buffers")
        if found is None:
            found = ids.memo["buffers"] = cls(ids)
        return found

    def spans(self, rows: np.ndarray | slice) -> tuple[np.ndarray, np.ndarray]:
        """(start byte, length) of the selected strings, as int64."""
        if isinstance(rows, slice):
            bounds = self.offsets[rows.start : rows.stop + 1].astype(np.int64)
            return bounds[:-1], bounds[1:] - bounds[:-1]
        starts = self.offsets[rows].astype(np.int64)
        return starts, self.offsets[rows + 1] - starts

    def words(self, at: np.ndarray) -> np.ndarray:
        """The 8 bytes starting at each byte offset ``at`` (little-endian; zeros past the end of the data)."""
        limit = len(self._view) - 1
        if len(at) == 0 or int(at.max()) <= limit:
            return self._view[at]
        out = np.empty(len(at), dtype=np.uint64)
        inside = at <= limit
        out[inside] = self._view[at[inside]]
        out[~inside] = self._tail[np.minimum(at[~inside], len(self.data)) - self._tail_base]
        return out

    def word_pairs(self, at: np.ndarray, step: int = 1 << 12) -> tuple[np.ndarray, np.ndarray]:
        """``words(at)`` and ``words(at + 8)``, from one 16-byte read per offset.

        One read instead of two halves the cache misses of offsets scattered
        over the data. Reads go ``step`` offsets at a time into the two
        results, so no temporary outgrows a small heap block.

        >>> import pyarrow as pa
        >>> b, at = StringBuffers(pa.array(["0123456789abcdefXY"])), np.array([0, 3])
        >>> [w.tolist() for w in b.word_pairs(at)] == [b.words(at).tolist(), b.words(at + 8).tolist()]
        True
        """
        inner = len(self.data) - 15  # offsets whose 16 bytes lie inside the data
        if not len(at) or int(at.max()) >= inner:
            return self.words(at), self.words(at + 8)
        view = np.ndarray(shape=(inner,), dtype="V16", buffer=self.data, strides=(1,))
        first, second = np.empty(len(at), dtype=np.uint64), np.empty(len(at), dtype=np.uint64)
        for lo in range(0, len(at), step):
            pairs = view[at[lo : lo + step]].view("<u8").reshape(-1, 2)
            first[lo : lo + step], second[lo : lo + step] = pairs[:, 0], pairs[:, 1]
        return first, second


def hash_keys(arr: Any, chunk: int = 1 << 16) -> np.ndarray:
    """A 64-bit key per string, equal for equal strings and rarely equal for different ones.

    Every byte of every string enters the key (eight-byte words folded in
    polynomially, then the length), so strings that share long prefixes or
    suffixes -- ``clueweb09-en0000-00-00000`` -- still get different keys.

    Parameters
    ----------
    arr : IdColumn
        The ids (any other id column is converted by :func:`~rankmeter.io.ids.as_ids`).
    chunk : int
        Rows per step; temporaries stay cache-sized.

    Returns
    -------
    ndarray of uint64

    Examples
    --------
    >>> import pyarrow as pa
    >>> k = hash_keys(pa.array(["D1_0", "D1_1", "D1_0", "a-much-longer-document-id"]))
    >>> bool(k[0] == k[2]), bool(k[0] == k[1]), bool(k[3] == k[0])
    (True, False, False)
    """
    buffers = StringBuffers.of(arr)
    keys = np.empty(len(arr), dtype=np.uint64)
    for lo in range(0, len(arr), chunk):
        hi = min(lo + chunk, len(arr))
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
        word[short] &= _LOW_BYTES[lengths[short]]
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


def equal_strings(a: StringBuffers, rows_a: np.ndarray, b: StringBuffers, rows_b: np.ndarray) -> np.ndarray:
    """Exact, byte-wise equality of ``a[rows_a[i]]`` and ``b[rows_b[i]]`` for every i.

    >>> import pyarrow as pa
    >>> a, b = StringBuffers(pa.array(["doc-1", "doc-22"])), StringBuffers(pa.array(["doc-22", "doc-2"]))
    >>> equal_strings(a, np.array([1, 1]), b, np.array([0, 1])).tolist()
    [True, False]
    """
    start_a, len_a = a.spans(rows_a)
    start_b, len_b = b.spans(rows_b)
    same = len_a == len_b
    for j in range((int(len_a.max(initial=0)) + 7) // 8):
        keep = _LOW_BYTES[np.clip(len_a - 8 * j, 0, 8)]
        same &= (a.words(start_a + 8 * j) & keep) == (b.words(start_b + 8 * j) & keep)
    return same


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


def order_words(arr: Any, rows: np.ndarray, max_words: int = 8) -> list[np.ndarray] | None:
    """Sort keys that order the selected strings exactly as byte-wise ``strcmp`` does (None if too long).

    Returns big-endian eight-byte words, most significant first, then the
    length; sorting by them lexicographically is sorting by the strings.

    >>> import pyarrow as pa
    >>> arr = pa.array(["b", "ab", "abc", "a"])
    >>> keys = order_words(arr, np.arange(4))
    >>> np.lexsort(keys[::-1]).tolist()
    [3, 1, 2, 0]
    """
    buffers = StringBuffers.of(arr)
    starts, lengths = buffers.spans(rows)
    n_words = (int(lengths.max()) + 7) // 8 if len(rows) else 0
    if n_words > max_words:
        return None
    keys = []
    for j in range(n_words):
        if j % 2 == 0:  # words j and j + 1 in one read
            read = buffers.word_pairs(starts + 8 * j) if j + 1 < n_words else (buffers.words(starts + 8 * j),)
        word = read[j % 2]
        ending = lengths < 8 * j + 8  # strings that end before the end of word j keep their own bytes only
        if np.count_nonzero(ending) * 4 < len(rows):
            few = np.flatnonzero(ending)
            word[few] &= _LOW_BYTES[np.clip(lengths[few] - 8 * j, 0, 8)]
        else:
            word &= _LOW_BYTES[np.clip(lengths - 8 * j, 0, 8)]
        keys.append(word.byteswap(inplace=True))
    keys.append(lengths)
    return keys
