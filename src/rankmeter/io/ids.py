"""The one representation of id columns the readers hand the core: UTF-8 bytes in Arrow's layout, held by NumPy.

An :class:`IdColumn` is either *plain* -- an offsets array and a byte array,
string ``i`` being ``data[offsets[i]:offsets[i + 1]]`` (the layout of a
pyarrow string array) -- or *coded*: a code per row into a plain dictionary
of distinct ids. :func:`as_ids` builds one from whatever a reader has, once:
a pyarrow column (the fast TREC reader, tables) lends its buffers without a
copy; NumPy strings (dicts, the exact TREC parser) are encoded without
importing pyarrow; integers are coded by value and only their distinct
values are written as text (:func:`integer_column`). The core then has one
path for every id operation: keys and sort words read the buffers,
interning reads the codes.

Why this representation, against the alternatives (measured with the benchmarks' W1 and W4):

* Arrow arrays everywhere: NumPy ids would need pyarrow, whose import alone
  costs several times the first call of a two-query dict job, which never
  imports pyarrow.
* NumPy codes and a sorted vocabulary for every column: dictionary-encoding
  W1's 7M document ids, bringing the dictionary to NumPy and sorting it
  costs several times the whole evaluation; hashing the Arrow buffers is a
  fraction of it.
* Arrow's layout in NumPy (this module): a pyarrow column's views cost
  nothing, hashing reads the buffers as they are, and NumPy strings are encoded
  without pyarrow (ASCII ids a column at a time). Query ids are coded at
  the boundary (their dictionary comes with the TREC reader's column).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.io.arrow import combined, is_arrow
from rankmeter.io.bool_ids import bool_ids_error, is_bool_column


class IdColumn:
    """Exact string ids: plain UTF-8 buffers, or codes into a plain dictionary of distinct ids.

    Build one with :func:`as_ids`. It reads like a sequence of ``str``
    (``len``, indexing, iteration, :meth:`tolist`, ``np.asarray``); indexing
    with a slice or an index array gives an :class:`IdColumn` of those rows.

    Examples
    --------
    >>> ids = as_ids(np.array(["q2", "q10", "é"]))
    >>> len(ids), ids[2], ids[np.array([1, 0])].tolist()
    (3, 'é', ['q10', 'q2'])
    >>> [o.tolist() for o in ids.buffers()]
    [[0, 2, 5, 7], [113, 50, 113, 49, 48, 195, 169]]
    """

    __slots__ = ("_codes", "_dictionary", "_offsets", "_data", "_text", "_coded", "memo")

    def __init__(
        self,
        offsets: np.ndarray | None = None,
        data: np.ndarray | None = None,
        *,
        codes: np.ndarray | None = None,
        dictionary: IdColumn | None = None,
        text: np.ndarray | None = None,
    ) -> None:
        self._offsets, self._data = offsets, data
        self._codes, self._dictionary = codes, dictionary
        self._text = text
        self._coded: IdColumn | None = self if codes is not None else None
        self.memo: dict[str, Any] = {}  # what the core derives from the ids once (hash keys, byte readers)

    def __getstate__(self) -> dict[str, Any]:
        """What pickling keeps (for a spawned worker): the ids, not ``memo``, which is rebuilt on use.

        ``memo`` holds derived data, such as byte readers eight times the size of the ids.

        >>> import pickle
        >>> ids = as_ids(np.array(["a", "b"]))
        >>> ids.memo["keys"] = np.zeros(2)
        >>> copy = pickle.loads(pickle.dumps(ids))
        >>> copy.tolist(), copy.memo
        (['a', 'b'], {})
        """
        return {name: getattr(self, name) for name in self.__slots__ if name != "memo"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.memo = {}

    # -- construction helpers ------------------------------------------------------------------------------------

    @classmethod
    def coded_from(cls, codes: np.ndarray, dictionary: IdColumn) -> IdColumn:
        """A coded column: ``codes`` (one per row) into ``dictionary`` (distinct ids)."""
        return cls(codes=codes, dictionary=dictionary)

    # -- what the core reads --------------------------------------------------------------------------------------

    def __len__(self) -> int:
        if self._codes is not None:
            return len(self._codes)
        if self._offsets is not None:
            return len(self._offsets) - 1
        assert self._text is not None
        return len(self._text)

    def buffers(self) -> tuple[np.ndarray, np.ndarray]:
        """``(offsets, data)``: the UTF-8 bytes of every row in Arrow's string layout."""
        if self._offsets is None:
            if self._codes is not None:
                assert self._dictionary is not None
                self._offsets, self._data = _gather(*self._dictionary.buffers(), self._codes)
            else:
                assert self._text is not None
                self._offsets, self._data = _utf8(self._text)
        assert self._data is not None
        return self._offsets, self._data

    def text(self) -> np.ndarray:
        """Every id as a NumPy unicode array."""
        if self._text is None:
            if self._codes is not None:
                assert self._dictionary is not None
                self._text = self._dictionary.text()[self._codes]
            else:
                self._text = _decode(*self.buffers())
        return self._text

    def coded(self) -> IdColumn:
        """This column with codes into a dictionary of distinct ids (itself when it has codes).

        >>> c = as_ids(np.array(["b", "a", "b"])).coded()
        >>> c.codes.tolist(), c.dictionary.tolist()
        ([1, 0, 1], ['a', 'b'])
        """
        if self._coded is None:
            self._coded = _coded_text(self.text())
        return self._coded

    @property
    def is_coded(self) -> bool:
        """Whether the column holds codes into a dictionary (without coding a plain one)."""
        return self._codes is not None

    @property
    def codes(self) -> np.ndarray:
        """The code of every row into :attr:`dictionary` (integers; the column is coded first if it is plain)."""
        codes = self.coded()._codes
        assert codes is not None
        return codes

    @property
    def dictionary(self) -> IdColumn:
        """The distinct ids :attr:`codes` point into (plain)."""
        dictionary = self.coded()._dictionary
        assert dictionary is not None
        return dictionary

    def take(self, rows: np.ndarray | slice) -> IdColumn:
        """The rows ``rows``: a slice shares the buffers; an index array gathers them.

        A coded column keeps codes, into a dictionary of only the ids taken
        (a slice keeps the whole dictionary).

        >>> c = as_ids(np.array(["x", "y", "z"])).coded().take(np.array([2, 0, 2]))
        >>> c.tolist(), c.dictionary.tolist()
        (['z', 'x', 'z'], ['x', 'z'])
        """
        if isinstance(rows, slice):
            start, stop, step = rows.indices(len(self))
            if step != 1:
                return self.take(np.arange(start, stop, step))
            if self._codes is not None:
                return IdColumn(codes=self._codes[start:stop], dictionary=self._dictionary)
            text = None if self._text is None else self._text[start:stop]
            if self._offsets is None:
                return IdColumn(text=text)
            return IdColumn(self._offsets[start : stop + 1], self._data, text=text)
        rows = np.asarray(rows, dtype=np.int64)
        if self._codes is not None:
            assert self._dictionary is not None
            codes = self._codes[rows]
            used = np.bincount(codes, minlength=len(self._dictionary)) > 0 if len(codes) else None
            if used is None or used.all():
                return IdColumn(codes=codes, dictionary=self._dictionary)
            new_code = np.cumsum(used) - 1
            return IdColumn(codes=new_code[codes], dictionary=self._dictionary.take(np.flatnonzero(used)))
        if self._offsets is None:
            assert self._text is not None
            return IdColumn(text=self._text[rows])
        text = None if self._text is None else self._text[rows]
        return IdColumn(*_gather(*self.buffers(), rows), text=text)

    # -- sequence behaviour, for users and error messages ---------------------------------------------------------

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, int | np.integer):
            row = int(key) + (len(self) if key < 0 else 0)
            if not 0 <= row < len(self):
                raise IndexError(f"row {int(key)} out of range for {len(self)} ids")
            if self._text is not None:
                return str(self._text[row])
            if self._codes is not None:
                assert self._dictionary is not None
                return self._dictionary[int(self._codes[row])]
            offsets, data = self.buffers()
            return data[int(offsets[row]) : int(offsets[row + 1])].tobytes().decode("utf-8", "surrogatepass")
        return self.take(key)

    def tolist(self) -> list[str]:
        """The ids as a list of ``str``."""
        return [str(s) for s in self.text().tolist()]

    to_pylist = tolist

    def __iter__(self) -> Any:
        return iter(self.tolist())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        text = self.text()
        return text if dtype is None else text.astype(dtype)

    def __repr__(self) -> str:
        head = self.take(slice(0, 5)).tolist()
        return f"IdColumn({head}{' ...' if len(self) > 5 else ''}, rows={len(self)})"


def as_ids(col: Any, *, coded: bool = False) -> IdColumn:
    """An id column of any reader (pyarrow or NumPy strings, or an :class:`IdColumn`) as an :class:`IdColumn`.

    This is where the kind of a column is decided, once. With ``coded`` the
    result has codes (query ids: a pyarrow dictionary column's codes are
    taken as they are, other columns are encoded once).

    Raises
    ------
    ValueError
        A pyarrow column with nulls (ids must be present).

    Examples
    --------
    >>> import pyarrow as pa
    >>> as_ids(pa.array(["a", "bc"])).tolist(), as_ids(np.array([3, 1]), coded=True).codes.tolist()
    (['a', 'bc'], [1, 0])
    """
    if is_bool_column(col):  # every reader refuses them first, naming where (rankmeter.io.bool_ids)
        raise bool_ids_error("id column")
    if isinstance(col, IdColumn):
        ids = col
    elif is_arrow(col):
        ids = _from_arrow(col, coded)
    else:
        values = np.asarray(col).reshape(-1)
        if values.dtype.kind in "iu":
            return integer_column(values)
        ids = IdColumn(text=values.astype(str, copy=False))
    return ids.coded() if coded else ids


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
    head = np.ones(len(ordered), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=head[1:])
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
    data = np.empty(int(offsets[-1]), dtype=np.uint8)
    ends = offsets[1:] - 1
    small = int(magnitude.max()) < 2**63 if len(x) else True  # int64 arithmetic is quicker than uint64's
    rest = magnitude.astype(np.int64) if small else magnitude.copy()
    ten = rest.dtype.type(10)
    for position in range(int(digits.max()) if len(x) else 0):
        here = digits > position
        data[ends[here] - position] = (rest[here] % ten).astype(np.uint8) + 48
        rest //= ten
    data[offsets[:-1][negative]] = ord("-")
    return IdColumn(offsets, data)


def _from_arrow(col: Any, coded: bool) -> IdColumn:
    import pyarrow as pa

    col = combined(col)
    if pa.types.is_dictionary(col.type):
        if col.null_count:
            raise ValueError("id columns must be without nulls")
        codes = np.frombuffer(col.indices.buffers()[1], dtype=col.type.index_type.to_pandas_dtype())
        codes = codes[col.offset : col.offset + len(col)]
        if pa.types.is_integer(col.dictionary.type):  # integer values: coded without text, as integer_column
            values = integer_column(np.asarray(col.dictionary.to_numpy(zero_copy_only=False)))
            return IdColumn(codes=values.codes[codes], dictionary=values.dictionary)
        dictionary = _plain_arrow(col.dictionary)
        distinct = _coded_text(dictionary.text())
        if len(distinct.dictionary) != len(dictionary):  # a dictionary that repeats a value
            return IdColumn(codes=distinct.codes[codes], dictionary=distinct.dictionary)
        return IdColumn(codes=codes, dictionary=dictionary)
    if coded:
        return _from_arrow(col.dictionary_encode(), coded)
    return _plain_arrow(col)


def _plain_arrow(arr: Any) -> IdColumn:
    """A pyarrow string-like array (no dictionary) as a plain column sharing its buffers."""
    import pyarrow as pa

    if arr.null_count:
        raise ValueError("id columns must be without nulls")
    if pa.types.is_string_view(arr.type) or not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = arr.cast(pa.string())
    width = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(arr.buffers()[1], dtype=width)[arr.offset : arr.offset + len(arr) + 1]
    raw = arr.buffers()[2]
    data = np.frombuffer(raw, dtype=np.uint8) if raw is not None else np.zeros(0, np.uint8)
    return IdColumn(offsets, data)


def _coded_text(text: np.ndarray) -> IdColumn:
    """NumPy strings as a coded column whose dictionary is sorted (no ``np.unique``: it imports ``numpy.ma``)."""
    order = np.argsort(text, kind="stable")
    ordered = text[order]
    head = np.ones(len(ordered), dtype=bool)
    if len(ordered) > 1:
        np.not_equal(ordered[1:], ordered[:-1], out=head[1:])
    codes = np.empty(len(text), dtype=np.int64)
    codes[order] = np.cumsum(head) - 1
    return IdColumn(codes=codes, dictionary=IdColumn(text=ordered[head]))


def _utf8(text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, data)`` of NumPy strings; ASCII columns a whole column at a time.

    Lone surrogates (bytes the exact TREC parser kept with ``surrogateescape``)
    are written as their three bytes, which keeps code-point order and
    equality byte for byte.
    """
    n, width = len(text), text.dtype.itemsize // 4
    offsets = np.zeros(n + 1, dtype=np.int64)
    if n == 0 or width == 0:
        return offsets, np.zeros(0, np.uint8)
    chars = np.ascontiguousarray(text).view(np.uint32).reshape(n, width)
    if n >= 256 and int(chars.max()) < 128:  # (a few ids: encoding each is quicker)
        lengths = np.count_nonzero(np.cumsum(chars[:, ::-1] != 0, axis=1), axis=1)  # up to the last non-NUL char
        np.cumsum(lengths, out=offsets[1:])
        return offsets, chars[np.arange(width) < lengths[:, None]].astype(np.uint8)
    encoded = [s.encode("utf-8", "surrogatepass") for s in text.tolist()]
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=n), out=offsets[1:])
    return offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8)


def _decode(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """NumPy strings from UTF-8 buffers; ASCII buffers a whole column at a time."""
    n = len(offsets) - 1
    starts = offsets[:-1].astype(np.int64)
    lengths = offsets[1:] - starts
    width = int(lengths.max()) if n else 0
    chunk = data[int(offsets[0]) : int(offsets[-1])] if n else data[:0]
    if width == 0:
        return np.full(n, "", dtype="<U1")
    if not len(chunk) or int(chunk.max()) < 128:
        chars = np.zeros((n, width), dtype=np.uint32)
        inside = np.arange(width) < lengths[:, None]
        chars[inside] = data[(starts[:, None] + np.arange(width))[inside]]
        return chars.view(f"<U{width}").reshape(n)
    raw = data.tobytes()
    return np.array(
        [raw[a:b].decode("utf-8", "surrogatepass") for a, b in zip(starts.tolist(), offsets[1:].tolist(), strict=True)],
        dtype=str,
    )


def _gather(offsets: np.ndarray, data: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, data)`` of the strings at ``rows`` (copied into new buffers)."""
    starts = offsets[rows].astype(np.int64)
    lengths = offsets[rows + 1] - starts
    bounds = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    gather = np.arange(int(bounds[-1])) + np.repeat(starts - bounds[:-1], lengths)
    return bounds, data[gather]
