"""Items removed from the rows of a dense matrix (``mask=`` / ``exclude=``), validated once.

A removed item leaves its row's ranking and its row's ideal. The items are
kept either as a dense boolean matrix (``mask=``, or a dense ``exclude=``)
or, for a ``scipy.sparse`` ``exclude=``, as the sorted flat positions
``row * list_size + column`` of the removed items, so that a few removed
items per row cost a few numbers per row.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError


@dataclass(frozen=True)
class RemovedItems:
    """The items removed from each row of an ``(n, m)`` matrix (rows ``first_row`` ... of a larger one).

    Attributes
    ----------
    shape : tuple of int
        ``(n, m)``.
    keep : ndarray of bool, shape (n, m), or None
        Dense form: True where an item stays.
    flat : ndarray of int64 or None
        Sparse form: the sorted flat positions ``row * m + column`` of the
        removed items, rows counted from 0 for this matrix.
    row_counts : ndarray of int64, shape (n,), or None
        Removed items per row when known at construction (else counted on
        first use of :attr:`counts`).
    """

    shape: tuple[int, int]
    keep: np.ndarray | None = None
    flat: np.ndarray | None = None
    row_counts: np.ndarray | None = None

    @cached_property
    def counts(self) -> np.ndarray:
        """Removed items per row (int64)."""
        if self.row_counts is not None:
            return self.row_counts
        if self.flat is not None or "positions" in self.__dict__:  # the positions, when already found
            return np.bincount(self.positions // max(self.shape[1], 1), minlength=self.shape[0]).astype(np.int64)
        assert self.keep is not None
        return self.shape[1] - np.count_nonzero(self.keep, axis=1).astype(np.int64)

    @cached_property
    def total(self) -> int:
        """Removed items in all rows (the dense form counts them without a count per row)."""
        if self.row_counts is None and self.keep is not None:
            return int(self.keep.size - np.count_nonzero(self.keep))
        return int(self.counts.sum())

    @property
    def kept_counts(self) -> np.ndarray:
        """Items left in each row."""
        return self.shape[1] - self.counts

    def any_row_emptied(self) -> bool:
        """Whether a row has no item left.

        >>> from_mask(np.array([[True, False], [False, False]])).any_row_emptied()
        True
        """
        n, m = self.shape
        if self.keep is not None and self.row_counts is None:  # a row lost m items only if m were removed
            return n > 0 and (m == 0 or self.total >= m and not bool(self.keep.any(axis=1).all()))
        return bool(n and self.counts.max() == m)

    @cached_property
    def positions(self) -> np.ndarray:
        """The sorted flat positions ``row * m + column`` of the removed items (the dense form: found on first use).

        >>> from_mask(np.array([[True, False], [False, True]])).positions.tolist()
        [1, 2]
        """
        if self.flat is not None:
            return self.flat
        assert self.keep is not None
        return np.flatnonzero(~self.keep)

    def rows(self, a: int, b: int) -> RemovedItems:
        """The removed items of rows ``a`` to ``b`` (exclusive), as a matrix of their own.

        >>> r = from_sparse_positions(np.array([1, 4, 5]), (3, 2))
        >>> r.rows(1, 3).flat.tolist(), r.rows(1, 3).counts.tolist()
        ([2, 3], [0, 2])
        """
        n, m = self.shape
        a, b = max(0, a), min(b, n)
        known = self.__dict__.get("counts")  # sliced when already counted
        if self.keep is not None:
            return RemovedItems((b - a, m), keep=self.keep[a:b], row_counts=None if known is None else known[a:b])
        assert self.flat is not None
        lo, hi = np.searchsorted(self.flat, [a * m, b * m])
        return RemovedItems((b - a, m), flat=self.flat[lo:hi] - a * m, row_counts=self.counts[a:b])

    def masked_scores(self, scores: np.ndarray, stride: int = 1) -> np.ndarray:
        """A copy of ``scores`` with ``-inf`` at every removed item; ``scores`` holds every ``stride``-th column.

        A dense form that removes few items (at most one in :data:`SPARSE_SHARE`)
        is copied and written over at its removed items' positions, like the
        sparse form; otherwise the two matrices are selected from.

        >>> r = from_sparse_positions(np.array([1, 4]), (2, 3))
        >>> r.masked_scores(np.array([[0.5, 0.2, 0.9], [0.1, 0.3, 0.4]])).tolist()
        [[0.5, -inf, 0.9], [0.1, -inf, 0.4]]
        >>> from_sparse_positions(np.array([2]), (1, 3)).masked_scores(np.array([[0.5, 0.9]]), stride=2).tolist()
        [[0.5, -inf]]
        >>> from_mask(np.array([[True, False, True]])).masked_scores(np.array([[0.5, 0.9]]), stride=2).tolist()
        [[0.5, 0.9]]
        """
        if self.keep is not None and (stride > 1 or self.total * SPARSE_SHARE > self.keep.size):
            return np.where(self.keep[:, ::stride], scores, scores.dtype.type(-np.inf))
        out = np.array(scores, copy=True, order="C")
        flat = self.positions
        if stride > 1:
            cols = flat % self.shape[1]
            sampled = cols % stride == 0
            flat = flat[sampled] // self.shape[1] * out.shape[1] + cols[sampled] // stride
        out.reshape(-1)[flat] = -np.inf
        return out

    def kept(self, positions: np.ndarray) -> np.ndarray:
        """Whether each of the flat positions (ascending, ``row * m + column``) stays.

        >>> from_sparse_positions(np.array([1, 4]), (2, 3)).kept(np.array([0, 1, 4, 5])).tolist()
        [True, False, False, True]
        """
        if self.keep is not None:
            return self.keep.reshape(-1)[positions]
        return ~self.removed_bitmap[positions]

    @cached_property
    def removed_bitmap(self) -> np.ndarray:
        """One flag per item of this matrix, row-major: True where removed (built once, on first use)."""
        bitmap = np.zeros(self.shape[0] * self.shape[1], dtype=bool)
        bitmap[self.flat] = True
        return bitmap

    def keep_matrix(self) -> np.ndarray:
        """The dense boolean matrix of the items that stay."""
        if self.keep is not None:
            return self.keep
        keep = np.ones(self.shape, dtype=bool)
        keep.reshape(-1)[self.flat] = False
        return keep


SPARSE_SHARE = 8
"""A block whose mask removes at most one item in this many has its scores copied and written over at those items."""


def from_mask(keep: np.ndarray) -> RemovedItems:
    """The items where the boolean matrix ``keep`` is False.

    The mask itself is kept: nothing is counted or searched until a block of
    rows asks (its removed items' positions, its counts per row). The top-k
    path reads the mask only at the sampled columns and at the candidates.

    >>> keep = np.ones((2, 20), dtype=bool); keep[1, 3] = False
    >>> r = from_mask(keep)
    >>> r.total, r.positions.tolist(), r.counts.tolist()
    (1, [23], [0, 1])
    """
    return RemovedItems(keep.shape, keep=keep)


def from_sparse_positions(flat: np.ndarray, shape: tuple[int, int]) -> RemovedItems:
    """The items at the sorted, distinct flat positions ``flat`` (``row * m + column``)."""
    return RemovedItems(shape, flat=flat.astype(np.int64, copy=False))


def _mask_matrix(mask: Any, shape: tuple[int, int], name: str) -> np.ndarray:
    """A dense boolean ``mask=`` or ``exclude=`` as an array of ``shape`` (one row may be given as 1-D)."""
    arr = np.asarray(mask)
    if arr.ndim == 1 and shape[0] == 1:
        arr = arr[None, :]
    if arr.shape != shape:
        raise InputFormatError(f"{name} has shape {arr.shape}, expected {shape}")
    if arr.dtype != bool:
        raise InputFormatError(
            f"{name} must be boolean{' or a scipy.sparse matrix' if name == 'exclude' else ''}, got dtype {arr.dtype}"
        )
    return np.ascontiguousarray(arr)


def is_sparse(x: Any) -> bool:
    """Whether ``x`` is a ``scipy.sparse`` matrix or array (without importing SciPy for other inputs)."""
    if not type(x).__module__.startswith("scipy.sparse"):
        return False
    import scipy.sparse

    return bool(scipy.sparse.issparse(x))


def sparse_positions(matrix: Any, shape: tuple[int, int], name: str = "exclude") -> np.ndarray:
    """The sorted, distinct flat positions of the non-zero entries of a ``scipy.sparse`` matrix of ``shape``.

    Entries stored with the value 0 are not removed; an entry stored twice counts once.

    >>> import scipy.sparse
    >>> m = scipy.sparse.coo_array(([1, 1, 0, 1], ([0, 1, 1, 0], [2, 0, 1, 2])), shape=(2, 3))
    >>> sparse_positions(m, (2, 3)).tolist()
    [2, 3]
    """
    if tuple(matrix.shape) != shape:
        raise InputFormatError(f"{name} has shape {tuple(matrix.shape)}, expected {shape} (the shape of y_score)")
    csr = matrix.tocsr()
    rows = np.repeat(np.arange(shape[0], dtype=np.int64), np.diff(csr.indptr))
    flat = rows * shape[1] + np.asarray(csr.indices, dtype=np.int64)
    flat = flat[np.asarray(csr.data) != 0]
    if len(flat) > 1 and not (flat[1:] > flat[:-1]).all():  # unsorted or repeated columns in a row
        flat.sort()
        flat = flat[np.concatenate(([True], flat[1:] != flat[:-1]))]
    return flat


def removed_items(mask: Any, exclude: Any, shape: tuple[int, int]) -> RemovedItems:
    """The items that ``mask=`` (False: removed) and ``exclude=`` (True or a non-zero sparse entry) remove.

    >>> r = removed_items(np.array([[True, False, True]]), None, (1, 3))
    >>> r.counts.tolist(), r.keep_matrix().tolist()
    ([1], [[True, False, True]])
    >>> import scipy.sparse
    >>> r = removed_items(None, scipy.sparse.csr_array(np.array([[0, 1, 1], [0, 0, 0]])), (2, 3))
    >>> r.counts.tolist(), r.flat.tolist()
    ([2, 0], [1, 2])
    """
    keep = None if mask is None else _mask_matrix(mask, shape, "mask")
    if exclude is None:
        assert keep is not None
        return from_mask(keep)
    if is_sparse(exclude):
        flat = sparse_positions(exclude, shape)
        if keep is None:
            return from_sparse_positions(flat, shape)
        keep = keep.copy(order="C")
        keep.reshape(-1)[flat] = False
        return from_mask(keep)
    dense = _mask_matrix(exclude, shape, "exclude")
    return from_mask(~dense if keep is None else keep & ~dense)


def lost_relevant(y_true: np.ndarray, removed: RemovedItems, rows: np.ndarray | None = None) -> np.ndarray:
    """Whether each row (or each of ``rows``) had an item with a grade > 0 removed.

    The sparse form reads only the removed items' grades; the dense form
    reads the mask and the grades of ``rows`` alone (all rows when None).

    >>> y = np.array([[1, 0, 2], [1, 0, 0]])
    >>> lost_relevant(y, removed_items(None, np.array([[0, 1, 0], [0, 0, 1]]) > 0, (2, 3))).tolist()
    [False, False]
    >>> lost_relevant(y, removed_items(np.array([[0, 1, 1], [1, 1, 1]]) > 0, None, (2, 3))).tolist()
    [True, False]
    >>> lost_relevant(y, removed_items(np.array([[0, 1, 1], [1, 1, 1]]) > 0, None, (2, 3)), np.array([1])).tolist()
    [False]
    >>> import scipy.sparse
    >>> seen = scipy.sparse.csr_array([[1, 1, 0], [1, 0, 1]])
    >>> lost_relevant(y, removed_items(None, seen, (2, 3)), np.array([1, 0])).tolist()
    [True, True]
    """
    n, m = removed.shape
    if rows is None:
        where = removed.positions
        hit = where[y_true.reshape(-1)[where] > 0]
        return np.bincount(hit // max(m, 1), minlength=n) > 0
    if removed.keep is not None:
        return np.asarray(((y_true[rows] > 0) & ~removed.keep[rows]).any(axis=1))
    assert removed.flat is not None
    lo, hi = np.searchsorted(removed.flat, rows * m), np.searchsorted(removed.flat, (rows + 1) * m)
    owner = np.repeat(np.arange(len(rows)), hi - lo)  # the removed items of those rows, row by row
    where = removed.flat[np.arange(len(owner)) - np.repeat(np.cumsum(hi - lo) - hi, hi - lo)]
    return np.bincount(owner[y_true.reshape(-1)[where] > 0], minlength=len(rows)) > 0


def removal_counts(y_true: np.ndarray, removed: RemovedItems, block_rows: int = 256) -> dict[str, int]:
    """``metadata`` counts of a call with removed items: the items removed, and the lists left with no relevant item.

    ``queries_relevant_all_excluded`` counts the lists that had an item with a
    grade > 0 and had every such item removed. Only the lists that lost a
    relevant item are read, ``block_rows`` rows at a time.

    >>> seen = np.array([[True, False, True], [False, True, False]])  # exclude=: the first list loses 1 and 2
    >>> removal_counts(np.array([[1, 0, 2], [1, 0, 0]]), removed_items(None, seen, (2, 3)))
    {'items_excluded': 3, 'queries_relevant_all_excluded': 1}
    """
    n, m = removed.shape
    emptied = 0
    if removed.total and removed.flat is not None:
        hit = removed.flat[y_true.reshape(-1)[removed.flat] > 0]  # removed relevant items
        lost = np.bincount(hit // max(m, 1), minlength=n)
        rows = np.flatnonzero(lost)
        for a in range(0, len(rows), block_rows):
            chunk = rows[a : a + block_rows]
            emptied += int(np.count_nonzero(np.count_nonzero(y_true[chunk] > 0, axis=1) == lost[chunk]))
    elif removed.total:
        keep = removed.keep_matrix().reshape(-1)
        for a in range(0, n, block_rows):
            b = min(a + block_rows, n)
            where = np.flatnonzero(y_true[a:b].reshape(-1) > 0) + a * m  # relevant items of the rows
            had = np.bincount(where // m - a, minlength=b - a)
            left = np.bincount(where[keep[where]] // m - a, minlength=b - a)
            emptied += int(np.count_nonzero((had > 0) & (left == 0)))
    return {"items_excluded": removed.total, "queries_relevant_all_excluded": emptied}
