"""The positional entry points: :func:`evaluate_arrays` (dense matrices) and :func:`evaluate_lists` (ragged lists).

Labels and scores sit at the same positions, with no ids to match. Each
builds its :class:`~rankmeter.Semantics` from ``semantics=`` and keyword
arguments, turns its rows into :class:`~rankmeter.core.layout.RankedLists`
and hands them to :func:`rankmeter.pipeline.evaluate_ranked`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter.core import lists
from rankmeter.core.layout import RankedLists
from rankmeter.core.lists import (
    NonFiniteInput,
    map_blocks,
    rank_dense,
    rank_dense_positives,
    rank_dense_top,
    rank_flat_lists,
    ranked_prefix,
    relevant_in_ideal,
    row_blocks,
)
from rankmeter.core.options import ArrayKeywords, EvaluationOptions, ListKeywords, option_names, split_keywords
from rankmeter.core.semantics import Semantics
from rankmeter.core.ties import straddling_queries
from rankmeter.errors import PolicyError
from rankmeter.io.dense import check_finite, dense_arrays, flatten_dense, flatten_ragged
from rankmeter.io.exclude import RemovedItems, is_sparse, lost_relevant, removal_counts, removed_items
from rankmeter.io.foreign import array_library, host_array, host_arrays
from rankmeter.measures import FAMILIES, Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.traits import refuse_expected_ties
from rankmeter.pipeline import (
    MeasuresArg,
    concatenate_results,
    evaluate_ranked,
    parse_measures,
    positive_ideal_suffices,
    positive_items_suffice,
)
from rankmeter.progress import progress_bar, wanted
from rankmeter.results import EvaluationResult
from rankmeter.segments import rows_grouped

if TYPE_CHECKING:
    from typing_extensions import Unpack


_AUTO_PROGRESS_ITEMS = 200_000_000  # dense items from which evaluate_arrays draws a bar on a terminal


def _top_k_only(measures: list[Measure], ties: str) -> int | None:
    """The largest cutoff when every measure only looks at the top k (dense fast path), else None."""
    if ties == "shuffle" or any(m.cutoffs is None or not FAMILIES[m.family].traits.top_k for m in measures):
        return None
    return max(max(m.cutoffs or (0,)) for m in measures)


class DenseEvaluation:
    """How the blocks of dense rows of one call are ranked and measured: the same path for every block.

    * every measure has a cutoff k (and a family that reads only the top k):
      only the items scoring at least the k-th score are ranked
      (:func:`~rankmeter.core.lists.rank_dense_top`; ``top``);
    * otherwise, under ``expected`` ties, when the measures read only the
      items with a grade > 0: each of those at its exact rank in its row
      (:func:`~rankmeter.core.lists.rank_dense_positives`);
    * otherwise every row is sorted (:func:`~rankmeter.core.lists.rank_dense`),
      measures with cutoffs computed on each row's top alone.

    Parameters
    ----------
    measures : list of Measure
    ties, seed, empty
        The call's semantics.
    n_cols : int
        Items per row.
    threads : int, optional
        Threads of the ranking inside one block (1 when blocks run on threads of their own).

    Examples
    --------
    >>> plan = DenseEvaluation(parse_measures("ndcg@2"), "expected", None, "zero", 4)
    >>> res = plan.evaluate(np.array([[0.0, 1, 0, 2]]), np.array([[0.4, 0.3, 0.2, 0.1]]))
    >>> plan.top, round(res["ndcg@2"], 6), round(float((1 / np.log2(3)) / (2 + 1 / np.log2(3))), 6)
    (2, 0.239812, 0.239812)
    """

    def __init__(
        self, measures: list[Measure], ties: str, seed: int | None, empty: str, n_cols: int, threads: int | None = None
    ) -> None:
        self.measures, self.ties, self.seed, self.empty, self.threads = measures, ties, seed, empty, threads
        top = _top_k_only(measures, ties)
        self.top = top if top is not None and top < n_cols else None
        self.compact = positive_ideal_suffices(measures)
        self.widest = max((k for mm in measures for k in mm.cutoffs or ()), default=0)
        # with complete rows, measures that read only the top k of each list are computed on that top alone
        self.head = [mm for mm in measures if mm.cutoffs and FAMILIES[mm.family].traits.top_k]
        self.head_k = max((max(mm.cutoffs or (0,)) for mm in self.head), default=0)
        self.split = bool(self.head) and len(self.head) < len(measures) and 2 * self.head_k <= n_cols
        self.positives = self.top is None and n_cols > 0 and ties == "expected" and positive_items_suffice(measures)

    def rank(self, y: np.ndarray, s: np.ndarray, first_row: int, removed: RemovedItems | None) -> RankedLists:
        """The ranked lists of rows ``first_row`` ... (``y``, ``s``: those rows; every row keeps an item)."""
        if self.positives and y.size:
            return rank_dense_positives(
                y, s, min_ideal_width=self.widest + 1, first_row=first_row, check_finite=True, removed=removed
            )
        if self.top is not None:
            return rank_dense_top(
                y, s, self.top, ties=self.ties, compact_ideal=self.compact, first_row=first_row, check_finite=True,
                threads=self.threads, removed=removed,
            )  # fmt: skip
        return rank_dense(
            y,
            s,
            ties=self.ties,
            seed=self.seed,
            compact_ideal=self.compact,
            min_ideal_width=self.widest + 1,
            first_row=first_row,
            check_finite=True,
            threads=self.threads,
            removed=removed,
        )

    def evaluate(
        self,
        y: np.ndarray,
        s: np.ndarray,
        first_row: int = 0,
        removed: RemovedItems | None = None,
        query_ids: np.ndarray | None = None,
    ) -> EvaluationResult:
        """The result of rows ``first_row`` ...; with ``removed``, ``metadata["queries_relevant_all_excluded"]``.

        ``query_ids``: the rows' ids (default: their indices as text). Raises
        :class:`~rankmeter.core.lists.NonFiniteInput` for a value that is not
        finite (the caller names it).
        """
        ranked = self.rank(y, s, first_row, removed)
        if query_ids is not None:
            ranked = replace(ranked, query_ids=query_ids)
        res = (
            _evaluate_with_prefix(ranked, self.measures, self.head, self.head_k, empty=self.empty)
            if self.split and not self.positives and self.top is None
            else evaluate_ranked(ranked, self.measures, empty=self.empty)
        )
        if removed is not None:  # lists that lost a relevant item and have none left
            left_none = np.flatnonzero(~relevant_in_ideal(ranked))  # of these, the lists that lost every one
            res.metadata["queries_relevant_all_excluded"] = int(np.count_nonzero(lost_relevant(y, removed, left_none)))
        return res


@rows_grouped
def evaluate_arrays(
    y_true: Any,
    y_score: Any,
    measures: MeasuresArg,
    *,
    mask: Any = None,
    sample_weight: Any = None,
    semantics: Semantics | None = None,
    sampled_negatives: int | None = None,
    sampling: str = "per_positive",
    options: EvaluationOptions | None = None,
    **keywords: Unpack[ArrayKeywords],
) -> EvaluationResult:
    """Evaluate dense score/label matrices, one ranked list per row.

    Parameters
    ----------
    y_true : array-like, shape (n_lists, list_size)
        Relevance grades (all items are judged; negative grades are judged
        non-relevant).
    y_score : array-like, shape (n_lists, list_size)
        Scores; higher ranks first.
    measures : str, Measure or iterable of them
    mask : array-like of bool, optional
        ``False`` removes an item from its list (not ranked, not in the ideal).
    sample_weight : scalar, shape (n_lists,), (n_lists, 1) or (n_lists, list_size), optional
        keras-rs's rules in full: an item of weight 0 leaves its list (as a
        masked one); item weights scale the gains of the DCG family (the ideal
        is sorted by weighted gain; ``dcg``/``cg`` are divided by the list
        weight), make ``map``/``ap`` keras-rs's item-weighted AP,
        sum over the top k of w_i rel_i P@i / sum(w * rel), and give each
        list the weight sum(w * rel) / sum(rel) in the mean (a list without
        relevant items: the mean weight of the others). Negative grades stay
        judged non-relevant items (keras-rs masks labels < 0: pass
        ``mask=y_true >= 0`` for its number).
    semantics : Semantics, optional
        Ties, empty queries and seed (:class:`rankmeter.Semantics`); ties
        default to ``expected``, scikit-learn's tie-averaged convention.
        The fields about qrels (missing, duplicates, depth, judged_only) do
        not apply to dense input.
    sampled_negatives : int, optional
        Report, for each row and measure, the exact expected value when the
        row's relevant items (grade > 0) are ranked against this many
        negatives drawn uniformly without replacement from its other items
        (not masked or excluded) -- a closed form, no sampling. The
        full-catalogue aggregates are in ``metadata["full_catalogue"]``.
        See :mod:`rankmeter.negatives` and the "Sampled metrics" page.
    sampling : {"per_positive", "shared"}, default "per_positive"
        With ``sampled_negatives``: each relevant item ranked alone against
        its own n negatives (Krichene & Rendle, KDD 2020), or all of a row's
        relevant items together against one draw of n negatives.
    options : EvaluationOptions, optional
        The fields of :class:`rankmeter.EvaluationOptions` that apply:
        ``exclude`` -- items removed from their list, as ``mask=False``
        does: a ``scipy.sparse`` matrix (CSR, COO, ...) of the shape of
        ``y_score`` whose non-zero entries are removed (e.g. the user x item
        matrix of the training interactions), or a dense boolean matrix
        (True: removed); recorded as ``metadata["semantics"]["candidates"]``,
        with ``metadata["items_excluded"]`` and
        ``metadata["queries_relevant_all_excluded"]`` (lists that had a
        relevant item and have none left; ``empty=`` decides their value);
        ``progress`` (default: for 200 million items or more when stderr is
        a terminal); ``group_by`` -- the segment of each row (a sequence of
        ``n_lists`` labels, or ``{row: segment}``), not with
        ``sample_weight``; ``items`` -- for the beyond-accuracy measures
        (``catalog_coverage@10``, ...): each row's top k is its list, column
        j is catalogue item j (:mod:`rankmeter.beyond_dense`), values as
        :func:`rankmeter.evaluate`'s.
    **keywords
        Fields of :class:`~rankmeter.Semantics` and of those options given
        one by one, as for :func:`rankmeter.evaluate`.

    Returns
    -------
    EvaluationResult
        Query ids are the row indices as strings.

    Notes
    -----
    Without ``sample_weight``, the rows are ranked and evaluated in blocks
    (``rankmeter.core.lists.EVALUATION_BLOCK_ITEMS`` items each) on one
    thread per CPU, so memory beyond the inputs stays bounded; ``mask`` and
    ``exclude`` take the same path (their items are left out of each row's
    ranking: on the top-k path the mask is read only at the sampled columns
    and the candidates), except under ``ties="shuffle"`` or when a list has
    no item left, which are ranked list by list. A mask that
    removes nothing costs nothing more. When every
    measure has a cutoff, only the top of each row is ranked
    (``metadata["ranked_top_k"]``; tie counts then refer to that top);
    otherwise measures with cutoffs are computed on each row's top alone.

    Examples
    --------
    >>> res = evaluate_arrays([[10, 0, 0, 1, 5]], [[.1, .2, .3, 4, 70]], ["ndcg", "dcg"])
    >>> round(res["ndcg"], 6), round(res["dcg"], 6)
    (0.695694, 9.499458)
    >>> import scipy.sparse
    >>> seen = scipy.sparse.csr_array(([1], ([0], [4])), shape=(1, 5))  # item 4 was seen in training
    >>> res = evaluate_arrays([[10, 0, 0, 1, 5]], [[.1, .2, .3, 4, 70]], "ndcg@1", exclude=seen)
    >>> res["ndcg@1"], res.metadata["semantics"]["candidates"], res.metadata["items_excluded"]
    (0.1, 'exclude', 1)
    """
    opts, semantic_keywords = split_keywords("evaluate_arrays", options, keywords, option_names(ArrayKeywords))
    sem = Semantics.build(semantics, "dense", **semantic_keywords)
    exclude, progress, items = opts.exclude, opts.progress, opts.items
    ties, empty, seed = sem.tie_policy, sem.empty, sem.seed
    parsed = parse_measures(measures)
    refuse_expected_ties(ties, parsed)
    if sampled_negatives is not None:  # the exact expectation under sampled negatives
        from rankmeter.negatives import SampledNegatives, sampled_arrays

        sampler = SampledNegatives(sampled_negatives, sampling, parsed, ties, empty)
        if sample_weight is not None or items is not None:
            raise PolicyError(f"sampled_negatives= does not take {'items=' if items is not None else 'sample_weight'}")
        full = evaluate_arrays(y_true, y_score, parsed, mask=mask, exclude=exclude, semantics=sem, progress=progress)
        return sampled_arrays(full, y_true, y_score, sampler, mask=mask, exclude=exclude)
    if items is not None or any(FAMILIES[m.family].reads == "lists" for m in parsed):
        from rankmeter.beyond_dense import DenseItemsCall, arrays_with_items, check_call

        def accuracy(rest: list[Measure]) -> EvaluationResult:
            return evaluate_arrays(y_true, y_score, rest, mask=mask, exclude=exclude, semantics=sem, progress=progress)

        call = DenseItemsCall(parsed, items, sem, accuracy)
        check_call(call, sample_weight)
        return arrays_with_items(y_true, y_score, mask, exclude, call)
    extra: dict[str, Any] = {"input": "dense", "semantics": sem.as_dict()}
    if mask is not None or exclude is not None:
        extra["semantics"]["candidates"] = "+".join(
            n for n, x in (("mask", mask), ("exclude", exclude)) if x is not None
        )
    dense_exclude = None if is_sparse(exclude) else exclude
    from rankmeter.xp.arrays import placement

    where = placement({"y_true": y_true, "y_score": y_score, "mask": mask, "exclude": dense_exclude,
                       "sample_weight": sample_weight})  # fmt: skip
    if where is not None:  # torch, JAX, CuPy: on their device, or NumPy's view of CPU arrays (see xp.on_device.route)
        from rankmeter.xp.on_device import evaluate_on_device, route

        extra["array_api"] = route(where, parsed, ties, sample_weight)
        if extra["array_api"]["path"] == "device":
            return evaluate_on_device(where, y_true, y_score, mask, parsed, sem, extra, exclude=exclude)
        y_true, y_score, mask, sample_weight = host_arrays(y_true, y_score, mask, sample_weight)
    removed = None
    if mask is not None or exclude is not None:
        y_true, y_score = dense_arrays(y_true, y_score, check_finite=False)
        removed = removed_items(mask, host_array(exclude) if not is_sparse(exclude) else exclude, y_true.shape)
        extra["items_excluded"] = removed.total
        if removed.total and (sample_weight is not None or ties == "shuffle" or removed.any_row_emptied()):
            extra.update(removal_counts(y_true, removed))
            mask, removed = removed.keep_matrix(), None  # ranked list by list (shuffle: keys of the items left)
        elif not removed.total:  # a mask that removes nothing: the call without it
            extra["queries_relevant_all_excluded"] = 0
            mask, removed = None, None
        else:
            mask = None
    if mask is not None or sample_weight is not None:
        ranked = rank_flat_lists(flatten_dense(y_true, y_score, mask, sample_weight), ties=ties, seed=seed)
        return evaluate_ranked(ranked, parsed, empty=empty, metadata=extra)
    y, s = dense_arrays(y_true, y_score, check_finite=False)  # checked block by block below
    n, m = y.shape
    # blocks of rows are ranked and evaluated on their own (one block when empty="error" reports all queries)
    blocks = row_blocks(n, m, max(1, lists.EVALUATION_BLOCK_ITEMS // max(m, 1))) if empty != "error" else []
    plan = DenseEvaluation(parsed, ties, seed, empty, m, threads=1 if len(blocks) > 1 else None)
    if plan.top is not None:
        extra["ranked_top_k"] = plan.top  # only the top of each row was ranked; tie counts refer to it

    def evaluate_rows(rows: tuple[int, int]) -> EvaluationResult:
        a, b = rows
        return plan.evaluate(y[a:b], s[a:b], a, removed.rows(a, b) if removed is not None else None)

    blocks = blocks if len(blocks) > 1 else [(0, n)]
    parts: list[EvaluationResult] = []
    not_finite = False
    try:
        with progress_bar(n, "rankmeter evaluate_arrays", show=wanted(progress, n * m >= _AUTO_PROGRESS_ITEMS),
                          unit="lists") as done:  # fmt: skip
            for part in map_blocks(evaluate_rows, blocks) if len(blocks) > 1 else map(evaluate_rows, blocks):
                parts.append(part)
                done(int(blocks[len(parts) - 1][1]))
    except NonFiniteInput:
        not_finite = True
    if not_finite:  # raised here, so that the internal signal is not chained to the user's error
        check_finite(y, s, None if removed is None else removed.keep_matrix())  # names the first value
        raise RuntimeError("a block reported a value that is not finite, but every value is")  # pragma: no cover
    if removed is not None:
        extra["queries_relevant_all_excluded"] = sum(p.metadata.pop("queries_relevant_all_excluded") for p in parts)
    return concatenate_results(parts, parsed, extra)


def _evaluate_with_prefix(
    ranked: RankedLists, measures: list[Measure], head: list[Measure], k: int, *, empty: str
) -> EvaluationResult:
    """:func:`evaluate_ranked`, with the ``head`` measures (cutoffs <= k) computed on each list's top k only.

    Their values are the same on :func:`ranked_prefix`, which is much shorter
    than complete dense rows; the result has the columns, aggregates and
    metadata of one :func:`evaluate_ranked` call on ``ranked``.
    """
    prefix = ranked_prefix(ranked, k)
    rest = [m for m in measures if m not in head]
    if measures[0] in head:  # in the order given, so that empty="error" names the same measure
        top, whole = evaluate_ranked(prefix, head, empty=empty), evaluate_ranked(ranked, rest, empty=empty)
    else:
        whole, top = evaluate_ranked(ranked, rest, empty=empty), evaluate_ranked(prefix, head, empty=empty)
    sources = {name: (res, i) for res in (top, whole) for i, name in enumerate(res.measure_names)}
    names = list(dict.fromkeys(str(single) for m in measures for single in m.expand()))
    # tie diagnostics of the whole lists: groups straddling a cutoff of either part (all head cutoffs are <= k)
    straddle = straddling_queries(
        prefix.offsets, prefix.group_starts, sorted({c for m in head for c in m.cutoffs or ()}), []
    )
    rest_cutoffs = sorted({c for m in rest for c in m.cutoffs or ()})
    per_query = [
        Context(ranked).num_relevant(m.param("min_rel")) for m in rest if FAMILIES[m.family].traits.cut_at_relevant
    ]
    if rest_cutoffs or per_query:
        straddle |= straddling_queries(ranked.offsets, ranked.group_starts, rest_cutoffs, per_query)
    meta = {**whole.metadata, "measures": names, "queries_with_ties_at_cutoff": int(straddle.sum())}
    return EvaluationResult(
        ranked.query_ids,
        names,
        np.stack([sources[n][0].values[:, sources[n][1]] for n in names], axis=1),
        np.stack([sources[n][0].included[:, sources[n][1]] for n in names], axis=1),
        {n: sources[n][0].aggregate[n] for n in names},
        meta,
        pool_weights={n: sources[n][0].pool_weights[n] for n in names if n in sources[n][0].pool_weights},
    )


@rows_grouped
def evaluate_lists(
    y_true: Sequence[Any],
    y_score: Sequence[Any],
    measures: MeasuresArg,
    *,
    semantics: Semantics | None = None,
    options: EvaluationOptions | None = None,
    **keywords: Unpack[ListKeywords],
) -> EvaluationResult:
    """Evaluate ragged lists: ``y_true[i]`` and ``y_score[i]`` are the grades and scores of list i.

    Takes ``semantics`` and its fields as keyword arguments like
    :func:`evaluate_arrays` (ties default to ``expected``), and of the
    :class:`~rankmeter.EvaluationOptions` ``group_by`` only (one segment per
    list), in ``options=`` or as a keyword.

    Warning: the ideal ranking of list i comes from ``y_true[i]`` alone. For
    top-K recommendation lists, whose users have relevant items outside the
    list, recall and NDCG come out too high (every relevant item the list
    missed is ignored). Pass the lists and the whole ground truth to
    :func:`evaluate` instead: ``evaluate(test, {user: [item, ...]}, ...)``.

    >>> res = evaluate_lists([[1, 0], [0, 0, 1]], [[0.9, 0.1], [0.5, 0.4, 0.3]], "rr")
    >>> round(res["rr"], 6)
    0.666667
    """
    _, semantic_keywords = split_keywords("evaluate_lists", options, keywords, option_names(ListKeywords))
    sem = Semantics.build(semantics, "ragged", **semantic_keywords)
    parsed = parse_measures(measures)
    refuse_expected_ties(sem.tie_policy, parsed)
    extra: dict[str, Any] = {"input": "ragged", "semantics": sem.as_dict()}
    from rankmeter.xp.arrays import padded_rows, placement

    where = placement({"y_true": _first_list(y_true), "y_score": _first_list(y_score)})
    if where is not None:  # torch, JAX, CuPy: on their device, or NumPy's view of CPU arrays (see xp.on_device.route)
        from rankmeter.xp.on_device import evaluate_on_device, route

        extra["array_api"] = route(where, parsed, sem.tie_policy)
        if extra["array_api"]["path"] == "device":
            return evaluate_on_device(where, *padded_rows(where, y_true, y_score), parsed, sem, extra)
    y_true, y_score = ([host_array(x) for x in host_array(v)] for v in (y_true, y_score))
    ranked = rank_flat_lists(flatten_ragged(y_true, y_score), ties=sem.tie_policy, seed=sem.seed)
    return evaluate_ranked(ranked, parsed, empty=sem.empty, metadata=extra)


def _first_list(lists: Any) -> Any:
    """``lists`` when it is one array of a foreign library, else its first list (None when empty)."""
    if array_library(lists) is not None:
        return lists
    return lists[0] if len(lists) else None
