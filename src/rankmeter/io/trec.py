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

import os
import re
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError, where
from rankmeter.ids.arrow import combined, memory_pool
from rankmeter.io.arrow import arrow_to_numpy
from rankmeter.io.plain import PlainColumns, parse_plain
from rankmeter.io.tables import Qrels, Run
from rankmeter.io.validate import (
    UTF8_BOM,
    check_finite,
    check_text,
    first_unplain_number,
    is_regular_path,
    max_line_bytes,
    read_text_bytes,
)

PathLike = str | os.PathLike[str]

# fields are separated by ASCII whitespace only (C isspace), as trec_eval reads them
_ASCII_FIELDS = re.compile(r"[^ \t\n\r\f\v]+")
_QRELS_COLUMNS = 4
_RUN_COLUMNS = 6
PLAIN_MAX_BYTES = 16 << 20
"""Files up to this size are offered to the NumPy parser before pyarrow's (whose import costs more than it saves)."""


def _read_bytes(path: PathLike) -> bytes:
    """The file's bytes, read once and checked (:func:`~rankmeter.io.validate.read_text_bytes`)."""
    return read_text_bytes(path)


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
        values = np.asarray(column, dtype=np.float64)
        odd = first_unplain_number(column)
        if odd is None:
            return values
    except ValueError:
        odd = None
    for row, value in enumerate(column):
        try:
            if row == odd:
                raise ValueError(value)
            float(value)
        except ValueError:
            raise InvalidScoreError(
                f"{where(source, int(lines[row]))}query '{fields[row, 0]}', document "
                f"'{fields[row, doc_col]}': {what} {value!r} is not a number"
            ) from None
    raise AssertionError("unreachable")  # pragma: no cover


_WHITESPACE_RUN = re.compile(rb"[ \t\r\f\v]+")
_LEADING_OR_TRAILING = re.compile(rb"(?m)^ | $")


def _arrow_read(source: Any, n_columns: int, keep: dict[int, Any]) -> Any:
    """Parse single-space separated columns with pyarrow (``source``: buffer or memory-mapped file).

    Empty lines are not skipped: one makes the parse fail, so that row ``i``
    is always line ``i + 1`` on this path.
    """
    import pyarrow.csv as pacsv

    names = [f"c{i}" for i in range(n_columns)]
    return pacsv.read_csv(
        source,
        read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 22),
        parse_options=pacsv.ParseOptions(
            delimiter=" ", quote_char=False, double_quote=False, escape_char=False, ignore_empty_lines=False
        ),
        convert_options=pacsv.ConvertOptions(
            column_types={f"c{i}": t for i, t in keep.items()},
            include_columns=[f"c{i}" for i in keep],
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
        memory_pool=memory_pool(),
    )


def _arrow_table(data: Any, n_columns: int, keep: dict[int, Any], path: PathLike | None = None) -> Any:
    """Fast path: parse with pyarrow's multi-threaded CSV reader; None when the exact parser must run.

    ``data`` is the file's bytes, or None to parse the (uncompressed) file at
    ``path`` through a memory map without reading it into Python first.
    Single-space separated files (what retrieval systems write) are parsed
    directly; other whitespace is normalised first. Returns None when the
    file needs the exact line-by-line parser (comment or blank lines,
    irregular columns, unparsable numbers), which then reports problems by line.
    """
    import pyarrow as pa

    errors = (pa.ArrowInvalid, pa.ArrowNotImplementedError)
    if data is not None and (not data or data.startswith(b"#")):
        return None
    # every column is parsed (those not kept as raw bytes, the cheapest: a third less than as
    # dictionaries on a W2 run) so that an empty field, which a doubled or edge space makes, is seen;
    # whitespace other than spaces is normalised before parsing
    keep = {i: keep.get(i, pa.binary()) for i in range(n_columns)}
    if data is None and _other_whitespace_in_file(path):  # type: ignore[arg-type]
        data = _read_bytes(path)  # type: ignore[arg-type]
    if data is not None and (b"\x00" in data or (b"\r" in data and data.count(b"\r") != data.count(b"\r\n"))):
        return None  # a NUL byte or a lone carriage return: the exact path reports the line
    if data is not None and any(c in data for c in _OTHER_WHITESPACE):
        data = _LEADING_OR_TRAILING.sub(b"", _WHITESPACE_RUN.sub(b" ", data))
    try:
        if data is None:
            try:
                source = pa.memory_map(str(path))
            except OSError:
                return None  # the exact path reads the file and reports why it cannot
            with source:
                table = _arrow_read(source, n_columns, keep)
        else:
            table = _arrow_read(pa.py_buffer(data), n_columns, keep)
    except errors:
        # tabs, runs of spaces, leading or trailing blanks: normalise, then parse again
        if data is None:
            data = _read_bytes(path)  # type: ignore[arg-type]
        data = _LEADING_OR_TRAILING.sub(b"", _WHITESPACE_RUN.sub(b" ", data))
        try:
            table = _arrow_read(pa.py_buffer(data), n_columns, keep)
        except errors:
            return None
    if table.num_rows == 0 or _has_empty_field(table):
        return None
    qids = combined(table.column("c0"))
    if _any_comment(qids.dictionary):
        return None  # a comment line that happens to have the right number of fields
    return table, qids


_OTHER_WHITESPACE = (b"\t", b"\r", b"\v", b"\f", b"\x00")


def _other_whitespace_in_file(path: PathLike) -> bool:
    """Whether a plain file holds a tab, CR, VT, FF or NUL byte (memory-mapped, one ``find`` per byte)."""
    import mmap

    try:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            return any(mm.find(c) >= 0 for c in _OTHER_WHITESPACE)
    except (OSError, ValueError):  # unreadable or empty: the exact path reports it
        return False


def _has_empty_field(table: Any) -> bool:
    """Whether any field of the parsed table is empty (a doubled, leading or trailing space) or over the line limit."""
    import pyarrow as pa
    import pyarrow.compute as pc

    limit = max_line_bytes()
    for column in table.columns:
        for chunk in column.chunks:
            values = chunk.dictionary if pa.types.is_dictionary(chunk.type) else chunk
            if (pa.types.is_string(values.type) or pa.types.is_binary(values.type)) and len(values):
                lengths = pc.min_max(pc.binary_length(values)).as_py()
                if lengths["min"] == 0 or lengths["max"] > limit:
                    return True
    return False


def _any_comment(ids: Any) -> bool:
    """Whether any of the (few, distinct) query ids starts with ``#``."""
    return any(q.startswith("#") for q in ids.to_pylist())


def _arrow_types(spec: dict[int, str]) -> dict[int, Any]:
    import pyarrow as pa

    kinds = {"d": pa.dictionary(pa.int32(), pa.string()), "s": pa.string(), "f": pa.float64()}
    return {i: kinds[t] for i, t in spec.items()}


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
    qids, dids, relevance, lines, _, _ = _parse_columns(
        _file_or_bytes(path), str(path), 1, qrels=True, path=path, plain_first=True
    )
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
    qids, dids, scores, lines, name, _ = _parse_columns(
        _file_or_bytes(path), str(path), 1, qrels=False, path=path, plain_first=True
    )
    return Run(qids, dids, scores, source=str(path), lines=lines, name=name)


def _gzipped(path: PathLike) -> bool:
    """Whether the file's suffix is ``.gz`` (as ``pathlib.Path(path).suffix == ".gz"``, without importing pathlib).

    >>> _gzipped("run.txt.gz"), _gzipped("run.gz.txt"), _gzipped(".gz")
    (True, False, False)
    """
    return os.path.splitext(os.fspath(path))[1] == ".gz"


def _file_or_bytes(path: PathLike) -> bytes | None:
    """None for a regular file (parsed through a memory map), else the bytes, read once (standard input, ``.gz``,
    a named pipe or a device: opened once, so that a pipe's writer is not cut off)."""
    regular = not _gzipped(path) and is_regular_path(path)
    return None if regular else _read_bytes(path)


def parse_run_bytes(data: bytes, source: str, first_line: int = 1) -> Run:
    """Parse the bytes of (part of) a TREC run; ``first_line`` numbers the first line for messages."""
    return parse_run_block(data, source, first_line)[0]


def parse_qrels_bytes(data: bytes, source: str, first_line: int = 1) -> Qrels:
    """Parse the bytes of (part of) a TREC qrels file; ``first_line`` numbers the first line for messages.

    >>> parse_qrels_bytes(b"301 0 d1 2\\n", "qrels.txt").relevance.tolist()
    [2.0]
    """
    qids, dids, relevance, lines, _, _ = _parse_columns(data, source, first_line, qrels=True)
    return Qrels(qids, dids, relevance, source=source, lines=lines)


def parse_run_block(data: bytes, source: str, first_line: int = 1) -> tuple[Run, bool]:
    """:func:`parse_run_bytes`, and whether the columnar parser took the bytes (then every line is a row).

    >>> run, columnar = parse_run_block(b"1 Q0 a 1 2.0 t\\n", "run.txt")
    >>> run.doc_ids.tolist(), columnar
    (['a'], True)
    >>> parse_run_block(b"# comment\\n1 Q0 a 1 2.0 t\\n", "run.txt")[1]
    False
    """
    qids, dids, scores, lines, name, columnar = _parse_columns(data, source, first_line, qrels=False)
    return Run(qids, dids, scores, source=source, lines=lines, name=name), columnar


def _first_line_tag(data: bytes | None, path: PathLike | None = None) -> str | None:
    """The run tag (sixth field) of the first line, without parsing the column for every row."""
    if data is None:
        with open(path, "rb") as fh:  # type: ignore[arg-type]
            data = fh.read(4096)
    fields = _ASCII_FIELDS.findall(
        data[: data.find(b"\n") if b"\n" in data[:4096] else 4096].decode("utf-8", "replace")
    )
    return fields[5] if len(fields) > 5 else None


def _plain_columns(
    data: bytes | None, path: PathLike | None, n_columns: int, value_col: int
) -> tuple[PlainColumns | None, bytes | None]:
    """The NumPy parser's columns of a file up to :data:`PLAIN_MAX_BYTES` (else None), and the bytes given.

    A plain file (``data`` None) is memory-mapped, not read: its pages come from the page cache
    sixteen at a time instead of being copied into fresh memory one by one.
    """
    if data is not None:
        plain = parse_plain(data, n_columns, value_col, max_line_bytes()) if len(data) <= PLAIN_MAX_BYTES else None
        return plain, data
    import mmap

    try:
        with open(path, "rb") as fh:  # type: ignore[arg-type]
            size = os.fstat(fh.fileno()).st_size
            if size == 0 or size > PLAIN_MAX_BYTES:
                return None, None
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None, None  # the other parsers report why the file cannot be read
    try:
        return parse_plain(mapped, n_columns, value_col, max_line_bytes()), None
    finally:
        try:
            mapped.close()
        except BufferError:  # pragma: no cover - a view still alive (an exception's frames): collected later
            pass


def _parse_columns(
    data: bytes | None,
    source: str,
    first_line: int,
    *,
    qrels: bool,
    path: PathLike | None = None,
    plain_first: bool = False,
) -> tuple[Any, Any, np.ndarray, Any, Any, bool]:
    """(query ids, doc ids, values, line numbers, run tag, fast) of qrels or run bytes: fast path, else line by line.

    ``data`` None means: the plain file at ``path``. With ``plain_first`` a
    file of up to :data:`PLAIN_MAX_BYTES` is offered to the NumPy parser
    first (:mod:`rankmeter.io.plain`), which spares pyarrow's import. On the
    pyarrow path query ids come back as a pyarrow dictionary array (their
    codes are free there).
    """
    n_columns, value_col, what = (_QRELS_COLUMNS, 3, "relevance") if qrels else (_RUN_COLUMNS, 4, "score")
    layout = "qid iter docno rel" if qrels else "qid Q0 docno rank score tag"
    qids: Any
    dids: Any
    plain, fast = None, None
    if plain_first:
        plain, data = _plain_columns(data, path, n_columns, value_col)
    if plain is not None:
        qids, dids, values = plain.query_ids, plain.doc_ids, plain.values
        lines = None
        name = None if qrels else plain.first_line[5]
    else:
        fast = _arrow_table(data, n_columns, _arrow_types({0: "d", 2: "s", value_col: "f"}), path)
    if fast is not None:
        table, qids = fast
        dids = combined(table.column("c2"))
        values = arrow_to_numpy(table.column(f"c{value_col}"))
        lines = None if first_line == 1 else np.arange(first_line, first_line + len(values), dtype=np.int64)
        name = None if qrels else _first_line_tag(data, path)
    elif plain is None:
        if data is None:
            data = _read_bytes(path)  # type: ignore[arg-type]
        if first_line == 1 and data.startswith(UTF8_BOM):
            data = data[3:]
        check_text(data, source, first_line)
        text = data.decode("utf-8", "surrogateescape")
        fields, lines, source = _fields_from_text(text, source, n_columns, qrels, layout)
        lines = lines + (first_line - 1)
        values = _to_float(fields[:, value_col], what, fields, lines, source, 2)
        qids, dids = fields[:, 0].astype(str), fields[:, 2].astype(str)
        name = None if qrels else str(fields[0, 5])
    check_finite(values, what, qids, dids, source, lines)
    return qids, dids, values, lines, name, fast is not None or plain is not None


def read_columns_fast(path: PathLike, *, qrels: bool, values_as_text: bool = False) -> tuple[Any, Any, Any] | None:
    """(query ids, doc ids, value column) of a well-formed file through the Arrow fast path only.

    Returns None when the file needs the exact line-by-line parser (comments,
    blank lines, irregular columns, values that are not numbers): callers
    with their own exact parser (the trec_eval drop-in) then use it. With
    ``values_as_text`` the value column is a pyarrow dictionary array of the
    raw strings (trec_eval reads grades with C ``atol``); otherwise float64.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False) as f:
    ...     _ = f.write("1 0 a 1.5\\n1 0 b 2\\n")
    >>> q, d, v = read_columns_fast(f.name, qrels=True, values_as_text=True)
    >>> d.to_pylist(), v.to_pylist()
    (['a', 'b'], ['1.5', '2'])
    >>> with open(f.name, "w") as fh:
    ...     _ = fh.write("# comment\\n1 0 a 1\\n")
    >>> read_columns_fast(f.name, qrels=True) is None
    True
    >>> os.unlink(f.name)
    """
    if not is_regular_path(path):
        return None  # standard input, a named pipe or a device: read once, by the exact parser
    n_columns, value_col = (_QRELS_COLUMNS, 3) if qrels else (_RUN_COLUMNS, 4)
    kinds = {0: "d", 2: "s", value_col: "d" if values_as_text else "f"}
    fast = _arrow_table(_file_or_bytes(path), n_columns, _arrow_types(kinds), path)
    if fast is None:
        return None
    table, qids = fast
    column = table.column(f"c{value_col}")
    values = combined(column) if values_as_text else arrow_to_numpy(column)
    return qids, combined(table.column("c2")), values


def last_line_field(path: PathLike, index: int) -> str | None:
    """Field ``index`` of the last non-blank line of a plain or ``.gz`` file (None if it has no such field).

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", delete=False) as f:
    ...     _ = f.write("1 Q0 a 1 2.0 first\\n1 Q0 b 2 1.0 last\\n\\n")
    >>> last_line_field(f.name, 5)
    'last'
    >>> os.unlink(f.name)
    """
    if _gzipped(path) or str(path) == "-":
        data = _read_bytes(path)
    else:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(size - 65536, 0))
            data = fh.read()
    lines = [line for line in data.split(b"\n") if line.strip()]
    fields = _ASCII_FIELDS.findall(lines[-1].decode("utf-8", "surrogateescape")) if lines else []
    return fields[index] if len(fields) > index else None
