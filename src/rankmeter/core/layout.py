"""The canonical layout every input is converted into once."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from rankmeter.core.ties import tie_group_starts, tied_items


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
    item_positions : ndarray of int64 or None, shape (N,)
        Sparse lists (:meth:`judged_items`): the 0-based rank of each stored
        item in its full ranking. ``None``: every ranked item is stored and
        an item's rank is its place in its segment.
    list_lengths : ndarray of int64 or None, shape (Q,)
        Sparse lists: how many items each query ranked (stored or not).
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
    item_positions: np.ndarray | None = None
    list_lengths: np.ndarray | None = None

    @property
    def n_queries(self) -> int:
        """Number of ranked lists."""
        return len(self.offsets) - 1

    @property
    def is_sparse(self) -> bool:
        """Whether only some of each query's ranked items are stored (see :meth:`judged_items`)."""
        return self.item_positions is not None

    @property
    def segment_sizes(self) -> np.ndarray:
        """Number of stored items of each query (the ranked items, unless the lists are sparse)."""
        return np.diff(self.offsets)

    @property
    def lengths(self) -> np.ndarray:
        """Number of ranked items of each query."""
        return self.segment_sizes if self.list_lengths is None else self.list_lengths

    @property
    def positions(self) -> np.ndarray:
        """0-based rank of each stored item inside its query."""
        if self.item_positions is not None:
            return self.item_positions
        return np.arange(len(self.grades)) - np.repeat(self.offsets[:-1], self.segment_sizes)

    @property
    def item_query(self) -> np.ndarray:
        """Query index of each stored item."""
        return np.repeat(np.arange(self.n_queries), self.segment_sizes)

    @property
    def has_ties(self) -> bool:
        """Whether any two items of one query share a score."""
        return len(self.group_starts) - 1 < len(self.grades)

    def judged_items(self) -> RankedLists:
        """The same rankings storing only the judged items and every tied group of two or more items.

        Each kept item keeps its rank (``item_positions``) and each query its
        length (``list_lengths``), so every measure whose unjudged items add
        nothing -- gains, relevance and judged counts are 0 for them -- has
        the same value on the sparse lists: DCG, AP, P, R, RR and the rest of
        the core families under a deterministic tie policy. Tied groups stay
        whole so tie metadata (groups straddling a cutoff) is unchanged. The
        ideal arrays are shared.

        Examples
        --------
        >>> import numpy as np
        >>> r = RankedLists(np.array(["q"]), np.array([0, 5]), np.array([0.0, 2.0, 0.0, 0.0, 1.0]),
        ...                 np.array([False, True, False, False, True]), np.array([5.0, 4.0, 3.0, 3.0, 1.0]),
        ...                 np.array([0, 1, 2, 4, 5]), np.array([0, 2]), np.array([2.0, 1.0]), "trec")
        >>> s = r.judged_items()
        >>> s.grades.tolist(), s.positions.tolist(), s.lengths.tolist(), s.group_starts.tolist()
        ([2.0, 0.0, 0.0, 1.0], [1, 2, 3, 4], [5], [0, 1, 3, 4])
        """
        keep = self.judged.copy()
        keep[tied_items(self.group_starts)[0]] = True  # tied groups stay whole
        items = np.flatnonzero(keep)
        query = np.searchsorted(self.offsets, items, side="right") - 1
        counts = np.bincount(query, minlength=self.n_queries)
        positions = items - self.offsets[query] if self.item_positions is None else self.item_positions[items]
        scores = self.scores[items]
        return replace(
            self,
            offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
            grades=self.grades[items],
            judged=self.judged[items],
            scores=scores,
            group_starts=tie_group_starts(query, scores),  # kept singletons never tie: their groups stay apart
            item_weights=None if self.item_weights is None else self.item_weights[items],
            item_positions=positions,
            list_lengths=self.lengths,
        )


def concatenate(parts: list[RankedLists]) -> RankedLists:
    """The lists of several :class:`RankedLists` one after another (queries keep the parts' order).

    The parts hold different queries, share their tie policy and layout
    (all sparse or none, no weights), and every CSR array is shifted by the
    items before it; a tied group never spans two queries, so the parts'
    boundaries are group boundaries.

    Examples
    --------
    >>> import numpy as np
    >>> a = RankedLists(np.array(["q1"]), np.array([0, 2]), np.array([1.0, 0.0]), np.array([True, False]),
    ...                 np.array([2.0, 2.0]), np.array([0, 2]), np.array([0, 1]), np.array([1.0]), "trec")
    >>> b = RankedLists(np.array(["q2"]), np.array([0, 1]), np.array([3.0]), np.array([True]),
    ...                 np.array([1.0]), np.array([0, 1]), np.array([0, 2]), np.array([3.0, 1.0]), "trec")
    >>> c = concatenate([a, b])
    >>> c.query_ids.tolist(), c.offsets.tolist(), c.group_starts.tolist(), c.ideal_offsets.tolist()
    (['q1', 'q2'], [0, 2, 3], [0, 2, 3], [0, 1, 3])
    """
    first = parts[0]
    if len(parts) == 1:
        return first
    if any(p.item_weights is not None or p.list_weights is not None or p.ideal_is_list for p in parts):
        raise ValueError("concatenate takes aligned lists without weights")  # pragma: no cover - internal use

    def shifted(name: str) -> np.ndarray:
        pieces, base = [np.zeros(1, dtype=np.int64)], 0
        for p in parts:
            bounds = getattr(p, name)
            pieces.append(bounds[1:] + base)
            base += int(bounds[-1])
        return np.concatenate(pieces).astype(np.int64, copy=False)

    def joined(name: str) -> np.ndarray:
        return np.concatenate([getattr(p, name) for p in parts])

    sparse = first.item_positions is not None

    return replace(
        first,
        query_ids=np.concatenate([p.query_ids for p in parts]),
        offsets=shifted("offsets"),
        grades=joined("grades"),
        judged=joined("judged"),
        scores=joined("scores"),
        group_starts=shifted("group_starts"),
        ideal_offsets=shifted("ideal_offsets"),
        ideal_grades=joined("ideal_grades"),
        item_positions=joined("item_positions") if sparse else None,
        list_lengths=joined("list_lengths") if sparse else None,
    )
