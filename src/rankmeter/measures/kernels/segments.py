"""Segmented (per-query, per-group) reductions over CSR arrays, without Python loops."""

from __future__ import annotations

import numpy as np


def segment_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of ``values`` in each segment ``offsets[i]:offsets[i+1]`` (0 for empty segments).

    >>> import numpy as np
    >>> segment_sum(np.array([1.0, 2.0, 3.0]), np.array([0, 2, 2, 3])).tolist()
    [3.0, 0.0, 3.0]
    """
    starts = offsets[:-1]
    out = np.zeros(len(starts), dtype=np.float64)
    nonempty = offsets[1:] > starts
    if nonempty.any():
        out[nonempty] = np.add.reduceat(np.asarray(values, dtype=np.float64), starts[nonempty])
    return out


def segment_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Inclusive running sum of ``values`` restarting at every segment.

    >>> import numpy as np
    >>> segment_cumsum(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 2, 4])).tolist()
    [1.0, 3.0, 3.0, 7.0]
    """
    values = np.asarray(values, dtype=np.float64)
    lengths = np.diff(offsets)
    n_seg = len(lengths)
    if n_seg and len(values) and np.all(lengths == lengths[0]):
        return np.cumsum(values.reshape(n_seg, -1), axis=1).reshape(-1)
    total = np.cumsum(values)
    before = np.concatenate(([0.0], total))[offsets[:-1]]
    return total - np.repeat(before, lengths)


def segment_positions(offsets: np.ndarray, n: int) -> np.ndarray:
    """0-based position of each element inside its segment.

    >>> import numpy as np
    >>> segment_positions(np.array([0, 2, 5]), 5).tolist()
    [0, 1, 0, 1, 2]
    """
    return np.arange(n) - np.repeat(offsets[:-1], np.diff(offsets))


def sort_segments_desc(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``values`` sorted in descending order inside each segment.

    >>> import numpy as np
    >>> sort_segments_desc(np.array([1.0, 3.0, 2.0, 5.0]), np.array([0, 3, 4])).tolist()
    [3.0, 2.0, 1.0, 5.0]
    """
    seg = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    return values[np.lexsort((-values, seg))]


def sums_at_cutoffs(
    values: np.ndarray,
    offsets: np.ndarray,
    positions: np.ndarray,
    cutoffs: list[int | None | np.ndarray],
) -> np.ndarray:
    """Per-segment sums of ``values`` over positions ``< k``, for every cutoff.

    Parameters
    ----------
    values : ndarray, shape (N,)
    offsets : ndarray, shape (Q + 1,)
    positions : ndarray, shape (N,)
        0-based position of each value in its segment.
    cutoffs : list of (int, None or ndarray of shape (Q,))
        ``None`` sums the whole segment; an array gives one cutoff per segment.

    Returns
    -------
    ndarray, shape (Q, len(cutoffs))

    Examples
    --------
    >>> import numpy as np
    >>> off = np.array([0, 3, 4]); pos = np.array([0, 1, 2, 0])
    >>> sums_at_cutoffs(np.array([1.0, 2.0, 3.0, 4.0]), off, pos, [1, None]).tolist()
    [[1.0, 6.0], [4.0, 4.0]]
    """
    out = np.empty((len(offsets) - 1, len(cutoffs)), dtype=np.float64)
    for c, k in enumerate(cutoffs):
        if k is None:
            masked = values
        else:
            limit = np.repeat(k, np.diff(offsets)) if isinstance(k, np.ndarray) else k
            masked = np.where(positions < limit, values, 0.0)
        out[:, c] = segment_sum(masked, offsets)
    return out
