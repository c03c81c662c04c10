"""A NumPy-only parser for plain TREC files: single spaces, ``\\n`` line ends, ASCII, the exact column count.

This is what retrieval systems write, and for files of a few megabytes it is
quicker to parse them with NumPy than to import pyarrow's CSV reader (on
W2's 7.3 MB run, parsing takes less than importing pyarrow with its CSV and
compute modules alone). Anything else -- a tab, a doubled or edge
space, a blank or comment line, a byte over 127, a line too long, a field
count that differs, a value that is not a plain decimal -- gives None and
the caller's other parsers (pyarrow's, then the exact line-by-line one, which
reports problems by ``file:line``) take the file, so values and messages are
theirs.

The result is what those parsers give: query ids coded in order of first
appearance, document ids in Arrow's string layout, values as float64.
Numbers are read exactly: a plain decimal with at most 15 significant
digits is its integer mantissa divided by a power of ten (both exact in
float64, so the quotient is correctly rounded: the value ``float`` gives),
any other number goes through NumPy's string-to-float conversion.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from rankmeter.ids.column import IdColumn

if TYPE_CHECKING:
    import mmap

_SPACE, _NEWLINE, _DOT, _MINUS, _ZERO = 32, 10, 46, 45, 48
_NUMBER_BYTES = np.zeros(256, dtype=bool)  # (and 0: the padding past a field's end)
_NUMBER_BYTES[0] = True
_NUMBER_BYTES[[*range(48, 58), _DOT, _MINUS, ord("+"), ord("e"), ord("E")]] = True
_MAX_EXACT_DIGITS = 15  # 10**15 < 2**53: the mantissa is an exact float64
_POWERS = 10.0 ** np.arange(_MAX_EXACT_DIGITS + 1)


class PlainColumns(NamedTuple):
    """The columns of a plain file: coded query ids, plain document ids, values, the first line's fields."""

    query_ids: IdColumn
    doc_ids: IdColumn
    values: np.ndarray
    first_line: list[str]


def parse_plain(data: bytes | mmap.mmap, n_columns: int, value_col: int, max_line: int) -> PlainColumns | None:
    """Columns 0 (query ids), 2 (document ids) and ``value_col`` of ``data``, or None if it is not plain.

    Parameters
    ----------
    data : bytes or buffer
        The whole file (bytes, or a memory map of it).
    n_columns : int
        Fields on every line (4 for qrels, 6 for runs).
    value_col : int
        The numeric column (3: relevance, 4: score).
    max_line : int
        The longest line accepted, in bytes; a longer one gives None (the exact parser reports it).

    Returns
    -------
    PlainColumns or None

    Examples
    --------
    >>> cols = parse_plain(b"q2 Q0 a 1 2.5 t\\nq1 Q0 b 2 -1 t\\nq2 Q0 c 3 1e3 t\\n", 6, 4, 1 << 20)
    >>> cols.query_ids.tolist(), cols.query_ids.codes.tolist(), cols.doc_ids.tolist(), cols.values.tolist()
    (['q2', 'q1', 'q2'], [0, 1, 0], ['a', 'b', 'c'], [2.5, -1.0, 1000.0])
    >>> parse_plain(b"q1 0  a 1\\n", 4, 3, 1 << 20) is None  # a doubled space
    True
    """
    if not data:
        return None
    if data[-1:] != b"\n":
        data = bytes(data) + b"\n"
    raw = np.frombuffer(data, dtype=np.uint8)
    blank = raw <= _SPACE  # spaces and newlines; any other control byte makes the file not plain
    ends: np.ndarray = np.flatnonzero(blank)
    if len(ends) % n_columns or blank[0]:
        return None  # a field too many or too few, or a blank first
    ends = ends.reshape(-1, n_columns)
    scratch = raw < _SPACE
    if not (raw[ends[:, -1]] == _NEWLINE).all() or np.count_nonzero(scratch) != len(ends):
        return None  # every n-th separator ends a line, and the others are spaces (no tab, CR, ...)
    if np.logical_and(blank[1:], blank[:-1], out=scratch[1:]).any():  # (the scratch buffer reused: fewer page faults)
        return None  # an empty field: a doubled or edge space, a blank line
    del blank, scratch  # (7 MB each on W2's run: freed before the fields are gathered)
    line_starts = np.zeros(len(ends), dtype=np.int64)
    np.add(ends[:-1, -1], 1, out=line_starts[1:])
    if int((ends[:, -1] - line_starts).max()) > max_line or int(raw.max()) > 127 or (raw[line_starts] == 35).any():
        return None  # a line over the limit, a byte over 127, a comment ('#' first)

    def field(column: int) -> tuple[np.ndarray, np.ndarray]:
        starts = line_starts if column == 0 else ends[:, column - 1] + 1
        return starts, ends[:, column] - starts

    fields = _Fields(raw)
    values = fields.numbers(*field(value_col))
    if values is None:
        return None
    first_line = data[: int(ends[0, -1])].decode("ascii").split(" ")
    return PlainColumns(fields.coded(*field(0)), fields.plain(*field(2)), values, first_line)


@cache
def _prefixes(width: int) -> np.ndarray:
    """Item ``k``: ``width`` booleans, the first ``k`` true (one item per field length, gathered a row at a time)."""
    table = np.arange(width) < np.arange(width + 1)[:, None]
    return table.view(f"V{width}").reshape(-1)


class _Fields:
    """Fields of one file read as byte matrices: row ``i`` holds the bytes from a field's start on."""

    def __init__(self, raw: np.ndarray) -> None:
        self.raw = raw

    def matrix(self, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The fields as a (rows, widest) byte matrix, cells past a field's end zeroed, and which cells are inside.

        Rows are gathered as items of ``widest`` bytes (one copy each, not a cell at a time).
        """
        width = int(lengths.max())
        last = len(self.raw) - width  # the last window inside the buffer (a field is never longer than the file)
        windows = np.ndarray((last + 1,), dtype=f"V{width}", buffer=self.raw, strides=(1,))
        matrix = windows[np.minimum(starts, last)].view(np.uint8).reshape(-1, width)
        late = np.flatnonzero(starts > last)  # fields near the end of the file, whose window would leave it
        for row in late.tolist():
            matrix[row] = 0
            matrix[row, : int(lengths[row])] = self.raw[starts[row] : starts[row] + lengths[row]]
        inside = _prefixes(width)[lengths].view(np.bool_).reshape(-1, width)
        np.multiply(matrix, inside.view(np.uint8), out=matrix)
        return matrix, inside

    def plain(self, starts: np.ndarray, lengths: np.ndarray) -> IdColumn:
        """The fields as a plain id column (offsets and concatenated bytes)."""
        matrix, inside = self.matrix(starts, lengths)
        offsets = np.zeros(len(starts) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return IdColumn(offsets, matrix[inside])

    def coded(self, starts: np.ndarray, lengths: np.ndarray) -> IdColumn:
        """The fields as codes into their distinct values, numbered by first appearance (as pyarrow's encoding)."""
        matrix, _ = self.matrix(starts, lengths)
        fixed = matrix.view(f"S{matrix.shape[1]}").reshape(-1)
        change = np.ones(len(fixed), dtype=bool)  # a query's rows mostly come together: compare neighbours first
        np.not_equal(fixed[1:], fixed[:-1], out=change[1:])
        heads = np.flatnonzero(change)
        order = np.argsort(fixed[heads], kind="stable")
        ordered = fixed[heads][order]
        new = np.ones(len(ordered), dtype=bool)
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        group = np.cumsum(new) - 1  # the distinct value of each head, numbered in sorted order
        first = np.full(int(group[-1]) + 1, len(heads), dtype=np.int64)
        np.minimum.at(first, group, order)  # the first head of each distinct value
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(first))
        head_code = np.empty(len(heads), dtype=np.int64)
        head_code[order] = rank[group]
        codes = head_code[np.cumsum(change) - 1].astype(np.int32)
        distinct = heads[np.sort(first)]
        return IdColumn(codes=codes, dictionary=self.plain(starts[distinct], lengths[distinct]))

    def numbers(self, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
        """The fields as float64, exactly as ``float`` reads them; None if one is not a plain decimal number."""
        matrix, _ = self.matrix(starts, lengths)
        if not _NUMBER_BYTES[matrix].all():
            return None
        mantissa = np.zeros(len(starts), dtype=np.int64)
        n_digits = np.zeros(len(starts), dtype=np.int32)
        fraction = np.zeros(len(starts), dtype=np.int32)
        dots = np.zeros(len(starts), dtype=np.int32)
        seen_dot = np.zeros(len(starts), dtype=bool)
        for column in matrix.T.copy():  # Horner's rule a column at a time: few columns (the widest number)
            digit = column - np.uint8(_ZERO)
            is_digit = digit < 10
            np.add(mantissa * 10, digit, out=mantissa, where=is_digit)
            n_digits += is_digit
            fraction += is_digit & seen_dot
            is_dot = column == _DOT
            dots += is_dot
            seen_dot |= is_dot
        negative = matrix[:, 0] == _MINUS
        simple = (
            (n_digits > 0) & (n_digits <= _MAX_EXACT_DIGITS) & (dots <= 1) & (n_digits + dots + negative == lengths)
        )
        values = mantissa / _POWERS[np.where(simple, fraction, 0)]
        np.negative(values, out=values, where=negative)
        if not simple.all():
            rows = np.flatnonzero(~simple)
            try:
                values[rows] = matrix[rows].view(f"S{matrix.shape[1]}").reshape(-1).astype(np.float64)
            except ValueError:
                return None
        return values
