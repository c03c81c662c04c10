"""Repeated (query code, document id) pairs, found exactly: hash candidates, then the ids themselves compared."""

from __future__ import annotations

import numpy as np

from rankmeter.ids.column import IdColumn
from rankmeter.ids.hashing import HASH_MIN_ROWS, document_keys, pair_halves, pair_keys
from rankmeter.ids.intern import encode


def duplicate_rows(
    query_codes: np.ndarray, doc_ids: IdColumn, doc_keys: np.ndarray | None = None, halves: np.ndarray | None = None
) -> np.ndarray:
    """Rows that repeat an earlier (query, document) pair, as ``(first, repeat)`` index pairs, exactly.

    Candidates come from a 64-bit hash of the document id and are then
    verified by exact string comparison, so no pair is ever reported by a
    hash collision alone (columns under :data:`HASH_MIN_ROWS` rows without
    ``doc_keys`` compare exact string codes instead). ``doc_keys`` (:func:`document_keys`) and
    ``halves`` (``pair_halves(query_codes, doc_keys)``) may be passed when
    already computed.

    >>> duplicate_rows(np.array([0, 0, 1, 0]), IdColumn(text=np.array(["a", "b", "a", "a"]))).tolist()
    [[0, 3]]
    """
    if doc_keys is None and len(doc_ids) < HASH_MIN_ROWS:  # exact codes
        _, dcodes = encode(doc_ids)
        keys = query_codes.astype(np.int64) * (int(dcodes.max()) + 1 if len(dcodes) else 1) + dcodes
        return _first_and_repeats(keys, np.arange(len(keys)))
    hashes = document_keys(doc_ids) if doc_keys is None else doc_keys
    candidates = _repeated_pairs(query_codes, hashes, halves if doc_keys is not None else None)
    if not len(candidates):
        return np.zeros((0, 2), np.int64)
    # exact check among the (few) candidates
    text = np.char.add(np.char.add(query_codes[candidates].astype(str), "\x00"), doc_ids.take(candidates).text())
    return _first_and_repeats(np.unique(text, return_inverse=True)[1].reshape(-1), candidates)


def _first_and_repeats(keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``(first, repeat)`` row pairs of equal ``keys``, ordered by the repeating row (``rows`` ascending).

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
