"""Input files in trec_eval's compatibility mode: qrels, runs and z-score tables.

Differences from :mod:`rankmeter.io.trec` that trec_eval's output depends on:

* qrels grades are truncated like C ``atol`` (``1.5`` -> 1, ``-0.5`` -> 0,
  ``2e3`` -> 2); a grade that is not a number at all is an error here, where
  trec_eval would silently read 0;
* the run id reported as ``runid`` is the tag of the *last* line of the run
  (trec_eval keeps the last one it read).

Every reader reports problems as one :class:`~rankmeter.errors.RankmeterError`
whose message starts with ``file:line:``; lines starting with ``#`` are
comments and blank lines are skipped. ``-`` reads standard input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError, where
from rankmeter.io.tables import Qrels, Run
from rankmeter.io.trec import last_line_field, read_columns_fast
from rankmeter.io.validate import first_unplain_number, read_text_bytes
from rankmeter.trec_eval.cnum import atol


def read_text(path: str) -> str:
    """The whole text of ``path`` (``-``: standard input; ``.gz``: decompressed), read once and checked.

    Unlike trec_eval, a lone carriage return (a line ending ``\\r`` only) is an error: trec_eval reads it
    as whitespace, so such a file would be one line whose rows after the first are silently dropped.
    """
    return read_text_bytes(path).decode("utf-8", "surrogateescape")


_EXTRA_SPACE = re.compile("[\x1c-\x1f]")


def _split(line: str) -> list[str]:
    """Fields of a line separated by C ``isspace`` characters only (space, \\t, \\n, \\v, \\f, \\r)."""
    return [t.decode("utf-8", "surrogateescape") for t in line.encode("utf-8", "surrogateescape").split()]


def _fast_fields(text: str, n_columns: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Every content line has exactly ``n_columns`` fields and none is a comment: (fields, line numbers).

    Only for ASCII text without the separators ``str.split`` adds to C's (\\x1c-\\x1f).
    """
    if text.startswith("#") or "\n#" in text or not text.isascii() or _EXTRA_SPACE.search(text):
        return None
    data = text.encode("ascii")
    raw = np.frombuffer(data, dtype=np.uint8)
    if raw.size == 0:
        return np.empty((0, n_columns), dtype=object), np.empty(0, dtype=np.int64)
    space = (raw == 32) | ((raw >= 9) & (raw <= 13))
    newline = np.flatnonzero(raw == 10)
    ends = np.append(newline, raw.size)
    starts_token = np.flatnonzero(~space & np.concatenate(([True], space[:-1])))
    line_of_token = np.searchsorted(ends, starts_token, side="left")
    counts = np.bincount(line_of_token, minlength=len(ends))
    used = counts > 0
    if not np.all(counts[used] == n_columns):
        return None
    fields = np.array(text.split(), dtype=object).reshape(-1, n_columns)
    return fields, np.flatnonzero(used).astype(np.int64) + 1


def read_records(
    path: str, n_columns: int, exact: bool, layout: str, text: str | None = None
) -> tuple[np.ndarray, np.ndarray, str]:
    """Fields (rows x ``n_columns``; extra columns dropped unless ``exact``) and 1-based line numbers.

    Fields are separated by the ASCII whitespace C's ``isspace`` accepts, as in trec_eval.

    Raises
    ------
    InputFormatError
        A line with too few (or, if ``exact``, too many) columns, or a file without data lines.
    """
    source = "<stdin>" if path == "-" else path
    if text is None:
        text = read_text(path)
    fast = _fast_fields(text, n_columns)
    if fast is not None:
        fields, lines = fast
    else:
        rows: list[list[str]] = []
        numbers: list[int] = []
        for number, line in enumerate(text.split("\n"), start=1):
            if line.startswith("#"):
                continue
            parts = _split(line)
            if not parts:
                continue
            if len(parts) < n_columns or (exact and len(parts) > n_columns):
                want = str(n_columns) if exact else f"at least {n_columns}"
                raise InputFormatError(
                    f"{where(source, number)}expected {want} whitespace-separated columns ({layout}), "
                    f"got {len(parts)}: {line.strip()!r}"
                )
            rows.append(parts)
            numbers.append(number)
        fields = np.empty((len(rows), n_columns), dtype=object)
        for r, parts in enumerate(rows):
            fields[r] = parts[:n_columns]
        lines = np.asarray(numbers, dtype=np.int64)
    if len(fields) == 0:
        raise InputFormatError(f"{source}: file is empty (expected lines of {layout})")
    return fields, lines, source


def atol_grades(column: np.ndarray, fields: np.ndarray, lines: np.ndarray, source: str) -> np.ndarray:
    """Relevance grades read as trec_eval reads them (C ``atol``: leading integer part), as float64.

    A token that is not a number at all raises :class:`InvalidScoreError`
    naming ``source``, the line (``lines``) and the query and document
    (``fields``).

    >>> import numpy as np
    >>> fields = np.array([["1", "0", "a", "2"], ["1", "0", "b", "1.7"]])
    >>> atol_grades(fields[:, 3], fields, np.array([1, 2]), "qrels").tolist()
    [2.0, 1.0]
    """
    try:
        return np.asarray(column.astype(str), dtype=np.int64).astype(np.float64)
    except (ValueError, OverflowError):
        pass
    out = np.empty(len(column))
    for row, token in enumerate(column):
        try:
            float(token)
        except ValueError:
            raise InvalidScoreError(
                f"{where(source, int(lines[row]))}query '{fields[row, 0]}', document '{fields[row, 2]}': "
                f"relevance {token!r} is not a number"
            ) from None
        out[row] = atol(token)
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_qrels(path: str) -> Qrels:
    """Read qrels (``qid iter docno rel``) with trec_eval's ``atol`` grades.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False) as f:
    ...     _ = f.write("# judged\\n1 0 a 1.5\\n1 0 b -1\\n1 0 c 2e3\\n")
    >>> read_qrels(f.name).relevance.tolist()
    [1.0, -1.0, 2.0]
    >>> os.unlink(f.name)
    """
    fast = read_columns_fast(path, qrels=True, values_as_text=True) if path != "-" else None
    texts = fast[2].dictionary.to_pylist() if fast is not None else []
    if fast is not None and all(_is_number(t) for t in texts):
        # well-formed file: Arrow columns, atol applied once per distinct grade text
        qids, dids, grade_text = fast
        table = np.array([atol(t) for t in texts], dtype=np.float64)
        grades = table[
            np.frombuffer(grade_text.indices.buffers()[1], dtype=np.int32)[
                grade_text.offset : grade_text.offset + len(grade_text)
            ]
        ]
        return Qrels(qids, dids, grades, source=path)
    fields, lines, source = read_records(path, 4, True, "qid iter docno rel")
    grades = atol_grades(fields[:, 3], fields, lines, source)
    return Qrels(fields[:, 0].astype(str), fields[:, 2].astype(str), grades, source=source, lines=lines)


@dataclass(frozen=True)
class RunFile:
    """A run read in trec_eval's way: the rows, and the tag of the last line (trec_eval's ``runid``)."""

    run: Run
    runid: str


def read_run(path: str, text: str | None = None, *, arrow_ids: bool = False) -> RunFile:
    """Read a run (``qid Q0 docno rank score tag [ignored...]``).

    With ``arrow_ids`` a well-formed file is read through the columnar fast
    path and its ids stay pyarrow arrays (what :func:`~rankmeter.core.join.align`
    reads fastest); otherwise ids are NumPy strings.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".run", delete=False) as f:
    ...     _ = f.write("1 Q0 a 1 2.5 first\\n1 Q0 b 2 1.5 last extra\\n")
    >>> r = read_run(f.name)
    >>> r.run.scores.tolist(), r.runid
    ([2.5, 1.5], 'last')
    >>> os.unlink(f.name)
    """
    fast = read_columns_fast(path, qrels=False) if arrow_ids and text is None and path != "-" else None
    if fast is not None and bool(np.isfinite(fast[2]).all()):  # else the exact reader reports the bad line
        qids, dids, scores = fast
        runid = last_line_field(path, 5) or ""
        return RunFile(Run(qids, dids, scores, source=path, name=runid), runid)
    fields, lines, source = read_records(path, 6, False, "qid Q0 docno rank score tag", text=text)
    odd = first_unplain_number(fields[:, 4])
    try:
        if odd is not None:
            raise ValueError(fields[odd, 4])
        scores = np.asarray(fields[:, 4].astype(str), dtype=np.float64)
    except ValueError:
        scores = np.empty(len(fields))
        for row, token in enumerate(fields[:, 4]):
            try:
                if row == odd:
                    raise ValueError(token)
                scores[row] = float(token)
            except ValueError:
                raise InvalidScoreError(
                    f"{where(source, int(lines[row]))}query '{fields[row, 0]}', document '{fields[row, 2]}': "
                    f"score {token!r} is not a number"
                ) from None
    bad = ~np.isfinite(scores)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InvalidScoreError(
            f"{where(source, int(lines[row]))}query '{fields[row, 0]}', document '{fields[row, 2]}': "
            f"score {fields[row, 4]!r} is not a finite number"
        )
    run = Run(
        fields[:, 0].astype(str), fields[:, 2].astype(str), scores, source=source, lines=lines, name=str(fields[-1, 5])
    )
    return RunFile(run, str(fields[-1, 5]))


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """Read a ``-Z`` file: lines ``qid measure mean stddev`` -> ``{(qid, measure): (mean, stddev)}``.

    >>> import os, tempfile
    >>> with tempfile.NamedTemporaryFile("w", delete=False) as f:
    ...     _ = f.write("301 map 0.1212 0.1545\\n")
    >>> read_zscores(f.name)
    {('301', 'map'): (0.1212, 0.1545)}
    >>> os.unlink(f.name)
    """
    fields, lines, source = read_records(path, 4, True, "qid measure mean stddev")
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for row in range(len(fields)):
        try:
            mean, std = float(fields[row, 2]), float(fields[row, 3])
        except ValueError:
            raise InvalidScoreError(
                f"{where(source, int(lines[row]))}mean and stddev must be numbers, got "
                f"{fields[row, 2]!r} {fields[row, 3]!r}"
            ) from None
        table[(str(fields[row, 0]), str(fields[row, 1]))] = (mean, std)
    return table
