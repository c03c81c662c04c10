"""Evaluation of qrels + run rows split by query over the partitions of a cluster (Spark, Dask).

A distributed engine moves every row of a query -- judgments and ranked
documents alike -- to one partition, calls :func:`evaluate_partition` there
on a table of :data:`COLUMNS`, and hands the small :class:`Partial` results
back to the driver, where :func:`combine` builds the one
:class:`~rankmeter.results.EvaluationResult`. A partition holds whole
queries, and a query's values never depend on the other queries (ties
included: a seeded shuffle keys each document by the seed and its ids), so
the per-query values are those of :func:`rankmeter.evaluate` on all the rows,
whatever the number of partitions or the order of the rows; the aggregates are
computed once, on the driver, from every per-query value.

Nothing here knows which engine moves the rows.
"""

from __future__ import annotations

import dataclasses
import pickle
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankmeter.aggregate import GMEAN_FLOOR
from rankmeter.beyond import ListsPartial, as_items, check_distributed, combine_lists, lists_partial, reads_lists
from rankmeter.core.candidates import COUNTS, CandidateChoice, record
from rankmeter.core.join import AlignInfo, align, merge_infos, missing_queries_error
from rankmeter.core.options import DistributedKeywords, EvaluationOptions, option_names, split_keywords
from rankmeter.core.semantics import Semantics
from rankmeter.errors import RankmeterError
from rankmeter.io.frames import qrels_from_frame, run_from_frame
from rankmeter.io.items import Items
from rankmeter.io.recsys import check_ranks
from rankmeter.io.tables import Qrels, Run
from rankmeter.io.trec import parse_qrels_bytes, parse_run_bytes
from rankmeter.measures import Measure
from rankmeter.pipeline import alignment_metadata, concatenate_results, evaluate_ranked, judged_items_suffice
from rankmeter.results import EvaluationResult
from rankmeter.segments import SegmentMap

QRELS, RUN, EXCLUDE, CANDIDATE = 0, 1, 2, 3
"""Values of the ``role`` column: a judgment, a ranked document, an excluded (user, item) pair, a candidate pair."""
COLUMNS = ("role", "query_id", "doc_id", "value", "text", "line")
"""The columns a partition receives: ``role`` (int8), ``query_id`` (string), ``doc_id`` (string, tables),
``value`` (float64: the grade or the score, tables), ``text`` (string: the whole line, TREC files) and
``line`` (int64: the 1-based line or row number in the source, for order and for messages)."""


@dataclass(frozen=True)
class EngineResult:
    """What a distributed evaluation returns: per-query values in the engine's own table, and the local result.

    Attributes
    ----------
    per_query : Any
        Columns ``query_id``, ``measure``, ``value`` in the engine's table type (one row per evaluated
        query and measure; rows left out by ``empty="skip"`` are absent).
    result : EvaluationResult
        The same values on the driver, with the aggregates and the metadata of
        :func:`rankmeter.evaluate`; ``result["ndcg@10"]`` is the mean.
    """

    per_query: Any
    result: EvaluationResult

    @property
    def aggregate(self) -> dict[str, float]:
        """The aggregate of each measure (means over per-query values; sums for counts)."""
        return self.result.aggregate

    @property
    def metadata(self) -> dict[str, Any]:
        """As :attr:`EvaluationResult.metadata`, with ``engine`` and ``partitions``."""
        return self.result.metadata

    def __getitem__(self, name: str) -> float:
        return self.result[name]

    def by_group(self, measure: str) -> dict[Any, float]:
        """``{segment: value}`` of one measure, as :meth:`EvaluationResult.by_group` (with ``group_by=``)."""
        return self.result.by_group(measure)


@dataclass(frozen=True)
class Sources:
    """Where the qrels and the run came from: names for messages, and whether rows are TREC lines to parse."""

    qrels: str
    run: str
    qrels_text: bool = False
    run_text: bool = False
    qrels_columns: dict[str, str] | None = None
    run_columns: dict[str, str] | None = None
    candidates: str | None = None
    """The candidate set (:attr:`rankmeter.core.candidates.CandidateChoice.name`), None: every item competes."""


@dataclass
class Partial:
    """What one partition sends back to the driver: per-query values, the alignment's counts, or an error."""

    result: EvaluationResult | None = None
    info: AlignInfo = field(default_factory=AlignInfo)
    run_name: tuple[int, str] | None = None  # (line, tag) of the partition's first run line
    error: RankmeterError | None = None
    error_at: tuple[str, int] = ("", 0)  # (source, line) of the partition's first row, to report errors in file order
    candidates: dict[str, int] = field(default_factory=dict)  # what the candidate set removed here
    lists: ListsPartial | None = None  # the beyond-accuracy measures of the partition's users (items=)


@dataclass(frozen=True)
class ListsJob:
    """The beyond-accuracy part of a distributed call: ``items=`` and, with ``group_by=``, each user's segment."""

    items: Items
    segments: dict[str, Any] | None = None


def lists_job(measures: list[Measure], sem: Semantics, items: Any, segments: SegmentMap | None) -> ListsJob | None:
    """The :class:`ListsJob` of a call (None without list-reading measures or ``items=``); refusals on the driver."""
    if items is None and not reads_lists(measures):
        return None
    check_distributed(measures, sem)
    return ListsJob(as_items(items), None if segments is None else segments.of)


def distributed_semantics(sem: Semantics) -> Semantics:
    """The semantics every partition uses: a seed drawn once on the driver when a shuffle has none.

    >>> distributed_semantics(Semantics(ties="shuffle")).seed is not None
    True
    >>> distributed_semantics(Semantics(ties="trec", seed=None)).seed is None
    True
    """
    if sem.tie_policy == "shuffle" and sem.seed is None:
        return sem.replace(seed=int(np.random.default_rng().integers(2**63)))
    return sem


def driver_options(
    entry: str, semantics: Semantics | None, options: EvaluationOptions | None, keywords: Mapping[str, Any]
) -> tuple[EvaluationOptions, Semantics]:
    """The options and the semantics of a Spark or Dask call, decided once on the driver.

    >>> opts, sem = driver_options("rankmeter.dask.evaluate", None, None, {"ties": "shuffle", "group_by": "s"})
    >>> opts.group_by, sem.seed is not None
    ('s', True)
    """
    opts, semantic_keywords = split_keywords(entry, options, keywords, option_names(DistributedKeywords))
    return opts, distributed_semantics(Semantics.build(semantics, "qrels", **semantic_keywords))


def evaluate_partition(
    table: Any, measures: list[Measure], sem: Semantics, sources: Sources, lists: ListsJob | None = None
) -> bytes:
    """Evaluate the whole queries of one partition; returns a pickled :class:`Partial` for the driver.

    Parameters
    ----------
    table : pyarrow.Table
        The partition's rows, with the columns of :data:`COLUMNS`, in any order.
    measures : list of Measure
    sem : Semantics
        The call's semantics (from :func:`distributed_semantics`).
    sources : Sources
    lists : ListsJob, optional
        For the list-reading measures of ``measures`` (``items=``): their per-user values and the
        list-set states (:func:`rankmeter.beyond.lists_partial`).

    Returns
    -------
    bytes
        A pickled :class:`Partial`; a :class:`~rankmeter.errors.RankmeterError`
        (a malformed line, a duplicate, a bad score) travels inside it, so the
        driver raises it as it was raised here, with its file:line, query and
        document.
    """
    partial = Partial()
    try:
        qrels, run, pairs = _tables(table, sources)
        if sources.candidates is not None:
            choice = CandidateChoice(
                exclude=pairs[EXCLUDE] if "exclude" in sources.candidates else None,
                given=pairs[CANDIDATE] if "given" in sources.candidates else None,
            )
            qrels, run, partial.candidates = choice.apply(qrels, run)
        if len(qrels):
            partial.error_at = (sources.qrels, int(qrels.lines[0]) if qrels.lines is not None else 0)
        if len(run):
            partial.error_at = (sources.run, int(run.lines[0]) if run.lines is not None else 0)
            if run.name is not None:
                partial.run_name = (int(run.lines[0]) if run.lines is not None else 0, run.name)
        local = sem.replace(missing="skip") if sem.missing == "error" else sem  # reported on the driver
        listed = reads_lists(measures)
        ranked_measures = [m for m in measures if m not in listed]
        ranked, partial.info = align(qrels, run, local, judged_items=judged_items_suffice(sem.tie_policy, measures))
        if ranked.n_queries and ranked_measures:
            partial.result = evaluate_ranked(ranked, ranked_measures, empty=sem.empty)
        if listed:
            job = lists or ListsJob(Items())
            partial.lists = lists_partial(qrels, run, listed, job.items, sem, job.segments)
    except RankmeterError as exc:
        partial.error = exc
    return pickle.dumps(partial, protocol=pickle.HIGHEST_PROTOCOL)


def _tables(table: Any, sources: Sources) -> tuple[Qrels, Run, dict[int, Qrels]]:
    """The partition's :class:`Qrels`, :class:`Run` and (user, item) pairs of each pair role, rows in source order."""
    import pyarrow as pa

    role = table.column("role").to_numpy()
    line = table.column("line").to_numpy()
    order = np.lexsort((line, role))  # qrels first, then the run, then the pairs, each in source order
    table = table.take(pa.array(order))
    bounds = np.searchsorted(role[order], [RUN, EXCLUDE, CANDIDATE, CANDIDATE + 1])
    q, r = table.slice(0, int(bounds[0])), table.slice(int(bounds[0]), int(bounds[1] - bounds[0]))
    pairs = {
        kind: _pairs(table.slice(int(lo), int(hi - lo)))
        for kind, lo, hi in ((EXCLUDE, bounds[1], bounds[2]), (CANDIDATE, bounds[2], bounds[3]))
    }
    if sources.qrels_text:
        qrels = _parsed(q, sources.qrels, parse_qrels_bytes)
    else:
        qrels = qrels_from_frame(q.select(["query_id", "doc_id", "value"]), _ROLES["qrels"], source=sources.qrels)
        qrels = dataclasses.replace(qrels, lines=q.column("line").to_numpy(), columns=sources.qrels_columns)
    if sources.run_text:
        run = _parsed(r, sources.run, parse_run_bytes)
    else:
        run = run_from_frame(r.select(["query_id", "doc_id", "value"]), _ROLES["run"], source=sources.run)
        run = dataclasses.replace(run, lines=r.column("line").to_numpy(), columns=sources.run_columns)
        if "rank" in (sources.run_columns or {}):  # a ranked list (scores -rank): a user's ranks are all here
            check_ranks(run, -run.scores, (sources.run_columns or {})["rank"])
    return qrels, run, pairs


def _pairs(rows: Any) -> Qrels:
    """(user, item) pairs of ``exclude=`` or ``candidates=`` rows."""
    return Qrels(rows.column("query_id"), rows.column("doc_id"), np.ones(rows.num_rows))


_ROLES = {
    "qrels": {"query_id": "query_id", "doc_id": "doc_id", "relevance": "value"},
    "run": {"query_id": "query_id", "doc_id": "doc_id", "score": "value"},
}


def _parsed(rows: Any, source: str, parse: Any) -> Any:
    """TREC lines (not necessarily consecutive in the file) parsed by rankmeter's reader, with their own numbers."""
    lines = rows.column("line").to_numpy()
    data = "\n".join(rows.column("text").to_pylist()).encode("utf-8", "surrogateescape")
    try:
        parsed = parse(data, source) if len(lines) else None
    except RankmeterError as exc:
        raise type(exc)(relocate(str(exc), source, lines)) from None
    if parsed is None:
        return (
            Run.empty(source)
            if parse is parse_run_bytes
            else Qrels(np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0), source=source)
        )
    at = np.arange(len(lines)) if parsed.lines is None else parsed.lines - 1
    return dataclasses.replace(parsed, lines=lines[at])


def _no_qrels(source: str) -> Qrels:
    return Qrels(np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0), source=source)


def relocate(message: str, source: str, lines: np.ndarray) -> str:
    """A parser's message about the k-th of the given lines, with ``source:k:`` turned into the line's own number.

    >>> relocate("run.txt:2: expected 6 columns", "run.txt", np.array([10, 42]))
    'run.txt:42: expected 6 columns'
    """
    pattern = re.compile(rf"^{re.escape(source)}:(\d+):")
    return pattern.sub(lambda m: f"{source}:{int(lines[int(m.group(1)) - 1])}:", message, count=1)


def combine(
    payloads: list[bytes], measures: list[Measure], sem: Semantics, sources: Sources, lists: ListsJob | None = None
) -> EvaluationResult:
    """The result of every partition's :class:`Partial`: per-query values stacked, aggregates computed once.

    The list-reading measures (``lists``): per-user values stacked, list-set values from the partitions'
    merged states (:func:`rankmeter.beyond.combine_lists`).

    Raises the partitions' first error in (source, line) order, or, under
    ``missing="error"``, the error naming every judged query absent from the run.
    """
    partials = [pickle.loads(p) for p in payloads]  # noqa: S301 - written by evaluate_partition on this cluster
    errors = sorted((p for p in partials if p.error is not None), key=lambda p: p.error_at)
    if errors:
        raise errors[0].error  # type: ignore[misc]
    info = merge_infos([p.info for p in partials])
    info.missing_queries.sort()
    info.run_only_queries.sort()
    if sem.missing == "error" and info.missing_queries:
        raise missing_queries_error(info.missing_queries, sources.run)
    names = sorted(p.run_name for p in partials if p.run_name is not None)
    counts = {key: sum(p.candidates.get(key, 0) for p in partials) for key in COUNTS}
    extra = alignment_metadata(
        info,
        sem,
        sources.qrels,
        sources.run,
        names[0][1] if names else None,
        qrels_columns=sources.qrels_columns,
        run_columns=sources.run_columns,
    )
    if sources.candidates is not None:
        record(extra, sources.candidates, counts)
    listed = reads_lists(measures)
    ranked = [m for m in measures if m not in listed]
    parts = [p.result for p in partials if p.result is not None]
    if not ranked:  # list-reading measures only
        empty = np.zeros((0, 0))
        result = EvaluationResult(np.zeros(0, dtype=str), [], empty, empty.astype(bool), {}, extra)
    else:
        if not parts:  # nothing to evaluate: the empty result still carries every metadata field
            nothing = align(_no_qrels(sources.qrels), Run.empty(sources.run), sem)[0]
            parts = [evaluate_ranked(nothing, ranked, empty=sem.empty)]
        result = concatenate_results(parts, ranked, extra, sort_by_query=True)
    if not listed:
        if lists is not None:  # items= with accuracy measures only, recorded as evaluate records it
            result.metadata.update(items=lists.items.describe(), list_set_measures=[])
        return result
    found = [p.lists for p in partials if p.lists is not None]
    return combine_lists(result, found, listed, (lists or ListsJob(Items())).items)


def partial_sum(
    values: np.ndarray, included: np.ndarray, kind: str, weights: np.ndarray | None = None
) -> tuple[float, float]:
    """One partition's share of a measure's aggregate: the sum of its terms and how many there are.

    ``kind`` is the family's aggregation (:func:`rankmeter.aggregate.aggregate_column`):
    the terms are the included, non-NaN values, or their logarithms (floored
    at ``GMEAN_FLOOR``) for ``"gmean"``. :func:`aggregate_of_sums` turns the
    partitions' shares into the aggregate, so that it is a sum of per-query
    terms, never a mean of partition means.

    >>> partial_sum(np.array([0.5, np.nan, 0.25]), np.array([True, True, True]), "mean")
    (0.75, 2)
    >>> partial_sum(np.array([1.0, 0.25]), np.array([True, True]), "pooled", np.array([1.0, 4.0]))
    (2.0, 5.0)
    """
    keep = included & ~np.isnan(values)
    if kind == "pooled" and weights is not None:  # the pooled ratio's numerator and denominator
        return float((values[keep] * weights[keep]).sum()), float(weights[keep].sum())
    terms = np.log(np.maximum(values[keep], GMEAN_FLOOR)) if kind == "gmean" else values[keep]
    return float(terms.sum()), int(keep.sum())


def aggregate_of_sums(sums: list[tuple[float, float]], kind: str) -> float:
    """The aggregate from every partition's :func:`partial_sum`: the sum, the mean, or the geometric mean.

    >>> aggregate_of_sums([(0.75, 2), (0.25, 2)], "mean"), aggregate_of_sums([(0.75, 2), (0.25, 2)], "sum")
    (0.25, 1.0)
    >>> aggregate_of_sums([], "mean")
    nan
    """
    total = float(sum(s for s, _ in sums))
    count = sum(c for _, c in sums)
    if kind == "sum":
        return total
    if not count:
        return float("nan")
    return float(np.exp(total / count)) if kind == "gmean" else total / count


def tidy_table(result: EvaluationResult) -> Any:
    """The per-query values as a pyarrow Table (query_id, measure, value), the rows ``result.per_query`` lists.

    >>> from rankmeter import evaluate
    >>> tidy_table(evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["rr", "p@1"])).to_pylist()[1]
    {'query_id': 'q', 'measure': 'p@1', 'value': 1.0}
    """
    import pyarrow as pa

    names = np.array(result.measure_names, dtype=object)
    rows, cols = np.nonzero(result.included)  # row-major: each query's measures in order
    integer = result.query_ids.dtype.kind in "iu"  # integer ids stay integers (results.with_integer_ids)
    return pa.table(
        {
            "query_id": pa.array(result.query_ids[rows], pa.int64())
            if integer
            else pa.array(np.asarray(result.query_ids, dtype=object)[rows], pa.string()),
            "measure": pa.array(names[cols], pa.string()),
            "value": pa.array(result.values[rows, cols], pa.float64()),
        }
    )
