"""Build :class:`RankedLists` from flattened per-list arrays (dense and ragged input).

Dense matrices are processed in blocks of rows (a few MB of temporaries each),
on several threads when there are several blocks: NumPy's sorts, partitions and
gathers release the GIL, and every block writes its own slice of the outputs.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sized
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from rankmeter.core.layout import RankedLists
from rankmeter.core.ties import (
    exact_float32,
    rank_order,
    row_order,
    tie_group_starts,
    tied_items,
)

if TYPE_CHECKING:
    from rankmeter.io.dense import FlatLists
    from rankmeter.io.exclude import RemovedItems

T = TypeVar("T")
B = TypeVar("B")

BLOCK_ITEMS = 1 << 19
"""Items (rows x columns) a dense matrix is ranked in at a time: about 2 MB of float32 scores per temporary."""

EVALUATION_BLOCK_ITEMS = 1 << 21
"""Items of a dense matrix ranked and evaluated at a time (the kernels' temporaries are ~16 MB each)."""

MAX_THREADS = 8
"""Most threads a dense evaluation uses (never more than the CPUs this process may run on)."""


def rank_flat_lists(flat: FlatLists, *, ties: str, seed: int | None = None) -> RankedLists:
    """Order each list by score under ``ties``; every item is judged and the ideal is the list itself.

    Query ids are the list indices as strings (``"0"``, ``"1"``, ...). For
    ``ties="trec"`` the column index plays the document id (higher index first).
    """
    lengths = np.diff(flat.offsets)
    query = np.repeat(np.arange(len(lengths)), lengths)
    order = rank_order(query, flat.scores, ties=ties, doc_codes=flat.columns, grades=flat.grades, seed=seed)
    scores = flat.scores[order]
    weights = flat.item_weights[order] if flat.item_weights is not None else None
    # a list with no items (fully masked) has nothing to evaluate: weight 0, as keras-rs gives it
    list_weights = (lengths > 0).astype(np.float64) if flat.item_weights is None and (lengths == 0).any() else None
    return RankedLists(
        query_ids=np.arange(len(lengths)).astype(str),
        offsets=flat.offsets,
        grades=flat.grades[order],
        judged=np.ones(len(order), dtype=bool),
        scores=scores,
        group_starts=tie_group_starts(query, scores),
        ideal_offsets=flat.offsets,
        ideal_grades=flat.grades,
        ties=ties,
        item_weights=weights,
        ideal_weights=flat.item_weights,
        list_weights=list_weights,
        ideal_is_list=True,
    )


class NonFiniteInput(ValueError):
    """A block of a dense matrix holds a grade or score that is not finite (the caller says where)."""


def _check_finite(y_block: np.ndarray, s_block: np.ndarray, removed: RemovedItems | None = None) -> None:
    """Raise :class:`NonFiniteInput` for a grade or score that is not finite (removed items aside)."""
    if np.isfinite(s_block).all() and (y_block.dtype.kind != "f" or np.isfinite(y_block).all()):
        return
    if removed is None:
        raise NonFiniteInput
    keep = removed.keep_matrix()
    if (keep & ~np.isfinite(s_block)).any() or (y_block.dtype.kind == "f" and (keep & ~np.isfinite(y_block)).any()):
        raise NonFiniteInput


# --- blocks of rows ------------------------------------------------------------------------------------------
def row_blocks(n_rows: int, n_cols: int, block_rows: int | None = None) -> list[tuple[int, int]]:
    """``(start, stop)`` row ranges covering ``n_rows`` rows, about :data:`BLOCK_ITEMS` items each.

    >>> row_blocks(5, 3, block_rows=2)
    [(0, 2), (2, 4), (4, 5)]
    """
    step = block_rows if block_rows is not None else max(1, BLOCK_ITEMS // max(n_cols, 1))
    if step < 1:
        raise ValueError(f"block_rows must be >= 1, got {step}")
    return [(a, min(a + step, n_rows)) for a in range(0, n_rows, step)]


def usable_cpus() -> int:
    """The number of CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def map_blocks(fn: Callable[[B], T], blocks: Iterable[B], threads: int | None = None) -> Iterator[T]:
    """``fn`` applied to every block, results in block order; on a thread pool when there are several blocks.

    At most two blocks per thread are in flight, so finished results never pile up; ``blocks``
    may be an iterator (read one block at a time, in the caller's thread).

    >>> list(map_blocks(lambda b: b[1] - b[0], [(0, 2), (2, 5)], threads=2))
    [2, 3]
    """
    workers = min(MAX_THREADS, usable_cpus()) if threads is None else threads
    if isinstance(blocks, Sized):
        workers = min(workers, len(blocks))
    if workers <= 1:
        yield from map(fn, blocks)
        return
    from concurrent.futures import Future, ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[T]] = deque()
        try:
            for block in blocks:
                pending.append(pool.submit(fn, block))
                if len(pending) >= 2 * workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def _pad_rows(
    values: np.ndarray, counts: np.ndarray, fill: float, width: int | None = None, dtype: type | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Row-major ``values`` (``counts[i]`` of row i) as a matrix padded with ``fill``, and where the values are."""
    inside = np.arange(int(counts.max(initial=0)) if width is None else width) < counts[:, None]
    padded = np.full(inside.shape, fill, dtype=dtype or values.dtype)
    padded[inside] = values
    return padded, inside


# --- compact ideal -----------------------------------------------------------------------------------------------
def ideal_width(n_cols: int, need: int) -> int:
    """The shortest row length >= ``need`` whose sums equal those of ``n_cols``-long rows ending in zeros.

    Kernels sum rows with ``np.add.reduceat``: the first item, plus NumPy's
    pairwise sum of the others, which halves its length (rounded down to a
    multiple of 8) until 128 or fewer are left. When every non-zero value lies
    in the first half, the sum of the whole row is the sum of that half,
    exactly; so a row cut to ``1 +`` one of those lengths keeps its sums to the
    last bit, and a row's value never depends on the other rows it is
    evaluated with.

    >>> ideal_width(2000, 70), ideal_width(2000, 122), ideal_width(2000, 1500), ideal_width(100, 5)
    (121, 249, 2000, 100)
    """
    width, rest = n_cols, n_cols - 1
    while rest > 128:
        rest = rest // 2 - (rest // 2) % 8
        if rest + 1 < need:
            break
        width = rest + 1
    return width


def _positive_ideal(
    counts: np.ndarray, values: np.ndarray, n_cols: int, min_width: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Each row's positive grades (column order) padded with zeros to one width; None when that saves little."""
    n = len(counts)
    width = ideal_width(n_cols, max(int(counts.max(initial=0)), min(min_width, n_cols)))
    if 2 * width > n_cols:
        return None
    ideal, _ = _pad_rows(values, counts, 0.0, width, np.float64)
    return np.arange(n + 1, dtype=np.int64) * width, ideal.reshape(-1)


def _positives(y_block: np.ndarray, removed: RemovedItems | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(count per row, values in row-major order) of the positive grades of a block (removed items left out)."""
    flat = y_block.reshape(-1)
    where = np.flatnonzero(flat > 0)
    if removed is not None:
        where = where[removed.kept(where)]
    return np.bincount(where // y_block.shape[1], minlength=y_block.shape[0]), flat[where]


def _ideal_arrays(
    y_true: np.ndarray,
    positives: list[tuple[np.ndarray, np.ndarray]] | None,
    min_width: int,
    removed: RemovedItems | None = None,
) -> tuple[np.ndarray, np.ndarray, bool]:
    n, m = y_true.shape
    if positives is not None and n and m:
        compact = _positive_ideal(
            np.concatenate([c for c, _ in positives]), np.concatenate([v for _, v in positives]), m, min_width
        )
        if compact is not None:
            return compact[0], compact[1], True
    if removed is not None:  # each row's items that stay, in column order
        offsets = np.concatenate(([0], np.cumsum(removed.kept_counts))).astype(np.int64)
        return offsets, np.asarray(y_true[removed.keep_matrix()], dtype=np.float64), False
    return np.arange(n + 1, dtype=np.int64) * m, np.asarray(y_true, dtype=np.float64).reshape(-1), False


# --- dense matrices ------------------------------------------------------------------------------------------------
SAMPLE_STRIDE = 16
"""Every this many columns, :func:`top_items` samples a row to bound its k-th largest score from below."""


def top_items(scores: np.ndarray, k: int, removed: RemovedItems | None = None) -> np.ndarray:
    """Flat (row-major) positions of every item scoring at least its row's k-th largest score, ascending.

    The k-th largest of a sample of each row (every :data:`SAMPLE_STRIDE`-th
    column) is at most the row's own, so the items scoring at least it hold
    the row's top k; the exact k-th largest is then selected among those few
    candidates (``np.partition`` of about ``k * SAMPLE_STRIDE`` items instead
    of the whole row). Rows too short for a sample of 4k items, or whose
    candidates are more than a quarter of the row (many ties), are
    partitioned whole. ``removed`` items are left out (their scores are not
    read): they score ``-inf`` in the sample, and in a copy of the rows when
    these are partitioned whole.

    >>> s = np.array([[0.5, 0.9, 0.1, 0.9, 0.3]])
    >>> top_items(s, 2).tolist(), top_items(s, 3).tolist()
    ([1, 3], [0, 1, 3])
    >>> r = np.random.default_rng(0).random((3, 4000))
    >>> bool(np.array_equal(top_items(r, 10), np.flatnonzero(r >= np.sort(r, axis=1)[:, -10:-9])))
    True
    """
    n, m = scores.shape
    if m >= 4 * k * SAMPLE_STRIDE:
        sample = scores[:, ::SAMPLE_STRIDE]
        sample = np.array(sample) if removed is None else removed.masked_scores(sample, SAMPLE_STRIDE)  # a copy
        j = sample.shape[1] - k
        sample.partition(j, axis=1)  # in place: the copy above is the only one
        floor = sample[:, j]  # at most the k-th largest score of each row's items left
        candidates = np.flatnonzero(scores >= floor[:, None])
        if removed is not None:
            candidates = candidates[removed.kept(candidates)]
        counts = np.bincount(candidates // m, minlength=n)
        width = int(counts.max(initial=0))
        if 4 * width <= m and (counts >= k).all():  # else a row has fewer than k items left, or many ties
            values = scores.reshape(-1)[candidates]
            padded, _ = _pad_rows(values, counts, -np.inf)
            kth = np.partition(padded, width - k, axis=1)[:, width - k]
            return candidates[values >= np.repeat(kth, counts)]
    work = scores if removed is None else removed.masked_scores(scores)
    kth = np.partition(work, m - k, axis=1)[:, m - k]
    where = np.flatnonzero(work >= kth[:, None])
    return where if removed is None else where[removed.kept(where)]  # rows with < k items left: -inf ones cut


def rank_dense_top(
    y_true: np.ndarray,
    y_score: np.ndarray,
    k: int,
    *,
    ties: str,
    compact_ideal: bool = False,
    first_row: int = 0,
    check_finite: bool = False,
    block_rows: int | None = None,
    threads: int | None = None,
    removed: RemovedItems | None = None,
) -> RankedLists:
    """Rank only the top of each row of a dense matrix: every item scoring at least the k-th score.

    The whole tied group at the k-th position is kept, so every measure at a
    cutoff <= k is exact under every deterministic tie policy and under
    ``expected``. Runs in O(n m) with partial selection (``np.partition``)
    instead of sorting every row, block by block of rows.

    Parameters
    ----------
    y_true : ndarray, shape (n, m)
        Grades (any real dtype; gathered items become float64).
    y_score : ndarray of float32 or float64, shape (n, m)
        Finite scores.
    k : int
        The largest cutoff, ``1 <= k <= m``.
    ties : str
        Any policy but ``shuffle``.
    compact_ideal : bool, default False
        Keep only the positive grades of each row in the ideal arrays (padded
        with zeros to one width of at least ``k + 1``, see :func:`ideal_width`;
        ``ideal_positive_only``), instead of the complete rows. Only for
        measures that read the ideal through grades > 0 (see
        ``rankmeter.evaluate``); falls back to complete rows when that saves
        little.
    first_row : int, default 0
        Index of the first row when the matrix is a block of rows of a larger
        one: query ids are row indices.
    check_finite : bool, default False
        Raise :class:`NonFiniteInput` when a grade or score is not finite
        (checked block by block, while the block is in cache).
    block_rows : int, optional
        Rows per block (default: about :data:`BLOCK_ITEMS` items).
    threads : int, optional
        Threads (default: one per CPU, at most :data:`MAX_THREADS`).
    removed : RemovedItems, optional
        Items left out of each row's ranking and ideal (``mask=`` /
        ``exclude=``; the items of this matrix, rows counted from 0). Their
        scores and grades are never read; the k-th score is that of the
        items left (partial selection of a copy of each block with ``-inf``
        at the removed items), and a row with fewer than k items keeps all
        of them.

    Returns
    -------
    RankedLists

    Examples
    --------
    >>> import numpy as np
    >>> r = rank_dense_top(np.array([[0., 1, 2, 0]]), np.array([[.1, .5, .5, .9]]), 2, ties="expected")
    >>> r.offsets.tolist(), r.scores.tolist()
    ([0, 3], [0.9, 0.5, 0.5])
    >>> y = np.zeros((1, 300)); y[0, [3, 7]] = [1, 2]
    >>> c = rank_dense_top(y, np.arange(300.0)[None], 1, ties="stable", compact_ideal=True, first_row=4)
    >>> c.grades.tolist(), c.ideal_grades[:3].tolist(), len(c.ideal_grades), c.query_ids.tolist()
    ([0.0], [1.0, 2.0, 0.0], 73, ['4'])
    """
    n, m = y_score.shape
    if not 1 <= k <= m:
        raise ValueError(f"k must be in 1..{m}, got {k}")

    def top(block: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
        a, b = block
        s_block, y_block = y_score[a:b], y_true[a:b]
        gone = removed.rows(a, b) if removed is not None else None
        if check_finite:
            _check_finite(y_block, s_block, gone)
        where = top_items(s_block, k, gone)
        counts = np.bincount(where // m, minlength=b - a)
        width = int(counts.max(initial=0))
        scores, grades = s_block.reshape(-1)[where], y_block.reshape(-1)[where]
        inside = None
        if np.all(counts == width):
            scores, grades = scores.reshape(b - a, width), grades.reshape(b - a, width)
        else:  # pad the rows that kept fewer items with -inf (ranked after every finite score)
            scores, inside = _pad_rows(scores, counts, -np.inf)
            grades, _ = _pad_rows(grades, counts, 0.0, dtype=np.float64)
        # ranking the kept items by column inside each row applies the tie rule to the original columns
        order = row_order(scores, ties=ties, grades=grades)
        scores, grades = np.take_along_axis(scores, order, axis=1), np.take_along_axis(grades, order, axis=1)
        if inside is not None:
            scores, grades = scores[inside], grades[inside]
        positives = _positives(y_block, gone) if compact_ideal else None
        return counts, scores.reshape(-1), grades.reshape(-1), positives

    parts = list(map_blocks(top, row_blocks(n, m, block_rows), threads))
    counts = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    scores = np.concatenate([p[1] for p in parts]).astype(np.float64) if parts else np.zeros(0)
    grades = np.concatenate([p[2] for p in parts]).astype(np.float64) if parts else np.zeros(0)
    positives = [p[3] for p in parts if p[3] is not None] if compact_ideal else None
    ideal_offsets, ideal_grades, compact = _ideal_arrays(y_true, positives, k + 1, removed)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return RankedLists(
        query_ids=np.arange(first_row, first_row + n).astype(str),
        offsets=offsets,
        grades=grades,
        judged=np.ones(len(grades), dtype=bool),
        scores=scores,
        group_starts=tie_group_starts(np.repeat(np.arange(n), counts), scores),
        ideal_offsets=ideal_offsets,
        ideal_grades=ideal_grades,
        ties=ties,
        ideal_is_list=True,
        ideal_positive_only=compact,
    )


def rank_dense(
    y_true: np.ndarray,
    y_score: np.ndarray,
    *,
    ties: str,
    seed: int | None = None,
    compact_ideal: bool = False,
    min_ideal_width: int = 0,
    first_row: int = 0,
    check_finite: bool = False,
    block_rows: int | None = None,
    threads: int | None = None,
    removed: RemovedItems | None = None,
) -> RankedLists:
    """Rank every row of a dense matrix, block by block of rows (no global sort of all items).

    Parameters
    ----------
    y_true : ndarray, shape (n, m)
        Grades (any real dtype; stored as float64).
    y_score : ndarray of float32 or float64, shape (n, m)
        Finite scores (the ranked ``scores`` keep their dtype).
    ties : str
    seed : int, optional
        For ``shuffle``: one uniform key per item, drawn row by row from
        ``numpy.random.default_rng(seed)`` for the whole matrix (also when it
        is ranked block by block).
    compact_ideal : bool, default False
        As in :func:`rank_dense_top`; rows are padded to at least ``min_ideal_width``.
    min_ideal_width : int, default 0
    first_row : int, default 0
        As in :func:`rank_dense_top`; with ``shuffle`` the keys are those of
        rows ``first_row`` ... of the larger matrix.
    check_finite : bool, default False
        As in :func:`rank_dense_top`.
    block_rows, threads : int, optional
        As in :func:`rank_dense_top` (``shuffle`` runs on one thread).
    removed : RemovedItems, optional
        As in :func:`rank_dense_top`: removed items score ``-inf`` in a copy
        of each block, so they come after the others, and are then cut off
        the end of each row (not with ``shuffle``, whose keys are drawn for
        every item).

    Returns
    -------
    RankedLists

    Examples
    --------
    >>> import numpy as np
    >>> r = rank_dense(np.array([[0., 1, 2]]), np.array([[.1, .5, .9]]), ties="stable")
    >>> r.grades.tolist()
    [2.0, 1.0, 0.0]
    """
    n, m = y_score.shape
    if removed is not None and ties == "shuffle":
        raise ValueError("rank_dense: removed items are not supported with ties='shuffle'")
    total = n * m
    grades = np.empty(total, dtype=np.float64)
    scores = np.empty(total, dtype=y_score.dtype)
    starts = np.empty(total, dtype=bool)  # first item of a tied group
    rng = None
    if ties == "shuffle":
        bits = np.random.PCG64(seed)  # the generator of numpy.random.default_rng(seed)
        bits.advance(first_row * m)  # one 64-bit draw per uniform float64
        rng = np.random.Generator(bits)

    def rank(block: tuple[int, int]) -> tuple[int, tuple[np.ndarray, np.ndarray] | None]:
        a, b = block
        s_block, y_block = y_score[a:b], y_true[a:b]
        gone = removed.rows(a, b) if removed is not None else None
        if check_finite:
            _check_finite(y_block, s_block, gone)
        if gone is not None:
            s_block = gone.masked_scores(s_block)  # removed items last in every row
        noise = rng.random(s_block.shape) if rng is not None else None  # blocks run in order when shuffling
        items = row_order(s_block, ties=ties, grades=y_block, noise=noise)
        items += (np.arange(b - a) * m)[:, None]  # positions in the flat block: one cheap gather per array
        ranked = np.take(s_block.reshape(-1), items, out=scores[a * m : b * m].reshape(b - a, m), mode="clip")
        if y_block.dtype == np.float64:
            np.take(y_block.reshape(-1), items, out=grades[a * m : b * m].reshape(b - a, m), mode="clip")
        else:
            grades[a * m : b * m] = np.take(y_block.reshape(-1), items.reshape(-1), mode="clip")
        first = starts[a * m : b * m].reshape(b - a, m)
        first[:, :1] = True
        np.not_equal(ranked[:, 1:], ranked[:, :-1], out=first[:, 1:])
        return int(np.count_nonzero(first)), _positives(y_block, gone) if compact_ideal else None

    blocks = row_blocks(n, m, block_rows)
    parts = list(map_blocks(rank, blocks, 1 if rng is not None else threads)) if m else []
    offsets = np.arange(n + 1, dtype=np.int64) * m
    if removed is not None:  # cut the removed items off the end of every row
        stay = (np.arange(m) < removed.kept_counts[:, None]).reshape(-1)
        grades, scores, starts = grades[stay], scores[stay], starts[stay]
        offsets = np.concatenate(([0], np.cumsum(removed.kept_counts))).astype(np.int64)
        total = len(grades)
    if removed is None and m and all(p[0] == (b - a) * m for p, (a, b) in zip(parts, blocks, strict=True)):
        group_starts = np.arange(total + 1, dtype=np.int64)  # no ties at all
    else:
        group_starts = np.flatnonzero(np.append(starts, True)).astype(np.int64)
    positives = [p[1] for p in parts if p[1] is not None] if compact_ideal else None
    ideal_offsets, ideal_grades, compact = _ideal_arrays(y_true, positives, min_ideal_width, removed)
    return RankedLists(
        query_ids=np.arange(first_row, first_row + n).astype(str),
        offsets=offsets,
        grades=grades,
        judged=np.ones(total, dtype=bool),
        scores=scores,
        group_starts=group_starts,
        ideal_offsets=ideal_offsets,
        ideal_grades=ideal_grades,
        ties=ties,
        ideal_is_list=True,
        ideal_positive_only=compact,
    )


SORT_BLOCK_ITEMS = 1 << 17
"""Items :func:`rank_dense_positives` sorts at a time: 512 KB of float32 scores, searched while in cache."""


def _all_finite(a: np.ndarray) -> bool:
    """Whether every value of a float array is finite: its sum is (one pass, no temporary), else each value."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.add.reduce(a, axis=None)):
            return True
    return bool(np.isfinite(a).all())  # the sum overflowed, or a value is not finite


@dataclass
class _SortedPositives:
    """Each positive item of some rows, with where its score falls among its row's sorted scores."""

    where: np.ndarray  # flat (row-major) position of each item with a grade > 0
    grades: np.ndarray  # its grade (the input's dtype)
    scores: np.ndarray  # its score
    below: np.ndarray  # items of its row with a lower score
    not_above: np.ndarray  # items of its row with a score <= its own (its own included)
    tied_at: np.ndarray  # flat position, in ascending order of its row, of the first item of each equal pair
    tied_scores: np.ndarray  # the pair's score


def _sort_positives(
    y_true: np.ndarray, scores: np.ndarray, first: int, check_finite: bool, removed: RemovedItems | None = None
) -> _SortedPositives:
    """One sort of every row of ``scores`` and a binary search of each positive item's score in its row.

    Rows with a tie are searched from both sides, the others need one search:
    an item's score is in its row, so without ties exactly one item (itself)
    has it. Flat positions count from row ``first`` of the matrix. Removed
    items are sorted as ``-inf``, below every item left, and never searched.
    """
    n, m = scores.shape
    flat_y = y_true.reshape(-1)
    where = np.flatnonzero(flat_y > 0)
    if removed is not None:
        where = where[removed.kept(where)]
    needles = scores.reshape(-1)[where]
    if removed is None:
        ordered = np.sort(scores, axis=1)  # ascending
        lowest = ordered[:, 0]
    else:
        ordered = removed.masked_scores(scores)
        ordered.sort(axis=1)
        lowest = ordered[np.arange(n), np.minimum(removed.counts, m - 1)]  # the lowest item left (rows have one)
    if check_finite and m and not (np.isfinite(lowest).all() and np.isfinite(ordered[:, -1]).all()):
        raise NonFiniteInput  # NaN sorts last
    pairs = np.flatnonzero(ordered[:, 1:] == ordered[:, :-1])  # item c of a row ties with item c + 1
    tied_at = pairs + pairs // max(m - 1, 1)
    if removed is not None and len(pairs):  # the removed items tie at -inf: not a group of the ranking
        real = ordered.reshape(-1)[tied_at] > -np.inf
        pairs, tied_at = pairs[real], tied_at[real]
    row_starts = where - where % m
    flat = ordered.reshape(-1)
    below = count_before(flat, row_starts, needles, m)
    not_above = below + 1
    if len(pairs):
        has_tie = np.zeros(n, dtype=bool)
        has_tie[pairs // max(m - 1, 1)] = True
        in_tied_row = np.flatnonzero(has_tie[where // m])
        not_above[in_tied_row] = count_before(flat, row_starts[in_tied_row], needles[in_tied_row], m, inclusive=True)
    offset = first * m
    return _SortedPositives(where + offset, flat_y[where], needles, below, not_above, tied_at + offset, flat[tied_at])


def count_before(
    flat: np.ndarray, starts: np.ndarray, needles: np.ndarray, width: int, *, inclusive: bool = False
) -> np.ndarray:
    """For each needle, how many items of its sorted segment are below it (at most it, when ``inclusive``).

    Every segment has ``width`` items, sorted ascending, the needle's starting at
    ``flat[starts[i]]``: a binary search of all needles at once (``np.searchsorted``
    of each segment alone, with no Python step per segment), branch-free:
    ``ceil(log2(width))`` rounds of a gather and a comparison.

    >>> flat = np.array([1.0, 2.0, 2.0, 5.0, 0.0, 3.0, 4.0, 9.0])
    >>> count_before(flat, np.array([0, 0, 4]), np.array([2.0, 6.0, 3.0]), 4).tolist()
    [1, 4, 1]
    >>> count_before(flat, np.array([0, 4]), np.array([2.0, 3.0]), 4, inclusive=True).tolist()
    [3, 2]
    """
    before = np.less_equal if inclusive else np.less
    at = starts.astype(np.intp)
    size = width
    while size > 1:  # the answer lies in at .. at + size: halve the range
        half = size >> 1
        at += before(flat[at + (half - 1)], needles) * half
        size -= half
    if width:
        at += before(flat[np.minimum(at, len(flat) - 1)], needles)
    return at - starts


def rank_dense_positives(
    y_true: np.ndarray,
    y_score: np.ndarray,
    *,
    min_ideal_width: int = 0,
    first_row: int = 0,
    check_finite: bool = False,
    removed: RemovedItems | None = None,
) -> RankedLists:
    """Rank every row under ``expected`` ties, storing only the items with a grade > 0 and the tied groups.

    The result is a sparse :class:`RankedLists` (``item_positions``,
    ``list_lengths``) in the spirit of :meth:`RankedLists.judged_items`: every
    item with a positive grade, at its rank in the complete row, and every
    tied group of two or more items, whole (its other items with grade 0).
    Measures that read only grades > 0 (see ``rankmeter.evaluate``) have the
    values of the complete rows on it, and the tie diagnostics are those of
    the complete rows. Inside a tied group the positive grades come first, in
    column order: ``expected`` averages over the orders of each group, so its
    order is immaterial.

    One sort of each row's scores is the only pass that is not linear. A
    positive item with score x in a row of m items whose ``below`` items score
    less than x and ``not_above`` items at most x has ``m - not_above`` items
    above it: its tied group fills ranks ``m - not_above`` to
    ``m - below - 1`` (0-based), found by a binary search of x in the sorted
    row. Rows are sorted :data:`SORT_BLOCK_ITEMS` items at a time and searched
    while in cache; float64 scores that are exactly float32 are sorted as
    float32. The ideal is the positive grades, as in :func:`rank_dense`.

    Parameters
    ----------
    y_true : ndarray, shape (n, m)
        Grades (any real dtype; stored as float64).
    y_score : ndarray of float32 or float64, shape (n, m)
        Finite scores.
    min_ideal_width, first_row, check_finite
        As in :func:`rank_dense` (the ideal is always compact when that saves memory).
    removed : RemovedItems, optional
        As in :func:`rank_dense_top`; every row keeps at least one item. The
        removed items sort as ``-inf`` (below every other) in the copy that
        is sorted, so the counts above each positive item are those of the
        items left; each row's length (``list_lengths``) is its items left.

    Returns
    -------
    RankedLists

    Examples
    --------
    >>> import numpy as np
    >>> r = rank_dense_positives(np.array([[0., 1, 2, 0, 0]]), np.array([[.1, .5, .9, .5, .3]]))
    >>> r.grades.tolist(), r.positions.tolist(), r.group_starts.tolist(), r.lengths.tolist()
    ([2.0, 1.0, 0.0], [0, 1, 2], [0, 1, 3], [5])
    """
    n, m = y_score.shape
    if check_finite and y_true.dtype.kind == "f" and not _all_finite(y_true):
        if removed is None or (removed.keep_matrix() & ~np.isfinite(y_true)).any():
            raise NonFiniteInput
    narrow = y_score if y_score.dtype == np.float32 else exact_float32(y_score)
    work = y_score if narrow is None else narrow
    step = max(1, SORT_BLOCK_ITEMS // max(m, 1))
    parts = [
        _sort_positives(
            y_true[a : a + step], work[a : a + step], a, check_finite, removed.rows(a, a + step) if removed else None
        )
        for a in range(0, n, step)
    ]
    where, below, not_above = (np.concatenate([getattr(p, f) for p in parts]) for f in ("where", "below", "not_above"))
    raw = np.concatenate([p.grades for p in parts])
    scores = np.concatenate([p.scores for p in parts])
    rows = where // m
    slot = rows * m + (m - not_above)  # flat position of the first item of each positive item's tied group
    grades = raw.astype(np.float64)
    tied_at = np.concatenate([p.tied_at for p in parts])
    if len(tied_at):
        pairs = np.concatenate((tied_at, tied_at + 1))
        tied, first = np.unique(pairs, return_index=True)  # the items of every tied group, ascending order
        tied_scores = np.tile(np.concatenate([p.tied_scores for p in parts]), 2)[first]
        tied += m - 1 - 2 * (tied % m)  # in descending order of their row
        shared = np.flatnonzero(not_above - below > 1)  # positive items in tied groups
        by_group = shared[np.argsort(slot[shared], kind="stable")]  # column order inside each group
        starts = slot[by_group]
        rank = np.arange(len(starts))
        new_group = np.concatenate(([True], starts[1:] != starts[:-1]))
        slot[by_group] = starts + rank - np.maximum.accumulate(np.where(new_group, rank, 0))
        others = ~np.isin(tied, slot[by_group], assume_unique=True)  # the groups' items with grade <= 0
        slot = np.concatenate((slot, tied[others]))
        grades = np.concatenate((grades, np.zeros(int(others.sum()))))
        scores = np.concatenate((scores, tied_scores[others]))
    order = np.argsort(slot, kind="stable")  # slots grouped by row: the stable sort takes ~40% of the default's time
    stored = slot[order]
    ranked_scores = np.add(scores[order], 0.0, dtype=np.float64)  # -0.0 + 0.0 = 0.0
    query = stored // m
    counts = np.bincount(query, minlength=n)
    ideal_offsets, ideal_grades, compact = _ideal_arrays(
        y_true, [(np.bincount(rows, minlength=n), raw)], min_ideal_width, removed
    )
    return RankedLists(
        query_ids=np.arange(first_row, first_row + n).astype(str),
        offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        grades=grades[order],
        judged=np.ones(len(stored), dtype=bool),
        scores=ranked_scores,
        group_starts=tie_group_starts(query, ranked_scores),
        ideal_offsets=ideal_offsets,
        ideal_grades=ideal_grades,
        ties="expected",
        ideal_is_list=True,
        ideal_positive_only=compact,
        item_positions=stored - query * m,
        list_lengths=np.full(n, m, dtype=np.int64) if removed is None else removed.kept_counts.astype(np.int64),
    )


def positive_items(ranked: RankedLists, min_ideal_width: int = 0) -> RankedLists:
    """Complete dense rows (``ideal_is_list``, every item stored) storing only their items with a grade > 0.

    Each kept item keeps its rank (``item_positions``) and each row its
    length (``list_lengths``), as in :meth:`RankedLists.judged_items`; under
    ``expected`` ties every tied group of two or more items stays whole. The
    ideal keeps each row's positive grades (as :func:`rank_dense`'s compact
    ideal) when that saves memory. Every measure for which
    ``rankmeter.pipeline.positive_items_suffice`` holds has the values of the
    complete rows. Under the other policies the tied groups of the result
    are those of the kept items only: take tie diagnostics from ``ranked``.

    >>> import numpy as np
    >>> r = rank_dense(np.array([[0., 1, 2, 0]]), np.array([[.1, .5, .9, .5]]), ties="stable")
    >>> p = positive_items(r)
    >>> p.grades.tolist(), p.positions.tolist(), p.lengths.tolist()
    ([2.0, 1.0], [0, 1], [4])
    """
    n, m = ranked.n_queries, int(ranked.lengths[0]) if ranked.n_queries else 0
    keep = ranked.grades > 0
    if ranked.ties == "expected":
        keep[tied_items(ranked.group_starts)[0]] = True
    items = np.flatnonzero(keep)
    query = items // max(m, 1)
    scores = ranked.scores[items]
    ideal_rows = np.asarray(ranked.ideal_grades, dtype=np.float64).reshape(n, m)
    ideal_offsets, ideal_grades, compact = _ideal_arrays(ideal_rows, [_positives(ideal_rows)], min_ideal_width)
    return replace(
        ranked,
        offsets=np.concatenate(([0], np.cumsum(np.bincount(query, minlength=n)))).astype(np.int64),
        grades=ranked.grades[items],
        judged=ranked.judged[items],
        scores=scores,
        group_starts=tie_group_starts(query, scores),
        ideal_offsets=ideal_offsets,
        ideal_grades=ideal_grades,
        ideal_positive_only=compact,
        item_positions=items - query * m,
        list_lengths=np.full(n, m, dtype=np.int64),
    )


def relevant_in_ideal(ranked: RankedLists) -> np.ndarray:
    """Whether the ideal of each list holds an item with a grade > 0.

    >>> import numpy as np
    >>> relevant_in_ideal(rank_dense(np.array([[0., 1], [0, 0]]), np.array([[.1, .5], [.2, .3]]), ties="stable"))
    array([ True, False])
    """
    seen = np.concatenate(([0], np.cumsum(ranked.ideal_grades > 0)))
    return np.asarray(seen[ranked.ideal_offsets[1:]] > seen[ranked.ideal_offsets[:-1]])


def ranked_prefix(ranked: RankedLists, k: int) -> RankedLists:
    """The top ``k`` items of every list of ``ranked`` and the rest of the tied group at rank k.

    Every measure at a cutoff <= k has the same value on the prefix (tie
    groups are kept whole, the ideal arrays are shared), so a long ranking
    need not be read by measures that only look at its top.

    >>> import numpy as np
    >>> r = rank_dense(np.array([[0., 1, 2, 0, 3]]), np.array([[.1, .5, .5, .9, .0]]), ties="expected")
    >>> p = ranked_prefix(r, 2)
    >>> p.offsets.tolist(), p.grades.tolist(), p.group_starts.tolist()
    ([0, 3], [0.0, 1.0, 2.0], [0, 1, 3])
    """
    lengths = ranked.lengths
    starts = ranked.offsets[:-1]
    last = starts + np.minimum(lengths, k) - 1  # the k-th item (or the last one of a shorter list)
    after = ranked.group_starts[
        np.searchsorted(ranked.group_starts, last, side="right").clip(max=len(ranked.group_starts) - 1)
    ]
    kept = np.where(lengths > 0, after - starts, 0)
    offsets = np.concatenate(([0], np.cumsum(kept))).astype(np.int64)
    items = np.repeat(starts - offsets[:-1], kept) + np.arange(int(offsets[-1]))
    scores = ranked.scores[items]
    return replace(
        ranked,
        offsets=offsets,
        grades=ranked.grades[items],
        judged=ranked.judged[items],
        scores=scores,
        group_starts=tie_group_starts(np.repeat(np.arange(len(kept)), kept), scores),
        item_weights=None if ranked.item_weights is None else ranked.item_weights[items],
    )
