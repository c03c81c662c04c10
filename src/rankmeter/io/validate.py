"""Checks shared by every reader: numeric values must be finite."""

from __future__ import annotations

import re

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError, where
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
