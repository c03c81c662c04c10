r"""Recall@k of an approximate-nearest-neighbour result against the exact k nearest neighbours.

For a query ``q`` with distances ``d(q, x)`` to the base points, let the
*distinct points* be the classes of identical base vectors and
``d_k`` the k-th smallest distance among distinct points. The exact
neighbourhood is every distinct point within ``d_k`` (all of a tie at the
k-th distance, so it may hold more than ``k``), and

.. math::

    \mathrm{recall@}k(q) = \frac{\big|\{\,c(x) : x \in \mathrm{ANN}_k(q),\ d(q, x) \le d_k\,\}\big|}{k}

where ``c(x)`` is the distinct point of base row ``x`` and ``ANN_k(q)`` the
first ``k`` ids of the query's row of the ANN result (``-1`` marks a missing
result). Identical vectors count once: ten copies of one point returned for
``k = 10`` give recall 1/10, since ``d_k`` is the 10th distance over distinct
points and the ten ids are one distinct point. Distances are computed
exactly (float64, one vector difference at a time, no epsilon), so ties are
exact equalities.

Given exact neighbour lists instead of vectors, ``d_k`` is the distance of
the list's k-th distinct point and the neighbourhood is the listed ids within
it (ties beyond the end of a list cannot be seen: the metadata counts the
lists that end at ``d_k``); with ``base`` too, identical vectors count once,
else each id is a point of its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter._version import __version__
from rankmeter.agreement.matrix_files import read_matrix
from rankmeter.errors import InputFormatError
from rankmeter.results import EvaluationResult
from rankmeter.vectors.distances import as_matrix, check_metric, prepare_features

ANN_METRICS = ("euclidean", "cosine", "inner")
"""Distances for exact kNN: squared Euclidean, 1 - cosine, minus the inner product."""
_BLOCK_ELEMENTS = 1 << 22
"""Float64 values in one block of vector differences."""


def _ids(source: Any, what: str) -> np.ndarray:
    arr = read_matrix(source, what)
    if arr.ndim != 2:
        raise InputFormatError(f"{what} must have shape (n_queries, k), got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise InputFormatError(f"{what} must hold integer ids, got dtype {arr.dtype}")
    return arr.astype(np.int64)


def _distances(queries: np.ndarray, reps: np.ndarray, metric: str) -> np.ndarray:
    """Exact distances of every query to every representative, one vector difference (or product) at a time."""
    out = np.empty((len(queries), len(reps)))
    dim = queries.shape[1]
    cols = max(1, min(len(reps), _BLOCK_ELEMENTS // dim))
    rows = max(1, _BLOCK_ELEMENTS // (cols * dim))
    for r0 in range(0, len(queries), rows):
        q = queries[r0 : r0 + rows, None, :]
        for c0 in range(0, len(reps), cols):
            x = reps[None, c0 : c0 + cols, :]
            if metric == "euclidean":
                diff = x - q
                block = np.sum(diff * diff, axis=-1)
            else:
                block = -np.sum(x * q, axis=-1)
                if metric == "cosine":
                    block += 1.0
            out[r0 : r0 + rows, c0 : c0 + cols] = block
    return out


def _check_range(ids: np.ndarray, n_base: int, what: str) -> None:
    bad = np.argwhere((ids < -1) | (ids >= n_base))
    if len(bad):
        r, c = (int(v) for v in bad[0])
        raise InputFormatError(f"{what}[{r}, {c}] = {int(ids[r, c])} is not a row of base (0..{n_base - 1}) nor -1")


def _found(ann: np.ndarray, classes: np.ndarray, within: np.ndarray) -> np.ndarray:
    """Per row, the distinct classes among the ANN ids that lie within the neighbourhood (``within[row, col]``)."""
    cls = np.where(ann >= 0, classes[np.maximum(ann, 0)], -1)
    ok = within & (ann >= 0)
    key = np.where(ok, cls, -1)
    key.sort(axis=1)
    first = np.ones_like(key, dtype=bool)
    first[:, 1:] = key[:, 1:] != key[:, :-1]
    return np.sum(first & (key >= 0), axis=1)


def ann_recall(
    ann_ids: Any,
    k: int | None = None,
    *,
    queries: Any = None,
    base: Any = None,
    exact_ids: Any = None,
    exact_distances: Any = None,
    metric: str = "euclidean",
) -> EvaluationResult:
    """Tie-aware recall@k of an ANN result, identical base vectors counted once (the module's formula).

    Parameters
    ----------
    ann_ids : array or path, shape (n_queries, >= k)
        Base row ids found per query, best first (``.npy``, ``.ivecs``,
        ``.ibin``); ``-1`` marks a missing result.
    k : int, optional
        Defaults to the number of columns of ``ann_ids``.
    queries, base : array or path, optional
        Vectors: the exact neighbours are computed from them (``metric``).
    exact_ids, exact_distances : array or path, optional
        Exact neighbour lists instead, ascending distance, at least ``k``
        columns (with ``base`` too, identical vectors count once).
    metric : {"euclidean", "cosine", "inner"}
        Squared Euclidean distance, 1 - cosine, or minus the inner product.

    Returns
    -------
    EvaluationResult
        ``ann_recall@k`` per query (ids ``"0"``, ``"1"``, ... by row) and its
        mean; metadata: mode, metric, the number of base rows that repeat an
        earlier vector, the queries whose exact neighbourhood holds more
        than ``k`` distinct points (a tie at the k-th distance) and, for exact
        lists, those whose list ends at ``d_k`` (a tie could go on past it).

    Examples
    --------
    >>> base = [[0.0], [1.0], [1.0], [-1.0], [5.0]]
    >>> res = ann_recall([[1, 2], [1, 3]], queries=[[0.2], [0.0]], base=base)
    >>> res.by_query("ann_recall@2")  # two copies of 1.0 count once; -1.0 ties 1.0 at the 2nd distance
    {'0': 0.5, '1': 1.0}
    """
    ann = _ids(ann_ids, "ann_ids")
    k = ann.shape[1] if k is None else int(k)
    if not 1 <= k <= ann.shape[1]:
        raise InputFormatError(f"k={k} but ann_ids has {ann.shape[1]} columns; k must lie in 1..{ann.shape[1]}")
    ann = ann[:, :k]
    by_vectors = queries is not None
    if by_vectors == (exact_ids is not None):
        raise InputFormatError("give either queries= and base= (exact kNN computed) or exact_ids= and exact_distances=")
    classes = None
    duplicates = 0
    if base is not None:
        base_raw = as_matrix(read_matrix(base, "base"), "base")
        check_metric(metric)
        if metric not in ANN_METRICS:
            raise InputFormatError(f"metric {metric!r}: ANN recall takes one of {', '.join(ANN_METRICS)}")
        _, reps_at, classes = np.unique(np.asarray(base_raw), axis=0, return_index=True, return_inverse=True)
        classes = classes.reshape(-1)
        duplicates = len(classes) - len(reps_at)
        _check_range(ann, len(classes), "ann_ids")
    if by_vectors:
        if classes is None:
            raise InputFormatError("queries= needs base= (the vectors the ids point to)")
        q, b = prepare_features(read_matrix(queries, "queries"), base_raw, metric)
        if len(q.x) != len(ann):
            raise InputFormatError(f"ann_ids has {len(ann)} rows but queries has {len(q.x)}")
        if k > len(reps_at):
            raise InputFormatError(f"k={k} but base holds only {len(reps_at)} distinct points")
        count, tied = _from_vectors(ann, k, q.x, b.x[reps_at], classes, metric)
        cut = None
    else:
        count, tied, cut = _from_lists(ann, k, exact_ids, exact_distances, classes)
    recall = count / k
    n = len(ann)
    name = f"ann_recall@{k}"
    metadata: dict[str, Any] = {
        "kind": "ann_recall",
        "mode": "vectors" if by_vectors else "lists",
        "metric": metric if by_vectors else None,
        "k": k,
        "duplicate_base_rows": duplicates,
        "queries_with_ties_at_k": tied,
        "lists_ending_at_kth_distance": cut,
        "queries_undefined": {},  # found / k is defined for every query
        "version": __version__,
    }
    return EvaluationResult(
        np.array([str(i) for i in range(n)]),
        [name],
        recall.reshape(n, 1).astype(np.float64),
        np.ones((n, 1), dtype=bool),
        {name: float(recall.mean()) if n else float("nan")},
        metadata,
    )


def _from_vectors(
    ann: np.ndarray, k: int, queries: np.ndarray, reps: np.ndarray, classes: np.ndarray, metric: str
) -> tuple[np.ndarray, int]:
    """Found counts and tied queries from exact distances to one vector of each distinct point, by blocks of queries."""
    count = np.zeros(len(ann), dtype=np.int64)
    tied = 0
    rows = max(1, _BLOCK_ELEMENTS // len(reps))
    for r0 in range(0, len(ann), rows):
        dist = _distances(queries[r0 : r0 + rows], reps, metric)
        d_k = np.partition(dist, k - 1, axis=1)[:, k - 1]
        block = ann[r0 : r0 + rows]
        within = np.take_along_axis(dist, classes[np.maximum(block, 0)], axis=1) <= d_k[:, None]
        count[r0 : r0 + rows] = _found(block, classes, within)
        tied += int(np.sum(np.sum(dist <= d_k[:, None], axis=1) > k))
    return count, tied


def _from_lists(
    ann: np.ndarray, k: int, exact_ids: Any, exact_distances: Any, classes: np.ndarray | None
) -> tuple[np.ndarray, int, int]:
    """Found counts, tied queries and lists ending at ``d_k``, from exact neighbour lists."""
    if exact_distances is None:
        raise InputFormatError("exact_ids= needs exact_distances= (to find the ties at the k-th distance)")
    ids = _ids(exact_ids, "exact_ids")
    dists = np.asarray(read_matrix(exact_distances, "exact_distances"), dtype=np.float64)
    if ids.shape != dists.shape:
        raise InputFormatError(f"exact_ids has shape {ids.shape} but exact_distances has shape {dists.shape}")
    if len(ids) != len(ann):
        raise InputFormatError(f"ann_ids has {len(ann)} rows but exact_ids has {len(ids)}")
    if k > ids.shape[1]:
        raise InputFormatError(f"k={k} but exact_ids holds {ids.shape[1]} neighbours per query")
    unsorted = np.flatnonzero(np.any(np.diff(dists, axis=1) < 0, axis=1))
    if len(unsorted):
        raise InputFormatError(f"exact_distances row {int(unsorted[0])} is not in ascending order")
    if classes is not None:
        _check_range(ids, len(classes), "exact_ids")
    cls = classes if classes is not None else np.arange(int(max(ids.max(), ann.max(), 0)) + 1)
    width = int(cls.max()) + 2
    rows = np.arange(len(ann))[:, None]
    keys = (rows * width + cls[np.maximum(ids, 0)]).reshape(-1)
    first = np.zeros(ids.size, dtype=bool)
    first[np.unique(keys, return_index=True)[1]] = True  # a listed point's first row: copies share its distance
    seen = np.cumsum(first.reshape(ids.shape) & (ids >= 0), axis=1)
    short = np.flatnonzero(seen[:, -1] < k)
    if len(short):
        r = int(short[0])
        raise InputFormatError(f"k={k} but exact_ids row {r} holds {int(seen[r, -1])} distinct points")
    d_k = dists[np.arange(len(ids)), np.argmax(seen >= k, axis=1)]
    member = dists <= d_k[:, None]
    near = (rows * width + cls[np.maximum(ids, 0)])[member & (ids >= 0)]
    ann_keys = rows * width + cls[np.maximum(ann, 0)]
    within = np.isin(ann_keys, near)
    tied = int(np.sum(np.sum(first.reshape(ids.shape) & member & (ids >= 0), axis=1) > k))
    cut = int(np.sum(dists[:, -1] <= d_k))
    return _found(ann, cls, within), tied, cut
