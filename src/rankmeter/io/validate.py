"""Checks shared by every reader: numeric values must be finite, numbers plain, lines and .gz files bounded."""

from __future__ import annotations

import os
import re

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError, PolicyError, where
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


def line_too_long(length: int, source: str, line: int, limit: int | None = None) -> PolicyError:
    """The error for a line of ``length`` bytes or more, over ``limit`` (default :func:`max_line_bytes`)."""
    return PolicyError(
        f"{where(source, line)}line of {length} bytes or more, over the limit of "
        f"{max_line_bytes() if limit is None else limit} bytes "
        "(set RANKMETER_MAX_LINE_BYTES to raise it; is this a text file?)"
    )


def check_line_lengths(data: bytes, source: str, first_line: int = 1, limit: int | None = None) -> None:
    """Raise :class:`PolicyError` at the first line of ``data`` longer than ``limit`` (:func:`max_line_bytes`).

    >>> check_line_lengths(b"1 0 a 1\\n1 0 long-document-id 1\\n", "qrels.txt", limit=8)
    Traceback (most recent call last):
    ...
    rankmeter.errors.PolicyError: qrels.txt:2: line of 22 bytes or more, over the limit of 8 bytes ...
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
                    raise PolicyError(
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
