"""UTF-8 buffers in Arrow's string layout and NumPy unicode arrays, each written as the other.

An id column's bytes are two arrays: ``offsets`` (one more than the ids) and
``data``, id ``i`` being ``data[offsets[i]:offsets[i + 1]]``. Nothing here
knows the column type; :class:`~rankmeter.ids.column.IdColumn` calls these
when it needs the other form.
"""

from __future__ import annotations

import numpy as np


def first_of_runs(ordered: np.ndarray) -> np.ndarray:
    """Whether each value of a sorted array differs from the one before it (the first is True).

    >>> first_of_runs(np.array(["a", "a", "b"])).tolist(), first_of_runs(np.array([], dtype=int)).tolist()
    ([True, False, True], [])
    """
    head = np.ones(len(ordered), dtype=bool)
    if len(ordered) > 1:
        np.not_equal(ordered[1:], ordered[:-1], out=head[1:])
    return head


def utf8(text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, data)`` of NumPy strings; ASCII columns a whole column at a time.

    Lone surrogates (bytes the exact TREC parser kept with ``surrogateescape``)
    are written as their three bytes, which keeps code-point order and
    equality byte for byte.

    >>> [a.tolist() for a in utf8(np.array(["q2", "é"]))]
    [[0, 2, 4], [113, 50, 195, 169]]
    """
    n, width = len(text), text.dtype.itemsize // 4
    offsets = np.zeros(n + 1, dtype=np.int64)
    if n == 0 or width == 0:
        return offsets, np.zeros(0, np.uint8)
    chars = np.ascontiguousarray(text).view(np.uint32).reshape(n, width)
    if n >= 256 and int(chars.max()) < 128:  # (a few ids: encoding each is quicker)
        lengths = np.count_nonzero(np.cumsum(chars[:, ::-1] != 0, axis=1), axis=1)  # up to the last non-NUL char
        np.cumsum(lengths, out=offsets[1:])
        return offsets, chars[np.arange(width) < lengths[:, None]].astype(np.uint8)
    encoded = [s.encode("utf-8", "surrogatepass") for s in text.tolist()]
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=n), out=offsets[1:])
    return offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8)


def decode(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """NumPy strings from UTF-8 buffers; ASCII buffers a whole column at a time.

    >>> decode(np.array([0, 2, 4]), np.array([113, 50, 195, 169], dtype=np.uint8)).tolist()
    ['q2', 'é']
    """
    n = len(offsets) - 1
    starts = offsets[:-1].astype(np.int64)
    lengths = offsets[1:] - starts
    width = int(lengths.max()) if n else 0
    chunk = data[int(offsets[0]) : int(offsets[-1])] if n else data[:0]
    if width == 0:
        return np.full(n, "", dtype="<U1")
    if not len(chunk) or int(chunk.max()) < 128:
        chars = np.zeros((n, width), dtype=np.uint32)
        inside = np.arange(width) < lengths[:, None]
        chars[inside] = data[(starts[:, None] + np.arange(width))[inside]]
        return chars.view(f"<U{width}").reshape(n)
    raw = data.tobytes()
    return np.array(
        [raw[a:b].decode("utf-8", "surrogatepass") for a, b in zip(starts.tolist(), offsets[1:].tolist(), strict=True)],
        dtype=str,
    )


def gather(offsets: np.ndarray, data: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, data)`` of the strings at ``rows`` (copied into new buffers).

    >>> [a.tolist() for a in gather(np.array([0, 1, 3]), np.frombuffer(b"abc", np.uint8), np.array([1, 1]))]
    [[0, 2, 4], [98, 99, 98, 99]]
    """
    starts = offsets[rows].astype(np.int64)
    lengths = offsets[rows + 1] - starts
    bounds = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    at = np.arange(int(bounds[-1])) + np.repeat(starts - bounds[:-1], lengths)
    return bounds, data[at]
