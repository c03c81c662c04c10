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
from pathlib import Path

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError, where
from rankmeter.io.tables import Qrels, Run
from rankmeter.io.validate import check_finite

PathLike = str | os.PathLike[str]

_QRELS_COLUMNS = 4
_RUN_COLUMNS = 6


def _read_text(path: PathLike) -> str:
    p = Path(path)
    if str(path) == "-":
        import sys

        return sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    opener = gzip.open if p.suffix == ".gz" else open
    try:
        with opener(p, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InputFormatError(f"{p}: cannot read file: {exc.strerror or exc}") from exc
    return data.decode("utf-8", "surrogateescape")


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
    tokens = text.split()
    fields = np.array(tokens, dtype=object).reshape(-1, n_columns)
    return fields, line_numbers


def _parse_lines(text: str, n_min: int, n_max: int | None, source: str, layout: str) -> tuple[list[list[str]], list[int]]:
    rows: list[list[str]] = []
    numbers: list[int] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("#"):
            continue
        fields = line.split()
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


def _to_float(column: np.ndarray, what: str, fields: np.ndarray, lines: np.ndarray, source: str, doc_col: int) -> np.ndarray:
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


def _fields(path: PathLike, n_columns: int, exact: bool, layout: str) -> tuple[np.ndarray, np.ndarray, str]:
    source = str(path)
    text = _read_text(path)
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
    fields, lines, source = _fields(path, _QRELS_COLUMNS, True, "qid iter docno rel")
    relevance = _to_float(fields[:, 3], "relevance", fields, lines, source, 2)
    qids = fields[:, 0].astype(str)
    dids = fields[:, 2].astype(str)
    check_finite(relevance, "relevance", qids, dids, source, lines)
    return Qrels(qids, dids, relevance, source=source, lines=lines)


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
    fields, lines, source = _fields(path, _RUN_COLUMNS, False, "qid Q0 docno rank score tag")
    scores = _to_float(fields[:, 4], "score", fields, lines, source, 2)
    qids = fields[:, 0].astype(str)
    dids = fields[:, 2].astype(str)
    check_finite(scores, "score", qids, dids, source, lines)
    return Run(qids, dids, scores, source=source, lines=lines, name=str(fields[0, 5]))
