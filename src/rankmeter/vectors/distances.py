r"""Validated query/database arrays and the distance (or similarity) of a block of queries to the database.

Metrics
-------
=============  ==================================================  =====================
metric         distance used for the ranking (smaller ranks first)  ties
=============  ==================================================  =====================
``hamming``    number of differing bits, an integer in 0..bits      frequent (bits + 1 values)
``cosine``     1 - cos(q, x); a zero vector has cosine 0 to all      exact float equality
``euclidean``  squared Euclidean distance (same order, fewer ops)   exact float equality
``inner``      -q . x (maximum inner product search)                 exact float equality
=============  ==================================================  =====================

Binary codes for ``hamming`` may be given as {-1, +1} or {0, 1} arrays of shape
``(n, bits)``, or bit-packed: ``uint8`` (8 bits a byte, ``np.packbits``) or
``uint64`` words of shape ``(n, words)``. Every form is converted once into
packed ``uint64`` words, and a block's distances are popcounts of XORs
(``np.bitwise_count``; a byte table on NumPy < 2), with no float arithmetic.
The database is converted once and never copied per query.

Float metrics are computed in float64 with one matrix product per block of
queries; ties are exact equalities of the computed values (no epsilon). The
squared Euclidean distance is ``|q|^2 + |x|^2 - 2 q.x`` clipped below at 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError, PolicyError

METRICS = ("hamming", "cosine", "euclidean", "inner")
CODE_FORMATS = ("auto", "pm1", "binary", "packed")

_POPCOUNT_TABLE = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def check_metric(metric: str) -> str:
    """Return ``metric`` if known, else raise :class:`PolicyError`.

    >>> check_metric("hamming")
    'hamming'
    """
    if metric not in METRICS:
        raise PolicyError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
    return metric


def as_matrix(x: Any, name: str) -> np.ndarray:
    """``np.asarray(x)`` checked to be a non-empty 2-D array ``(n, dim)``."""
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:  # pragma: no cover - ragged input
        raise InputFormatError(f"{name}: cannot convert to an array ({exc})") from None
    if arr.ndim != 2:
        hint = f"; for one row use {name}[None, :]" if arr.ndim == 1 else ""
        raise InputFormatError(f"{name} must have shape (n, dim), got shape {arr.shape}{hint}")
    if arr.shape[1] == 0:
        raise InputFormatError(f"{name} has shape {arr.shape}: no features")
    if arr.dtype == object or arr.dtype.kind in "USV":
        raise InputFormatError(f"{name} must be numeric, got dtype {arr.dtype}")
    return arr


def popcount(x: np.ndarray) -> np.ndarray:
    """Number of set bits of each element of an unsigned integer array, as uint8.

    >>> import numpy as np
    >>> popcount(np.array([0, 1, 255, 2**64 - 1], dtype=np.uint64)).tolist()
    [0, 1, 8, 64]
    """
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x)
    b = x[..., None].view(np.uint8)  # pragma: no cover - NumPy < 2
    return _POPCOUNT_TABLE[b].sum(axis=-1, dtype=np.uint8)  # pragma: no cover


@dataclass(frozen=True)
class PackedCodes:
    """Binary codes packed into ``uint64`` words, stored word-major for fast XOR.

    Attributes
    ----------
    words : ndarray of uint64, shape (n_words, n)
        Word ``w`` of every code; padding bits are 0.
    bits : int
        Number of code bits (distances lie in 0..bits).
    form : str
        Input form: ``pm1``, ``binary`` or ``packed``.
    """

    words: np.ndarray
    bits: int
    form: str

    @property
    def n(self) -> int:
        return int(self.words.shape[1])

    def rows(self, start: int, stop: int) -> PackedCodes:
        return PackedCodes(self.words[:, start:stop], self.bits, self.form)


def _detect_form(arr: np.ndarray, name: str) -> str:
    if arr.dtype == np.uint64:
        return "packed"
    if arr.dtype == np.bool_:
        return "binary"
    if arr.size == 0:
        return "binary"
    if arr.dtype.kind not in "iuf":
        raise InputFormatError(f"{name}: binary codes must be numeric, got dtype {arr.dtype}")
    lo, hi = arr.min(), arr.max()
    if arr.dtype == np.uint8 and hi > 1:
        return "packed"
    if lo >= -1 and hi <= 1:
        is_pm1 = np.abs(arr) == 1
        if is_pm1.all():
            return "pm1"
        if ((arr == 0) | (arr == 1)).all():
            return "binary"
    bad = ~((arr == -1) | (arr == 1)) if lo < 0 else ~((arr == 0) | (arr == 1))
    row, col = (int(i) for i in np.argwhere(bad)[0])
    raise InputFormatError(
        f"{name}: metric='hamming' needs binary codes in {{-1, +1}} or {{0, 1}}, or bit-packed uint8/uint64 "
        f"codes; found {arr[row, col].item()!r} at [{row}, {col}] (array of shape {arr.shape}, dtype {arr.dtype})"
    )


def pack_bits(arr: np.ndarray, form: str) -> tuple[np.ndarray, int]:
    """Row codes -> (uint64 words of shape (n_words, n), bits)."""
    if form == "packed":
        if arr.dtype == np.uint64:
            return np.ascontiguousarray(arr.T), 64 * arr.shape[1]
        raw = np.ascontiguousarray(arr, dtype=np.uint8)
        bits = 8 * arr.shape[1]
    else:
        bits_arr = arr > 0 if form == "pm1" else arr != 0
        raw = np.packbits(bits_arr, axis=1)
        bits = arr.shape[1]
    pad = (-raw.shape[1]) % 8
    if pad:
        raw = np.concatenate([raw, np.zeros((raw.shape[0], pad), dtype=np.uint8)], axis=1)
    words = np.ascontiguousarray(raw).view(np.uint64)
    return np.ascontiguousarray(words.T), bits


def prepare_codes(queries: Any, database: Any, codes: str = "auto") -> tuple[PackedCodes, PackedCodes]:
    """Validate and pack the binary codes of queries and database (once).

    Parameters
    ----------
    queries, database : array-like, shape (n, bits) or packed (n, bytes) / (n, words)
    codes : {"auto", "pm1", "binary", "packed"}
        ``auto`` reads the form from the values: dtype ``uint64`` or ``uint8``
        holding a value above 1 is packed; values in {-1, +1} are ``pm1``;
        values in {0, 1} are ``binary`` (a ``uint8`` array of only 0s and 1s
        is read as unpacked bits: pass ``codes="packed"`` to override).

    Returns
    -------
    (PackedCodes, PackedCodes)

    Examples
    --------
    >>> q, d = prepare_codes([[1, -1, 1, 1]], [[1, 1, 1, 1], [-1, -1, -1, -1]])
    >>> q.bits, q.form, hamming_block(q, d).tolist()
    (4, 'pm1', [[1, 3]])
    """
    if codes not in CODE_FORMATS:
        raise PolicyError(f"unknown codes form {codes!r}; choose one of {', '.join(CODE_FORMATS)}")
    q = as_matrix(queries, "queries")
    d = as_matrix(database, "database")
    if codes == "auto":
        fq, fd = _detect_form(q, "queries"), _detect_form(d, "database")
        if "packed" in (fq, fd) and fq != fd:
            # a packed uint8 array whose bytes happen to be all 0/1 looks like unpacked bits
            if q.dtype == d.dtype == np.uint8 and q.shape[1] == d.shape[1]:
                fq = fd = "packed"
            else:
                raise InputFormatError(
                    f"queries look {fq} (shape {q.shape}, dtype {q.dtype}) but database looks {fd} "
                    f"(shape {d.shape}, dtype {d.dtype}); pass codes of one form"
                )
    else:
        fq = fd = codes
        for arr, name in ((q, "queries"), (d, "database")):
            if codes == "packed":
                ok = arr.dtype in (np.uint8, np.uint64)
                what = "uint8 or uint64 arrays"
            elif codes == "pm1":
                ok = arr.dtype.kind in "iuf" and bool((np.abs(arr) == 1).all())
                what = "values in {-1, +1}"
            else:
                ok = arr.dtype.kind in "biuf" and bool(((arr == 0) | (arr == 1)).all())
                what = "values in {0, 1}"
            if not ok:
                raise InputFormatError(
                    f"{name}: codes={codes!r} needs {what}; got dtype {arr.dtype}, shape {arr.shape}"
                )
    if fq == "packed" and q.dtype != d.dtype:
        raise InputFormatError(
            f"packed codes must share a dtype: queries are {q.dtype} (shape {q.shape}), "
            f"database is {d.dtype} (shape {d.shape})"
        )
    if q.shape[1] != d.shape[1]:
        raise InputFormatError(
            f"queries have {q.shape[1]} code columns (shape {q.shape}) but database has {d.shape[1]} (shape {d.shape})"
        )
    qw, bits = pack_bits(q, fq)
    dw, _ = pack_bits(d, fd)
    return PackedCodes(qw, bits, fq), PackedCodes(dw, bits, fd)


def distance_dtype(bits: int) -> type[np.unsignedinteger]:
    """Smallest unsigned dtype holding distances 0..bits."""
    if bits < 256:
        return np.uint8
    if bits < 65536:
        return np.uint16
    return np.uint32


def hamming_block(queries: PackedCodes, database: PackedCodes) -> np.ndarray:
    """Hamming distances of a block of queries to the whole database, shape (b, N), unsigned ints.

    One XOR and one popcount per code word; no loop over queries or items.

    >>> q, d = prepare_codes(np.array([[3]], dtype=np.uint8), np.array([[1], [255]], dtype=np.uint8))
    >>> hamming_block(q, d).tolist()
    [[1, 6]]
    """
    dt = distance_dtype(queries.bits)
    out: np.ndarray | None = None
    for w in range(queries.words.shape[0]):
        c = popcount(np.bitwise_xor(queries.words[w][:, None], database.words[w][None, :]))
        if out is None:
            out = c if dt == np.uint8 else c.astype(dt)
        else:
            out += c
    assert out is not None
    return out


def hamming_distance(queries: Any, database: Any, *, codes: str = "auto") -> np.ndarray:
    """Hamming distance matrix of binary codes (any accepted form), shape (n_queries, n_database).

    Meant for small inputs and checks; :func:`rankmeter.vectors.evaluate_vectors`
    never materialises the whole matrix.

    Examples
    --------
    >>> hamming_distance([[1, 1, -1, -1]], [[1, -1, -1, -1], [-1, -1, 1, 1]]).tolist()
    [[1, 4]]
    >>> hamming_distance([[0, 1, 1]], [[0, 1, 1]]).tolist()
    [[0]]
    """
    q, d = prepare_codes(queries, database, codes)
    return hamming_block(q, d).astype(np.int64)


@dataclass(frozen=True)
class Features:
    """Float64 features prepared for one metric (normalised for cosine, squared norms for euclidean)."""

    x: np.ndarray
    sq_norms: np.ndarray | None


def _finite_features(x: Any, name: str) -> np.ndarray:
    arr = as_matrix(x, name)
    try:
        arr = np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError) as exc:  # pragma: no cover
        raise InputFormatError(f"{name}: cannot convert to float ({exc})") from None
    bad = ~np.isfinite(arr)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        raise InvalidScoreError(f"{name}[{row}, {col}] is {arr[row, col]}; features must be finite numbers")
    return arr


def prepare_features(queries: Any, database: Any, metric: str) -> tuple[Features, Features]:
    """Validate float features once and prepare them for ``metric`` (cosine, euclidean or inner).

    >>> q, d = prepare_features([[3.0, 4.0]], [[1.0, 0.0], [0.0, 0.0]], "cosine")
    >>> q.x.tolist(), d.x.tolist()
    ([[0.6, 0.8]], [[1.0, 0.0], [0.0, 0.0]])
    """
    q = _finite_features(queries, "queries")
    d = _finite_features(database, "database")
    if q.shape[1] != d.shape[1]:
        raise InputFormatError(
            f"queries have {q.shape[1]} features (shape {q.shape}) but database has {d.shape[1]} (shape {d.shape})"
        )
    if metric == "cosine":
        out = []
        for a in (q, d):
            norms = np.sqrt(np.einsum("ij,ij->i", a, a))
            out.append(Features(np.divide(a, norms[:, None], out=np.zeros_like(a), where=norms[:, None] > 0), None))
        return out[0], out[1]
    if metric == "euclidean":
        return (Features(q, np.einsum("ij,ij->i", q, q)), Features(d, np.einsum("ij,ij->i", d, d)))
    return Features(q, None), Features(d, None)


SCORE_CHUNK = 64
_CHUNK_ELEMENTS = 1 << 23


def score_chunk(n_database: int) -> int:
    """Queries per matrix product: :data:`SCORE_CHUNK`, fewer for a huge database (a function of N only).

    >>> score_chunk(1000), score_chunk(10**6), score_chunk(10**8)
    (64, 8, 1)
    """
    return max(1, min(SCORE_CHUNK, _CHUNK_ELEMENTS // max(n_database, 1)))


def _chunk_scores(queries: Features, database: Features, metric: str, c0: int, c1: int) -> np.ndarray:
    out = queries.x[c0:c1] @ database.x.T
    if metric == "euclidean":
        assert queries.sq_norms is not None and database.sq_norms is not None
        out *= 2.0
        out -= queries.sq_norms[c0:c1, None]
        out -= database.sq_norms[None, :]
        np.minimum(out, 0.0, out=out)
    return out


class ScoreCache:
    """The last chunk of scores computed, reused when the next block of queries starts inside it."""

    def __init__(self) -> None:
        self.start = -1
        self.scores: np.ndarray | None = None


def score_block(
    queries: Features, database: Features, metric: str, start: int, stop: int, cache: ScoreCache | None = None
) -> np.ndarray:
    """Scores (higher ranks first) of queries ``start:stop`` against the database: shape (b, N), float64.

    cosine: cos(q, x); euclidean: minus the squared distance; inner: q . x.

    The matrix products run on fixed, globally aligned chunks of
    :func:`score_chunk` queries, because BLAS rounds a row's products
    differently depending on the shape of the call: this way a query's scores
    (and so its ties) are bit-for-bit the same whatever the batch size. A
    ``cache`` keeps the last chunk, so blocks smaller than a chunk cost no
    extra products.

    >>> q, d = prepare_features([[0.0, 0.0]], [[1.0, 0.0], [0.0, 2.0]], "euclidean")
    >>> score_block(q, d, "euclidean", 0, 1).tolist()
    [[-1.0, -4.0]]
    """
    n_d = database.x.shape[0]
    return aligned_rows(
        lambda c0, c1: _chunk_scores(queries, database, metric, c0, c1),
        queries.x.shape[0],
        n_d,
        start,
        stop,
        score_chunk(n_d),
        cache,
    )


def aligned_rows(
    compute: Any, n_rows: int, n_cols: int, start: int, stop: int, chunk: int, cache: ScoreCache | None
) -> np.ndarray:
    """Rows ``start:stop`` of a row-wise product computed on globally aligned chunks ``compute(c0, c1)``.

    >>> import numpy as np
    >>> aligned_rows(lambda a, b: np.arange(a, b)[:, None] * np.ones((1, 2)), 5, 2, 1, 3, 2, None).tolist()
    [[1.0, 1.0], [2.0, 2.0]]
    """
    out = np.empty((stop - start, n_cols))
    for c0 in range((start // chunk) * chunk, stop, chunk):
        c1 = min(c0 + chunk, n_rows)
        if cache is not None and cache.start == c0 and cache.scores is not None:
            rows = cache.scores
        else:
            rows = compute(c0, c1)
            if cache is not None:
                cache.start, cache.scores = c0, rows
        lo, hi = max(c0, start), min(c1, stop)
        out[lo - start : hi - start] = rows[lo - c0 : hi - c0]
    return out
