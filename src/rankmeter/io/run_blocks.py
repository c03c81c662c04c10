"""Read a TREC run in blocks of whole queries, for files larger than memory."""

from __future__ import annotations

import gzip
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from rankmeter.errors import DuplicateEntryError, InputFormatError, LimitError, PolicyError, QueryOrderError, where
from rankmeter.io.tables import Run
from rankmeter.io.trec import parse_run_block
from rankmeter.io.validate import UTF8_BOM, check_no_nul, env_int, line_too_long, max_line_bytes

T = TypeVar("T")

_FIRST_FIELD = re.compile(rb"[ \t\r\f\v]*([^ \t\r\f\v\n]*)")


def _last_query_start(block: bytes, stop: int, known: int = 0) -> int:
    """Byte offset where the lines of the last query of ``block[:stop]`` begin (0 if it is one query).

    ``block[stop - 1]`` is a newline. Blank and comment lines belong to no query: they never end one
    (a query's lines around them stay together). ``block[:known]`` (whole lines) is already known to
    hold one query: the scan stops at its first line there instead of reading all of it again, so that
    a query spanning many blocks costs time linear in its size.

    >>> _last_query_start(b"1 a\\n1 b\\n2 c\\n", 12), _last_query_start(b"1 a\\n1 b\\n", 8, known=4)
    (8, 0)
    >>> _last_query_start(b"1 a\\n\\n# c\\n1 b\\n\\n", 14), _last_query_start(b"1 a\\n\\n2 b\\n# c\\n", 13)
    (0, 4)
    """
    line_start = block.rfind(b"\n", 0, stop - 1) + 1
    qid = None  # the last query's id, once a row is found
    while True:
        m = _FIRST_FIELD.match(block, line_start)
        field = m.group(1) if m else b""
        filler = not field or block.startswith(b"#", line_start)  # a blank or comment line
        if not filler:
            if qid is None:
                qid = field
            elif field != qid:
                return block.find(b"\n", line_start) + 1  # the line after this row of the query before
            elif line_start < known:
                return 0  # the same query as every line of the known part
        if line_start == 0:
            return 0
        line_start = block.rfind(b"\n", 0, line_start - 1) + 1


DEFAULT_MAX_QUERY_BYTES = 512 << 20


def max_query_bytes() -> int:
    """The most bytes of lines one query of a streamed run may hold: ``RANKMETER_MAX_QUERY_BYTES``, default 512 MiB.

    Streaming holds one block plus the query being read; this bounds that query, so that a small
    compressed file expanding to one endless query cannot fill the memory.

    >>> max_query_bytes()
    536870912
    """
    return env_int("RANKMETER_MAX_QUERY_BYTES", DEFAULT_MAX_QUERY_BYTES)


def _query_too_large(held: int, block: bytes, source: str, line: int) -> LimitError:
    match = _FIRST_FIELD.match(block)
    qid = (match.group(1) if match else b"").decode("utf-8", "surrogateescape")
    return LimitError(
        f"{where(source, line)}query '{qid}' holds more than {held} bytes of lines, over the limit of "
        f"{max_query_bytes()} bytes for one query of a streamed run (set RANKMETER_MAX_QUERY_BYTES to raise it)"
    )


class NotColumnar(Exception):
    """A block of a run needed the exact line-by-line parser (raised by ``iter_run_chunks(columnar_only=True)``)."""


def iter_run_chunks(
    path: str | os.PathLike[str],
    *,
    block_bytes: int = 8 << 20,
    columnar_only: bool = False,
    check_piece: Callable[[Run], None] | None = None,
) -> Iterator[tuple[Run, int]]:
    """Yield ``(run, bytes_read)`` pieces of a TREC run, each holding only complete queries.

    ``bytes_read`` counts bytes of the file on disk (compressed ones for ``.gz``), for progress bars.

    Each block is parsed by the same code as :func:`~rankmeter.io.trec.read_run`
    (so whitespace, comments and error messages with file:line are the same).
    The file must list each query's lines together, as every TREC run does; a
    query that reappears later raises :class:`~rankmeter.errors.QueryOrderError`.
    Memory is bounded by ``block_bytes`` plus the largest query, which may hold
    at most :func:`max_query_bytes`; a line longer than
    :func:`~rankmeter.io.validate.max_line_bytes` raises PolicyError. While a
    query spans blocks, ``check_piece`` (if given) is called on each block's
    worth of its lines as they are read (``evaluate_stream`` reports a
    repeated document there, before the query is held whole). With
    ``columnar_only``, a block the columnar parser cannot take (comments,
    blank lines, irregular columns) raises :class:`NotColumnar` instead.
    A UTF-8 byte order mark at the start is skipped; named pipes are read once, in order.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".run", delete=False) as f:
    ...     _ = f.write("1 Q0 a 1 2.0 t\\n1\\tQ0 b 2 1.0 t\\n2 Q0 a 1 3.0 t\\n")
    >>> [r.query_ids.tolist() for r, _ in iter_run_chunks(f.name, block_bytes=16)]
    [['1', '1'], ['2']]
    >>> os.unlink(f.name)
    """
    source = str(path)
    if not isinstance(block_bytes, int) or block_bytes < 1:
        raise PolicyError(f"block_bytes must be a positive number of bytes, got {block_bytes!r}")
    seen: set[str] = set()
    carry = b""
    known = 0  # carry[:known] holds whole lines of one query
    line = 1
    limit = max_query_bytes()
    try:
        fh = gzip.open(path, "rb") if source.endswith(".gz") else open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise InputFormatError(f"{source}: cannot read file: {exc.strerror or exc}") from None
    counter = _Position(fh)
    with fh:
        first = True
        while True:
            data = _read_block(fh, max(block_bytes, len(UTF8_BOM)) if first else block_bytes, source)
            counter.add(len(data))
            end = not data
            if first and data.startswith(UTF8_BOM):  # (the first read holds at least the mark's 3 bytes)
                data = data[len(UTF8_BOM) :]
            first = False
            block = carry + data
            if end:
                check_no_nul(block, source, line)
                if _has_rows(block) or not seen:  # (an empty file gets read_run's error)
                    last = block if block.endswith(b"\n") else block + b"\n"
                    yield _parsed(last, source, line, seen, columnar_only)[0], counter.done()
                return
            cut = block.rfind(b"\n") + 1
            if len(block) - cut > max_line_bytes():  # a line with no end in sight: not a TREC run
                raise line_too_long(len(block) - cut, source, line + block.count(b"\n", 0, cut))
            if cut == 0:
                carry = block
                continue
            boundary = _last_query_start(block, cut, known)
            if boundary == 0:
                if cut > limit:
                    raise _query_too_large(cut, block, source, line)
                piece = block[known:cut]  # the query's lines read since the last block
                if check_piece is not None and _has_rows(piece) and not _documents_distinct(piece):
                    try:
                        check_piece(parse_run_block(piece, source, line + block.count(b"\n", 0, known))[0])
                    except DuplicateEntryError:  # named as the whole read names it: the query's first repeat
                        check_piece(parse_run_block(block[:cut], source, line)[0])
                        raise
                carry, known = block, cut
                continue
            emit, carry, known = block[:boundary], block[boundary:], 0
            if not _has_rows(emit):  # blank and comment lines only
                check_no_nul(emit, source, line)  # as the whole-file reader checks them
                line += emit.count(b"\n")
                continue
            run, columnar = _parsed(emit, source, line, seen, columnar_only)
            yield run, counter.done()
            # the columnar parser takes only blocks where every line is a row
            line += len(run) if columnar else emit.count(b"\n")


def _documents_distinct(piece: bytes) -> bool:
    """Whether pyarrow's CSV reader, splitting lines at single spaces, finds the third fields all distinct.

    A quick test before the exact parse of a query's lines (which costs more than the rest of streaming
    that query): False also when undecided (other separators, comments, fields of unequal counts). A
    true answer may miss a repeat the exact parser would see (a tab inside a field); the whole query is
    checked again when complete, so a repeat is reported in any case, here only later.

    >>> _documents_distinct(b"1 Q0 a 1 2 t\\n1 Q0 b 2 1 t\\n"), _documents_distinct(b"1 Q0 a 1 2 t\\n1 Q0 a 2 1 t\\n")
    (True, False)
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    try:
        table = pacsv.read_csv(
            pa.py_buffer(piece),
            read_options=pacsv.ReadOptions(autogenerate_column_names=True, block_size=1 << 22),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
            convert_options=pacsv.ConvertOptions(include_columns=["f2"], column_types={"f2": pa.binary()}),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, KeyError):
        return False
    return table.num_rows > 0 and pc.count_distinct(table.column("f2")).as_py() == table.num_rows


_ROW_LINE = re.compile(rb"^(?!#)[ \t\r\x0b\x0c]*[^\s]", re.MULTILINE)
"""A line that does not start with ``#`` and holds a byte other than ASCII whitespace."""


def _has_rows(block: bytes) -> bool:
    """Whether ``block`` has a line that is neither blank nor a comment.

    A search that stops at the first such line (usually the block's first), not a split of the
    block into lines.

    >>> _has_rows(b"# c\\n\\n  \\n"), _has_rows(b"# c\\n1 Q0 a 1 1 t\\n"), _has_rows(b"  # a row\\n")
    (False, True, True)
    """
    return _ROW_LINE.search(block) is not None


def _read_block(fh: Any, size: int, source: str) -> bytes:
    """The next ``size`` bytes of ``fh``; a truncated or corrupt ``.gz`` file raises InputFormatError."""
    try:
        return bytes(fh.read(size))
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InputFormatError(f"{source}: cannot read file: corrupt or truncated gzip data ({exc})") from exc


def _parsed(data: bytes, source: str, line: int, seen: set[str], columnar_only: bool) -> tuple[Run, bool]:
    """The run of one block (checked against the queries already seen), and whether the columnar parser took it."""
    run, columnar = parse_run_block(data, source, line)
    if columnar_only and not columnar:
        raise NotColumnar(f"{source}:{line}: a block needs the exact parser")
    return _checked(run, seen), columnar


def read_ahead(items: Iterable[T]) -> Iterator[T]:
    """The items of ``items``, each produced on a background thread while the caller works on the previous one.

    Parsing the next block of a run (pyarrow, which releases the GIL) thus
    overlaps with evaluating the current one; at most one item waits ahead.
    The iterator is only ever advanced by that one thread, and an exception
    raised while producing an item is raised here when the item is due.

    >>> list(read_ahead(iter(range(4))))
    [0, 1, 2, 3]
    """
    from concurrent.futures import ThreadPoolExecutor

    iterator = iter(items)
    done = object()
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(next, iterator, done)
        while True:
            item = pending.result()
            if item is done:
                return
            pending = pool.submit(next, iterator, done)
            yield item  # type: ignore[misc]


class _Position:
    """How far into the file on disk a reader is (for a ``.gz`` file: compressed bytes, as its size counts).

    A named pipe cannot tell its position: the bytes read are counted instead.
    """

    def __init__(self, fh: Any) -> None:
        self.raw: Any = fh.fileobj if isinstance(fh, gzip.GzipFile) else fh
        self.counted = 0

    def add(self, n: int) -> None:
        self.counted += n

    def done(self) -> int:
        try:
            return int(self.raw.tell())
        except OSError:  # a pipe (ESPIPE)
            return self.counted


def _query_starts(qids: Any) -> tuple[list[int], list[str]]:
    """Rows where a new run of equal query ids begins (the first row included), and the id at each.

    >>> _query_starts(Run(["b", "b", "a", "b"], ["d"] * 4, [1.0] * 4).query_ids)
    ([0, 2, 3], ['b', 'a', 'b'])
    """
    import numpy as np

    from rankmeter.ids.convert import as_ids

    coded = as_ids(qids, coded=True)
    codes = coded.codes
    starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1]))) if len(codes) else codes[:0]
    return starts.tolist(), coded.dictionary.take(codes[starts]).tolist()


def _checked(run: Run, seen: set[str]) -> Run:
    """The run, after checking that none of its queries appeared before (in this block or an earlier one)."""
    for row, q in zip(*_query_starts(run.query_ids), strict=True):
        if q in seen:
            src, line = run.location(row)
            raise QueryOrderError(
                f"{src}:{line}: query '{q}' appears again after other queries; streaming needs each "
                "query's lines together (sort the run by query, or evaluate without streaming)"
            )
        seen.add(q)
    return run
