"""Checks shared by every reader: numeric values must be finite, numbers plain, lines and .gz files bounded."""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError, LimitError, PolicyError, where
from rankmeter.ids.column import id_at


def check_finite(
    values: np.ndarray,
    what: str,
    query_ids: np.ndarray,
    doc_ids: np.ndarray,
    source: str | None,
    lines: np.ndarray | None,
) -> None:
    """Raise :class:`InvalidScoreError` at the first NaN or infinite value.

    >>> import numpy as np
    >>> check_finite(np.array([1.0, np.nan]), "score", np.array(["q1", "q1"]),
    ...              np.array(["d1", "d2"]), "run.txt", np.array([1, 2]))
    Traceback (most recent call last):
    ...
    rankmeter.errors.InvalidScoreError: run.txt:2: query 'q1', document 'd2': score is nan; ...
    """
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        line = int(lines[row]) if lines is not None else row + 1
        raise InvalidScoreError(
            f"{where(source, line)}query '{id_at(query_ids, row)}', document '{id_at(doc_ids, row)}': "
            f"{what} is {values[row]}; scores and grades must be finite numbers"
        )


_PLAIN_NUMBER = re.compile(
    r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|infinity|nan)", re.IGNORECASE | re.ASCII
)


def first_unplain_number(tokens: np.ndarray) -> int | None:
    """Row of the first token that Python's ``float`` reads but is not an ASCII decimal number, else None.

    ``float`` also accepts digit separators (``1_0`` is 10), non-ASCII digits and surrounding Unicode
    spaces; TREC files and trec_eval (C ``atof``) know none of them, so reading them would give a
    number nobody meant.

    >>> import numpy as np
    >>> first_unplain_number(np.array(["1.5", "-2e3", "nan"])) is None
    True
    >>> first_unplain_number(np.array(["1", "1_0"]))
    1
    """
    joined = "\n".join(map(str, tokens))
    if joined.isascii() and "_" not in joined:
        return None
    for row, token in enumerate(tokens):
        if not _PLAIN_NUMBER.fullmatch(str(token)):
            return row
    return None


class UnreadableNumber(Exception):
    """A value that is no number under :func:`as_float`'s grammar: its row and why (for a located error)."""

    def __init__(self, row: int, value: object, reason: str) -> None:
        super().__init__(f"row {row}: {reason}")
        self.row, self.value, self.reason = row, value, reason

    def describe(self) -> str:
        """The value and the reason, e.g. ``'1_0' is not a number``; a long value is shortened."""
        text = repr(self.value.item() if isinstance(self.value, np.generic) else self.value)
        if len(text) > 40:
            text = f"{text[:20]}...{text[-10:]} ({len(text)} characters)"
        return f"{text} {self.reason}"


def as_float(value: object, row: int = 0) -> float:
    """One score or grade given as a Python object, read under the grammar of the TREC file readers.

    Numbers (``bool``, ``int``, ``float``, ``Decimal``, NumPy numbers) are taken as they are; text
    (``str``, ``bytes``) only when it is an ASCII decimal number, as in a TREC file (no ``1_0``, no
    non-ASCII digits, no surrounding spaces). Complex numbers, other objects and integers beyond the
    float range raise :class:`UnreadableNumber`. NaN and infinities pass: :func:`check_finite` names them.

    >>> as_float("2.5"), as_float(3), as_float(b"-1e2")
    (2.5, 3.0, -100.0)
    >>> as_float("1_0")
    Traceback (most recent call last):
    ...
    rankmeter.io.validate.UnreadableNumber: row 0: is not a number
    >>> as_float(10**400)
    Traceback (most recent call last):
    ...
    rankmeter.io.validate.UnreadableNumber: row 0: is beyond the float range; scores and grades must be finite numbers
    """
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    if isinstance(value, str):
        if not _PLAIN_NUMBER.fullmatch(value):
            raise UnreadableNumber(row, value, "is not a number")
        return float(value)
    if isinstance(value, complex | np.complexfloating):
        raise UnreadableNumber(row, value, "is not a number (complex)")
    try:
        return float(value)  # type: ignore[arg-type]
    except OverflowError:
        raise UnreadableNumber(
            row, value, "is beyond the float range; scores and grades must be finite numbers"
        ) from None
    except (TypeError, ValueError):
        raise UnreadableNumber(row, value, "is not a number") from None


def as_floats(values: np.ndarray) -> np.ndarray:
    """A column of scores or grades as float64, each value read by :func:`as_float` (numeric columns at once).

    >>> as_floats(np.array(["1", "2.5"], dtype=object)).tolist()
    [1.0, 2.5]
    >>> as_floats(np.array(["1", "\u0661"]))
    Traceback (most recent call last):
    ...
    rankmeter.io.validate.UnreadableNumber: row 1: is not a number
    """
    if values.dtype.kind in "biuf":
        return values.astype(np.float64)
    return np.fromiter((as_float(v, row) for row, v in enumerate(values)), np.float64, len(values))


def check_no_nul(data: bytes, source: str, first_line: int = 1) -> None:
    """Raise :class:`InputFormatError` at the first line of a text file holding a NUL byte.

    NumPy's text arrays (and C, so trec_eval) end a string at NUL, so ``a\\x00`` would silently become ``a``.

    >>> check_no_nul(b"1 0 a 1\\n1 0 b\\x00 0\\n", "qrels.txt")
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputFormatError: qrels.txt:2: a NUL byte (\\x00) in '1 0 b\\x00 0': ids and values ...
    """
    at = data.find(b"\x00")
    if at < 0:
        return
    number, line = _line_at(data, at, first_line)
    raise InputFormatError(
        f"{where(source, number)}a NUL byte (\\x00) in {line[:200]!r}: ids and values cannot contain NUL"
    )


def _line_at(data: bytes, at: int, first_line: int) -> tuple[int, str]:
    """The number and the text of the line of ``data`` holding byte ``at`` (``data``'s first line is ``first_line``).

    >>> _line_at(b"a\\nbc\\nd", 3, 1)
    (2, 'bc')
    """
    start = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    return first_line + data.count(b"\n", 0, at), data[start : len(data) if end < 0 else end].decode(
        "utf-8", "surrogateescape"
    )


DEFAULT_MAX_LINE_BYTES = 1 << 20
DEFAULT_MAX_GZIP_RATIO = 200


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise PolicyError(f"environment variable {name}={value!r} is not an integer") from None
    if number < 1:
        raise PolicyError(f"environment variable {name}={value!r} must be >= 1")
    return number


def max_line_bytes() -> int:
    """The longest line a TREC text file may have, in bytes: ``RANKMETER_MAX_LINE_BYTES``, default 1 MiB.

    A longer line is an error naming it, so that a file without line breaks (a binary file, a
    compressed file without ``.gz``) cannot make the streaming reader hold all of it as one line.

    >>> max_line_bytes()
    1048576
    """
    return env_int("RANKMETER_MAX_LINE_BYTES", DEFAULT_MAX_LINE_BYTES)


def max_gzip_ratio() -> int:
    """How many times its size a ``.gz`` file read whole may expand: ``RANKMETER_MAX_GZIP_RATIO``, default 200.

    Text runs and qrels compress 5 to 30 times; gzip's ceiling is about 1032. Files that expand to
    less than 64 MiB are never stopped.

    >>> max_gzip_ratio()
    200
    """
    return env_int("RANKMETER_MAX_GZIP_RATIO", DEFAULT_MAX_GZIP_RATIO)


def line_too_long(length: int, source: str, line: int, limit: int | None = None) -> LimitError:
    """The error for a line of ``length`` bytes or more, over ``limit`` (default :func:`max_line_bytes`)."""
    return LimitError(
        f"{where(source, line)}line of {length} bytes or more, over the limit of "
        f"{max_line_bytes() if limit is None else limit} bytes "
        "(set RANKMETER_MAX_LINE_BYTES to raise it; is this a text file?)"
    )


def check_line_lengths(data: bytes, source: str, first_line: int = 1, limit: int | None = None) -> None:
    """Raise :class:`LimitError` at the first line of ``data`` longer than ``limit`` (:func:`max_line_bytes`).

    >>> check_line_lengths(b"1 0 a 1\\n1 0 long-document-id 1\\n", "qrels.txt", limit=8)
    Traceback (most recent call last):
    ...
    rankmeter.errors.LimitError: qrels.txt:2: line of 22 bytes or more, over the limit of 8 bytes ...
    """
    limit = max_line_bytes() if limit is None else limit
    if len(data) <= limit:
        return
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    lengths = np.diff(np.concatenate(([-1], ends, [len(data)]))) - 1
    over = np.flatnonzero(lengths > limit)
    if len(over):
        raise line_too_long(int(lengths[over[0]]), source, first_line + int(over[0]), limit)


UTF8_BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte order mark: skipped at the start of a text file by every TREC reader."""

_LONE_CR = re.compile(rb"\r(?=[^\n])")


def check_line_ends(data: bytes, source: str, first_line: int = 1) -> None:
    """Raise :class:`InputFormatError` at the first carriage return that neither ends the data nor precedes ``\\n``.

    Lines end with ``\\n`` or ``\\r\\n``. A lone ``\\r`` (classic Mac OS line ends, or a stray one) is
    refused: read as whitespace, as C's ``isspace`` and trec_eval read it, a file whose lines end in
    ``\\r`` would be one line and every row after the first silently lost.

    >>> check_line_ends(b"1 0 a 1\\r\\n1 0 b 0\\n", "qrels.txt")
    >>> check_line_ends(b"1 0 a 1\\n1 0 b 0\\r1 0 c 1\\r", "qrels.txt")
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputFormatError: qrels.txt:2: a carriage return (\\r) not followed by a line feed in ...
    """
    found = _LONE_CR.search(data) if b"\r" in data else None
    if found is None:
        return
    number, line = _line_at(data, found.start(), first_line)
    raise InputFormatError(
        f"{where(source, number)}a carriage return (\\r) not followed by a line "
        f"feed in {line[:200]!r}: lines must end with \\n or \\r\\n (convert the file, e.g. with tr '\\r' '\\n')"
    )


def check_text(data: bytes, source: str, first_line: int = 1) -> None:
    """Every check of a TREC text read whole: no NUL byte, no lone carriage return, no line over the limit."""
    check_no_nul(data, source, first_line)
    check_line_ends(data, source, first_line)
    check_line_lengths(data, source, first_line)


class _Bounded:
    """Checks the chunks of a text file as they are read: NUL bytes, the length of the line still open, a size limit.

    A file without line breaks (``/dev/zero``, a binary file) or with a NUL byte (``/dev/urandom``) is
    stopped at its first chunk instead of being read to the end (or without end) first.
    """

    def __init__(self, source: str, limit: int | None, what: str, text_checks: bool = True) -> None:
        self.source, self.limit, self.what, self.text_checks = source, limit, what, text_checks
        self.parts: list[bytes] = []
        self.total = 0
        self.lines = 0  # line breaks before the chunk being read
        self.open_line = 0  # bytes of the line still without its end
        self.max_line = max_line_bytes()

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if self.limit is not None and self.total > self.limit:
            raise LimitError(f"{self.source}: {self.what}")
        self.parts.append(chunk)
        if not self.text_checks:
            return
        check_no_nul(chunk, self.source, self.lines + 1)  # (the line number is right; the text may be cut)
        first = chunk.find(b"\n")
        if first < 0:
            self.open_line += len(chunk)
        else:
            if self.open_line + first > self.max_line:
                raise line_too_long(self.open_line + first, self.source, self.lines + 1)
            last = chunk.rfind(b"\n")
            if _may_hold_long_line(chunk, first + 1, last + 1, self.max_line):
                check_line_lengths(chunk[first + 1 : last + 1], self.source, self.lines + 2, self.max_line)
            self.open_line = len(chunk) - last - 1
            self.lines += chunk.count(b"\n")
        if self.open_line > self.max_line:
            raise line_too_long(self.open_line, self.source, self.lines + 1)

    def data(self) -> bytes:
        data = b"".join(self.parts)
        self.parts = []
        return data


_CHUNK = 16 << 20


def _may_hold_long_line(data: bytes, start: int, stop: int, limit: int) -> bool:
    """False when no line of ``data[start:stop]`` can be longer than ``limit``: every aligned window of
    ``limit // 2`` bytes holds a line feed (a longer line would hold one such window whole). A ``find``
    per window, each stopping at its first line feed: no pass over every byte.

    >>> _may_hold_long_line(b"ab\\ncd\\nef\\n", 0, 9, 8), _may_hold_long_line(b"abcdefghij\\n", 0, 11, 4)
    (False, True)
    """
    step = max(limit // 2, 1)
    return any(data.find(b"\n", at, min(at + step, stop)) < 0 for at in range(start, stop, step))


def expansion_limit(path: str | os.PathLike[str]) -> int:
    """The most bytes a compressed file may expand to when read whole: :func:`max_gzip_ratio` times its size
    on disk, and never less than 64 MiB."""
    return max(max_gzip_ratio() * os.path.getsize(path), 64 << 20)


def read_gzip(path: str | os.PathLike[str], source: str, *, text_checks: bool = True) -> bytes:
    """The decompressed bytes of a ``.gz`` file, stopped (PolicyError) past :func:`max_gzip_ratio` times its size.

    A truncated or corrupt file raises :class:`InputFormatError`; with ``text_checks`` (TREC text), a NUL
    byte or a line over :func:`max_line_bytes` stops the reading where it is found.
    """
    import gzip
    import zlib

    limit = expansion_limit(path)
    bounded = _Bounded(
        source,
        limit,
        f"expands to more than {limit} bytes, {max_gzip_ratio()} times its size "
        "(set RANKMETER_MAX_GZIP_RATIO to raise the limit, or stream the run with "
        "evaluate_stream / --stream, which holds one block at a time)",
        text_checks,
    )
    try:
        with gzip.open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                bounded.add(chunk)
    except OSError as exc:
        raise InputFormatError(f"{source}: cannot read file: {exc.strerror or exc}") from exc
    except (EOFError, zlib.error) as exc:
        raise InputFormatError(f"{source}: cannot read file: corrupt or truncated gzip data ({exc})") from exc
    return bounded.data()


def read_stream(fh: Any, source: str) -> bytes:
    """All bytes of an open binary stream (standard input, a named pipe, a device), read once, checked as read.

    Reading stops at the first NUL byte or line over :func:`max_line_bytes`, so that an endless input
    without line breaks cannot fill the memory.
    """
    bounded = _Bounded(source, None, "")
    try:
        while chunk := fh.read(_CHUNK):
            bounded.add(bytes(chunk))
    except OSError as exc:
        raise InputFormatError(f"{source}: cannot read file: {exc.strerror or exc}") from exc
    return bounded.data()


def read_text_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a TREC text file, read once: ``-`` standard input, ``.gz`` decompressed (bounded), other paths
    (regular files, named pipes, devices) as they are; a leading UTF-8 byte order mark is dropped.

    Every check of :func:`check_text` is made; a file that cannot be read raises :class:`InputFormatError`.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("wb", delete=False) as f:
    ...     _ = f.write(b"\\xef\\xbb\\xbf1 0 a 1\\n")
    >>> read_text_bytes(f.name)
    b'1 0 a 1\\n'
    >>> os.unlink(f.name)
    """
    import sys

    source = "<stdin>" if str(path) == "-" else os.fspath(path)
    checked = True  # NUL bytes and line lengths checked while reading
    if str(path) == "-":
        data = read_stream(sys.stdin.buffer, source)
    elif source.endswith(".gz"):
        data = read_gzip(path, source)
    else:
        try:
            with open(path, "rb") as fh:
                checked = not is_regular(fh)
                data = read_stream(fh, source) if checked else fh.read()
        except OSError as exc:
            raise InputFormatError(f"{source}: cannot read file: {exc.strerror or exc}") from exc
    data = data[3:] if data.startswith(UTF8_BOM) else data
    if checked:
        check_line_ends(data, source)
    else:
        check_text(data, source)
    return data


def file_holds(path: str | os.PathLike[str], byte: bytes) -> bool:
    """Whether a regular file holds ``byte`` (memory-mapped: nothing is read into Python); False if unreadable.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("wb", delete=False) as f:
    ...     _ = f.write(b"1 0 a 1\\r\\n")
    >>> file_holds(f.name, b"\\r"), file_holds(f.name, b"\\t")
    (True, False)
    >>> os.unlink(f.name)
    """
    import mmap

    try:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            return mm.find(byte) >= 0
    except (OSError, ValueError):
        return False


def is_regular(fh: Any) -> bool:
    """Whether an open file is a regular file (which can be memory-mapped, sized and read again)."""
    import stat

    try:
        return stat.S_ISREG(os.fstat(fh.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):
        return False


def is_regular_path(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a regular file (not standard input, a named pipe, a device or a directory).

    >>> is_regular_path("-"), is_regular_path("/dev/null")
    (False, False)
    """
    import stat

    if str(path) == "-":
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
