"""``evaluate_embeddings``: every user ranks the whole catalogue by the inner product of embeddings, in blocks.

The users x items score matrix is never held whole: a block of users' scores
(``user_vectors[a:b] @ item_vectors.T``), their grades and their seen items
are formed, ranked and measured, then dropped, so memory is bounded by the
block, not by the catalogue. Each block is ranked exactly as
:func:`rankmeter.evaluate_arrays` ranks rows of a dense matrix (the same
:class:`rankmeter.by_arrays.DenseEvaluation`): under ``expected`` ties every
relevant item keeps its exact place in the full ranking (the number of items
scored above it and tied with it), so every measure is exact at any cutoff.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter.aggregate import aggregate_column
from rankmeter.by_arrays import DenseEvaluation
from rankmeter.core.lists import EVALUATION_BLOCK_ITEMS, NonFiniteInput, map_blocks, rank_flat_lists, row_blocks
from rankmeter.core.semantics import Semantics, SemanticsOptions
from rankmeter.errors import InputFormatError, InvalidScoreError, PolicyError
from rankmeter.io.dense import flatten_dense
from rankmeter.io.exclude import RemovedItems, from_sparse_positions, lost_relevant, sparse_positions
from rankmeter.measures import FAMILIES
from rankmeter.negatives import BlockValues, SampledNegatives
from rankmeter.pipeline import MeasuresArg, concatenate_results, evaluate_ranked, parse_measures
from rankmeter.progress import progress_bar, wanted
from rankmeter.results import EvaluationResult
from rankmeter.vectors.distances import as_matrix
from rankmeter.vectors.interaction_matrix import IdIndex, read_interactions

if TYPE_CHECKING:
    from typing_extensions import Unpack

EMBEDDING_METRICS = ("inner", "cosine")
EMBEDDING_TIES = ("expected", "stable", "trec", "optimistic", "pessimistic")
_AUTO_PROGRESS_PAIRS = 2_000_000_000


def _features(x: Any, name: str) -> np.ndarray:
    """A finite float32 or float64 matrix (other dtypes become float64)."""
    arr = as_matrix(x, name)
    if arr.dtype not in (np.float32, np.float64):
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise InputFormatError(f"{name}: cannot convert to float ({exc})") from None
    bad = ~np.isfinite(arr)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        raise InvalidScoreError(f"{name}[{row}, {col}] is {arr[row, col]}; features must be finite numbers")
    return np.ascontiguousarray(arr)


def _unit_rows(x: np.ndarray) -> np.ndarray:
    """Rows scaled to norm 1 (a zero row stays zero: cosine 0 to everything)."""
    norms = np.sqrt(np.einsum("ij,ij->i", x, x))
    return np.divide(x, norms[:, None], out=np.zeros_like(x), where=norms[:, None] > 0)


def evaluate_embeddings(
    user_vectors: Any,
    item_vectors: Any,
    truth: Any,
    measures: MeasuresArg,
    *,
    exclude: Any = None,
    user_ids: Any = None,
    item_ids: Any = None,
    metric: str = "inner",
    batch_size: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    semantics: Semantics | None = None,
    items: Any = None,
    sampled_negatives: int | None = None,
    sampling: str = "per_positive",
    **options: Unpack[SemanticsOptions],
) -> EvaluationResult:
    r"""Evaluate full-catalogue rankings scored by user and item embeddings, without the users x items matrix.

    User u's score for item i is :math:`s_{ui} = \mathbf{u}_u \cdot \mathbf{v}_i`
    (``metric="inner"``) or the cosine of the two vectors (``"cosine"``);
    every user ranks every item not excluded, highest score first, and every
    measure is computed on that ranking with the ideal taken from the items
    left (the semantics of :func:`rankmeter.evaluate_arrays` on the score
    matrix, with ``exclude=``). The scores of a block of users are one matrix
    product, in float32 when both inputs are float32 (else float64); ties are
    exact equalities of the computed scores.

    Parameters
    ----------
    user_vectors : array-like, shape (n_users, dim)
        One row per user; every row is evaluated (a user with no relevant
        item follows ``empty=``).
    item_vectors : array-like, shape (n_items, dim)
        One row per catalogue item.
    truth : scipy.sparse matrix, table or dict
        Grades: a ``(n_users, n_items)`` sparse matrix (its stored values are
        the grades), a long table with columns ``user_id``, ``item_id`` and
        optionally ``rating`` (1 when absent), or ``{user: {item: grade}}`` /
        ``{user: [item, ...]}``. Tables and dicts need ``user_ids`` and
        ``item_ids``; an id missing from them, or a (user, item) pair given
        twice, is an error naming the row.
    measures : str, Measure or iterable of them
        E.g. ``["ndcg@10", "r@20", "map@10", "success@10"]``.
    exclude : scipy.sparse matrix, table or dict, optional
        Items each user saw in training, removed from the user's ranking and
        ideal: a ``(n_users, n_items)`` sparse matrix (non-zero entries), or a
        table / dict of (user, item) pairs like ``truth``. Pairs whose user or
        item has no embedding are left out and counted
        (``metadata["exclude_unknown"]``).
    user_ids, item_ids : array-like, optional
        The ids of the rows of ``user_vectors`` and ``item_vectors``; the
        result's query ids are the user ids (as text), else the row indices.
    metric : {"inner", "cosine"}, default "inner"
    batch_size : int, optional
        Users per block (default: about
        :data:`rankmeter.core.lists.EVALUATION_BLOCK_ITEMS` scores a block).
        Memory beyond the inputs is a few bytes per score of the blocks in
        flight (two per thread). Values do not depend on it.
    threads : int, optional
        Threads, each scoring, ranking and measuring its own blocks (default:
        one per CPU, at most 8).
    progress : bool, optional
        A progress bar on stderr (default: from 2e9 user-item pairs, on a terminal).
    semantics : Semantics, optional
        Ties (default ``expected``; ``stable``, ``trec`` (higher item index
        first), ``optimistic``, ``pessimistic``) and ``empty=``.
    items : rankmeter.Items, optional
        For the beyond-accuracy measures: each user's top k of the blocked
        ranking is its list, item j is ``item_ids[j]`` (the catalogue);
        values as :func:`rankmeter.evaluate`'s (:mod:`rankmeter.beyond_dense`).
    sampled_negatives : int, optional
    sampling : {"per_positive", "shared"}, default "per_positive"
        The exact expectation under n sampled negatives, drawn from each
        user's items that are not relevant and not excluded, as in
        :func:`rankmeter.evaluate_arrays`.
    **options
        Fields of :class:`~rankmeter.Semantics` one by one.

    Returns
    -------
    EvaluationResult
        ``metadata["semantics"]["candidates"]`` is ``"exclude"`` with
        ``exclude=`` (and ``"all"`` without), with ``items_excluded`` and
        ``queries_relevant_all_excluded`` as in :func:`rankmeter.evaluate_arrays`.

    Examples
    --------
    Two users, three items; user 0 saw item 0 in training.

    >>> import scipy.sparse
    >>> users = [[1.0, 0.0], [0.0, 1.0]]
    >>> items = [[3.0, 0.0], [1.0, 1.0], [0.0, 2.0]]
    >>> truth = scipy.sparse.csr_array([[0, 1, 0], [1, 0, 0]])
    >>> seen = scipy.sparse.csr_array([[1, 0, 0], [0, 0, 0]])
    >>> res = evaluate_embeddings(users, items, truth, ["rr", "r@1"], exclude=seen)
    >>> res.values.tolist(), res.metadata["items_excluded"]
    ([[1.0, 1.0], [0.3333333333333333, 0.0]], 1)
    """
    sem = Semantics.build(semantics, "dense", **options)
    ties, empty = sem.tie_policy, sem.empty
    side = items  # rankmeter.Items (``items`` names the item vectors below)
    if ties not in EMBEDDING_TIES:
        raise PolicyError(
            f"ties={ties!r} is not available for embeddings (its keys would depend on the blocks); "
            f"choose one of {', '.join(EMBEDDING_TIES)}"
        )
    if metric not in EMBEDDING_METRICS:
        raise PolicyError(f"unknown metric {metric!r}; choose one of {', '.join(EMBEDDING_METRICS)}")
    if batch_size is not None and (not isinstance(batch_size, int | np.integer) or batch_size < 1):
        raise PolicyError(f"batch_size must be a positive integer, got {batch_size!r}")
    parsed = parse_measures(measures)
    sampler = None if sampled_negatives is None else SampledNegatives(sampled_negatives, sampling, parsed, ties, empty)
    if sampler is not None and side is not None:
        raise PolicyError("sampled_negatives= does not take items=")
    sampled: dict[int, BlockValues] = {}
    users, items = _features(user_vectors, "user_vectors"), _features(item_vectors, "item_vectors")
    if users.shape[1] != items.shape[1]:
        raise InputFormatError(
            f"user_vectors have {users.shape[1]} dimensions (shape {users.shape}) "
            f"but item_vectors have {items.shape[1]} (shape {items.shape})"
        )
    if metric == "cosine":
        users, items = _unit_rows(users), _unit_rows(items)
    if users.dtype != items.dtype:
        users, items = users.astype(np.float64), items.astype(np.float64)
    n, m = users.shape[0], items.shape[0]
    if m == 0:
        raise InputFormatError("item_vectors is empty: nothing to rank")
    uid = _ids(user_ids, "user_ids", n, "user_vectors")
    iid = _ids(item_ids, "item_ids", m, "item_vectors")
    grades = read_interactions(truth, "truth", (n, m), uid, iid, grades=True).matrix
    if np.array_equal(grades.data.astype(np.float32), grades.data):
        grades = grades.astype(np.float32)  # the same grades, half the bytes to read in every block
    extra: dict[str, Any] = {"input": "embeddings", "semantics": sem.as_dict(), "metric": metric, "n_items": m}
    extra["semantics"]["candidates"] = "all" if exclude is None else "exclude"
    removed = None
    if exclude is not None:
        seen = read_interactions(exclude, "exclude", (n, m), uid, iid, grades=False)
        removed = from_sparse_positions(sparse_positions(seen.matrix, (n, m)), (n, m))
        extra.update(items_excluded=removed.total, exclude_unknown=seen.unknown_rows)
    step = int(batch_size) if batch_size is not None else max(1, EVALUATION_BLOCK_ITEMS // m)
    blocks = row_blocks(n, m, step)
    if side is not None or any(FAMILIES[mm.family].reads == "lists" for mm in parsed):
        from rankmeter.beyond_dense import DenseItemsCall, embeddings_with_items

        def accuracy(rest: list[Any]) -> EvaluationResult:
            return evaluate_embeddings(user_vectors, item_vectors, truth, rest, exclude=exclude, user_ids=user_ids,
                                       item_ids=item_ids, metric=metric, batch_size=batch_size, threads=threads,
                                       progress=progress, semantics=sem)  # fmt: skip

        call = DenseItemsCall(parsed, side, sem, accuracy)
        ids = np.arange(n).astype(str) if uid is None else uid.ids.astype(str)
        item_names = None if iid is None else iid.ids
        return embeddings_with_items(users, items.T, grades, removed, ids, item_names, blocks, threads, call)
    plan = DenseEvaluation(parsed, ties, sem.seed, empty, m, threads=1)
    if plan.top is not None:
        extra["ranked_top_k"] = plan.top
    query_ids = np.arange(n).astype(str) if uid is None else uid.ids.astype(str)
    item_t = np.ascontiguousarray(items.T)

    def evaluate_block(rows: tuple[int, int]) -> EvaluationResult:
        a, b = rows
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, naming the users
            scores = users[a:b] @ item_t
        y = grades[a:b].toarray()
        gone = removed.rows(a, b) if removed is not None else None
        if sampler is not None:  # scores that are not finite are reported below
            sampled[a] = sampler.values(y, scores, gone, query_ids[a:b])
        try:
            if gone is not None and gone.counts.max(initial=0) == m:
                return _nothing_left(y, scores, gone, parsed, ties, empty, query_ids[a:b])
            return plan.evaluate(y, scores, a, gone, query_ids=query_ids[a:b])
        except NonFiniteInput:
            pass
        raise InvalidScoreError(  # outside the handler: the internal signal is not chained to it
            f"the scores of users {a}-{b - 1} are not all finite (the products of their vectors overflow "
            f"{scores.dtype})"
        )

    show = wanted(progress, n * m >= _AUTO_PROGRESS_PAIRS)
    parts: list[EvaluationResult] = []
    with progress_bar(n, "rankmeter evaluate_embeddings", show=show, unit="users") as done:
        for part in map_blocks(evaluate_block, blocks, threads):
            parts.append(part)
            done(blocks[len(parts) - 1][1])
    if not parts:
        raise InputFormatError("user_vectors is empty: no user to evaluate")
    if removed is not None:
        extra["queries_relevant_all_excluded"] = sum(p.metadata.pop("queries_relevant_all_excluded") for p in parts)
    extra["batch_size"] = step
    result = concatenate_results(parts, parsed, extra)
    if removed is not None and (removed.counts == m).any():
        result = _weighted_by_items_left(result, parsed, removed.counts < m)
    return result if sampler is None else sampler.result(result, [sampled[a] for a, _ in blocks])


def _ids(ids: Any, name: str, n: int, rows_of: str) -> IdIndex | None:
    if ids is None:
        return None
    index = IdIndex(ids, name)
    if len(index.ids) != n:
        raise InputFormatError(f"{name} has {len(index.ids)} ids but {rows_of} has {n} rows")
    return index


def _nothing_left(
    y: np.ndarray,
    scores: np.ndarray,
    gone: RemovedItems,
    measures: list[Any],
    ties: str,
    empty: str,
    query_ids: np.ndarray,
) -> EvaluationResult:
    """A block where some user has every item excluded, ranked list by list (such a list gets weight 0)."""
    keep = gone.keep_matrix()
    if not np.isfinite(scores[keep]).all():
        raise NonFiniteInput
    ranked = replace(rank_flat_lists(flatten_dense(y, scores, keep), ties=ties), query_ids=query_ids)
    res = evaluate_ranked(ranked, measures, empty=empty)
    res.metadata["queries_relevant_all_excluded"] = int(
        np.count_nonzero(lost_relevant(y, gone) & ~(y * keep > 0).any(1))
    )
    return res


def _weighted_by_items_left(result: EvaluationResult, measures: list[Any], has_items: np.ndarray) -> EvaluationResult:
    """The means again, each user with no item left weighing 0 (the rule of ``mask=``)."""
    family = {str(single): single.family for m in measures for single in m.expand()}
    weights = has_items.astype(np.float64)
    aggregate = {
        name: aggregate_column(
            result.values[:, i], result.included[:, i], weights=weights, kind=FAMILIES[family[name]].aggregate
        )
        for i, name in enumerate(result.measure_names)
    }
    return replace(result, aggregate=aggregate, metadata={**result.metadata, "weighted": True})
