r"""Precision-recall and precision@k curves of vector retrieval, as arrays for plotting.

Two kinds of curve, both averaged over queries (macro average):

- **by radius** (Hamming only; the "hash lookup" curves of the hashing
  literature): at every radius r = 0..bits, the precision and recall of the
  items within Hamming distance r,
  :math:`P_r = |\{i: d_i \le r, rel_i\}| / |\{i: d_i \le r\}|` (0 for an empty
  ball) and :math:`R_r = |\{i: d_i \le r, rel_i\}| / R`. A ball is a union of whole
  distance groups, so no tie rule is involved.
- **by rank** ("Hamming ranking"; any metric): precision@k = rel@k / k and
  recall@k = rel@k / R at every k of ``ks`` (default 1..N), with rel@k the
  number of relevant items in the top k under the tie policy (``expected``:
  the exact expectation, each position counting its tied group's mean).

Relevance is binary: grade > 0 (or >= ``min_rel``). Queries without any
relevant item count as 0 (``empty="zero"``) or are left out (``"skip"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter.core.semantics import Semantics, SemanticsOptions
from rankmeter.errors import PolicyError
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_cumsum
from rankmeter.vectors.distances import check_metric
from rankmeter.vectors.hamming import BUCKET_TIES, BucketGroups, bucket_counts, bucket_histogram
from rankmeter.vectors.ranking import rank_block
from rankmeter.vectors.relevance import RelevanceArg
from rankmeter.vectors.retrieval import SORT_ELEMENTS, VECTOR_TIES, prepare_inputs

if TYPE_CHECKING:
    from typing_extensions import Unpack


@dataclass(frozen=True)
class Curve:
    """Mean precision and recall at each point of a curve.

    Attributes
    ----------
    x : ndarray
        Hamming radius (``kind="radius"``) or rank cutoff k (``kind="rank"``) of each point.
    precision, recall : ndarray of float64
        Means over the included queries.
    retrieved : ndarray of float64
        Mean number of items retrieved at each point (k itself for ``rank``,
        capped at the list length).
    kind : str
        ``"radius"`` or ``"rank"``.
    n_queries : int
        Queries in the means.
    """

    x: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    retrieved: np.ndarray
    kind: str
    n_queries: int


def _relevant(grades: np.ndarray, min_rel: float | None) -> np.ndarray:
    return grades > 0 if min_rel is None else grades >= min_rel


def pr_curve(
    queries: Any,
    database: Any,
    *,
    query_labels: Any,
    database_labels: Any,
    metric: str = "hamming",
    relevance: RelevanceArg = "shared_labels",
    by: str | None = None,
    ks: Any = None,
    semantics: Semantics | None = None,
    exclude_self: bool = False,
    batch_size: int | None = None,
    min_rel: float | None = None,
    codes: str = "auto",
    **options: Unpack[SemanticsOptions],
) -> Curve:
    r"""Precision-recall curve, by Hamming radius (default for ``metric="hamming"``) or by rank.

    Parameters
    ----------
    queries, database, query_labels, database_labels, metric, relevance, exclude_self, codes
        As in :func:`rankmeter.vectors.evaluate_vectors`.
    semantics : Semantics, optional
        ``ties`` (default ``expected``) and ``seed`` as in
        :func:`~rankmeter.vectors.evaluate_vectors`; ``empty``: queries
        without a relevant item counted as 0 (``zero``, default) or left out
        of the means (``skip``). Keyword fields (``ties=``, ...) override it.
    by : {"radius", "rank"}, optional
        ``radius``: one point per Hamming radius 0..bits; ``rank``: one point per
        k in ``ks``. Default: ``radius`` for Hamming, ``rank`` otherwise.
    ks : array-like of int, optional
        Rank cutoffs for ``by="rank"`` (default 1..n_database).
    batch_size : int, optional
        Queries per block (memory O(batch_size * n_database)).
    min_rel : float, optional
        Relevant means grade >= min_rel (default: grade > 0).

    Returns
    -------
    Curve

    Examples
    --------
    >>> q = [[1, 1, -1, -1]]
    >>> db = [[1, 1, -1, -1], [1, -1, -1, -1], [-1, 1, -1, -1], [1, 1, 1, -1],
    ...       [-1, -1, 1, 1], [1, -1, 1, -1], [-1, -1, -1, -1], [1, 1, 1, 1]]
    >>> ql, dl = [[1, 1, 0]], [[1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 0, 0], [0, 1, 0],
    ...                        [1, 1, 1]]
    >>> c = pr_curve(q, db, query_labels=ql, database_labels=dl)
    >>> c.x.tolist(), c.precision.round(4).tolist()
    ([0, 1, 2, 3, 4], [1.0, 0.75, 0.7143, 0.7143, 0.75])
    >>> c.recall.round(4).tolist()
    [0.1667, 0.5, 0.8333, 0.8333, 1.0]
    """
    check_metric(metric)
    sem = Semantics.build(semantics, "vectors", **options)
    ties, empty, seed = sem.tie_policy, sem.empty, sem.seed
    if ties not in VECTOR_TIES:
        raise PolicyError(f"ties={ties!r} is not available for vectors; choose one of {', '.join(VECTOR_TIES)}")
    if empty not in ("zero", "skip"):
        raise PolicyError(f"curves take empty='zero' or 'skip', got {empty!r}")
    kind = by or ("radius" if metric == "hamming" else "rank")
    if kind not in ("radius", "rank"):
        raise PolicyError(f"by must be 'radius' or 'rank', got {by!r}")
    if kind == "radius" and metric != "hamming":
        raise PolicyError(f"a curve by Hamming radius needs metric='hamming', got {metric!r}")
    data = prepare_inputs(queries, database, metric, codes, query_labels, database_labels, relevance)
    n_q, n_d = data.n_queries, data.n_database
    if ks is None:
        k_arr = np.arange(1, n_d + 1, dtype=np.int64)
    else:
        k_arr = np.asarray(ks, dtype=np.int64).reshape(-1)
        if k_arr.size == 0 or (k_arr < 1).any():
            raise PolicyError(f"ks must be positive integers, got {np.asarray(ks).tolist()}")
    size = batch_size or max(1, SORT_ELEMENTS // n_d)
    n_points = data.bits + 1 if kind == "radius" else len(k_arr)
    p_sum, r_sum, ret_sum = np.zeros(n_points), np.zeros(n_points), np.zeros(n_points)
    n_in = 0
    for start in range(0, n_q, size):
        stop = min(start + size, n_q)
        rows = np.arange(start, stop)
        self_cols = np.where(rows < n_d, rows, -1) if exclude_self else None
        key = data.key_block(start, stop)
        rel = _relevant(data.relevance.block(start, stop), min_rel)
        if kind == "radius":
            n_b, r_b = bucket_counts(key, rel, data.bits + 1, self_cols)
            retrieved = np.cumsum(n_b, axis=1)
            hits = np.cumsum(r_b, axis=1)
            total = hits[:, -1:]
        else:
            hits, total, lengths = _rank_hits(key, rel, ties, rows, self_cols, seed, k_arr, metric)
            retrieved = np.minimum(k_arr[None, :], lengths[:, None]).astype(np.float64)
        precision = np.divide(
            hits,
            retrieved if kind == "radius" else k_arr[None, :].astype(np.float64),
            out=np.zeros_like(hits),
            where=retrieved > 0,
        )
        recall = np.divide(hits, total, out=np.zeros_like(hits), where=total > 0)
        keep = (total[:, 0] > 0) if empty == "skip" else np.ones(len(rows), dtype=bool)
        p_sum += precision[keep].sum(axis=0)
        r_sum += recall[keep].sum(axis=0)
        ret_sum += retrieved[keep].sum(axis=0)
        n_in += int(keep.sum())
    x = np.arange(n_points) if kind == "radius" else k_arr
    denom = float(n_in) if n_in else np.nan
    return Curve(x, p_sum / denom, r_sum / denom, ret_sum / denom, kind, n_in)


def _rank_hits(
    key: np.ndarray,
    rel: np.ndarray,
    ties: str,
    rows: np.ndarray,
    self_cols: np.ndarray | None,
    seed: int | None,
    ks: np.ndarray,
    metric: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """rel@k for every k (b, len(ks)), R (b, 1) and list lengths (b,) of one block."""
    if metric == "hamming" and ties in BUCKET_TIES:
        n_buckets = int(key.max()) + 1 if key.size else 1
        hist = bucket_histogram(key, rel.view(np.uint8), n_buckets, 2, self_cols)
        groups = BucketGroups(hist, np.array([0.0, 1.0]), ties)
        mean = groups.sums(np.array([0.0, 1.0])) * groups.inv_n
        per_position = np.repeat(mean.reshape(-1), groups.n_int.reshape(-1))
        lengths = groups.length.astype(np.int64)
        offsets = np.concatenate(([0], np.cumsum(lengths)))
    else:
        ranked = rank_block(key, rel.astype(np.float64), ties=ties, query_rows=rows, self_cols=self_cols, seed=seed)
        ctx = Context(ranked)
        per_position = ctx.tie_mean(ctx.relevant(None))
        offsets = ranked.offsets
        lengths = np.diff(offsets)
    padded = np.concatenate(([0.0], segment_cumsum(per_position, offsets)))
    take = np.minimum(ks[None, :], lengths[:, None])
    hits = np.where(take > 0, padded[offsets[:-1, None] + take], 0.0)
    total = np.where(lengths > 0, padded[offsets[1:]], 0.0)[:, None]
    return hits.astype(np.float64), total, lengths


def precision_at_k_curve(
    queries: Any,
    database: Any,
    *,
    query_labels: Any,
    database_labels: Any,
    ks: Any = None,
    metric: str = "hamming",
    relevance: RelevanceArg = "shared_labels",
    semantics: Semantics | None = None,
    exclude_self: bool = False,
    batch_size: int | None = None,
    min_rel: float | None = None,
    codes: str = "auto",
    **options: Unpack[SemanticsOptions],
) -> Curve:
    """Mean precision@k (and recall@k) at every k of ``ks`` (default 1..n_database), tie-aware.

    The same as :func:`pr_curve` with ``by="rank"``; precision@k is rel@k / k
    (k, not the list length, as ``p@k`` everywhere in rankmeter).

    Examples
    --------
    >>> q = [[1, 1, -1, -1]]
    >>> db = [[1, 1, -1, -1], [1, -1, -1, -1], [-1, 1, -1, -1], [1, 1, 1, -1],
    ...       [-1, -1, 1, 1], [1, -1, 1, -1], [-1, -1, -1, -1], [1, 1, 1, 1]]
    >>> ql, dl = [[1, 1, 0]], [[1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 0, 0], [0, 1, 0],
    ...                        [1, 1, 1]]
    >>> c = precision_at_k_curve(q, db, query_labels=ql, database_labels=dl, ks=[1, 2, 4, 8])
    >>> c.precision.round(4).tolist()
    [1.0, 0.8333, 0.75, 0.75]
    """
    return pr_curve(
        queries,
        database,
        query_labels=query_labels,
        database_labels=database_labels,
        metric=metric,
        relevance=relevance,
        by="rank",
        ks=ks,
        semantics=semantics,
        exclude_self=exclude_self,
        batch_size=batch_size,
        min_rel=min_rel,
        codes=codes,
        **options,
    )
