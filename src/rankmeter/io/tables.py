"""Columnar tables of judgments (:class:`Qrels`) and system output (:class:`Run`).

Every reader (TREC files, data frames, dicts) produces one of these; the core
then converts them once into :class:`~rankmeter.core.ranked_lists.RankedLists`.
Ids are kept as exact strings here and interned to integer codes by the core.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


def id_at(col: Any, row: int) -> str:
    """The id at one row of a NumPy or pyarrow id column, as ``str``.

    >>> id_at(np.array(["a", "b"]), 1)
    'b'
    """
    value = col[row]
    return str(value.as_py() if hasattr(value, "as_py") else value)


@dataclass(frozen=True)
class Qrels:
    """Relevance judgments: one row per judged (query, document) pair.

    Attributes
    ----------
    query_ids, doc_ids : ndarray of str
        Exact ids, one per row.
    relevance : ndarray of float64
        The grade of each row. Negative grades mean "judged, not relevant".
    source : str or None
        File name the rows came from (used in error messages).
    lines : ndarray of int64 or None
        1-based line number of each row in ``source``.
    """

    query_ids: np.ndarray
    doc_ids: np.ndarray
    relevance: np.ndarray
    source: str | None = None
    lines: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.query_ids)

    def location(self, row: int) -> tuple[str | None, int | None]:
        """Return ``(source, line)`` of a row, for error messages."""
        line = int(self.lines[row]) if self.lines is not None else row + 1
        return self.source, line


@dataclass(frozen=True)
class Run:
    """System output: one row per retrieved (query, document) with its score.

    Attributes
    ----------
    query_ids, doc_ids : ndarray of str
        Exact ids, one per row.
    scores : ndarray of float64
        Higher is better.
    source : str or None
        File name the rows came from (used in error messages).
    lines : ndarray of int64 or None
        1-based line number of each row in ``source``.
    name : str or None
        The run tag (TREC column 6), when there is one.
    """

    query_ids: np.ndarray
    doc_ids: np.ndarray
    scores: np.ndarray
    source: str | None = None
    lines: np.ndarray | None = field(default=None, repr=False)
    name: str | None = None

    def __len__(self) -> int:
        return len(self.query_ids)

    def location(self, row: int) -> tuple[str | None, int | None]:
        """Return ``(source, line)`` of a row, for error messages."""
        line = int(self.lines[row]) if self.lines is not None else row + 1
        return self.source, line

    @classmethod
    def empty(cls, source: str | None = None) -> Run:
        """A run without rows (what judged queries absent from a run are ranked as).

        >>> len(Run.empty("run.txt"))
        0
        """
        return cls(np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0), source=source)
