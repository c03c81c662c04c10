"""Ids in string order: sort keys and ranks that order ids as byte-wise ``strcmp`` does, and codes in that order.

The keys are the ids' big-endian eight-byte words and their length, read
from the buffers (no string is built); a coded column is ranked through its
dictionary.
"""

from __future__ import annotations

import numpy as np

from rankmeter.ids.buffers import LOW_BYTES, StringBuffers
from rankmeter.ids.column import IdColumn
from rankmeter.ids.intern import encode


def order_words(ids: IdColumn, rows: np.ndarray, max_words: int = 8) -> list[np.ndarray] | None:
    """Sort keys that order the selected strings exactly as byte-wise ``strcmp`` does (None if too long).

    Returns big-endian eight-byte words, most significant first, then the
    length; sorting by them lexicographically is sorting by the strings.

    >>> keys = order_words(IdColumn(text=np.array(["b", "ab", "abc", "a"])), np.arange(4))
    >>> np.lexsort(keys[::-1]).tolist()
    [3, 1, 2, 0]
    """
    buffers = StringBuffers.of(ids)
    starts, lengths = buffers.spans(rows)
    n_words = (int(lengths.max()) + 7) // 8 if len(rows) else 0
    if n_words > max_words:
        return None
    keys = []
    for j in range(n_words):
        if j % 2 == 0:  # words j and j + 1 in one read
            read = buffers.word_pairs(starts + 8 * j) if j + 1 < n_words else (buffers.words(starts + 8 * j),)
        word = read[j % 2]
        ending = lengths < 8 * j + 8  # strings that end before the end of word j keep their own bytes only
        if np.count_nonzero(ending) * 4 < len(rows):
            few = np.flatnonzero(ending)
            word[few] &= LOW_BYTES[np.clip(lengths[few] - 8 * j, 0, 8)]
        else:
            word &= LOW_BYTES[np.clip(lengths - 8 * j, 0, 8)]
        keys.append(word.byteswap(inplace=True))
    keys.append(lengths)
    return keys


def string_sort_keys(ids: IdColumn, rows: np.ndarray) -> list[np.ndarray]:
    """Keys, most significant first, that sort the selected ids in string (UTF-8 byte) order.

    The ids' big-endian eight-byte words and length (:func:`order_words`);
    ids longer than it takes give one array of ranks.

    >>> keys = string_sort_keys(IdColumn(text=np.array(["b", "a", "c"])), np.array([0, 2, 1]))
    >>> np.lexsort(keys[::-1]).tolist()
    [2, 0, 1]
    """
    if ids.is_coded:  # read through the dictionary: no row's bytes are gathered
        dictionary, picked = ids.dictionary, ids.codes[rows]
        if len(dictionary) > len(rows):
            return string_sort_keys(dictionary, picked)
        if ids.ranks is None:  # a small dictionary: one rank per distinct id, computed once
            ids.ranks = string_ranks(dictionary, np.arange(len(dictionary)))
        return [ids.ranks[picked]]
    words = order_words(ids, rows)
    if words is not None:
        return words
    order = np.argsort(ids.take(rows).text(), kind="stable")
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return [ranks]


def string_ranks(ids: IdColumn, rows: np.ndarray) -> np.ndarray:
    """Rank of each selected id in string order (equal ids may get different ranks).

    >>> string_ranks(IdColumn(text=np.array(["b", "a", "c"])), np.array([0, 2, 1])).tolist()
    [1, 2, 0]
    """
    keys = string_sort_keys(ids, rows)
    if len(keys) == 1:
        return keys[0]
    order = np.lexsort(keys[::-1])
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def string_codes(ids: IdColumn) -> np.ndarray:
    """Code of each row's id, codes in string (``strcmp``) order: from the ids' words (no string sort) when they fit.

    A coded column, or ids longer than :func:`order_words` reads, are coded
    by :func:`~rankmeter.ids.intern.encode` (code-point order, the same order).

    >>> string_codes(IdColumn(text=np.array(["b", "a", "b", "ab"]))).tolist()
    [2, 0, 2, 1]
    """
    n = len(ids)
    words = None if ids.is_coded else order_words(ids, np.arange(n))
    if words is None:
        return encode(ids)[1]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(words[::-1])
    new = np.zeros(n, dtype=bool)
    new[0] = True
    for key in words:
        ordered = key[order]
        new[1:] |= ordered[1:] != ordered[:-1]
    codes = np.empty(n, dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return codes


def number_order_codes(ids: IdColumn) -> np.ndarray:
    """Code of each row's id, by number when every id is a natural number, else by id (``ndeval``'s subtopic order).

    >>> number_order_codes(IdColumn(text=np.array(["10", "9", "10"]))).tolist()
    [1, 0, 1]
    >>> number_order_codes(IdColumn(text=np.array(["10", "x", "9"]))).tolist()
    [0, 2, 1]
    """
    distinct, codes = encode(ids)
    if len(distinct) and np.char.isdigit(distinct).all():
        rank = np.empty(len(distinct), dtype=np.int64)
        rank[np.argsort(distinct.astype(np.int64), kind="stable")] = np.arange(len(distinct))
        return rank[codes]
    return codes
