"""Two runs as per-query ranked lists of shared document codes, with each item's tie group.

Each run goes through :func:`rankmeter.io.load.as_run` (TREC files, tables,
dicts) and is ordered by score descending with :mod:`rankmeter.core.ties`.
Each ranked item carries ``top`` and ``bottom``: the first and last (1-based)
rank of its tie group. Under the tie treatments ``trec``, ``stable`` and
``shuffle`` the ties are broken first, so ``top == bottom`` for every item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rankmeter.core.semantics import choose
from rankmeter.core.ties import rank_order, tie_group_starts
from rankmeter.errors import DuplicateEntryError, InvalidScoreError, where
from rankmeter.ids.column import id_at
from rankmeter.ids.duplicates import duplicate_rows
from rankmeter.ids.intern import intern
from rankmeter.io.load import as_run
from rankmeter.io.tables import Run

SIMILARITY_TIES = ("expected", "equal", "trec", "stable", "shuffle")
"""Tie treatments of the judgment-free measures (docs/similarity.md says what each does)."""
ONE_SIDED = ("skip", "zero", "error")
"""Policies for a query that only one of the two runs ranks."""


@dataclass(frozen=True)
class RankedList:
    """One query's ranked list: document codes in rank order and the ranks their tie groups span.

    Attributes
    ----------
    items : ndarray of int64
        Document codes (shared by both runs) in rank order.
    top, bottom : ndarray of int64
        The first and last 1-based rank of each item's tie group.
    """

    items: np.ndarray
    top: np.ndarray
    bottom: np.ndarray

    def cut(self, depth: int | None) -> RankedList:
        """The items whose tie group starts at rank ``depth`` or above (a group straddling the depth stays whole).

        >>> RankedList(np.array([7, 8, 9]), np.array([1, 2, 2]), np.array([1, 3, 3])).cut(2).items.tolist()
        [7, 8, 9]
        """
        if depth is None:
            return self
        keep = self.top <= depth
        return RankedList(self.items[keep], self.top[keep], self.bottom[keep])


@dataclass(frozen=True)
class PairedLists:
    """The queries both runs rank, each as two :class:`RankedList`, and the queries only one run ranks.

    ``tied_queries`` counts the shared queries where either run ties two or more documents.
    """

    query_ids: list[str]
    a: list[RankedList]
    b: list[RankedList]
    only_a: list[str]
    only_b: list[str]
    tied_queries: int


def _check_run(run: Run, query_codes: np.ndarray, which: str) -> np.ndarray:
    """The run's scores as float64, after checking them and its (query, document) pairs."""
    scores = np.asarray(run.scores, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(scores))
    if len(bad):
        row = int(bad[0])
        src, line = run.location(row)
        raise InvalidScoreError(
            f"{where(src, line)}{which}: query '{id_at(run.query_ids, row)}', document "
            f"'{id_at(run.doc_ids, row)}' has score {float(scores[row])!r}; scores must be finite"
        )
    pairs = duplicate_rows(query_codes, run.doc_ids)
    if len(pairs):
        first, second = int(pairs[0, 0]), int(pairs[0, 1])
        src, line = run.location(second)
        raise DuplicateEntryError(
            f"{where(src, line)}{which}: query '{id_at(run.query_ids, second)}', document "
            f"'{id_at(run.doc_ids, second)}' appears twice (first at line {run.location(first)[1]})"
        )
    return scores


def _lists(
    query_codes: np.ndarray, doc_codes: np.ndarray, scores: np.ndarray, n_queries: int, ties: str, seed: int | None
) -> tuple[list[RankedList | None], set[int]]:
    """Per query code, its ranked list (None where the run has no row), and the codes of the queries with ties."""
    strict = ties if ties in ("trec", "stable", "shuffle") else "stable"
    order = rank_order(query_codes, scores, ties=strict, doc_codes=doc_codes, seed=seed)
    q, d, s = query_codes[order], doc_codes[order], scores[order]
    bounds = np.concatenate(([0], np.flatnonzero(q[1:] != q[:-1]) + 1, [len(q)])).astype(np.int64)
    group = tie_group_starts(q, s)
    sizes = np.diff(group)
    tied = set(q[group[:-1][sizes > 1]].tolist()) if len(q) else set()
    if strict == ties:  # ties were broken: every item is a group of one
        group = np.arange(len(q) + 1, dtype=np.int64)
        sizes = np.ones(len(q), dtype=np.int64)
    start_of = np.repeat(group[:-1], sizes)
    end_of = np.repeat(group[1:], sizes)
    query_start = np.repeat(bounds[:-1], np.diff(bounds))
    top = start_of - query_start + 1
    bottom = end_of - query_start
    lists: list[RankedList | None] = [None] * n_queries
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        if hi > lo:
            lists[int(q[lo])] = RankedList(d[lo:hi], top[lo:hi], bottom[lo:hi])
    return lists, tied


def paired_lists(run_a: Any, run_b: Any, *, ties: str = "expected", seed: int | None = None) -> PairedLists:
    """Both runs as per-query ranked lists over one document vocabulary.

    Parameters
    ----------
    run_a, run_b : path, table, dict or Run
        Anything :func:`rankmeter.io.load.as_run` reads.
    ties : str
        One of :data:`SIMILARITY_TIES`; ``trec``, ``stable`` and ``shuffle``
        break the ties, the others keep the tie groups.
    seed : int, optional
        Seed for ``shuffle``.

    Examples
    --------
    >>> pairs = paired_lists({"q1": {"x": 2.0, "y": 1.0, "z": 1.0}}, {"q1": {"y": 1.0}, "q2": {"x": 1.0}})
    >>> pairs.query_ids, pairs.only_b, pairs.a[0].top.tolist(), pairs.a[0].bottom.tolist()
    (['q1'], ['q2'], [1, 2, 2], [1, 3, 3])
    """
    choose(ties, SIMILARITY_TIES, "ties")
    a, b = as_run(run_a), as_run(run_b)
    queries, (qa, qb) = intern(a.query_ids, b.query_ids)
    _, (da, db) = intern(a.doc_ids, b.doc_ids)
    lists_a, tied_a = _lists(qa, da, _check_run(a, qa, "run_a"), len(queries), ties, seed)
    lists_b, tied_b = _lists(qb, db, _check_run(b, qb, "run_b"), len(queries), ties, seed)
    both = [i for i in range(len(queries)) if lists_a[i] is not None and lists_b[i] is not None]
    names = queries.tolist()
    return PairedLists(
        query_ids=[names[i] for i in both],
        a=[lists_a[i] for i in both],  # type: ignore[misc]
        b=[lists_b[i] for i in both],  # type: ignore[misc]
        only_a=[names[i] for i in range(len(queries)) if lists_a[i] is not None and lists_b[i] is None],
        only_b=[names[i] for i in range(len(queries)) if lists_b[i] is not None and lists_a[i] is None],
        tied_queries=len((tied_a | tied_b).intersection(both)),
    )
