"""Columnar tables of judgments (:class:`Qrels`) and system output (:class:`Run`).

Every reader (TREC files, data frames, dicts) produces one of these; the core
then converts them once into :class:`~rankmeter.core.layout.RankedLists`.
Ids are exact strings: whatever column a reader passes (NumPy or pyarrow
strings) becomes an :class:`~rankmeter.io.ids.IdColumn` when the table is
built -- query ids with codes -- so the core reads one representation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankmeter.io.ids import as_ids


def id_at(col: Any, row: int) -> str:
    """The id at one row of an id column (an :class:`~rankmeter.io.ids.IdColumn`, NumPy or pyarrow), as ``str``.

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
    query_ids, doc_ids : IdColumn
        Exact ids, one per row (any NumPy or pyarrow strings passed in are
        converted; query ids get codes).
    relevance : ndarray of float64
        The grade of each row. Negative grades mean "judged, not relevant".
    source : str or None
        File name the rows came from (used in error messages).
    lines : ndarray of int64 or None
        1-based line number of each row in ``source``.
    columns : dict or None
        For rows read from a table, the column of each role
        (``{"query_id": "qid", ...}``), reported in the result's metadata.
    integer_ids : bool
        The query ids were integers before they became text (a sparse
        matrix's row numbers or integer user ids): results give them back
        as integers.
    """

    query_ids: Any
    doc_ids: Any
    relevance: np.ndarray
    source: str | None = None
    lines: np.ndarray | None = field(default=None, repr=False)
    columns: dict[str, str] | None = None
    integer_ids: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "query_ids", as_ids(self.query_ids, coded=True))
        object.__setattr__(self, "doc_ids", as_ids(self.doc_ids))

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
    query_ids, doc_ids : IdColumn
        Exact ids, one per row (any NumPy or pyarrow strings passed in are
        converted; query ids get codes).
    scores : ndarray of float64
        Higher is better.
    source : str or None
        File name the rows came from (used in error messages).
    lines : ndarray of int64 or None
        1-based line number of each row in ``source``.
    name : str or None
        The run tag (TREC column 6), when there is one.
    columns : dict or None
        For rows read from a table, the column of each role, reported in the
        result's metadata.
    """

    query_ids: Any
    doc_ids: Any
    scores: np.ndarray
    source: str | None = None
    lines: np.ndarray | None = field(default=None, repr=False)
    name: str | None = None
    columns: dict[str, str] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "query_ids", as_ids(self.query_ids, coded=True))
        object.__setattr__(self, "doc_ids", as_ids(self.doc_ids))

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
