"""TREC text formats: qrels (``qid iter docno rel``) and runs (``qid Q0 docno rank score tag``).

Files may be plain or gzip-compressed (``.gz``), fields separated by any
whitespace. As in trec_eval 10, a line whose first character is ``#`` is a
comment; a ``#`` anywhere else belongs to its field (TREC RAG docnos contain
``#``). Blank lines are skipped. In runs, anything after the sixth column is
ignored, as trec_eval does; the rank column is read but never used for
ordering (ties are resolved by :mod:`rankmeter.core.ties`).

Parsing has a vectorised fast path for well-formed files and falls back to a
line-by-line pass that reports the exact ``file:line`` of any problem.
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError, where
from rankmeter.io.arrow import arrow_to_numpy
from rankmeter.io.tables import Qrels, Run
from rankmeter.io.validate import check_finite

PathLike = str | os.PathLike[str]

# fields are separated by ASCII whitespace only (C isspace), as trec_eval reads them
_ASCII_FIELDS = re.compile(r"[^ \t\n\r\f\v]+")
_QRELS_COLUMNS = 4
_RUN_COLUMNS = 6


def _read_bytes(path: PathLike) -> bytes:
    p = Path(path)
    if str(path) == "-":
        import sys

        return sys.stdin.buffer.read()
    opener = gzip.open if p.suffix == ".gz" else open
    try:
        with opener(p, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise InputFormatError(f"{p}: cannot read file: {exc.strerror or exc}") from exc


def _token_counts_per_line(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Return (line numbers, tokens per line) for every non-blank, non-comment line."""
    raw = np.frombuffer(text.encode("utf-8", "surrogateescape"), dtype=np.uint8)
    is_space = (raw == 32) | ((raw >= 9) & (raw <= 13))
    newline = np.flatnonzero(raw == 10)
    ends = np.append(newline, raw.size)
    starts = np.concatenate(([0], newline + 1))
    prev_space = np.concatenate(([True], is_space[:-1]))
    token_start = np.flatnonzero(~is_space & prev_space)
    line_of_token = np.searchsorted(ends, token_start, side="left")
    counts = np.bincount(line_of_token, minlength=len(starts))
    first = raw[np.minimum(starts, max(raw.size - 1, 0))] if raw.size else np.zeros(0, np.uint8)
    comment = (starts < raw.size) & (first == ord("#")) if raw.size else np.zeros(0, bool)
    keep = (counts > 0) & ~comment
    return np.flatnonzero(keep) + 1, counts[keep]


def _split_fields(text: str, n_columns: int, source: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Fast path: a (rows, n_columns) object array of fields, or None if any line is irregular."""
    if text.startswith("#") or "\n#" in text:
        return None
    line_numbers, counts = _token_counts_per_line(text)
    if not np.all(counts == n_columns):
        return None
    tokens = _ASCII_FIELDS.findall(text)
    fields = np.array(tokens, dtype=object).reshape(-1, n_columns)
    return fields, line_numbers


def _parse_lines(
    text: str, n_min: int, n_max: int | None, source: str, layout: str
) -> tuple[list[list[str]], list[int]]:
    rows: list[list[str]] = []
    numbers: list[int] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("#"):
            continue
        fields = _ASCII_FIELDS.findall(line)
        if not fields:
            continue
        if len(fields) < n_min or (n_max is not None and len(fields) > n_max):
            expected = f"{n_min}" if n_max == n_min else f"at least {n_min}"
            raise InputFormatError(
                f"{where(source, number)}expected {expected} whitespace-separated columns "
                f"({layout}), got {len(fields)}: {line.strip()!r}"
            )
        rows.append(fields[:n_min])
        numbers.append(number)
    return rows, numbers


def _to_float(
    column: np.ndarray, what: str, fields: np.ndarray, lines: np.ndarray, source: str, doc_col: int
) -> np.ndarray:
    try:
        return np.asarray(column, dtype=np.float64)
    except ValueError:
        pass
    for row, value in enumerate(column):
        try:
            float(value)
        except ValueError:
            raise InvalidScoreError(
                f"{where(source, int(lines[row]))}query '{fields[row, 0]}', document "
                f"'{fields[row, doc_col]}': {what} {value!r} is not a number"
            ) from None
    raise AssertionError("unreachable")  # pragma: no cover


_WHITESPACE_RUN = re.compile(rb"[ \t\r\f\v]+")
_LEADING_OR_TRAILING = re.compile(rb"(?m)^ | $")


def _arrow_read(data: bytes, n_columns: int, keep: dict[int, Any]) -> Any:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    names = [f"c{i}" for i in range(n_columns)]
    return pacsv.read_csv(
        pa.py_buffer(data),
        read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 22),
        parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
        convert_options=pacsv.ConvertOptions(
            column_types={f"c{i}": t for i, t in keep.items()},
            include_columns=[f"c{i}" for i in keep],
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )


def _arrow_table(data: bytes, n_columns: int, keep: dict[int, Any]) -> tuple[Any, np.ndarray | None] | None:
    """Fast path: parse with pyarrow's multi-threaded CSV reader.

    Single-space separated files (what retrieval systems write) are parsed
    directly; other whitespace is normalised first. Returns (table, None) when
    row i is line i + 1, or None when the file needs the exact line-by-line
    parser (comment or blank lines, irregular columns, unparsable numbers),
    which then reports problems by line.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not data or data.startswith(b"#"):
        return None
    try:
        table = _arrow_read(data, n_columns, keep)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        # tabs, runs of spaces, leading or trailing blanks: normalise, then parse again
        data = _LEADING_OR_TRAILING.sub(b"", _WHITESPACE_RUN.sub(b" ", data))
        try:
            table = _arrow_read(data, n_columns, keep)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if table.num_rows == 0 or table.num_rows != lines:
        return None  # blank lines were skipped: row numbers would not be line numbers
    if pc.any(pc.starts_with(table.column("c0"), "#")).as_py():
        return None  # a comment line that happens to have the right number of fields
    return table, None


def _arrow_types(spec: dict[int, str]) -> dict[int, Any]:
    import pyarrow as pa

    return {i: pa.string() if t == "s" else pa.float64() for i, t in spec.items()}


def _fields_from_text(
    text: str, source: str, n_columns: int, exact: bool, layout: str
) -> tuple[np.ndarray, np.ndarray, str]:
    fast = _split_fields(text, n_columns, source)
    if fast is not None:
        fields, lines = fast
    else:
        rows, numbers = _parse_lines(text, n_columns, n_columns if exact else None, source, layout)
        fields = np.array(rows, dtype=object).reshape(-1, n_columns)
        lines = np.asarray(numbers, dtype=np.int64)
    if len(fields) == 0:
        raise InputFormatError(f"{source}: file has no {layout.split()[0]} lines ({layout})")
    return fields, lines, source


def read_qrels(path: PathLike) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``; ``.gz`` accepted).

    Grades are read as floats and kept as they are (trec_eval truncates them
    with ``atol``; rankmeter does not).

    Parameters
    ----------
    path : str or os.PathLike
        The file; ``-`` reads standard input.

    Returns
    -------
    Qrels

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False) as f:
    ...     _ = f.write("# a comment\\n301 0 D#1 2\\n301\\t0  D2 0\\n")
    >>> q = read_qrels(f.name)
    >>> q.doc_ids.tolist(), q.relevance.tolist()
    (['D#1', 'D2'], [2.0, 0.0])
    >>> os.unlink(f.name)
    """
    qids, dids, relevance, lines, _ = _parse_columns(_read_bytes(path), str(path), 1, qrels=True)
    return Qrels(qids, dids, relevance, source=str(path), lines=lines)


def read_run(path: PathLike) -> Run:
    """Read a TREC run file (``qid Q0 docno rank score tag``; ``.gz`` accepted).

    Columns after the sixth are ignored; the rank column is not used.

    Parameters
    ----------
    path : str or os.PathLike
        The file; ``-`` reads standard input.

    Returns
    -------
    Run

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".run", delete=False) as f:
    ...     _ = f.write("301 Q0 D1 1 2.5 bm25 junk\\n301 Q0 D2 2 1.5 bm25\\n")
    >>> r = read_run(f.name)
    >>> r.doc_ids.tolist(), r.scores.tolist(), r.name
    (['D1', 'D2'], [2.5, 1.5], 'bm25')
    >>> os.unlink(f.name)
    """
    return parse_run_bytes(_read_bytes(path), str(path))


def parse_run_bytes(data: bytes, source: str, first_line: int = 1) -> Run:
    """Parse the bytes of (part of) a TREC run; ``first_line`` numbers the first line for messages."""
    qids, dids, scores, lines, name = _parse_columns(data, source, first_line, qrels=False)
    return Run(qids, dids, scores, source=source, lines=lines, name=name)


def _first_line_tag(data: bytes) -> str | None:
    """The run tag (sixth field) of the first line, without parsing the column for every row."""
    fields = _ASCII_FIELDS.findall(
        data[: data.find(b"\n") if b"\n" in data[:4096] else 4096].decode("utf-8", "replace")
    )
    return fields[5] if len(fields) > 5 else None


def _parse_columns(data: bytes, source: str, first_line: int, *, qrels: bool) -> tuple[Any, Any, np.ndarray, Any, Any]:
    """(query ids, doc ids, values, line numbers, run tag) of qrels or run bytes: fast path, else line by line."""
    n_columns, value_col, what = (_QRELS_COLUMNS, 3, "relevance") if qrels else (_RUN_COLUMNS, 4, "score")
    layout = "qid iter docno rel" if qrels else "qid Q0 docno rank score tag"
    kinds = {0: "s", 2: "s", value_col: "f"}
    fast = _arrow_table(data, n_columns, _arrow_types(kinds))
    if fast is not None:
        table, _ = fast
        qids, dids = table.column("c0").combine_chunks(), table.column("c2").combine_chunks()
        values = arrow_to_numpy(table.column(f"c{value_col}")).astype(np.float64)
        lines = None if first_line == 1 else np.arange(first_line, first_line + len(values), dtype=np.int64)
        name = None if qrels else _first_line_tag(data)
    else:
        text = data.decode("utf-8", "surrogateescape")
        fields, lines, source = _fields_from_text(text, source, n_columns, qrels, layout)
        lines = lines + (first_line - 1)
        values = _to_float(fields[:, value_col], what, fields, lines, source, 2)
        qids, dids = fields[:, 0].astype(str), fields[:, 2].astype(str)
        name = None if qrels else str(fields[0, 5])
    check_finite(values, what, qids, dids, source, lines)
    return qids, dids, values, lines, name
