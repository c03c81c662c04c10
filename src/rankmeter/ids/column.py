"""The one id type: :class:`IdColumn`, exact string ids held as UTF-8 bytes in Arrow's layout, or as codes.

An :class:`IdColumn` is either *plain* -- an offsets array and a byte array,
string ``i`` being ``data[offsets[i]:offsets[i + 1]]`` (the layout of a
pyarrow string array) -- or *coded*: a code per row into a plain dictionary
of distinct ids. :func:`~rankmeter.ids.convert.as_ids` builds one from
whatever a reader has, once; every operation on ids in
:mod:`rankmeter.ids` then has one path: keys and sort words read the
buffers, interning reads the codes.

Why this representation, against the alternatives (``benchmarks/run.py``'s
W1 and W4 measure them):

* Arrow arrays everywhere: NumPy ids would need pyarrow, whose import alone
  costs several times the first call of a two-query dict job, which never
  imports pyarrow.
* NumPy codes and a sorted vocabulary for every column: dictionary-encoding
  W1's 7M document ids, bringing the dictionary to NumPy and sorting it
  costs several times the whole evaluation; hashing the Arrow buffers is a
  fraction of it.
* Arrow's layout in NumPy (this module): a pyarrow column's views cost
  nothing, hashing reads the buffers as they are, and NumPy strings are
  encoded without pyarrow (ASCII ids a column at a time). Query ids are
  coded at the boundary (their dictionary comes with the TREC reader's
  column).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter.ids.text import decode, first_of_runs, gather, utf8

if TYPE_CHECKING:
    from rankmeter.ids.buffers import StringBuffers

DERIVED = ("keys", "ranks", "reader")
"""The attributes :mod:`rankmeter.ids` derives from a column once and keeps on it (never pickled)."""


class IdColumn:
    """Exact string ids: plain UTF-8 buffers, or codes into a plain dictionary of distinct ids.

    Build one with :func:`~rankmeter.ids.convert.as_ids` (or from NumPy
    strings, ``IdColumn(text=...)``). It reads like a sequence of ``str``
    (``len``, indexing, iteration, :meth:`tolist`, ``np.asarray``); indexing
    with a slice or an index array gives an :class:`IdColumn` of those rows.

    Attributes
    ----------
    keys : ndarray of uint64 or None
        The ids' hash keys (:func:`~rankmeter.ids.hashing.document_keys`), once computed.
    ranks : ndarray of int64 or None
        Of a coded column: the string-order rank of each dictionary entry
        (:func:`~rankmeter.ids.order.string_sort_keys`), once computed.
    reader : StringBuffers or None
        The byte reader of the ids (:meth:`~rankmeter.ids.buffers.StringBuffers.of`), once built.

    Examples
    --------
    >>> ids = IdColumn(text=np.array(["q2", "q10", "é"]))
    >>> len(ids), ids[2], ids[np.array([1, 0])].tolist()
    (3, 'é', ['q10', 'q2'])
    >>> [o.tolist() for o in ids.buffers()]
    [[0, 2, 5, 7], [113, 50, 113, 49, 48, 195, 169]]
    """

    __slots__ = ("_codes", "_dictionary", "_offsets", "_data", "_text", "_coded", *DERIVED)

    keys: np.ndarray | None
    ranks: np.ndarray | None
    reader: StringBuffers | None

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
        self.keys = self.ranks = self.reader = None

    def __getstate__(self) -> dict[str, Any]:
        """What pickling keeps (for a spawned worker): the ids, not the derived :data:`DERIVED`, rebuilt on use.

        The byte reader alone may be eight times the size of the ids.

        >>> import pickle
        >>> ids = IdColumn(text=np.array(["a", "b"]))
        >>> ids.keys = np.zeros(2, dtype=np.uint64)
        >>> copy = pickle.loads(pickle.dumps(ids))
        >>> copy.tolist(), copy.keys, copy.ranks, copy.reader
        (['a', 'b'], None, None, None)
        """
        return {name: getattr(self, name) for name in self.__slots__ if name not in DERIVED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.keys = self.ranks = self.reader = None

    # -- what the operations read ---------------------------------------------------------------------------------

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
                self._offsets, self._data = gather(*self._dictionary.buffers(), self._codes)
            else:
                assert self._text is not None
                self._offsets, self._data = utf8(self._text)
        assert self._data is not None
        return self._offsets, self._data

    def text(self) -> np.ndarray:
        """Every id as a NumPy unicode array."""
        if self._text is None:
            if self._codes is not None:
                assert self._dictionary is not None
                self._text = self._dictionary.text()[self._codes]
            else:
                self._text = decode(*self.buffers())
        return self._text

    def coded(self) -> IdColumn:
        """This column with codes into a sorted dictionary of distinct ids (itself when it has codes).

        >>> c = IdColumn(text=np.array(["b", "a", "b"])).coded()
        >>> c.codes.tolist(), c.dictionary.tolist()
        ([1, 0, 1], ['a', 'b'])
        """
        if self._coded is None:
            self._coded = coded_text(self.text())
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

        >>> c = IdColumn(text=np.array(["x", "y", "z"])).coded().take(np.array([2, 0, 2]))
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
        return IdColumn(*gather(*self.buffers(), rows), text=text)

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


def coded_text(text: np.ndarray) -> IdColumn:
    """NumPy strings as a coded column whose dictionary is sorted (no ``np.unique``: it imports ``numpy.ma``)."""
    order = np.argsort(text, kind="stable")
    ordered = text[order]
    head = first_of_runs(ordered)
    codes = np.empty(len(text), dtype=np.int64)
    codes[order] = np.cumsum(head) - 1
    return IdColumn(codes=codes, dictionary=IdColumn(text=ordered[head]))


def id_at(col: Any, row: int) -> str:
    """The id at one row of an id column (an :class:`IdColumn`, NumPy or pyarrow strings), as ``str``.

    >>> id_at(np.array(["a", "b"]), 1), id_at(IdColumn(text=np.array(["c"])), 0)
    ('b', 'c')
    """
    value = col[row]
    return str(value.as_py() if hasattr(value, "as_py") else value)
