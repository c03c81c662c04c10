"""Exact id handling: interning to integer codes (never hashed), lookups and duplicate detection.

Every function takes an :class:`~rankmeter.io.ids.IdColumn` -- the one id
representation the readers hand over (UTF-8 buffers, or codes into a
dictionary) -- and has one path; any other column (NumPy or pyarrow
strings) is converted by :func:`~rankmeter.io.ids.as_ids` on the way in,
which for the readers' columns is a no-op. Codes follow the ids' string
order (code-point order, which for UTF-8 text is the byte order ``strcmp``
uses), so sorting by code sorts by id.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from rankmeter.core.arrays import sorted_unique
from rankmeter.core.string_keys import (
    StringBuffers,
    equal_strings,
    half,
    hash_keys,
    order_words,
    pair_halves,
    pair_keys,
)
from rankmeter.io.ids import IdColumn as IdColumn
from rankmeter.io.ids import as_ids
from rankmeter.io.tables import id_at  # noqa: F401  (re-exported for the core)

AnyIds = Any  # an IdColumn, or NumPy / pyarrow strings (converted on the way in)

HASH_MIN_ROWS = 1 << 10
"""Fewest rows whose documents are matched and checked for repeats through hash keys.

Fewer rows go through exact string codes, which takes fewer NumPy calls
(``benchmarks/run.py --only W4``: a thousand two-query jobs are quicker that way).
"""


def to_numpy_str(col: AnyIds) -> np.ndarray:
    """Any id column as a NumPy unicode array."""
    return as_ids(col).text()


def _encoded(col: AnyIds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`encode` in two parts: ``(vocabulary, codes, indices)``.

    ``codes`` maps each entry of the column's dictionary to its vocabulary
    code and the rows' codes are ``codes[indices]``, a gather left to the
    caller so that composed maps touch the rows once.
    """
    ids = as_ids(col, coded=True)
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


def encode(col: AnyIds) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique ids and the code of each row.

    >>> import numpy as np
    >>> vocab, codes = encode(np.array(["q2", "q10", "q2"]))
    >>> vocab.tolist(), codes.tolist()
    (['q10', 'q2'], [1, 0, 1])
    """
    vocab, codes, indices = _encoded(col)
    return vocab, _row_codes(codes, indices)


def vocabulary(col: AnyIds) -> np.ndarray:
    """Sorted unique ids of a column (a coded column reads only its dictionary).

    >>> import numpy as np
    >>> vocabulary(np.array(["q2", "q10", "q2"])).tolist()
    ['q10', 'q2']
    """
    return _encoded(col)[0]


def intern(*columns: AnyIds) -> tuple[np.ndarray, list[np.ndarray]]:
    """Intern several id columns into one shared, sorted vocabulary.

    Returns
    -------
    vocabulary : ndarray of str
        Sorted unique ids; ``vocabulary[code]`` is the id.
    codes : list of ndarray of int64
        One code array per input column.

    Examples
    --------
    >>> import numpy as np
    >>> vocab, (a, b) = intern(np.array(["d2", "d10"]), np.array(["d2", "d1"]))
    >>> vocab.tolist(), a.tolist(), b.tolist()
    (['d1', 'd10', 'd2'], [2, 1], [2, 0])
    """
    encoded = [_encoded(c) for c in columns]
    vocabulary = sorted_unique(np.concatenate([v for v, _, _ in encoded])) if encoded else np.zeros(0, str)
    # each column's own codes are composed with its vocabulary's place in the shared one before the rows are read
    codes = [_row_codes(np.searchsorted(vocabulary, v)[c] if len(c) else c, i) for v, c, i in encoded]
    return vocabulary, codes


def lookup(col: AnyIds, vocabulary: np.ndarray) -> np.ndarray:
    """Code of each id in a sorted ``vocabulary``, or -1 where absent (exact match).

    Each distinct id is looked up once, through the column's codes.

    >>> import numpy as np
    >>> lookup(np.array(["b", "z", "a"]), np.array(["a", "b"])).tolist()
    [1, -1, 0]
    """
    ids = as_ids(col, coded=True)
    values = ids.dictionary.text()
    if len(vocabulary) == 0:
        return np.full(len(ids), -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(vocabulary, values), len(vocabulary) - 1)
    return np.where(vocabulary[pos] == values, pos, -1).astype(np.int64)[ids.codes]


def string_sort_keys(col: AnyIds, rows: np.ndarray) -> list[np.ndarray]:
    """Keys, most significant first, that sort the selected ids in string (UTF-8 byte) order.

    The ids' big-endian eight-byte words and length (no string is built);
    ids longer than :func:`~rankmeter.core.string_keys.order_words` takes
    give one array of ranks.

    >>> import numpy as np
    >>> keys = string_sort_keys(np.array(["b", "a", "c"]), np.array([0, 2, 1]))
    >>> np.lexsort(keys[::-1]).tolist()
    [2, 0, 1]
    """
    ids = as_ids(col)
    if ids.is_coded:  # read through the dictionary: no row's bytes are gathered
        dictionary, picked = ids.dictionary, ids.codes[rows]
        if len(dictionary) > len(rows):
            return string_sort_keys(dictionary, picked)
        ranks = ids.memo.get("ranks")  # a small dictionary: one rank per distinct id, computed once
        if ranks is None:
            ranks = ids.memo["ranks"] = string_ranks(dictionary, np.arange(len(dictionary)))
        return [ranks[picked]]
    words = order_words(ids, rows)
    if words is not None:
        return words
    order = np.argsort(ids.take(rows).text(), kind="stable")
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return [ranks]


def string_ranks(col: AnyIds, rows: np.ndarray) -> np.ndarray:
    """Rank of each selected id in string order (equal ids may get different ranks).

    >>> import numpy as np
    >>> string_ranks(np.array(["b", "a", "c"]), np.array([0, 2, 1])).tolist()
    [1, 2, 0]
    """
    keys = string_sort_keys(col, rows)
    if len(keys) == 1:
        return keys[0]
    order = np.lexsort(keys[::-1])
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def document_keys(col: AnyIds) -> np.ndarray:
    """64-bit hash keys of an id column (equal ids, equal keys; different ids rarely share one).

    >>> import numpy as np
    >>> k = document_keys(np.array(["a", "b", "a"]))
    >>> bool(k[0] == k[2]), bool(k[0] == k[1])
    (True, False)
    """
    ids = as_ids(col)
    keys = ids.memo.get("keys")
    if keys is None:  # once per column (the duplicate check and the join share them); a coded one by its codes
        keys = ids.memo["keys"] = document_keys(ids.dictionary)[ids.codes] if ids.is_coded else hash_keys(ids)
    return keys


def document_pair_keys(query_codes: np.ndarray, doc_col: AnyIds) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(document_keys(doc_col), pair_halves(query_codes, keys))``, or ``(None, None)`` under HASH_MIN_ROWS rows.

    >>> import numpy as np
    >>> document_pair_keys(np.array([0]), np.array(["a"]))
    (None, None)
    """
    if len(query_codes) < HASH_MIN_ROWS:
        return None, None
    keys = document_keys(doc_col)
    return keys, pair_halves(query_codes, keys)


class PairIndex(NamedTuple):
    """The (query code, document) pairs of qrels rows, hashed and sorted for :func:`match_pairs`.

    Built once by :func:`pair_index` and reused for every run matched against the same qrels.
    """

    rows: np.ndarray
    """The qrels rows, in the order of their keys."""
    keys: np.ndarray
    """Their :func:`~rankmeter.core.string_keys.pair_keys`, sorted (no two equal)."""
    bitmap: np.ndarray
    """``bitmap[half(key) & mask]`` is True for every key: a prefilter for run rows."""
    mask: np.uint32


def pair_index(qrels_codes: np.ndarray, qrels_docs: AnyIds, rows: np.ndarray) -> PairIndex | None:
    """The :class:`PairIndex` of the qrels rows ``rows``, or None when two of their keys collide.

    >>> import numpy as np
    >>> index = pair_index(np.array([0, 0, 1]), np.array(["a", "b", "a"]), np.arange(3))
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
    run_docs: AnyIds,
    qrels_codes: np.ndarray,
    qrels_docs: AnyIds,
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
    >>> import numpy as np
    >>> match_pairs(np.array([0, 0, 1]), np.array(["a", "b", "a"]), np.array([1, 0]), np.array(["a", "b"])).tolist()
    [-1, 1, 0]
    """
    n = len(run_codes)
    rows = np.arange(len(qrels_codes)) if qrels_rows is None else qrels_rows
    out = np.full(n, -1, dtype=np.int64)
    if n == 0 or len(rows) == 0:
        return out
    run_docs, qrels_docs = as_ids(run_docs), as_ids(qrels_docs)
    if run_keys is not None or n >= HASH_MIN_ROWS:
        rkeys = document_keys(run_docs) if run_keys is None else run_keys
        index = pair_index(qrels_codes, qrels_docs, rows) if index is None else index
        if index is not None:
            _match_keyed(run_codes, run_docs, rkeys, run_halves, qrels_codes, qrels_docs, index, out)
            return out
    vocab, qd = encode(subset(qrels_docs, rows))
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
    run_codes: np.ndarray, run_docs: AnyIds, qrels_codes: np.ndarray, qrels_docs: AnyIds, qrels_rows: np.ndarray
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
    >>> from rankmeter.io.ids import as_ids
    >>> run_docs, qrels_docs = as_ids(np.array([7, 9, 7])), as_ids(np.array([9, 7, 8]))
    >>> coded_join(np.array([1, 1, 0]), run_docs, np.array([0, 1, 1]), qrels_docs, np.arange(3)).tolist()
    [1, -1, -1]
    >>> coded_join(np.array([0, 0]), as_ids(np.array([7, 7])), np.array([0]), qrels_docs[:1], np.arange(1)) is None
    True
    """
    run_docs, qrels_docs = as_ids(run_docs), as_ids(qrels_docs)
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


def subset(col: AnyIds, rows: np.ndarray | slice) -> IdColumn:
    """The rows ``rows`` of an id column (a slice shares its buffers).

    >>> import numpy as np
    >>> subset(np.array(["a", "b", "c"]), np.array([2, 0])).tolist()
    ['c', 'a']
    """
    return as_ids(col).take(rows)


def take(col: AnyIds, rows: np.ndarray) -> np.ndarray:
    """The ids at ``rows`` as a NumPy unicode array."""
    return as_ids(col).take(rows).text()


def duplicate_rows(
    query_codes: np.ndarray, doc_col: AnyIds, doc_keys: np.ndarray | None = None, halves: np.ndarray | None = None
) -> np.ndarray:
    """Rows that repeat an earlier (query, document) pair, as ``(first, repeat)`` index pairs, exactly.

    Candidates come from a 64-bit hash of the document id and are then
    verified by exact string comparison, so no pair is ever reported by a
    hash collision alone (columns under :data:`HASH_MIN_ROWS` rows without
    ``doc_keys`` compare exact string codes instead). ``doc_keys`` (:func:`document_keys`) and
    ``halves`` (``pair_halves(query_codes, doc_keys)``) may be passed when
    already computed.

    >>> import numpy as np
    >>> duplicate_rows(np.array([0, 0, 1, 0]), np.array(["a", "b", "a", "a"])).tolist()
    [[0, 3]]
    """
    doc_col = as_ids(doc_col)
    if doc_keys is None and len(doc_col) < HASH_MIN_ROWS:  # exact codes
        _, dcodes = encode(doc_col)
        keys = query_codes.astype(np.int64) * (int(dcodes.max()) + 1 if len(dcodes) else 1) + dcodes
        return _first_and_repeats(keys, np.arange(len(keys)))
    hashes = document_keys(doc_col) if doc_keys is None else doc_keys
    candidates = _repeated_pairs(query_codes, hashes, halves if doc_keys is not None else None)
    if not len(candidates):
        return np.zeros((0, 2), np.int64)
    # exact check among the (few) candidates
    text = np.char.add(np.char.add(query_codes[candidates].astype(str), "\x00"), take(doc_col, candidates))
    return _first_and_repeats(np.unique(text, return_inverse=True)[1].reshape(-1), candidates)


def _first_and_repeats(keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``(first, repeat)`` row pairs of equal ``keys``, ordered by the repeating row (``rows`` ascending).

    >>> import numpy as np
    >>> _first_and_repeats(np.array([5, 7, 5, 5, 7]), np.array([0, 2, 3, 8, 9])).tolist()
    [[0, 3], [0, 8], [2, 9]]
    """
    order = np.argsort(keys, kind="stable")  # stable: the first row of equal keys leads them
    sorted_keys = keys[order]
    head = np.ones(len(order), dtype=bool)
    head[1:] = sorted_keys[1:] != sorted_keys[:-1]
    first = rows[order[head]][np.cumsum(head) - 1]
    pairs = np.stack((first[~head], rows[order[~head]]), axis=1).astype(np.int64, copy=False)
    return pairs[np.argsort(pairs[:, 1], kind="stable")]


def _repeated_pairs(codes: np.ndarray, keys: np.ndarray, halves: np.ndarray | None = None) -> np.ndarray:
    """Rows, ascending, whose :func:`pair_keys` key occurs more than once.

    32 bits of each pair key are sorted first -- half the bytes of the full
    keys, and every repeated key repeats its half -- and only the rows whose
    half repeats (a bitmap, then a search) have their full keys built and
    compared. ``halves`` is ``pair_halves(codes, keys)`` when already computed.

    >>> import numpy as np
    >>> keys = np.array([7, 1 << 40, 7, 3, (1 << 40) + 3, 3], dtype=np.uint64)
    >>> _repeated_pairs(np.zeros(6, dtype=np.int64), keys).tolist()
    [0, 2, 3, 5]
    """
    halves = pair_halves(codes, keys) if halves is None else halves
    sorted_halves = np.sort(halves)
    repeated = sorted_halves[1:][sorted_halves[1:] == sorted_halves[:-1]]
    if not len(repeated):
        return np.zeros(0, dtype=np.int64)
    bits = max(12, min(24, int(len(repeated)).bit_length() + 6))
    mask = np.uint32((1 << bits) - 1)
    table = np.zeros(1 << bits, dtype=bool)
    table[repeated & mask] = True
    slots = np.bitwise_and(halves, mask, out=sorted_halves)  # the sorted copy is no longer needed
    rows = np.flatnonzero(table[slots])
    pos = np.minimum(np.searchsorted(repeated, halves[rows]), len(repeated) - 1)
    rows = rows[repeated[pos] == halves[rows]]
    # among those rows, the full keys
    full = pair_keys(codes[rows], keys[rows])
    order = np.argsort(full, kind="stable")
    sk = full[order]
    in_run = np.zeros(len(sk), dtype=bool)
    eq = sk[1:] == sk[:-1]
    in_run[1:] |= eq
    in_run[:-1] |= eq
    return np.sort(rows[order[in_run]])
