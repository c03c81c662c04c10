"""Subtopic (intent) judgments: :class:`IntentQrels` and their readers.

Diversity measures (alpha-nDCG, ERR-IA, NRBP, precision-IA, subtopic recall)
judge each document against each *intent* (subtopic) of a query. The TREC
Web track's and NIST ``ndeval``'s file holds one judgment per line,
``query intent document grade`` -- the layout of a TREC qrels file with the
intent in the second column, where ordinary qrels keep an unused iteration
number. Tables name the intent column ``intent`` (or ``subtopic``,
``subtopic_id``, ``iteration``, ``iter``); dicts nest
``{query: {intent: {document: grade}}}``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError, where
from rankmeter.ids.column import IdColumn, id_at
from rankmeter.ids.convert import as_ids
from rankmeter.io.frames import find_columns, is_frame, qrels_from_frame
from rankmeter.io.validate import first_unplain_number, read_text_bytes

_ASCII_FIELDS = re.compile(r"[^ \t\n\r\f\v]+")

INTENT_COLUMNS = ("intent", "subtopic", "subtopic_id", "iteration", "iter")
"""Column names read as the intent of a judgment when a table is given."""


@dataclass(frozen=True, init=False)
class IntentQrels:
    """Judgments per (query, intent, document), one row each.

    Attributes
    ----------
    query_ids, intent_ids, doc_ids : IdColumn
        Exact ids, one per row (any NumPy or pyarrow strings passed in are converted).
    relevance : ndarray of float64
        The grade of the document for that intent (``<= 0``: not relevant).
    source : str or None
        Where the rows came from (for error messages).
    lines : ndarray of int64 or None
        1-based line of each row in ``source``.
    """

    query_ids: IdColumn
    intent_ids: IdColumn
    doc_ids: IdColumn
    relevance: np.ndarray
    source: str | None = None
    lines: np.ndarray | None = field(default=None, repr=False)

    def __init__(
        self,
        query_ids: Any,
        intent_ids: Any,
        doc_ids: Any,
        relevance: Any,
        source: str | None = None,
        lines: np.ndarray | None = None,
    ) -> None:
        """Any reader's id columns become :class:`~rankmeter.ids.column.IdColumn`; the grades float64."""
        for name, value in (
            ("query_ids", as_ids(query_ids)),
            ("intent_ids", as_ids(intent_ids)),
            ("doc_ids", as_ids(doc_ids)),
            ("relevance", np.asarray(relevance, dtype=np.float64)),
            ("source", source),
            ("lines", lines),
        ):
            object.__setattr__(self, name, value)
        n = len(self.query_ids)
        if not (len(self.intent_ids) == len(self.doc_ids) == len(self.relevance) == n):
            raise InputFormatError("intent qrels: query, intent, document and grade columns differ in length")
        bad = np.flatnonzero(~np.isfinite(self.relevance))
        if len(bad):
            raise InvalidScoreError(
                f"{self.location_text(int(bad[0]))}query '{id_at(self.query_ids, bad[0])}', intent "
                f"'{id_at(self.intent_ids, bad[0])}', document '{id_at(self.doc_ids, bad[0])}': grade "
                f"{float(self.relevance[bad[0]])!r} is not finite"
            )

    def __len__(self) -> int:
        return len(self.query_ids)

    def location_text(self, row: int) -> str:
        """``file:line: `` of a row (or ``row N: `` without a file), for error messages."""
        line = int(self.lines[row]) if self.lines is not None else row + 1
        return where(self.source, line) if self.source else f"row {line}: "


def read_intent_qrels(path: str | os.PathLike[str]) -> IntentQrels:
    """Read a subtopic qrels file: ``query intent document grade`` per line (``.gz`` and ``-`` accepted).

    Lines starting with ``#`` and blank lines are skipped; any other line
    must have exactly four whitespace-separated fields and a numeric grade.
    The file is read as every TREC reader reads it
    (:func:`~rankmeter.io.validate.read_text_bytes`): lines and ``.gz``
    expansion bounded, NUL bytes and lone carriage returns refused.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False) as f:
    ...     _ = f.write("1 1 d1 1\\n1 2 d1 0\\n# note\\n1 2 d2 1\\n")
    >>> q = read_intent_qrels(f.name)
    >>> q.intent_ids.tolist(), q.doc_ids.tolist(), q.lines.tolist()
    (['1', '2', '2'], ['d1', 'd1', 'd2'], [1, 2, 4])
    >>> os.unlink(f.name)
    """
    source = "<stdin>" if str(path) == "-" else os.fspath(path)
    text = read_text_bytes(path).decode("utf-8", "surrogateescape")
    rows: list[list[str]] = []
    numbers: list[int] = []
    for number, line in enumerate(text.split("\n"), start=1):
        fields = _ASCII_FIELDS.findall(line)  # (ASCII whitespace, as C's isspace: not str.split's Unicode spaces)
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            raise InputFormatError(
                f"{where(source, number)}expected 4 whitespace-separated columns "
                f"(query intent docno grade), got {len(fields)}: {line.strip()!r}"
            )
        rows.append(fields)
        numbers.append(number)
    if not rows:
        raise InputFormatError(f"{source}: file has no judgment lines (query intent docno grade)")
    table = np.array(rows, dtype=str)
    grades = np.empty(len(rows), dtype=np.float64)
    odd = first_unplain_number(table[:, 3])  # ASCII decimal only: float() would also read '1_0' and '١'
    for i, value in enumerate(table[:, 3]):
        try:
            if i == odd:
                raise ValueError(value)
            grades[i] = float(value)
        except ValueError:
            raise InvalidScoreError(
                f"{where(source, numbers[i])}query '{table[i, 0]}', intent '{table[i, 1]}', document "
                f"'{table[i, 2]}': grade {str(value)!r} is not a number"
            ) from None
    return IntentQrels(
        table[:, 0], table[:, 1], table[:, 2], grades, source=source, lines=np.asarray(numbers, dtype=np.int64)
    )


def _intent_column(frame: Any, names: list[str], column: str | None) -> np.ndarray:
    if column is None:
        present = [c for c in INTENT_COLUMNS if c in names]
        if len(present) != 1:
            found = "several" if present else "no"
            raise InputFormatError(
                f"table has {found} column for intent (looked for {', '.join(map(repr, INTENT_COLUMNS))}; "
                f"columns: {', '.join(names)}); pass qrels_columns={{'intent': '<name>'}}"
            )
        column = present[0]
    elif column not in names:
        raise InputFormatError(f"table has no column {column!r} for intent (columns: {', '.join(names)})")
    col = frame.column(column) if hasattr(frame, "column_names") else frame[column]
    values = np.asarray(col.to_numpy(zero_copy_only=False) if hasattr(col, "combine_chunks") else col.to_numpy())
    return values.astype(str)


def intent_qrels_from_frame(frame: Any, columns: Mapping[str, str] | None = None) -> IntentQrels:
    """Intent qrels from a pandas / polars / pyarrow table with query, intent, document and grade columns."""
    names = [str(c) for c in (frame.column_names if hasattr(frame, "column_names") else frame.columns)]
    given = dict(columns or {})
    intent = given.pop("intent", None)
    flat = qrels_from_frame(frame, given, source="<intent qrels table>")
    find_columns(names, "qrels", given, "qrels_columns")
    intents = _intent_column(frame, names, intent)
    return IntentQrels(
        flat.query_ids.text(), intents, flat.doc_ids.text(), flat.relevance, source="<intent qrels table>"
    )


def intent_qrels_from_dict(nested: Mapping[Any, Mapping[Any, Mapping[Any, Any]]]) -> IntentQrels:
    """Intent qrels from ``{query: {intent: {document: grade}}}``.

    >>> q = intent_qrels_from_dict({"1": {"a": {"d1": 1, "d2": 0}, "b": {"d2": 1}}})
    >>> list(zip(q.intent_ids.tolist(), q.doc_ids.tolist(), q.relevance.tolist()))
    [('a', 'd1', 1.0), ('a', 'd2', 0.0), ('b', 'd2', 1.0)]
    """
    for q, intents in nested.items():
        for i, docs in intents.items() if isinstance(intents, Mapping) else [(None, intents)]:
            if not isinstance(docs, Mapping):
                place = f"query '{q}'" if i is None else f"query '{q}', intent '{i}'"
                raise InputFormatError(
                    f"intent qrels dict: {place}: expected {{document: grade}}, got {docs!r}; diversity measures "
                    "read {query: {intent: {document: grade}}} (plain qrels {query: {document: grade}} have no intents)"
                )
    rows = [
        (str(q), str(i), str(d), g)
        for q, intents in nested.items()
        for i, docs in intents.items()
        for d, g in docs.items()
    ]
    if not rows:
        return IntentQrels(np.zeros(0, str), np.zeros(0, str), np.zeros(0, str), np.zeros(0), source="<intent dict>")
    qs, its, ds, gs = zip(*rows, strict=True)
    try:
        grades = np.asarray(gs, dtype=np.float64)
    except (TypeError, ValueError):
        bad = next(r for r in rows if not isinstance(r[3], int | float | np.integer | np.floating))
        raise InvalidScoreError(
            f"query '{bad[0]}', intent '{bad[1]}', document '{bad[2]}': grade {bad[3]!r} is not a number"
        ) from None
    return IntentQrels(np.array(qs), np.array(its), np.array(ds), grades, source="<intent dict>")


def as_intent_qrels(obj: Any, columns: Mapping[str, str] | None = None) -> IntentQrels:
    """Intent qrels from a path, a table, a nested dict or an :class:`IntentQrels`."""
    if isinstance(obj, IntentQrels):
        return obj
    if isinstance(obj, str | os.PathLike):
        return read_intent_qrels(obj)
    if is_frame(obj):
        return intent_qrels_from_frame(obj, columns)
    if isinstance(obj, Mapping):
        return intent_qrels_from_dict(obj)
    raise InputFormatError(
        f"cannot read intent qrels from {type(obj).__name__}: pass a path, a table or a "
        "{query: {intent: {document: grade}}} dict"
    )
