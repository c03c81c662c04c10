"""Entry points: :func:`evaluate` (qrels + run), :func:`evaluate_arrays` (dense) and :func:`evaluate_lists` (ragged)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from rankmeter._version import __version__
from rankmeter.aggregate import aggregate_column, apply_empty_policy, check_empty_policy, keras_list_weights
from rankmeter.core import lists
from rankmeter.core.align import AlignInfo, align
from rankmeter.core.arrays import count_distinct_sorted
from rankmeter.core.lists import (
    NonFiniteInput,
    map_blocks,
    rank_dense,
    rank_dense_top,
    rank_flat_lists,
    ranked_prefix,
    row_blocks,
)
from rankmeter.core.ranked_lists import RankedLists
from rankmeter.core.ties import check_policy, straddling_queries
from rankmeter.errors import MeasureSyntaxError
from rankmeter.io.dense import dense_arrays, flatten_dense, flatten_ragged
from rankmeter.io.load import as_qrels, as_run
from rankmeter.measures import FAMILIES, Measure, parse
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_sum
from rankmeter.measures.params import GainTable, Jarvelin, gain_values
from rankmeter.progress import progress_bar, wanted
from rankmeter.results import EvaluationResult

MeasuresArg = str | Measure | Iterable[str | Measure]
_AUTO_PROGRESS_ITEMS = 200_000_000  # dense items from which evaluate_arrays draws a bar on a terminal (W3's 40M: 1 s)
BLOCK_BYTES = 8 << 20
"""Bytes of run text parsed at a time when a run file is read in blocks.

``python benchmarks/run.py --only CHOICES`` on W1 (255 MB, 2 cores): 2 MiB
1.06 s, 4 MiB 0.97 s, 8 MiB 0.92 s, 16 MiB 0.95 s, 32 MiB 1.07 s per process,
peak RSS growing from 142 to 467 MB.
"""
_GRADED = ("ndcg", "dcg", "idcg", "cg")
_UNNORMALISED_GAINS = ("dcg", "idcg", "cg")


def _run_file(run: Any) -> bool:
    """Whether ``run`` names a run file of more than one block (not stdin)."""
    return (
        isinstance(run, str | os.PathLike)
        and str(run) != "-"
        and os.path.isfile(run)
        and (os.path.getsize(run) > BLOCK_BYTES)
    )


def _parse_all(measures: MeasuresArg) -> list[Measure]:
    items = [measures] if isinstance(measures, str | Measure) else list(measures)
    if not items:
        raise MeasureSyntaxError("no measures given; e.g. measures=['ndcg@10', 'map']")
    return [parse(m) for m in items]


def _empty_mask(ctx: Context, m: Measure, values: np.ndarray) -> np.ndarray:
    """Queries with no relevant document for measure ``m`` (or where it is undefined)."""
    if m.family in _GRADED and m.param("ideal", "judged") == "retrieved" and not ctx.ranked.ideal_is_list:
        count = segment_sum(ctx.relevant(None), ctx.ranked.offsets)
    else:
        count = ctx.num_relevant(m.param("min_rel"))
    return (count == 0) | np.isnan(values)


def _list_weights(ctx: Context, m: Measure) -> np.ndarray | None:
    ranked = ctx.ranked
    if ranked.item_weights is None:
        return ranked.list_weights
    if m.family in _GRADED:
        relevance = np.where(ranked.judged, gain_values(m.param("gain", "linear"), ranked.grades), 0.0)
    else:
        relevance = ctx.relevant(m.param("min_rel"))
    return keras_list_weights(ranked.item_weights, relevance, ranked.offsets)


# families whose value reads the ranking only through judged items (their ranks and grades) and each list's
# length: unjudged items have gain, relevance and judged count 0 (see RankedLists.judged_items)
_JUDGED_ITEM_FAMILIES = (
    "ndcg", "dcg", "idcg", "cg", "p", "r", "f1", "success", "rr", "map", "ap", "wap", "acg", "judged",
    "rprec", "num_q", "num_ret", "num_rel", "num_rel_ret",
)  # fmt: skip


def _judged_items_suffice(ties: str, measures: list[Measure]) -> bool:
    """Whether every measure has the same value on sparse lists (:meth:`RankedLists.judged_items`).

    Needs a deterministic order (``expected`` averages over tied unjudged
    items), built-in discounts (a user discount could be infinite where an
    unjudged gain is 0) and the ideal from the judgments rather than from
    the retrieved items. Applies to lists aligned from qrels, not to dense
    rows (fully judged) or weighted items.

    >>> _judged_items_suffice("trec", [parse("ndcg@10"), parse("map")])
    True
    >>> _judged_items_suffice("expected", [parse("ndcg@10")]), _judged_items_suffice("trec", [parse("bpref")])
    (False, False)
    """
    if ties == "expected":
        return False
    for m in measures:
        if m.family not in _JUDGED_ITEM_FAMILIES or m.param("ideal", "judged") == "retrieved":
            return False
        if not isinstance(m.param("discount", "log2"), str | Jarvelin):
            return False
    return True


def evaluate_ranked(
    ranked: RankedLists, measures: MeasuresArg, *, empty: str = "zero", metadata: Mapping[str, Any] | None = None
) -> EvaluationResult:
    """Evaluate already-ranked lists (the layout every entry point converts to).

    Parameters
    ----------
    ranked : RankedLists
    measures : str, Measure or iterable of them
    empty : {"zero", "skip", "nan", "one", "error"}
        Policy for queries with no relevant judged document.
    metadata : mapping, optional
        Extra metadata merged into the result's.

    Returns
    -------
    EvaluationResult
    """
    check_empty_policy(empty)
    parsed = _parse_all(measures)
    aligned = not (ranked.ideal_is_list or ranked.item_weights is not None or ranked.is_sparse)
    if aligned and _judged_items_suffice(ranked.ties, parsed):  # whatever the data: a value never depends on its batch
        ranked = ranked.judged_items()
    ctx = Context(ranked)
    names: list[str] = []
    columns: list[np.ndarray] = []
    included: list[np.ndarray] = []
    aggregate: dict[str, float] = {}
    seen: dict[str, Measure] = {}
    cutoffs: set[int] = set()
    per_query_cutoffs: list[np.ndarray] = []
    for m in parsed:
        family = FAMILIES[m.family]
        block = family.kernel(ctx, m)
        if m.cutoffs:
            cutoffs.update(m.cutoffs)
        if m.family == "rprec":
            per_query_cutoffs.append(ctx.num_relevant(m.param("min_rel")))
        weights = _list_weights(ctx, m)
        if ranked.item_weights is not None and m.family in _UNNORMALISED_GAINS and weights is not None:
            # item weights already scale the gains; divide them out of the per-list value (keras-rs's DCG)
            block = np.divide(block, weights[:, None], out=np.zeros_like(block), where=weights[:, None] > 0)
        for single, col in zip(m.expand(), block.T, strict=True):
            name = str(single)
            if name in aggregate:
                if seen[name] != single:
                    raise MeasureSyntaxError(
                        f"two different measures are both named {name!r} (callables with the same __name__?); "
                        "give each callable a distinct name"
                    )
                continue
            seen[name] = single
            values, inc = apply_empty_policy(
                col,
                _empty_mask(ctx, single, col),
                empty,
                is_count=family.empty_exempt,
                query_ids=ranked.query_ids,
                measure_name=name,
            )
            names.append(name)
            columns.append(values)
            included.append(inc)
            aggregate[name] = aggregate_column(values, inc, weights=weights, kind=family.aggregate)
    n_q = ranked.n_queries
    straddle = straddling_queries(
        ranked.offsets, ranked.group_starts, sorted(cutoffs), per_query_cutoffs, ranked.item_positions
    )
    no_relevant = int((ctx.num_relevant(None) == 0).sum())
    meta: dict[str, Any] = {
        "rankmeter_version": __version__,
        "measures": names,
        "ties": ranked.ties,
        "empty": empty,
        "queries_evaluated": n_q,
        "queries_empty": no_relevant,
        "queries_with_ties": count_distinct_sorted(ctx.group_query[ctx.group_sizes > 1]),  # groups in query order
        "queries_with_ties_at_cutoff": int(straddle.sum()),
        "weighted": ranked.item_weights is not None or ranked.list_weights is not None,
    }
    meta.update(metadata or {})
    values = np.stack(columns, axis=1) if columns else np.zeros((n_q, 0))
    inc = np.stack(included, axis=1) if included else np.zeros((n_q, 0), dtype=bool)
    return EvaluationResult(ranked.query_ids, names, values, inc, aggregate, meta)


def evaluate(
    qrels: Any,
    run: Any,
    measures: MeasuresArg,
    *,
    ties: str = "trec",
    empty: str = "zero",
    missing: str = "zero",
    duplicates: str = "error",
    depth: int | None = None,
    judged_only: bool = False,
    seed: int | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
    threads: int | None = None,
    progress: bool | None = None,
) -> EvaluationResult:
    """Evaluate a run against qrels.

    Parameters
    ----------
    qrels : path, DataFrame/Table, dict or Qrels
        Judgments: a TREC qrels file (``.gz`` too), a pandas/polars/pyarrow
        table with columns query_id, doc_id, relevance, or
        ``{query_id: {doc_id: grade}}``.
    run : path, DataFrame/Table, dict or Run
        System output: a TREC run file, a table with query_id, doc_id, score,
        or ``{query_id: {doc_id: score}}``.
    measures : str, Measure or iterable of them
        E.g. ``["ndcg@10", "map", "p(min_rel=2)@[5,10]"]``.
    ties : str, default "trec"
        ``trec`` (score desc, then doc id desc), ``stable``, ``expected``,
        ``shuffle``, ``optimistic`` or ``pessimistic``.
    empty : str, default "zero"
        Queries with no relevant judged document: ``zero`` (trec_eval),
        ``skip``, ``nan``, ``one`` or ``error``.
    missing : str, default "zero"
        Judged queries absent from the run: ``zero`` (trec_eval ``-c``),
        ``skip`` or ``error``. Run-only queries are always left out and
        counted in ``metadata["queries_run_only"]``.
    duplicates : str, default "error"
        A repeated (query, document): ``error``, ``first`` or ``max``.
    depth : int, optional
        Evaluate only the top ``depth`` documents of each query (trec_eval ``-M``).
    judged_only : bool, default False
        Drop unjudged documents before ranking (trec_eval ``-J``).
    seed : int, optional
        Seed for ``ties="shuffle"``.
    qrels_columns, run_columns : mapping, optional
        Column renames for table input, e.g. ``{"query_id": "qid"}``.
    threads : int, optional
        Threads for runs of a million rows or more, each ranking a block of
        queries (default: one per CPU, at most 8; 1: one thread). Values do
        not depend on it.
    progress : bool, optional
        Show a progress bar on stderr while a run file is read (default: for
        files over 256 MiB when stderr is a terminal).

    Returns
    -------
    EvaluationResult

    Notes
    -----
    A run file larger than :data:`BLOCK_BYTES` is read in blocks of whole
    queries of that size, parsed on one thread while earlier blocks are
    evaluated on the others, so memory stays bounded whatever the file's size; a run whose queries'
    lines are not together is read whole instead. The values are the same
    either way.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}
    >>> res = evaluate(qrels, run, ["ndcg@2", "p@2", "map"])
    >>> round(res["ndcg@2"], 6), res["p@2"], round(res["map"], 6)
    (0.760188, 0.5, 0.833333)
    """
    check_policy(ties)
    check_empty_policy(empty)
    parsed = _parse_all(measures)
    if _run_file(run) and ties != "shuffle":  # shuffle draws its keys for the whole run at once
        from rankmeter.errors import QueryOrderError
        from rankmeter.stream import evaluate_stream

        try:
            result = evaluate_stream(
                qrels if qrels_columns is None else as_qrels(qrels, qrels_columns),
                run,
                parsed,
                ties=ties,
                empty=empty,
                missing=missing,
                duplicates=duplicates,
                depth=depth,
                judged_only=judged_only,
                seed=seed,
                block_bytes=BLOCK_BYTES,
                progress=progress,
                threads=threads,
            )
            del result.metadata["streamed"]  # the same result as reading the run whole
            return result
        except QueryOrderError:
            pass  # a query's lines are not together: read the whole run at once
    q = as_qrels(qrels, qrels_columns)
    r = as_run(run, run_columns)
    ranked, info = align(
        q,
        r,
        ties=ties,
        missing=missing,
        duplicates=duplicates,
        depth=depth,
        judged_only=judged_only,
        seed=seed,
        judged_items=_judged_items_suffice(ties, parsed),
        threads=threads,
    )
    extra = alignment_metadata(info, missing, duplicates, depth, judged_only, q.source, r.source, r.name)
    if ties == "shuffle":
        extra["seed"] = seed
    return evaluate_ranked(ranked, parsed, empty=empty, metadata=extra)


def alignment_metadata(
    info: AlignInfo,
    missing: str,
    duplicates: str,
    depth: int | None,
    judged_only: bool,
    qrels_source: str | None,
    run_source: str | None,
    run_name: str | None,
) -> dict[str, Any]:
    """The result metadata that accounts for every query and row of the alignment."""
    return {
        "missing": missing,
        "duplicates": duplicates,
        "depth": depth,
        "judged_only": judged_only,
        "queries_judged": info.judged_queries,
        "queries_in_run": info.run_queries,
        "queries_missing": len(info.missing_queries),
        "missing_query_ids": info.missing_queries,
        "queries_run_only": len(info.run_only_queries),
        "run_only_query_ids": info.run_only_queries,
        "duplicates_dropped": info.duplicates_dropped,
        "unjudged_dropped": info.unjudged_dropped,
        "qrels_source": qrels_source,
        "run_source": run_source,
        "run_name": run_name,
    }


# families whose value at a cutoff k depends only on the top k items and on the complete ideal list
_TOP_K_FAMILIES = ("ndcg", "dcg", "idcg", "cg", "p", "r", "f1", "success", "rr", "map", "ap", "wap", "acg", "judged")


def _top_k_only(measures: list[Measure], ties: str) -> int | None:
    """The largest cutoff when every measure only looks at the top k (dense fast path), else None."""
    if ties == "shuffle" or any(m.cutoffs is None or m.family not in _TOP_K_FAMILIES for m in measures):
        return None
    return max(max(m.cutoffs or (0,)) for m in measures)


# families that read the ideal (the complete list, for dense input) at most through Context.num_relevant and,
# for ndcg and idcg, through the ideal DCG: nothing else about the judged documents
_POSITIVE_IDEAL_FAMILIES = _TOP_K_FAMILIES + ("rprec", "num_q", "num_ret", "num_rel", "num_rel_ret")


def _zero_at_or_below_zero(gain: Any) -> bool:
    """Whether a gain parameter gives 0 to grades <= 0 and never a negative gain."""
    if gain in ("linear", "exp"):
        return True
    return isinstance(gain, GainTable) and all(v >= 0 and (k > 0 or v == 0) for k, v in gain.entries)


def _positive_ideal_suffices(measures: list[Measure]) -> bool:
    """Whether the ideal of dense lists may keep only the positive grades (``RankedLists.ideal_positive_only``).

    True when every measure counts relevant documents with grade > 0 or
    >= min_rel > 0, and every ideal DCG has gains that are 0 for grades <= 0
    (never negative) and a built-in discount: the dropped items then add
    nothing and come after every kept one.

    >>> _positive_ideal_suffices([parse("ndcg@10"), parse("map"), parse("p(min_rel=2)@5")])
    True
    >>> _positive_ideal_suffices([parse("r(min_rel=0)@5")]), _positive_ideal_suffices([parse("ndcg(gain={0:1})")])
    (False, False)
    """
    for m in measures:
        if m.family not in _POSITIVE_IDEAL_FAMILIES or (m.param("min_rel") is not None and m.param("min_rel") <= 0):
            return False
        if m.family in ("ndcg", "idcg") and not (
            _zero_at_or_below_zero(m.param("gain", "linear"))
            and (m.param("discount", "log2") == "log2" or isinstance(m.param("discount"), Jarvelin))
        ):
            return False
    return True


def evaluate_arrays(
    y_true: Any,
    y_score: Any,
    measures: MeasuresArg,
    *,
    mask: Any = None,
    sample_weight: Any = None,
    ties: str = "expected",
    empty: str = "zero",
    seed: int | None = None,
    progress: bool | None = None,
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
    sample_weight : scalar, shape (n_lists,) or (n_lists, list_size), optional
        keras-rs semantics: item weights scale the gains of the DCG family
        (the ideal is sorted by weighted gain) and give each list the weight
        sum(w * rel) / sum(rel) in the mean.
    ties : str, default "expected"
        scikit-learn's tie-averaged convention by default.
    empty : str, default "zero"
    seed : int, optional
        Seed for ``ties="shuffle"``.
    progress : bool, optional
        Show a progress bar on stderr (default: for 200 million items or
        more when stderr is a terminal).

    Returns
    -------
    EvaluationResult
        Query ids are the row indices as strings.

    Notes
    -----
    Without ``mask`` and ``sample_weight``, the rows are ranked and evaluated
    in blocks (``rankmeter.core.lists.EVALUATION_BLOCK_ITEMS`` items each) on
    one thread per CPU, so memory beyond the inputs stays bounded. When every
    measure has a cutoff, only the top of each row is ranked
    (``metadata["ranked_top_k"]``; tie counts then refer to that top);
    otherwise measures with cutoffs are computed on each row's top alone.

    Examples
    --------
    >>> res = evaluate_arrays([[10, 0, 0, 1, 5]], [[.1, .2, .3, 4, 70]], ["ndcg", "dcg"])
    >>> round(res["ndcg"], 6), round(res["dcg"], 6)
    (0.695694, 9.499458)
    """
    check_policy(ties)
    check_empty_policy(empty)
    parsed = _parse_all(measures)
    extra: dict[str, Any] = {"input": "dense"}
    if mask is not None or sample_weight is not None:
        ranked = rank_flat_lists(flatten_dense(y_true, y_score, mask, sample_weight), ties=ties, seed=seed)
        return evaluate_ranked(ranked, parsed, empty=empty, metadata=extra)
    y, s = dense_arrays(y_true, y_score, check_finite=False)  # checked block by block below
    n, m = y.shape
    top = _top_k_only(parsed, ties)
    if top is not None and top < m:
        extra["ranked_top_k"] = top  # only the top of each row was ranked; tie counts refer to it
    else:
        top = None
    compact = _positive_ideal_suffices(parsed)
    widest = max((k for mm in parsed for k in mm.cutoffs or ()), default=0)
    # with complete rows, measures that read only the top k of each list are computed on that top alone
    head = [mm for mm in parsed if mm.cutoffs and mm.family in _TOP_K_FAMILIES]
    head_k = max((max(mm.cutoffs or (0,)) for mm in head), default=0)
    split = bool(head) and len(head) < len(parsed) and 2 * head_k <= m
    # blocks of rows are ranked and evaluated on their own (one block when empty="error" reports all queries)
    blocks = row_blocks(n, m, max(1, lists.EVALUATION_BLOCK_ITEMS // max(m, 1))) if empty != "error" else []
    threads = 1 if len(blocks) > 1 else None

    def evaluate_rows(rows: tuple[int, int]) -> EvaluationResult:
        a, b = rows
        if top is not None:
            ranked = rank_dense_top(
                y[a:b], s[a:b], top, ties=ties, compact_ideal=compact, first_row=a, check_finite=True, threads=threads
            )
            return evaluate_ranked(ranked, parsed, empty=empty)
        ranked = rank_dense(
            y[a:b],
            s[a:b],
            ties=ties,
            seed=seed,
            compact_ideal=compact,
            min_ideal_width=widest + 1,
            first_row=a,
            check_finite=True,
            threads=threads,
        )
        return (
            _evaluate_with_prefix(ranked, parsed, head, head_k, empty=empty)
            if split
            else evaluate_ranked(ranked, parsed, empty=empty)
        )

    blocks = blocks if len(blocks) > 1 else [(0, n)]
    parts: list[EvaluationResult] = []
    try:
        with progress_bar(n, "rankmeter evaluate_arrays", show=wanted(progress, n * m >= _AUTO_PROGRESS_ITEMS),
                          unit="lists") as done:  # fmt: skip
            for part in map_blocks(evaluate_rows, blocks) if len(blocks) > 1 else map(evaluate_rows, blocks):
                parts.append(part)
                done(int(blocks[len(parts) - 1][1]))
    except NonFiniteInput:
        dense_arrays(y, s)  # raises, naming the first value that is not finite
        raise
    return _stack_rows(parts, parsed, extra)


def _stack_rows(parts: list[EvaluationResult], measures: list[Measure], metadata: dict[str, Any]) -> EvaluationResult:
    """One result from the results of consecutive blocks of queries (aggregates over all of them)."""
    if len(parts) == 1:
        parts[0].metadata.update(metadata)
        return parts[0]
    names = parts[0].measure_names
    values = np.concatenate([p.values for p in parts])
    included = np.concatenate([p.included for p in parts])
    family = {str(single): single.family for m in measures for single in m.expand()}
    aggregate = {
        name: aggregate_column(values[:, i], included[:, i], kind=FAMILIES[family[name]].aggregate)
        for i, name in enumerate(names)
    }
    meta = dict(parts[0].metadata)
    for key in ("queries_evaluated", "queries_empty", "queries_with_ties", "queries_with_ties_at_cutoff"):
        meta[key] = int(sum(p.metadata[key] for p in parts))
    meta.update(metadata)
    return EvaluationResult(np.concatenate([p.query_ids for p in parts]), names, values, included, aggregate, meta)


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
    per_query = [Context(ranked).num_relevant(m.param("min_rel")) for m in rest if m.family == "rprec"]
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
    )


def evaluate_lists(
    y_true: Sequence[Any],
    y_score: Sequence[Any],
    measures: MeasuresArg,
    *,
    ties: str = "expected",
    empty: str = "zero",
    seed: int | None = None,
) -> EvaluationResult:
    """Evaluate ragged lists: ``y_true[i]`` and ``y_score[i]`` are the grades and scores of list i.

    >>> res = evaluate_lists([[1, 0], [0, 0, 1]], [[0.9, 0.1], [0.5, 0.4, 0.3]], "rr")
    >>> round(res["rr"], 6)
    0.666667
    """
    check_policy(ties)
    check_empty_policy(empty)
    parsed = _parse_all(measures)
    ranked = rank_flat_lists(flatten_ragged(y_true, y_score), ties=ties, seed=seed)
    return evaluate_ranked(ranked, parsed, empty=empty, metadata={"input": "ragged"})
