"""Eight-byte reads of an id column's UTF-8 bytes at any offset, and exact byte-wise equality.

Nothing here builds a Python object per row: the readers below take the
offsets and data buffers of an :class:`~rankmeter.ids.column.IdColumn`
(Arrow's string layout) as they are, eight bytes at a time.
"""

from __future__ import annotations

import numpy as np

from rankmeter.ids.column import IdColumn

LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
"""``LOW_BYTES[n]``: the mask of the low ``n`` bytes of a little-endian word (``n`` = 0..8)."""


class StringBuffers:
    """The offsets and bytes of an id column, with 8-byte reads at any offset.

    Parameters
    ----------
    ids : IdColumn

    Examples
    --------
    >>> b = StringBuffers(IdColumn(text=np.array(["ab", "cdefghijk"])))
    >>> b.spans(np.arange(2))
    (array([0, 2]), array([2, 9]))
    >>> hex(int(b.words(np.array([2]))[0]))
    '0x6a69686766656463'
    """

    def __init__(self, ids: IdColumn) -> None:
        self.offsets, self.data = ids.buffers()
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
    def of(cls, ids: IdColumn) -> StringBuffers:
        """The reader of an id column's bytes, built once per column (kept as its ``reader``).

        >>> ids = IdColumn(text=np.array(["a"]))
        >>> StringBuffers.of(ids) is StringBuffers.of(ids) is ids.reader
        True
        """
        if ids.reader is None:
            ids.reader = cls(ids)
        return ids.reader

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

        >>> b, at = StringBuffers(IdColumn(text=np.array(["0123456789abcdefXY"]))), np.array([0, 3])
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


def equal_strings(a: StringBuffers, rows_a: np.ndarray, b: StringBuffers, rows_b: np.ndarray) -> np.ndarray:
    """Exact, byte-wise equality of ``a[rows_a[i]]`` and ``b[rows_b[i]]`` for every i.

    >>> a = StringBuffers(IdColumn(text=np.array(["doc-1", "doc-22"])))
    >>> b = StringBuffers(IdColumn(text=np.array(["doc-22", "doc-2"])))
    >>> equal_strings(a, np.array([1, 1]), b, np.array([0, 1])).tolist()
    [True, False]
    """
    start_a, len_a = a.spans(rows_a)
    start_b, len_b = b.spans(rows_b)
    same = len_a == len_b
    for j in range((int(len_a.max(initial=0)) + 7) // 8):
        keep = LOW_BYTES[np.clip(len_a - 8 * j, 0, 8)]
        same &= (a.words(start_a + 8 * j) & keep) == (b.words(start_b + 8 * j) & keep)
    return same
