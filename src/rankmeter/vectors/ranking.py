"""The general path: rank a block of queries against the database and build :class:`RankedLists`.

Works for every metric and tie policy. Each row of the block is one query's
ranked list over the whole database (minus the query itself with
``exclude_self``); the ideal of every measure comes from all those items
(dense semantics). The order inside a query is exactly
:func:`rankmeter.core.ties.rank_order`'s (score descending, then the tie rule --
``optimistic`` / ``pessimistic``: grade clipped at 0 descending / ascending --
then database index), computed row by row on the 2-D block, which is much
cheaper than one flat ``lexsort`` with a query key, and checked equal to
:func:`rankmeter.core.lists.rank_flat_lists` by the tests.

When only cutoff measures are asked, each row keeps only its top ``depth``
items plus the whole tied group at the boundary (``np.partition``), so the
sort and the kernels touch ``O(depth)`` items per query; the ideal still comes
from every item.

``shuffle`` draws each tie's order from a counter-based hash of
``(seed, query index, database index)`` (SplitMix64), so the order of a query
does not depend on the batch it was evaluated in.
"""

from __future__ import annotations

import numpy as np

from rankmeter.core.layout import RankedLists
from rankmeter.core.ties import rank_order, row_order, tie_group_starts

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)


def _splitmix64(x: np.ndarray) -> np.ndarray:
    z = x + _M1
    z = (z ^ (z >> np.uint64(30))) * _M2
    z = (z ^ (z >> np.uint64(27))) * _M3
    return z ^ (z >> np.uint64(31))


def shuffle_keys(seed: int | None, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Pseudo-random sort keys for ``(query row, database column)`` pairs, reproducible per seed.

    ``rows`` and ``cols`` broadcast against each other.

    >>> import numpy as np
    >>> k = shuffle_keys(7, np.array([[3]]), np.arange(4)[None, :])
    >>> k.shape, bool((k == shuffle_keys(7, np.array([[3]]), np.arange(4)[None, :])).all())
    ((1, 4), True)
    """
    s = np.array([0 if seed is None else seed], dtype=np.uint64)
    with np.errstate(over="ignore"):
        h = _splitmix64(_splitmix64(s) ^ np.asarray(rows, dtype=np.uint64))
        return _splitmix64(h ^ np.asarray(cols, dtype=np.uint64))


def rank_block(
    key: np.ndarray,
    grades: np.ndarray,
    *,
    ties: str,
    query_rows: np.ndarray,
    self_cols: np.ndarray | None = None,
    depth: int | None = None,
    seed: int | None = None,
) -> RankedLists:
    """Rank every row of a block: ``key`` ascending (a distance; minus a similarity), then the tie rule.

    Parameters
    ----------
    key : ndarray, shape (b, N)
        Smaller ranks first. The lists' scores are ``-key`` as float64.
    grades : ndarray of float64, shape (b, N)
    ties : {"stable", "expected", "optimistic", "pessimistic", "shuffle"}
    query_rows : ndarray of int, shape (b,)
        Global query index of each row (query ids and shuffle keys).
    self_cols : ndarray of int, shape (b,), optional
        Database item removed from each row (``-1``: none).
    depth : int, optional
        Keep only the top ``depth`` items of each row and whole tied groups at the boundary.
    seed : int, optional
        For ``shuffle``.

    Returns
    -------
    RankedLists
        Ideal grades are every (non-removed) item of the row (``ideal_is_list``).

    Examples
    --------
    >>> import numpy as np
    >>> r = rank_block(np.array([[2, 0, 2, 1]]), np.array([[1.0, 0.0, 2.0, 0.0]]), ties="stable",
    ...                query_rows=np.array([0]))
    >>> r.grades.tolist(), r.group_starts.tolist()
    ([0.0, 0.0, 1.0, 2.0], [0, 1, 2, 4])
    >>> rank_block(np.array([[2, 0, 2, 1]]), np.array([[1.0, 0.0, 2.0, 0.0]]), ties="optimistic",
    ...            query_rows=np.array([0]), depth=1).grades.tolist()
    [0.0]
    """
    b, n = key.shape
    valid: np.ndarray | None = None
    if self_cols is not None and (self_cols >= 0).any():
        valid = np.ones((b, n), dtype=bool)
        rows = np.flatnonzero(self_cols >= 0)
        valid[rows, self_cols[rows]] = False
    truncate = depth is not None and depth < n
    if valid is None and not truncate:
        order = _row_order(key, grades, ties, query_rows, seed)
        sorted_key = np.take_along_axis(key, order, axis=1).reshape(-1)
        sorted_grades = np.take_along_axis(grades, order, axis=1).reshape(-1)
        offsets = np.arange(b + 1, dtype=np.int64) * n
        item_query = np.repeat(np.arange(b), n)
        ideal_offsets, ideal_grades = offsets, grades.reshape(-1)
    else:
        keep = np.ones((b, n), dtype=bool) if valid is None else valid.copy()
        if truncate:
            assert depth is not None
            masked = key.astype(np.float64)
            if valid is not None:
                masked[~valid] = np.inf
            threshold = np.partition(masked, depth - 1, axis=1)[:, depth - 1]
            keep &= masked <= threshold[:, None]
        rows, cols = np.nonzero(keep)
        k, g = key[rows, cols], grades[rows, cols]
        order = _flat_order(rows, cols, k, g, ties, query_rows, seed)
        item_query = rows[order]
        sorted_key, sorted_grades = k[order], g[order]
        offsets = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=b)))).astype(np.int64)
        if valid is None:
            ideal_offsets, ideal_grades = np.arange(b + 1, dtype=np.int64) * n, grades.reshape(-1)
        else:
            ideal_offsets = np.concatenate(([0], np.cumsum(valid.sum(axis=1)))).astype(np.int64)
            ideal_grades = grades[valid]
    scores = -np.asarray(sorted_key, dtype=np.float64)
    return RankedLists(
        query_ids=np.asarray(query_rows).astype(str),
        offsets=offsets,
        grades=np.asarray(sorted_grades, dtype=np.float64),
        judged=np.ones(len(scores), dtype=bool),
        scores=scores,
        group_starts=tie_group_starts(item_query, scores),
        ideal_offsets=ideal_offsets,
        ideal_grades=np.asarray(ideal_grades, dtype=np.float64),
        ties=ties,
        ideal_is_list=True,  # the ideal holds every item of the list, also when only its top is ranked
    )


def _row_order(key: np.ndarray, grades: np.ndarray, ties: str, query_rows: np.ndarray, seed: int | None) -> np.ndarray:
    if ties in ("stable", "expected") and key.dtype.kind == "u" and key.dtype.itemsize <= 2:
        # Hamming distances: NumPy's stable sort of 8- and 16-bit integers is a radix sort (distance, then index)
        return np.argsort(key, axis=1, kind="stable")
    noise = None
    if ties == "shuffle":
        noise = shuffle_keys(seed, np.asarray(query_rows)[:, None], np.arange(key.shape[1])[None, :])
    return row_order(-np.asarray(key, dtype=np.float64), ties=ties, grades=grades, noise=noise)


def _flat_order(
    rows: np.ndarray,
    cols: np.ndarray,
    key: np.ndarray,
    grades: np.ndarray,
    ties: str,
    query_rows: np.ndarray,
    seed: int | None,
) -> np.ndarray:
    # items arrive row-major (database index ascending inside a row), as rank_order's input order
    noise = shuffle_keys(seed, np.asarray(query_rows)[rows], cols) if ties == "shuffle" else None
    scores = -np.asarray(key, dtype=np.float64)
    return rank_order(rows, scores, ties=ties, grades=grades, noise=noise)
