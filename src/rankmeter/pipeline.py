"""The stage every entry point ends in: measures computed over :class:`RankedLists` into an :class:`EvaluationResult`.

Readers and aligners (qrels + run, dense rows, ragged lists, vectors, run
files in blocks, the trec_eval drop-in) each build :class:`RankedLists`;
:func:`evaluate_ranked` runs the kernels of every requested measure over
them, applies the empty-query policy and aggregates. Nothing here reads
input or knows which world it came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from rankmeter._version import __version__
from rankmeter.aggregate import (
    aggregate_column,
    apply_empty_policy,
    check_empty_policy,
    keras_list_weights,
    note_undefined,
)
from rankmeter.core.arrays import count_distinct_sorted
from rankmeter.core.join import AlignInfo
from rankmeter.core.layout import RankedLists
from rankmeter.core.semantics import Semantics
from rankmeter.core.ties import straddling_queries
from rankmeter.errors import MeasureSyntaxError, PolicyError
from rankmeter.measures import Measure, family_row, parse, traits_of
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_sum
from rankmeter.measures.params import GainTable, Jarvelin, gain_values
from rankmeter.measures.traits import refuse_expected_ties
from rankmeter.results import EvaluationResult

MeasuresArg = str | Measure | Iterable[str | Measure]
"""One measure or several: names (``"ndcg@10"``) or :class:`Measure` values."""


def parse_measures(measures: MeasuresArg) -> list[Measure]:
    """The measures of one call, parsed; at least one.

    >>> [str(m) for m in parse_measures(["ndcg@10", "P@5"])]
    ['ndcg@10', 'p@5']
    """
    items = [measures] if isinstance(measures, str | Measure) else list(measures)
    if not items:
        raise MeasureSyntaxError("no measures given; e.g. measures=['ndcg@10', 'map']")
    return [parse(m) for m in items]


def _empty_mask(ctx: Context, m: Measure) -> np.ndarray:
    """Queries with no relevant document for measure ``m`` (the ``empty=`` policy's queries)."""
    if m.param("ideal", "judged") == "retrieved" and not ctx.ranked.ideal_is_list:  # ndcg, idcg, nerr
        count = segment_sum(ctx.relevant(None), ctx.ranked.offsets)
    else:
        count = ctx.num_relevant(m.param("min_rel"))
    return np.asarray(count == 0)


def _list_weights(ctx: Context, m: Measure) -> np.ndarray | None:
    ranked = ctx.ranked
    if ranked.item_weights is None:
        return ranked.list_weights
    if traits_of(m).graded:
        relevance = np.where(ranked.judged, gain_values(m.param("gain", "linear"), ranked.grades), 0.0)
    else:
        relevance = ctx.relevant(m.param("min_rel"))
    return keras_list_weights(ranked.item_weights, relevance, ranked.offsets)


def _zero_at_or_below_zero(gain: Any) -> bool:
    """Whether a gain parameter gives 0 to grades <= 0 and never a negative gain."""
    if gain in ("linear", "exp"):
        return True
    return isinstance(gain, GainTable) and all(v >= 0 and (k > 0 or v == 0) for k, v in gain.entries)


def positive_ideal_suffices(measures: list[Measure]) -> bool:
    """Whether the ideal of dense lists may keep only the positive grades (``RankedLists.ideal_positive_only``).

    True when every measure counts relevant documents with grade > 0 or
    >= min_rel > 0, and every ideal DCG has gains that are 0 for grades <= 0
    (never negative) and a built-in discount: the dropped items then add
    nothing and come after every kept one.

    >>> positive_ideal_suffices([parse("ndcg@10"), parse("map"), parse("p(min_rel=2)@5")])
    True
    >>> positive_ideal_suffices([parse("r(min_rel=0)@5")]), positive_ideal_suffices([parse("ndcg(gain={0:1})")])
    (False, False)
    """
    for m in measures:
        traits = traits_of(m)
        if not traits.positive_ideal or (m.param("min_rel") is not None and m.param("min_rel") <= 0):
            return False
        if traits.ideal_dcg and not (
            _zero_at_or_below_zero(m.param("gain", "linear"))
            and (m.param("discount", "log2") == "log2" or isinstance(m.param("discount"), Jarvelin))
        ):
            return False
    return True


def positive_items_suffice(measures: list[Measure]) -> bool:
    """Whether every measure has the same value on dense lists that store only their items with grade > 0.

    Such lists (``rankmeter.core.lists.positive_items``; under ``expected``
    ties with every tied group kept whole) serve when the ideal may be
    positive-only (:func:`positive_ideal_suffices`), no measure counts judged
    items, and every gain is 0 for grades <= 0: the items left out add nothing.

    >>> positive_items_suffice([parse("ndcg"), parse("map"), parse("rr"), parse("r@100")])
    True
    >>> positive_items_suffice([parse("judged@5")]), positive_items_suffice([parse("dcg(gain={1:-1})")])
    (False, False)
    """
    return positive_ideal_suffices(measures) and all(
        not traits_of(m).counts_judged
        and (not traits_of(m).graded or _zero_at_or_below_zero(m.param("gain", "linear")))
        for m in measures
    )


def judged_items_suffice(ties: str, measures: list[Measure]) -> bool:
    """Whether every measure has the same value on sparse lists (:meth:`RankedLists.judged_items`).

    Needs a deterministic order (``expected`` averages over tied unjudged
    items), built-in discounts (a user discount could be infinite where an
    unjudged gain is 0) and the ideal from the judgments rather than from
    the retrieved items. Applies to lists aligned from qrels, not to dense
    rows (fully judged) or weighted items.

    >>> judged_items_suffice("trec", [parse("ndcg@10"), parse("map")])
    True
    >>> judged_items_suffice("expected", [parse("ndcg@10")]), judged_items_suffice("trec", [parse("bpref")])
    (False, False)
    """
    if ties == "expected":
        return False
    for m in measures:
        if not traits_of(m).judged_items or m.param("ideal", "judged") == "retrieved":
            return False
        if not isinstance(m.param("discount", "log2"), str | Jarvelin):
            return False
    return True


DEFAULT_MAX_RESULT_BYTES = 4 << 30
_BYTES_PER_VALUE = 18  # a float64 value and its inclusion flag, each held twice while the result table is assembled


def max_result_bytes() -> int:
    """The most memory the values of one evaluation may take: ``RANKMETER_MAX_RESULT_BYTES``, default 4 GiB.

    >>> max_result_bytes()
    4294967296
    """
    from rankmeter.io.validate import env_int

    return env_int("RANKMETER_MAX_RESULT_BYTES", DEFAULT_MAX_RESULT_BYTES)


def check_result_size(measures: list[Measure], n_queries: int) -> None:
    """Raise :class:`~rankmeter.errors.PolicyError` before evaluating when the values would not fit the limit.

    Each query gets one value per measure and cutoff: ``ndcg@[1..20000]`` over 10^6 queries is 2 x 10^10
    values, about 335 GiB with their flags, which is refused at once instead of failing (or swapping)
    part-way. The estimate is :data:`_BYTES_PER_VALUE` bytes per value.

    >>> check_result_size([parse("ndcg@[1,2,3]")], 10**9)
    Traceback (most recent call last):
    ...
    rankmeter.errors.PolicyError: measures give 3 values per query (ndcg@[1,2,3]: 3), for 1000000000 queries: ...
    """
    per_query = sum(len(m.expand()) for m in measures)
    need = per_query * n_queries * _BYTES_PER_VALUE
    limit = max_result_bytes()
    if need <= limit:
        return
    widest = max(measures, key=lambda m: len(m.expand()))
    shown = str(widest) if len(str(widest)) <= 60 else f"{str(widest)[:57]}..."
    raise PolicyError(
        f"measures give {per_query} values per query ({shown}: {len(widest.expand())}), for {n_queries} queries: "
        f"about {_size(need)}, over the limit of {_size(limit)} (RANKMETER_MAX_RESULT_BYTES); "
        "ask for fewer cutoffs, or evaluate the queries in parts"
    )


def _size(n: int) -> str:
    """Bytes in GiB (one decimal) from 1 GiB on, else in MiB: ``_size(3 << 29)`` is ``'1.5 GiB'``."""
    return f"{n / 2**30:.1f} GiB" if n >= 1 << 30 else f"{n / 2**20:.1f} MiB"


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
    parsed = parse_measures(measures)
    refuse_expected_ties(ranked.ties, parsed)
    aligned = not (ranked.ideal_is_list or ranked.item_weights is not None or ranked.is_sparse)
    if aligned and judged_items_suffice(ranked.ties, parsed):  # whatever the data: a value never depends on its batch
        ranked = ranked.judged_items()
    check_result_size(parsed, ranked.n_queries)
    ctx = Context(ranked)
    names: list[str] = []
    columns: list[np.ndarray] = []
    included: list[np.ndarray] = []
    aggregate: dict[str, float] = {}
    seen: dict[str, Measure] = {}
    undefined: dict[str, int] = {}
    pooled: dict[str, np.ndarray] = {}
    cutoffs: set[int] = set()
    per_query_cutoffs: list[np.ndarray] = []
    for m in parsed:
        family = family_row(m.family)
        if family.reads == "lists":  # top-k lists and side information, not grades (rankmeter.beyond)
            raise PolicyError(
                f"{m}: a beyond-accuracy measure reads each user's top-k list and items=; "
                "evaluate it with rankmeter.evaluate(qrels, run, ..., items=rankmeter.Items(...))"
            )
        block = family.kernel(ctx, m)
        if m.cutoffs:
            cutoffs.update(m.cutoffs)
        if family.traits.cut_at_relevant:
            per_query_cutoffs.append(ctx.num_relevant(m.param("min_rel")))
        weights = _list_weights(ctx, m)
        if ranked.item_weights is not None and family.traits.gain_sum and weights is not None:
            # item weights already scale the gains; divide them out of the per-list value (keras-rs's DCG)
            block = np.divide(block, weights[:, None], out=np.zeros_like(block), where=weights[:, None] > 0)
        pools = family.pool(ctx, m).T if family.pool is not None else [weights] * block.shape[1]
        for single, col, col_weights in zip(m.expand(), block.T, pools, strict=True):
            name = str(single)
            if name in aggregate:
                if seen[name] != single:
                    raise MeasureSyntaxError(
                        f"two different measures are both named {name!r} (callables with the same __name__?); "
                        "give each callable a distinct name"
                    )
                continue
            seen[name] = single
            empty_queries = _empty_mask(ctx, single)
            note_undefined(undefined, name, col, empty_queries)
            values, inc = apply_empty_policy(
                col,
                empty_queries,
                empty,
                is_count=family.empty_exempt,
                query_ids=ranked.query_ids,
                measure_name=name,
            )
            names.append(name)
            columns.append(values)
            included.append(inc)
            if family.pool is not None:
                pooled[name] = col_weights
            aggregate[name] = aggregate_column(values, inc, weights=col_weights, kind=family.aggregate)
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
        "queries_undefined": undefined,
        "weighted": ranked.item_weights is not None or ranked.list_weights is not None,
    }
    meta.update(metadata or {})
    values = np.stack(columns, axis=1) if columns else np.zeros((n_q, 0))
    inc = np.stack(included, axis=1) if included else np.zeros((n_q, 0), dtype=bool)
    return EvaluationResult(ranked.query_ids, names, values, inc, aggregate, meta, pool_weights=pooled)


def alignment_metadata(
    info: AlignInfo,
    semantics: Semantics,
    qrels_source: str | None,
    run_source: str | None,
    run_name: str | None,
    *,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The result metadata that accounts for every query and row of the alignment, and the semantics used.

    ``qrels_columns`` / ``run_columns``: the column of each role when the
    input was a table (``metadata["qrels_columns"]``, ``["run_columns"]``).
    """
    meta: dict[str, Any] = {
        "semantics": semantics.as_dict(),
        "missing": semantics.missing,
        "duplicates": semantics.duplicates,
        "depth": semantics.depth,
        "judged_only": semantics.judged_only,
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
    if semantics.ties == "shuffle":
        meta["seed"] = semantics.seed
    if qrels_columns is not None:
        meta["qrels_columns"] = dict(qrels_columns)
    if run_columns is not None:
        meta["run_columns"] = dict(run_columns)
    return meta


def concatenate_results(
    parts: list[EvaluationResult],
    measures: list[Measure],
    metadata: Mapping[str, Any],
    *,
    sort_by_query: bool = False,
) -> EvaluationResult:
    """One result from the results of disjoint blocks of queries, with aggregates over all of them.

    Per-query values never depend on other queries, so the values of the
    blocks, stacked, are those of one call on all queries; the means are
    computed again from them (never averaged from block means) and the
    query counts of the metadata are added up.

    Parameters
    ----------
    parts : list of EvaluationResult
        At least one, each from :func:`evaluate_ranked` with ``measures``.
    measures : list of Measure
    metadata : mapping
        Merged into the result's metadata last.
    sort_by_query : bool, default False
        Order the queries by id (blocks of a run file); otherwise keep the
        blocks' order (consecutive rows of dense input).

    Examples
    --------
    >>> from rankmeter.core.lists import rank_flat_lists
    >>> from rankmeter.io.dense import flatten_ragged
    >>> m = parse_measures("rr")
    >>> a = evaluate_ranked(rank_flat_lists(flatten_ragged([[0, 1]], [[0.9, 0.1]]), ties="stable"), m)
    >>> b = evaluate_ranked(rank_flat_lists(flatten_ragged([[1, 0]], [[0.9, 0.1]]), ties="stable"), m)
    >>> res = concatenate_results([a, b], m, {})
    >>> res.values.ravel().tolist(), res["rr"], res.metadata["queries_evaluated"]
    ([0.5, 1.0], 0.75, 2)
    """
    if len(parts) == 1:
        parts[0].metadata.update(metadata)
        return parts[0]
    names = parts[0].measure_names
    qids = np.concatenate([p.query_ids for p in parts])
    values = np.concatenate([p.values for p in parts])
    included = np.concatenate([p.included for p in parts])
    pooled = {name: np.concatenate([p.pool_weights[name] for p in parts]) for name in parts[0].pool_weights}
    if sort_by_query:
        order = np.argsort(qids, kind="stable")
        qids, values, included = qids[order], values[order], included[order]
        pooled = {name: w[order] for name, w in pooled.items()}
    family = {str(single): single.family for m in measures for single in m.expand()}
    aggregate = {
        name: aggregate_column(
            values[:, i], included[:, i], weights=pooled.get(name), kind=family_row(family[name]).aggregate
        )
        for i, name in enumerate(names)
    }
    meta = dict(parts[0].metadata)
    for key in ("queries_evaluated", "queries_empty", "queries_with_ties", "queries_with_ties_at_cutoff"):
        meta[key] = int(sum(p.metadata[key] for p in parts))
    meta["queries_undefined"] = {
        name: n for name in names if (n := sum(p.metadata["queries_undefined"].get(name, 0) for p in parts))
    }
    meta.update(metadata)
    return EvaluationResult(qids, names, values, included, aggregate, meta, pool_weights=pooled)
