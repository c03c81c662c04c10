"""The canonical layout every input is converted into once."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RankedLists:
    """Ranked lists of many queries, stored column-wise (CSR).

    Items of query ``q`` occupy ``offsets[q]:offsets[q+1]`` of the flat item
    arrays, in ranked order. Kernels read only these arrays.

    Attributes
    ----------
    query_ids : ndarray of str, shape (Q,)
    offsets : ndarray of int64, shape (Q + 1,)
    grades : ndarray of float64, shape (N,)
        Relevance grade of each ranked item (0 when unjudged).
    judged : ndarray of bool, shape (N,)
    scores : ndarray of float64, shape (N,)
    group_starts : ndarray of int64, shape (G + 1,)
        Boundaries of tied groups (equal score within one query) over the items.
    ideal_offsets : ndarray of int64, shape (Q + 1,)
    ideal_grades : ndarray of float64
        Grades of every judged document of each query (CSR), whether retrieved
        or not: the source of the ideal ranking.
    ties : str
        The tie policy the items were ordered with.
    item_weights, ideal_weights : ndarray of float64 or None
        Per-item weights (dense input, keras-rs semantics) for the ranked items
        and for the ideal items.
    list_weights : ndarray of float64 or None, shape (Q,)
        Weight of each query in the aggregate (``None``: all equal).
    ideal_is_list : bool
        Dense input: the ideal arrays hold each complete list (every item is
        judged), so ``ideal=retrieved`` reads them too. Needed when the
        ranked items are only the top of each list (top-k selection).
    ideal_positive_only : bool
        Dense input (with ``ideal_is_list``): the ideal arrays hold only the
        positive grades of each list, padded with zeros to one length per
        list, rather than every item. Equivalent for every measure that
        reads the ideal only through grades > 0 (binary relevance with
        ``min_rel`` > 0 or unset, ideal DCG with gains that are 0 for grades
        <= 0); dense evaluation uses it only for such measures.
    """

    query_ids: np.ndarray
    offsets: np.ndarray
    grades: np.ndarray
    judged: np.ndarray
    scores: np.ndarray
    group_starts: np.ndarray
    ideal_offsets: np.ndarray
    ideal_grades: np.ndarray
    ties: str
    item_weights: np.ndarray | None = None
    ideal_weights: np.ndarray | None = None
    list_weights: np.ndarray | None = None
    ideal_is_list: bool = False
    ideal_positive_only: bool = False

    @property
    def n_queries(self) -> int:
        """Number of ranked lists."""
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        """Number of ranked items of each query."""
        return np.diff(self.offsets)

    @property
    def positions(self) -> np.ndarray:
        """0-based rank of each item inside its query."""
        return np.arange(len(self.grades)) - np.repeat(self.offsets[:-1], self.lengths)

    @property
    def item_query(self) -> np.ndarray:
        """Query index of each item."""
        return np.repeat(np.arange(self.n_queries), self.lengths)

    @property
    def has_ties(self) -> bool:
        """Whether any two items of one query share a score."""
        return len(self.group_starts) - 1 < len(self.grades)
