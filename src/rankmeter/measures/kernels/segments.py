"""Segmented (per-query, per-group) reductions over CSR arrays, without Python loops."""

from __future__ import annotations

from functools import lru_cache

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


@lru_cache(maxsize=64)
def _pairwise_plan(n: int) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """The blocks NumPy's pairwise sum of ``n`` float64 values adds up, and how it adds their sums.

    NumPy halves a run longer than 128 values (the half rounded down to a
    multiple of 8) until 128 or fewer are left, and adds the two halves' sums.
    Returns each block's start and length (blocks are nodes ``0 .. B-1``, in
    order) and the additions, level by level from the leaves: for each level
    ``(left, right, node)`` arrays, ``sum[node] = sum[left] + sum[right]``;
    the last node is the whole run.
    """
    starts: list[int] = []
    lengths: list[int] = []
    inner: list[tuple[int, int, int]] = []  # (left, right, height), numbered after the blocks

    def build(start: int, length: int) -> tuple[int, int]:
        if length <= 128:
            starts.append(start)
            lengths.append(length)
            return -len(starts), 0  # blocks get negative ids until the count is known
        half = length // 2 - (length // 2) % 8
        (left, lh), (right, rh) = build(start, half), build(start + half, length - half)
        inner.append((left, right, max(lh, rh) + 1))
        return len(inner) - 1, max(lh, rh) + 1

    build(0, n)
    n_blocks = len(starts)

    def node(i: int) -> int:
        return -i - 1 if i < 0 else n_blocks + i

    levels = []
    for h in range(1, max((x[2] for x in inner), default=0) + 1):
        ops = [(node(a), node(b), n_blocks + k) for k, (a, b, hk) in enumerate(inner) if hk == h]
        levels.append(tuple(np.array(col, dtype=np.int64) for col in zip(*ops, strict=True)))
    return np.array(starts, dtype=np.int64), np.array(lengths, dtype=np.int64), levels  # type: ignore[return-value]


@lru_cache(maxsize=64)
def _pairwise_lanes(n: int) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``n`` positions: its block in :func:`_pairwise_plan` and its running sum (-1: added alone).

    >>> block, lane = _pairwise_lanes(300)  # blocks of 72, 72, 72 and 84 values; 80 of the last in 8 running sums
    >>> block[[0, 143, 144, 299]].tolist(), lane[[0, 9, 143, 295, 296]].tolist()
    ([0, 1, 2, 3], [0, 1, 7, 7, -1])
    """
    starts, lengths, _ = _pairwise_plan(n)
    block = np.repeat(np.arange(len(starts)), lengths)
    offset = np.arange(n) - starts[block]
    length = lengths[block]
    lane = np.where((length >= 8) & (offset < length - length % 8), offset % 8, -1)
    return block, lane


def dense_row_sums(values: np.ndarray, offsets: np.ndarray, positions: np.ndarray, width: int) -> np.ndarray:
    """Sums of rows of ``width`` values stored sparsely, to the last bit what NumPy gives for the complete rows.

    Row i holds ``values[offsets[i]:offsets[i+1]]`` at 0-based ``positions``
    (increasing inside a row) and zeros elsewhere. The result equals
    :func:`segment_sum` of the complete rows, which is ``np.add.reduceat``: the
    first value plus NumPy's pairwise sum of the others. That sum adds blocks
    of at most 128 values; inside a block eight running sums take every
    eighth value (blocks under 8 values: one running sum), are added as
    ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, and the values
    after the last multiple of 8 follow one by one. Adding a zero changes no
    sum, so replaying those additions over the stored values alone, in
    position order (``np.bincount`` and ``np.add.at`` add in input order),
    gives the same numbers.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> rows = np.where(rng.random((3, 1000)) < 0.1, rng.random((3, 1000)), 0.0)
    >>> row, pos = np.nonzero(rows)
    >>> offsets = np.concatenate(([0], np.cumsum(np.bincount(row, minlength=3))))
    >>> sums = dense_row_sums(rows[row, pos], offsets, pos, 1000)
    >>> bool(np.array_equal(sums, segment_sum(rows.reshape(-1), np.arange(4) * 1000)))
    True
    """
    n_rows = len(offsets) - 1
    out = np.zeros(n_rows)
    if width == 0 or not len(values):
        return out
    values = np.asarray(values, dtype=np.float64)
    row = np.repeat(np.arange(n_rows), np.diff(offsets))
    if 8 * len(values) > n_rows * width:  # dense enough: sum the complete rows themselves
        rows = np.zeros(n_rows * width)
        rows[row * width + positions] = values
        return segment_sum(rows, np.arange(n_rows + 1) * width)
    first = positions == 0
    out[row[first]] = values[first]
    rest = ~first
    row, p, v = row[rest], positions[rest] - 1, values[rest]
    starts, _, levels = _pairwise_plan(width - 1)
    n_blocks = len(starts)
    block_of, lane_of = _pairwise_lanes(width - 1)
    block, lane = block_of[p], lane_of[p]
    in_lane = lane >= 0
    cell = row * n_blocks + block
    lanes = np.bincount(cell[in_lane] * 8 + lane[in_lane], v[in_lane], minlength=n_rows * n_blocks * 8)
    r = lanes.reshape(n_rows, n_blocks, 8)
    sums = np.empty((n_rows, n_blocks + sum(len(level[2]) for level in levels)))
    sums[:, :n_blocks] = ((r[..., 0] + r[..., 1]) + (r[..., 2] + r[..., 3])) + (
        (r[..., 4] + r[..., 5]) + (r[..., 6] + r[..., 7])
    )
    after = ~in_lane  # the values after a block's last multiple of 8 (whole blocks under 8 values): one by one
    if after.any():
        flat = sums[:, :n_blocks].reshape(-1).copy()
        np.add.at(flat, cell[after], v[after])
        sums[:, :n_blocks] = flat.reshape(n_rows, n_blocks)
    for left, right, node in levels:
        sums[:, node] = sums[:, left] + sums[:, right]
    return out + sums[:, -1]


def segment_cumsum(values: np.ndarray, offsets: np.ndarray, per_segment: bool = False) -> np.ndarray:
    """Inclusive running sum of ``values`` restarting at every segment.

    Segments of one length are summed row by row, each on its own. Others
    take one running sum of everything minus the sum before each segment,
    which can round differently from a segment's own sum; ``per_segment=True``
    sums each segment on its own instead (the segments padded with zeros to
    the longest, so memory grows with the longest).

    >>> import numpy as np
    >>> segment_cumsum(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 2, 4])).tolist()
    [1.0, 3.0, 3.0, 7.0]
    >>> segment_cumsum(np.array([1e16, 1.0, 1.0]), np.array([0, 1, 3]), per_segment=True).tolist()
    [1e+16, 1.0, 2.0]
    """
    values = np.asarray(values, dtype=np.float64)
    lengths = np.diff(offsets)
    n_seg = len(lengths)
    if n_seg and len(values) and np.all(lengths == lengths[0]):
        return np.cumsum(values.reshape(n_seg, -1), axis=1).reshape(-1)
    if per_segment and len(values):
        inside = np.arange(int(lengths.max())) < lengths[:, None]
        padded = np.zeros(inside.shape)
        padded[inside] = values
        return np.cumsum(padded, axis=1)[inside]
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
    row_width: int | None = None,
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
    row_width : int, optional
        The segments are sparse rows of this many items (positions say where
        each value is): sum them as the complete rows (:func:`dense_row_sums`).

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
        out[:, c] = (
            segment_sum(masked, offsets) if row_width is None else dense_row_sums(masked, offsets, positions, row_width)
        )
    return out
