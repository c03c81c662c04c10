"""Interning: ids as integer codes into a sorted vocabulary (exact, never hashed), and lookups in one.

Codes follow the ids' string order (code-point order, which for UTF-8 text
is the byte order ``strcmp`` uses), so sorting by code sorts by id. A coded
column is read through its dictionary: each distinct id is handled once.
"""

from __future__ import annotations

import numpy as np

from rankmeter.ids.column import IdColumn
from rankmeter.ids.text import first_of_runs


def _encoded(ids: IdColumn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`encode` in two parts: ``(vocabulary, codes, indices)``.

    ``codes`` maps each entry of the column's dictionary to its vocabulary
    code and the rows' codes are ``codes[indices]``, a gather left to the
    caller so that composed maps touch the rows once.
    """
    dictionary = ids.dictionary.text()
    order = np.argsort(dictionary, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return dictionary[order], rank, ids.codes


def _row_codes(codes: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The code of every row from an :func:`_encoded` pair (one pass over the rows, no index widening)."""
    if np.array_equal(codes, np.arange(len(codes))):  # dictionary already in vocabulary order (ids written sorted)
        return indices.astype(np.int64)
    return codes[indices]


def encode(ids: IdColumn) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique ids and the code of each row.

    >>> vocab, codes = encode(IdColumn(text=np.array(["q2", "q10", "q2"])))
    >>> vocab.tolist(), codes.tolist()
    (['q10', 'q2'], [1, 0, 1])
    """
    vocab, codes, indices = _encoded(ids)
    return vocab, _row_codes(codes, indices)


def vocabulary(ids: IdColumn) -> np.ndarray:
    """Sorted unique ids of a column (a coded column reads only its dictionary).

    >>> vocabulary(IdColumn(text=np.array(["q2", "q10", "q2"]))).tolist()
    ['q10', 'q2']
    """
    return _encoded(ids)[0]


def intern(*columns: IdColumn) -> tuple[np.ndarray, list[np.ndarray]]:
    """Intern several id columns into one shared, sorted vocabulary.

    Returns
    -------
    vocabulary : ndarray of str
        Sorted unique ids; ``vocabulary[code]`` is the id.
    codes : list of ndarray of int64
        One code array per input column.

    Examples
    --------
    >>> a, b = IdColumn(text=np.array(["d2", "d10"])), IdColumn(text=np.array(["d2", "d1"]))
    >>> vocab, (ca, cb) = intern(a, b)
    >>> vocab.tolist(), ca.tolist(), cb.tolist()
    (['d1', 'd10', 'd2'], [2, 1], [2, 0])
    """
    encoded = [_encoded(c) for c in columns]
    if encoded:
        ordered = np.sort(np.concatenate([v for v, _, _ in encoded]), kind="stable")
        vocabulary = ordered[first_of_runs(ordered)]
    else:
        vocabulary = np.zeros(0, str)
    # each column's own codes are composed with its vocabulary's place in the shared one before the rows are read
    codes = [_row_codes(np.searchsorted(vocabulary, v)[c] if len(c) else c, i) for v, c, i in encoded]
    return vocabulary, codes


def lookup(ids: IdColumn, vocabulary: np.ndarray) -> np.ndarray:
    """Code of each id in a sorted ``vocabulary``, or -1 where absent (exact match).

    Each distinct id is looked up once, through the column's codes.

    >>> lookup(IdColumn(text=np.array(["b", "z", "a"])), np.array(["a", "b"])).tolist()
    [1, -1, 0]
    """
    values = ids.dictionary.text()
    if len(vocabulary) == 0:
        return np.full(len(ids), -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(vocabulary, values), len(vocabulary) - 1)
    return np.where(vocabulary[pos] == values, pos, -1).astype(np.int64)[ids.codes]
