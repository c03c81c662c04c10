r"""Relevance grades derived from labels, for a block of queries against the whole database.

Labels are either **multi-hot matrices** ``(n, n_labels)`` (any numbers; 0/1 for
sets of labels) or **class-index vectors** ``(n,)`` (ints, strings, anything
comparable). With label vectors :math:`l_q, l_i`:

=================  ==========================================  ==========================
rule               grade of database item i for query q        with class-index vectors
=================  ==========================================  ==========================
``shared_labels``  :math:`l_q^T l_i` (number of shared labels)  1 if same class else 0
``any_shared``     :math:`[l_q^T l_i > 0]`                     1 if same class else 0
``same_class``     1 if the (one-hot) rows name the same class  1 if same class else 0
callable           ``f(query_labels[block], database_labels)``  same
=================  ==========================================  ==========================

``shared_labels`` is the graded relevance of multi-label hashing (Zhao et al.,
"Deep Semantic Ranking Based Hashing for Multi-Label Image Retrieval", CVPR
2015; He et al., CVPR 2018); ``any_shared`` is the binary relevance most
hashing papers use for mAP. 0/1 label matrices are packed into ``uint64`` words
once and a block's grades are popcounts of ANDs (exact small integers); other
label values use a float64 matrix product.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError, PolicyError
from rankmeter.vectors.distances import ScoreCache, aligned_rows, pack_bits, popcount, score_chunk

RELEVANCE_RULES = ("shared_labels", "any_shared", "same_class")

RelevanceArg = str | Callable[[Any, Any], Any]


class Relevance:
    """Grades of query blocks against the whole database.

    Attributes
    ----------
    name : str
        The rule (``shared_labels``, ``any_shared``, ``same_class`` or the callable's name).
    integral : bool
        Whether every grade is known to be a (small) integer: grade blocks are
        then unsigned integer arrays.
    """

    name: str = ""
    integral: bool = False

    def block(self, start: int, stop: int) -> np.ndarray:  # pragma: no cover - interface
        """Grades of queries ``start:stop`` against the database, shape (b, N)."""
        raise NotImplementedError


class _PackedLabels(Relevance):
    """0/1 multi-hot labels: grades are popcounts of AND (shared) or AND != 0 (any)."""

    def __init__(self, q: np.ndarray, d: np.ndarray, rule: str) -> None:
        self.name = rule
        self.integral = True
        self.qw, _ = pack_bits(q, "binary")
        self.dw, _ = pack_bits(d, "binary")
        self.n_labels = q.shape[1]

    def block(self, start: int, stop: int) -> np.ndarray:
        out: np.ndarray | None = None
        for w in range(self.qw.shape[0]):
            both = np.bitwise_and(self.qw[w, start:stop, None], self.dw[w][None, :])
            if self.name == "any_shared":
                c = (both != 0).view(np.uint8)
                out = c if out is None else np.bitwise_or(out, c, out=out)
            else:
                c = popcount(both)
                if out is None:
                    out = c if self.n_labels < 256 else c.astype(np.uint16)
                else:
                    out += c
        assert out is not None
        return out


class _DenseLabels(Relevance):
    """Multi-hot labels with arbitrary values: float64 matrix product."""

    def __init__(self, q: np.ndarray, d: np.ndarray, rule: str) -> None:
        self.name = rule
        self.q = q
        self.dt = np.ascontiguousarray(d.T)
        self.cache = ScoreCache()
        ints = bool(np.all(q == np.rint(q)) and np.all(d == np.rint(d)))
        self.integral = rule == "any_shared" or ints

    def block(self, start: int, stop: int) -> np.ndarray:
        # aligned chunks: a grade is bit-for-bit the same whatever the batch size (see score_block)
        n_d = self.dt.shape[1]
        prod = aligned_rows(
            lambda c0, c1: self.q[c0:c1] @ self.dt, len(self.q), n_d, start, stop, score_chunk(n_d), self.cache
        )
        if self.name == "any_shared":
            return (prod > 0).view(np.uint8)
        return prod


class _ClassLabels(Relevance):
    """Class-index vectors: grade 1 for the same class, else 0."""

    def __init__(self, q: np.ndarray, d: np.ndarray, rule: str) -> None:
        self.name = rule
        self.integral = True
        self.q, self.d = q, d

    def block(self, start: int, stop: int) -> np.ndarray:
        return (self.q[start:stop, None] == self.d[None, :]).view(np.uint8)


class _CallableRelevance(Relevance):
    def __init__(self, func: Callable[[Any, Any], Any], q: Any, d: Any, n_database: int) -> None:
        self.func, self.q, self.d, self.n_database = func, q, d, n_database
        self.name = getattr(func, "__name__", type(func).__name__)
        self.integral = False

    def block(self, start: int, stop: int) -> np.ndarray:
        try:
            out = np.asarray(self.func(self.q[start:stop], self.d), dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InputFormatError(f"relevance callable {self.name!r}: result is not a numeric array ({exc})") from None
        expected = (stop - start, self.n_database)
        if out.shape != expected:
            raise InputFormatError(
                f"relevance callable {self.name!r} returned shape {out.shape} for query rows {start}:{stop}; "
                f"expected {expected} (one grade per query row and database item)"
            )
        bad = ~np.isfinite(out)
        if bad.any():
            row, col = (int(i) for i in np.argwhere(bad)[0])
            raise InvalidScoreError(
                f"relevance callable {self.name!r}: grade of query {start + row}, database item {col} is "
                f"{out[row, col]}; grades must be finite"
            )
        return out


def _labels(x: Any, name: str, n_rows: int, rows_of: str) -> np.ndarray:
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:  # pragma: no cover - ragged input
        raise InputFormatError(f"{name}: cannot convert to an array ({exc})") from None
    if arr.ndim not in (1, 2):
        raise InputFormatError(
            f"{name} must be a multi-hot matrix (n, n_labels) or a class-index vector (n,), got shape {arr.shape}"
        )
    if arr.shape[0] != n_rows:
        raise InputFormatError(f"{name} has {arr.shape[0]} rows (shape {arr.shape}) but {rows_of} has {n_rows}")
    return arr


def _multi_hot(arr: np.ndarray, name: str) -> np.ndarray:
    try:
        out = np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputFormatError(f"{name}: a label matrix must be numeric, got dtype {arr.dtype}") from None
    bad = ~np.isfinite(out)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        raise InvalidScoreError(f"{name}[{row}, {col}] is {out[row, col]}; labels must be finite")
    if out.shape[1] == 1 and not ((out == 0) | (out == 1)).all():
        raise InputFormatError(
            f"{name} has shape {out.shape} with values other than 0/1: for class indices pass a 1-D vector "
            f"({name}.ravel())"
        )
    return out


def _one_hot_classes(arr: np.ndarray, name: str) -> np.ndarray:
    nonzero = (arr != 0).sum(axis=1)
    bad = np.flatnonzero(nonzero != 1)
    if len(bad):
        row = int(bad[0])
        raise InputFormatError(
            f"relevance='same_class' needs one label per row; {name} row {row} has {int(nonzero[row])} "
            f"nonzero labels (use 'shared_labels' or 'any_shared' for multi-label data)"
        )
    return np.argmax(arr != 0, axis=1)


def _class_codes(q: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    try:
        _, inverse = np.unique(np.concatenate([q, d]), return_inverse=True)
    except TypeError as exc:
        raise InputFormatError(f"class labels of queries and database cannot be compared ({exc})") from None
    inverse = inverse.reshape(-1).astype(np.int64)
    return inverse[: len(q)], inverse[len(q) :]


def prepare_relevance(
    query_labels: Any, database_labels: Any, relevance: RelevanceArg, n_queries: int, n_database: int
) -> Relevance:
    """Validate labels once and return the grade producer for ``relevance``.

    Raises :class:`~rankmeter.errors.InputFormatError` naming the argument and
    the shape received when the labels do not match the queries or database.

    Examples
    --------
    >>> rel = prepare_relevance([[1, 1, 0]], [[1, 0, 0], [0, 1, 1], [0, 0, 1]], "shared_labels", 1, 3)
    >>> rel.block(0, 1).tolist(), rel.integral
    ([[1, 1, 0]], True)
    >>> prepare_relevance(["cat"], ["dog", "cat"], "same_class", 1, 2).block(0, 1).tolist()
    [[0, 1]]
    """
    if callable(relevance):
        q = query_labels if hasattr(query_labels, "__getitem__") else np.asarray(query_labels)
        for lab, name, n, of in (
            (q, "query_labels", n_queries, "queries"),
            (database_labels, "database_labels", n_database, "database"),
        ):
            try:
                size = len(lab)
            except TypeError:
                raise InputFormatError(f"{name} must be a sequence of rows, got {type(lab).__name__}") from None
            if size != n:
                raise InputFormatError(f"{name} has {size} rows but {of} has {n}")
        return _CallableRelevance(relevance, q, database_labels, n_database)
    if relevance not in RELEVANCE_RULES:
        raise PolicyError(
            f"unknown relevance {relevance!r}; choose one of {', '.join(RELEVANCE_RULES)} or pass a callable"
        )
    q = _labels(query_labels, "query_labels", n_queries, "queries")
    d = _labels(database_labels, "database_labels", n_database, "database")
    if q.ndim != d.ndim:
        raise InputFormatError(
            f"query_labels has shape {q.shape} but database_labels has shape {d.shape}: pass two multi-hot "
            f"matrices or two class-index vectors"
        )
    if q.ndim == 1:
        qc, dc = _class_codes(q, d)
        return _ClassLabels(qc, dc, relevance)
    qm, dm = _multi_hot(q, "query_labels"), _multi_hot(d, "database_labels")
    if qm.shape[1] != dm.shape[1]:
        raise InputFormatError(
            f"query_labels has {qm.shape[1]} label columns (shape {qm.shape}) but database_labels has "
            f"{dm.shape[1]} (shape {dm.shape})"
        )
    if relevance == "same_class":
        return _ClassLabels(_one_hot_classes(qm, "query_labels"), _one_hot_classes(dm, "database_labels"), relevance)
    binary = bool(((qm == 0) | (qm == 1)).all() and ((dm == 0) | (dm == 1)).all())
    if binary:
        return _PackedLabels(qm, dm, relevance)
    return _DenseLabels(qm, dm, relevance)


def relevance_matrix(query_labels: Any, database_labels: Any, relevance: RelevanceArg = "shared_labels") -> np.ndarray:
    """Grade matrix of every query against every database item, shape (n_queries, n_database), float64.

    For small inputs and checks; evaluation works block by block.

    Examples
    --------
    >>> relevance_matrix([[1, 1, 0]], [[1, 0, 0], [1, 1, 1], [0, 0, 1]]).tolist()
    [[1.0, 2.0, 0.0]]
    >>> relevance_matrix([[1, 1, 0]], [[1, 0, 0], [1, 1, 1], [0, 0, 1]], "any_shared").tolist()
    [[1.0, 1.0, 0.0]]
    >>> relevance_matrix([0, 2], [2, 0, 0]).tolist()
    [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]
    """
    n_q = len(query_labels)
    n_d = len(database_labels)
    rel = prepare_relevance(query_labels, database_labels, relevance, n_q, n_d)
    return rel.block(0, n_q).astype(np.float64)
