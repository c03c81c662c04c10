"""Small NumPy helpers for the core's hot paths."""

from __future__ import annotations

import numpy as np


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending: ``np.unique(values)``.

    NumPy 2's ``np.unique`` imports ``numpy.ma`` on first use (a cost every
    small job would pay); a sort and a comparison of neighbours do not.

    >>> sorted_unique(np.array(["b", "a", "b"])).tolist()
    ['a', 'b']
    >>> sorted_unique(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    ordered = np.sort(values, kind="stable")
    if len(ordered) < 2:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def count_distinct_sorted(values: np.ndarray) -> int:
    """Number of distinct values of an ascending array.

    >>> count_distinct_sorted(np.array([0, 0, 2, 5, 5])), count_distinct_sorted(np.array([]))
    (3, 0)
    """
    return int(np.count_nonzero(values[1:] != values[:-1])) + 1 if len(values) else 0


def code_counts(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """How many times each code ``0 .. n_codes - 1`` occurs: ``np.bincount(codes, minlength=n_codes)``.

    Codes that come in runs (a run file lists each query's rows together) are
    counted per run, from the places where the code changes, rather than one
    increment per row.

    >>> code_counts(np.array([2, 2, 2, 0, 0, 2]), 4).tolist()
    [2, 0, 4, 0]
    """
    if len(codes) >= 1024:
        starts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
        if len(starts) * 8 < len(codes):
            bounds = np.concatenate(([0], starts, [len(codes)]))
            counts = np.bincount(codes[bounds[:-1]], weights=np.diff(bounds), minlength=n_codes)
            return counts.astype(np.int64)
    return np.bincount(codes, minlength=n_codes)
