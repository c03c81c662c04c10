"""Columnar tables of judgments (:class:`Qrels`) and system output (:class:`Run`).

Every reader (TREC files, data frames, dicts) produces one of these; the core
then converts them once into :class:`~rankmeter.core.layout.RankedLists`.
Ids are exact strings: whatever column a reader passes (NumPy or pyarrow
strings, integers) becomes an :class:`~rankmeter.ids.column.IdColumn` when
the table is built -- query ids with codes -- so the core reads one
representation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter.ids.column import IdColumn
from rankmeter.ids.convert import as_ids

if TYPE_CHECKING:
    from rankmeter.core.join import Judgments


def _hold(table: Qrels | Run, query_ids: Any = None, doc_ids: Any = None, **fields: Any) -> None:
    """Set the fields of a frozen table: the id columns as :class:`~rankmeter.ids.column.IdColumn`, query ids coded."""
    if query_ids is not None:
        fields.update(query_ids=as_ids(query_ids, coded=True), doc_ids=as_ids(doc_ids))
    for name, value in fields.items():
        object.__setattr__(table, name, value)


@dataclass(frozen=True, init=False)
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
    judgments : Judgments or None
        What aligning runs with these qrels derives from them once
        (:func:`~rankmeter.core.join.prepare_qrels`): kept for the next
        run, never pickled.

    Examples
    --------
    >>> import pickle
    >>> from rankmeter.core.join import prepare_qrels
    >>> q = Qrels(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([1.0, 0.0]))
    >>> prepare_qrels(q)
    >>> q.judgments is None, pickle.loads(pickle.dumps(q)).judgments is None
    (False, True)
    """

    query_ids: IdColumn
    doc_ids: IdColumn
    relevance: np.ndarray
    source: str | None = None
    lines: np.ndarray | None = field(default=None, repr=False)
    columns: dict[str, str] | None = None
    integer_ids: bool = False
    judgments: Judgments | None = field(default=None, init=False, repr=False, compare=False)

    def __init__(
        self,
        query_ids: Any,
        doc_ids: Any,
        relevance: np.ndarray,
        source: str | None = None,
        lines: np.ndarray | None = None,
        columns: dict[str, str] | None = None,
        integer_ids: bool = False,
    ) -> None:
        """Any reader's id columns become :class:`~rankmeter.ids.column.IdColumn` (query ids with codes)."""
        _hold(self, query_ids, doc_ids, relevance=relevance, source=source, lines=lines, columns=columns)
        _hold(self, integer_ids=integer_ids, judgments=None)

    def __getstate__(self) -> dict[str, Any]:
        """What pickling keeps (for a spawned worker): the table, not :attr:`judgments`, derived again on use."""
        return {**self.__dict__, "judgments": None}

    def keep_judgments(self, judgments: Judgments) -> None:
        """Keep what an alignment derived from these qrels, for the next run aligned with them."""
        object.__setattr__(self, "judgments", judgments)

    def __len__(self) -> int:
        return len(self.query_ids)

    def location(self, row: int) -> tuple[str | None, int | None]:
        """Return ``(source, line)`` of a row, for error messages."""
        line = int(self.lines[row]) if self.lines is not None else row + 1
        return self.source, line


@dataclass(frozen=True, init=False)
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

    query_ids: IdColumn
    doc_ids: IdColumn
    scores: np.ndarray
    source: str | None = None
    lines: np.ndarray | None = field(default=None, repr=False)
    name: str | None = None
    columns: dict[str, str] | None = None

    def __init__(
        self,
        query_ids: Any,
        doc_ids: Any,
        scores: np.ndarray,
        source: str | None = None,
        lines: np.ndarray | None = None,
        name: str | None = None,
        columns: dict[str, str] | None = None,
    ) -> None:
        """Any reader's id columns become :class:`~rankmeter.ids.column.IdColumn` (query ids with codes)."""
        _hold(self, query_ids, doc_ids, scores=scores, source=source, lines=lines, name=name, columns=columns)

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
