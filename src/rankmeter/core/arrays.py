"""Small NumPy helpers for the core's hot paths."""

from __future__ import annotations

import numpy as np


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending: ``np.unique(values)``.

    NumPy 2's ``np.unique`` imports ``numpy.ma`` on first use (about 6 ms of
    every small job); a sort and a comparison of neighbours do not.

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
