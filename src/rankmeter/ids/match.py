"""Exact joins of (query code, document id) pairs: each run row's qrels row, through hash keys or codes.

Documents are matched through 64-bit keys (:mod:`rankmeter.ids.hashing`),
a bitmap prefilter and a final byte-wise comparison of the few candidates,
or, when both columns have codes, through the codes alone
(:func:`coded_join`). No match rests on a hash alone.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rankmeter.ids.buffers import StringBuffers, equal_strings
from rankmeter.ids.column import IdColumn
from rankmeter.ids.hashing import HASH_MIN_ROWS, document_keys, half, pair_halves, pair_keys
from rankmeter.ids.intern import encode, intern, lookup


class PairIndex(NamedTuple):
    """The (query code, document) pairs of qrels rows, hashed and sorted for :func:`match_pairs`.

    Built once by :func:`pair_index` and reused for every run matched against the same qrels.
    """

    rows: np.ndarray
    """The qrels rows, in the order of their keys."""
    keys: np.ndarray
    """Their :func:`~rankmeter.ids.hashing.pair_keys`, sorted (no two equal)."""
    bitmap: np.ndarray
    """``bitmap[half(key) & mask]`` is True for every key: a prefilter for run rows."""
    mask: np.uint32


def pair_index(qrels_codes: np.ndarray, qrels_docs: IdColumn, rows: np.ndarray) -> PairIndex | None:
    """The :class:`PairIndex` of the qrels rows ``rows``, or None when two of their keys collide.

    >>> index = pair_index(np.array([0, 0, 1]), IdColumn(text=np.array(["a", "b", "a"])), np.arange(3))
    >>> sorted(index.rows.tolist()), bool(index.bitmap.any())
    ([0, 1, 2], True)
    """
    qk = pair_keys(qrels_codes[rows], document_keys(qrels_docs)[rows])
    qorder = np.argsort(qk)
    sqk = qk[qorder]
    if (sqk[1:] == sqk[:-1]).any():
        return None
    bits = max(12, min(24, int(len(sqk)).bit_length() + 6))  # ~1-2% of unmatched rows pass the bitmap
    mask = np.uint32((1 << bits) - 1)
    bitmap = np.zeros(1 << bits, dtype=bool)
    bitmap[half(sqk) & mask] = True
    return PairIndex(rows[qorder], sqk, bitmap, mask)


def match_pairs(
    run_codes: np.ndarray,
    run_docs: IdColumn,
    qrels_codes: np.ndarray,
    qrels_docs: IdColumn,
    run_keys: np.ndarray | None = None,
    qrels_rows: np.ndarray | None = None,
    run_halves: np.ndarray | None = None,
    index: PairIndex | None = None,
) -> np.ndarray:
    """For each run row, the qrels row with the same (query code, document id), or -1 -- exactly.

    Parameters
    ----------
    run_codes, qrels_codes : ndarray of int64
        Query code of every run / qrels row.
    run_docs, qrels_docs : id columns
        Document id of every run / qrels row.
    run_keys : ndarray of uint64, optional
        :func:`document_keys` of ``run_docs``, when already computed.
    qrels_rows : ndarray of int64, optional
        The qrels rows to match against (default: all); they must be
        distinct (query, document) pairs.
    run_halves : ndarray of uint32, optional
        ``pair_halves(run_codes, run_keys)``, when already computed.
    index : PairIndex, optional
        ``pair_index(qrels_codes, qrels_docs, qrels_rows)``, when already
        built (the qrels are shared by several runs).

    Returns
    -------
    ndarray of int64
        A qrels row index per run row, or -1.

    Notes
    -----
    Documents are matched through 64-bit keys, a bitmap prefilter and a
    final byte-wise comparison of the few candidates; keys that collide
    inside the qrels, or runs under :data:`HASH_MIN_ROWS` rows without
    ``run_keys``, go through exact string codes.

    Examples
    --------
    >>> run_docs, qrels_docs = IdColumn(text=np.array(["a", "b", "a"])), IdColumn(text=np.array(["a", "b"]))
    >>> match_pairs(np.array([0, 0, 1]), run_docs, np.array([1, 0]), qrels_docs).tolist()
    [-1, 1, 0]
    """
    n = len(run_codes)
    rows = np.arange(len(qrels_codes)) if qrels_rows is None else qrels_rows
    out = np.full(n, -1, dtype=np.int64)
    if n == 0 or len(rows) == 0:
        return out
    if run_keys is not None or n >= HASH_MIN_ROWS:
        rkeys = document_keys(run_docs) if run_keys is None else run_keys
        index = pair_index(qrels_codes, qrels_docs, rows) if index is None else index
        if index is not None:
            _match_keyed(run_codes, run_docs, rkeys, run_halves, qrels_codes, qrels_docs, index, out)
            return out
    vocab, qd = encode(qrels_docs.take(rows))
    rd = lookup(run_docs, vocab)
    width = max(len(vocab), 1)
    qk64 = qrels_codes[rows].astype(np.int64) * width + qd
    qorder = np.argsort(qk64)
    rk64 = np.where(rd >= 0, run_codes.astype(np.int64) * width + rd, -1)
    pos = np.minimum(np.searchsorted(qk64[qorder], rk64), len(qorder) - 1)
    hit = (rd >= 0) & (qk64[qorder][pos] == rk64)
    out[hit] = rows[qorder[pos[hit]]]
    return out


CODED_TABLE = 1 << 19
"""Slots of the table that :func:`coded_join` fills with one block of queries' (query, document) pairs."""


def coded_join(
    run_codes: np.ndarray, run_docs: IdColumn, qrels_codes: np.ndarray, qrels_docs: IdColumn, qrels_rows: np.ndarray
) -> np.ndarray | None:
    """:func:`match_pairs` for document columns that both have codes, exactly, or None when the run repeats a pair.

    Each dictionary's ids are interned once. The run's queries are numbered
    in the order their rows come, and a (query, document) pair is the
    integer ``number * D + document`` (``D`` distinct documents), which a
    table of :data:`CODED_TABLE` slots holds for one block of queries at a
    time: no hash and no sort of the rows. None also when a column has no
    codes or a query's run rows are not together.

    Examples
    --------
    >>> from rankmeter.ids.integers import integer_column
    >>> run_docs, qrels_docs = integer_column(np.array([7, 9, 7])), integer_column(np.array([9, 7, 8]))
    >>> coded_join(np.array([1, 1, 0]), run_docs, np.array([0, 1, 1]), qrels_docs, np.arange(3)).tolist()
    [1, -1, -1]
    >>> twice = integer_column(np.array([7, 7]))
    >>> coded_join(np.array([0, 0]), twice, np.array([0]), qrels_docs[:1], np.arange(1)) is None
    True
    """
    if not (run_docs.is_coded and qrels_docs.is_coded):
        return None
    if not len(run_codes):
        return np.zeros(0, dtype=np.int64)
    vocab, (run_map, qrels_map) = intern(run_docs.dictionary, qrels_docs.dictionary)
    width = max(len(vocab), 1)
    if width > CODED_TABLE:
        return None
    qrels_q = qrels_codes[qrels_rows]  # ascending
    starts = np.flatnonzero(np.r_[True, run_codes[1:] != run_codes[:-1]])
    queries = run_codes[starts]  # the run's queries in the order of their rows
    top = int(max(queries.max(), qrels_q[-1] if len(qrels_q) else 0)) + 1
    if np.bincount(queries, minlength=top).max() > 1:  # a query's rows apart
        return None
    run_number = np.repeat(np.arange(len(queries)), np.diff(np.r_[starts, len(run_codes)]))
    bounds = np.searchsorted(qrels_q, np.arange(top + 1))
    counts = bounds[queries + 1] - bounds[queries]
    at = np.repeat(bounds[queries] - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))
    qrels_number, qrows = np.repeat(np.arange(len(queries)), counts), qrels_rows[at]
    rd, qd = run_map[run_docs.codes], qrels_map[qrels_docs.codes[qrows]]
    per_block = CODED_TABLE // width  # queries whose pairs fit the table
    cuts = np.arange(0, len(queries) + per_block, per_block)
    run_bounds, qrels_bounds = np.searchsorted(run_number, cuts), np.searchsorted(qrels_number, cuts)
    small = np.int32 if max(len(run_codes), len(qrels_codes)) < 2**31 else np.int64  # a smaller table in cache
    stamp = np.zeros(per_block * width, dtype=small)
    table = np.full(per_block * width, -1, dtype=small)
    out = np.full(len(run_codes), -1, dtype=np.int64)
    for b in range(len(cuts) - 1):
        r0, r1, q0, q1 = run_bounds[b], run_bounds[b + 1], qrels_bounds[b], qrels_bounds[b + 1]
        slots = (run_number[r0:r1] - cuts[b]) * width + rd[r0:r1]
        rows = np.arange(r0, r1, dtype=small)
        stamp[slots] = rows
        if not np.array_equal(stamp[slots], rows):  # two rows in one slot: a repeated pair
            return None
        if q0 < q1:
            judged = (qrels_number[q0:q1] - cuts[b]) * width + qd[q0:q1]
            table[judged] = qrows[q0:q1]
            out[r0:r1] = table[slots]
            table[judged] = -1
    return out


def _bytes_of(col: IdColumn, rows: np.ndarray) -> tuple[StringBuffers, np.ndarray]:
    """The byte reader and rows holding the ids of ``col[rows]``: a coded column's dictionary and codes."""
    if col.is_coded:
        return StringBuffers.of(col.dictionary), col.codes[rows]
    return StringBuffers.of(col), rows


def _match_keyed(
    run_codes: np.ndarray,
    run_docs: IdColumn,
    rkeys: np.ndarray,
    run_halves: np.ndarray | None,
    qrels_codes: np.ndarray,
    qrels_docs: IdColumn,
    index: PairIndex,
    out: np.ndarray,
) -> None:
    """:func:`match_pairs` through the hash keys of ``index``, into ``out``."""
    if run_halves is None:
        slots = pair_halves(run_codes, rkeys)  # 32 bits of each key, masked in place
        slots &= index.mask
    else:
        slots = run_halves & index.mask
    cand = np.flatnonzero(index.bitmap[slots])
    del slots
    sqk = index.keys
    rk = pair_keys(run_codes[cand], rkeys[cand])
    pos = np.minimum(np.searchsorted(sqk, rk), len(sqk) - 1)
    hit = sqk[pos] == rk
    cand, qrow = cand[hit], index.rows[pos[hit]]
    same = (run_codes[cand] == qrels_codes[qrow]) & equal_strings(
        *_bytes_of(run_docs, cand), *_bytes_of(qrels_docs, qrow)
    )
    out[cand[same]] = qrow[same]


def take_keyed(ids: IdColumn, rows: np.ndarray) -> IdColumn:
    """The rows ``rows`` of a column, with their :func:`~rankmeter.ids.hashing.document_keys` when those were computed.

    >>> ids = IdColumn(text=np.array(["a", "b", "c"]))
    >>> take_keyed(ids, np.array([2])).keys is None
    True
    >>> keys = document_keys(ids)
    >>> bool(take_keyed(ids, np.array([2])).keys[0] == keys[2])
    True
    """
    part = ids.take(rows)
    if ids.keys is not None:  # the keys computed to find the pairs serve the alignment too
        part.keys = ids.keys[rows]
    return part
