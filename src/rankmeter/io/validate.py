"""Checks shared by every reader: numeric values must be finite, numbers plain, lines and .gz files bounded."""

from __future__ import annotations

import os
import re

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError, LimitError, PolicyError, where
from rankmeter.io.tables import id_at


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
    start = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    line = data[start : len(data) if end < 0 else end].decode("utf-8", "surrogateescape")
    number = first_line + data.count(b"\n", 0, at)
    raise InputFormatError(
        f"{where(source, number)}a NUL byte (\\x00) in {line[:200]!r}: ids and values cannot contain NUL"
    )


DEFAULT_MAX_LINE_BYTES = 1 << 20
DEFAULT_MAX_GZIP_RATIO = 200


def _env_int(name: str, default: int) -> int:
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
    return _env_int("RANKMETER_MAX_LINE_BYTES", DEFAULT_MAX_LINE_BYTES)


def max_gzip_ratio() -> int:
    """How many times its size a ``.gz`` file read whole may expand: ``RANKMETER_MAX_GZIP_RATIO``, default 200.

    Text runs and qrels compress 5 to 30 times; gzip's ceiling is about 1032. Files that expand to
    less than 64 MiB are never stopped.

    >>> max_gzip_ratio()
    200
    """
    return _env_int("RANKMETER_MAX_GZIP_RATIO", DEFAULT_MAX_GZIP_RATIO)


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


def read_gzip(path: str | os.PathLike[str], source: str) -> bytes:
    """The decompressed bytes of a ``.gz`` file, stopped (PolicyError) past :func:`max_gzip_ratio` times its size.

    A truncated or corrupt file raises :class:`InputFormatError`.
    """
    import gzip
    import zlib

    limit = max(max_gzip_ratio() * os.path.getsize(path), 64 << 20)
    parts: list[bytes] = []
    total = 0
    try:
        with gzip.open(path, "rb") as fh:
            while chunk := fh.read(16 << 20):
                total += len(chunk)
                if total > limit:
                    raise LimitError(
                        f"{source}: expands to more than {limit} bytes, {max_gzip_ratio()} times its size "
                        "(set RANKMETER_MAX_GZIP_RATIO to raise the limit, or stream the run with "
                        "evaluate_stream / --stream, which holds one block at a time)"
                    )
                parts.append(chunk)
    except OSError as exc:
        raise InputFormatError(f"{source}: cannot read file: {exc.strerror or exc}") from exc
    except (EOFError, zlib.error) as exc:
        raise InputFormatError(f"{source}: cannot read file: corrupt or truncated gzip data ({exc})") from exc
    return b"".join(parts)
