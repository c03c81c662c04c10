"""Integer ids: coded by value, only their distinct values written as text.

Integer ids (user and item numbers, a sparse matrix's rows) are the decimal
text of the integers, so ``7`` and ``"7"`` are one id; no row is written out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.ids.column import IdColumn
from rankmeter.ids.text import first_of_runs


def python_ids(values: list[Any]) -> np.ndarray:
    """A list of Python ids as an array: all ``int`` (``bool`` is not) as int64, any other list as text.

    The integers are then coded by :func:`integer_column` (the same ids as
    their text, without writing each row).

    >>> python_ids([3, 10]).dtype.kind, python_ids([3, "a"]).tolist(), python_ids([True, 2]).tolist()
    ('i', ['3', 'a'], ['True', '2'])
    """
    if values and all(type(value) is int for value in values):
        try:
            return np.array(values, dtype=np.int64)
        except OverflowError:  # beyond int64: their text
            pass
    return np.array(list(map(str, values)), dtype=str)


INTEGER_SPAN = 1 << 16
"""Integers spread over at most ``4 * rows + INTEGER_SPAN`` values are coded with a table of that span (no sort)."""


def integer_column(values: np.ndarray) -> IdColumn:
    """Integer ids as a coded column: a code per row into their distinct values, each written as text once.

    The ids are the decimal text of the integers (``str(v)``), so an integer
    id equals the same id read as text (``7`` and ``"7"``); only the distinct
    values are ever written out. Integers over a narrow span (user and item
    numbers) are coded through a table of the span, others by a sort.

    Examples
    --------
    >>> ids = integer_column(np.array([30, 7, 30, -2]))
    >>> ids.codes.tolist(), ids.dictionary.tolist(), ids.tolist()
    ([2, 1, 2, 0], ['-2', '7', '30'], ['30', '7', '30', '-2'])
    """
    x = np.asarray(values).reshape(-1)
    if not len(x):
        return IdColumn(codes=np.zeros(0, np.int64), dictionary=IdColumn(np.zeros(1, np.int64), np.zeros(0, np.uint8)))
    low, high = x.min(), x.max()
    span = int(high) - int(low)
    if span < 4 * len(x) + INTEGER_SPAN:
        if not low:
            shifted = x
        elif x.dtype == np.uint64:
            shifted = x - low
        else:  # in int64: x - low may not fit x's own type (int8 from -100 to 100)
            shifted = x.astype(np.int64) - int(low)
        present = np.zeros(span + 1, dtype=bool)
        present[shifted] = True
        code_of = np.cumsum(present) - 1
        at = np.flatnonzero(present)
        distinct = at.astype(np.uint64) + low if x.dtype == np.uint64 else (at + int(low)).astype(x.dtype)
        return IdColumn(codes=code_of[shifted], dictionary=integer_text(distinct))
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    head = first_of_runs(ordered)
    codes = np.empty(len(x), dtype=np.int64)
    codes[order] = np.cumsum(head) - 1
    return IdColumn(codes=codes, dictionary=integer_text(ordered[head]))


_POWERS = np.array([10**p for p in range(1, 20)], dtype=np.uint64)


def integer_text(values: np.ndarray) -> IdColumn:
    """Integers as exact id text (``str(v)`` of each), built as UTF-8 buffers a digit position at a time.

    NumPy's ``astype(str)`` and its UTF-8 encoding take several times as long
    (``benchmarks/bench_recsys_inputs.py``); pyarrow's cast needs
    ``pyarrow.compute``, an import of its own.

    >>> integer_text(np.array([0, -7, 1500, np.iinfo(np.int64).min])).tolist()
    ['0', '-7', '1500', '-9223372036854775808']
    """
    x = np.asarray(values).reshape(-1)
    if x.dtype.kind == "u":
        magnitude = x.astype(np.uint64)
        negative = np.zeros(len(x), dtype=bool)
    else:
        x = x.astype(np.int64)
        negative = x < 0
        magnitude = np.where(negative, -(x + 1), x).astype(np.uint64) + negative.astype(np.uint64)  # |min| too
    digits = np.searchsorted(_POWERS, magnitude, side="right") + 1
    offsets = np.zeros(len(x) + 1, dtype=np.int64)
    np.cumsum(digits + negative, out=offsets[1:])
    small = int(magnitude.max()) < 2**63 if len(x) else True  # int64 arithmetic is quicker than uint64's
    rest = magnitude.astype(np.int64) if small else magnitude.copy()
    ten = rest.dtype.type(10)
    width = int(digits.max()) if len(x) else 0
    chars = np.empty((len(x), width + 1), dtype=np.uint8)  # each id right-aligned, its sign before its digits
    for position in range(width):
        chars[:, width - position] = (rest % ten).astype(np.uint8) + 48
        rest //= ten
    chars[np.flatnonzero(negative), (width - digits)[negative]] = ord("-")
    written = np.arange(width + 1) >= (width + 1 - digits - negative)[:, None]  # each id's sign and digits
    return IdColumn(offsets, chars[written])


def integer_values(text: np.ndarray) -> np.ndarray | None:
    """The integers whose exact text (``str(v)``) ``text`` holds, or None when an entry is not such a text.

    The inverse of :func:`integer_text` on NumPy strings, a column of characters at a time: each entry
    must be ASCII digits with an optional leading ``-``, no leading zero and no ``-0``, of at most 18
    digits (so within int64). Anything else ("07", " 7", "1_000", larger numbers) is None, for the
    caller's own reading.

    >>> integer_values(np.array(["10", "-7", "0", "9"])).tolist(), integer_values(np.array(["07"]))
    ([10, -7, 0, 9], None)
    """
    text = np.asarray(text)
    n = len(text)
    if not n or text.dtype.kind != "U" or not text.dtype.itemsize:
        return np.zeros(0, dtype=np.int64) if not n and text.dtype.kind == "U" else None
    chars = np.ascontiguousarray(text).view(np.uint32).reshape(n, text.dtype.itemsize // 4)
    used = np.flatnonzero(chars.any(axis=0))
    width = int(used[-1]) + 1 if len(used) else 0
    if not 0 < width <= 19:
        return None
    chars = chars[:, :width].astype(np.int64)
    length = np.count_nonzero(chars, axis=1)
    negative = chars[:, 0] == ord("-")
    digits = chars - ord("0")
    digits[negative, 0] = 0  # the sign: a leading zero digit, which adds nothing
    inside = chars != 0
    if not (inside[:, :-1] | ~inside[:, 1:]).all():  # (a NUL inside an id)
        return None
    sign_or_digit = (digits >= 0) & (digits <= 9)
    start = negative.astype(np.intp)
    count = length - start
    lead = digits[np.arange(n), np.minimum(start, width - 1)]
    if not (sign_or_digit | ~inside).all() or not ((count > 0) & (count <= 18) & ((lead != 0) | (count == 1))).all():
        return None
    if (negative & (lead == 0)).any():  # "-0"
        return None
    value = np.zeros(n, dtype=np.int64)
    for column in range(width):
        value = np.where(inside[:, column], value * 10 + digits[:, column], value)
    return np.where(negative, -value, value)
