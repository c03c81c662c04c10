"""Build :class:`RankedLists` from flattened per-list arrays (dense and ragged input)."""

from __future__ import annotations

import numpy as np

from rankmeter.core.ranked_lists import RankedLists
from rankmeter.core.ties import rank_order, rank_rows, tie_group_starts
from rankmeter.io.dense import FlatLists


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


def rank_dense_top(y_true: np.ndarray, y_score: np.ndarray, k: int, *, ties: str) -> RankedLists:
    """Rank only the top of each row of a dense matrix: every item scoring at least the k-th score.

    The whole tied group at the k-th position is kept, so every measure at a
    cutoff <= k is exact under every deterministic tie policy and under
    ``expected``; the ideal arrays keep the complete rows. Runs in O(n m)
    with partial selection instead of sorting every row.

    >>> import numpy as np
    >>> r = rank_dense_top(np.array([[0., 1, 2, 0]]), np.array([[.1, .5, .5, .9]]), 2, ties="expected")
    >>> r.offsets.tolist(), r.scores.tolist()
    ([0, 3], [0.9, 0.5, 0.5])
    """
    n, m = y_true.shape
    kth = np.partition(y_score, m - k, axis=1)[:, m - k]  # the k-th largest score of each row
    keep = y_score >= kth[:, None]
    rows, cols = np.nonzero(keep)
    grades, scores = y_true[rows, cols], y_score[rows, cols]
    order = rank_order(rows, scores, ties=ties, doc_codes=cols, grades=grades)
    counts = np.bincount(rows, minlength=n)
    return RankedLists(
        query_ids=np.arange(n).astype(str),
        offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        grades=grades[order],
        judged=np.ones(len(order), dtype=bool),
        scores=scores[order].astype(np.float64),
        group_starts=tie_group_starts(rows[order], scores[order]),
        ideal_offsets=np.arange(0, n * m + 1, m, dtype=np.int64),
        ideal_grades=y_true.reshape(-1),
        ties=ties,
        ideal_is_list=True,
    )


def rank_dense(y_true: np.ndarray, y_score: np.ndarray, *, ties: str, seed: int | None = None) -> RankedLists:
    """Rank every row of a dense matrix with one row-wise stable sort (no global sort of all items).

    >>> import numpy as np
    >>> r = rank_dense(np.array([[0., 1, 2]]), np.array([[.1, .5, .9]]), ties="stable")
    >>> r.grades.tolist()
    [2.0, 1.0, 0.0]
    """
    n, m = y_true.shape
    by_row = rank_rows(y_score, ties=ties, grades=y_true, seed=seed)
    order = (by_row + (np.arange(n, dtype=np.int64) * m)[:, None]).reshape(-1)
    query = np.repeat(np.arange(n), m)
    flat_scores = y_score.reshape(-1)
    flat_grades = y_true.reshape(-1)
    scores = flat_scores[order]
    return RankedLists(
        query_ids=np.arange(n).astype(str),
        offsets=np.arange(0, n * m + 1, m, dtype=np.int64),
        grades=flat_grades[order],
        judged=np.ones(n * m, dtype=bool),
        scores=scores,
        group_starts=tie_group_starts(query, scores),
        ideal_offsets=np.arange(0, n * m + 1, m, dtype=np.int64),
        ideal_grades=flat_grades,
        ties=ties,
        ideal_is_list=True,
    )
