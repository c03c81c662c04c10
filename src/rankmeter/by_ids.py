"""The judged-ids entry point :func:`evaluate`: runs matched to qrels by query and document ids.

It builds its :class:`~rankmeter.Semantics` from ``semantics=`` and keyword
arguments, reads one run or several (``{name: run}``, on worker processes),
joins each with the qrels into :class:`~rankmeter.core.layout.RankedLists`
(:mod:`rankmeter.core.join`) and hands them to
:func:`rankmeter.pipeline.evaluate_ranked`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, overload

from rankmeter.core.join import align, prepare_qrels
from rankmeter.core.options import OPTION_FIELDS, EvaluationKeywords, EvaluationOptions, split_keywords
from rankmeter.core.processes import forks, map_processes
from rankmeter.core.semantics import Semantics
from rankmeter.errors import InputFormatError, MeasureSyntaxError, PolicyError, QueryOrderError, RankmeterError
from rankmeter.io import load
from rankmeter.io.frames import is_frame
from rankmeter.io.id_types import integer_query_ids
from rankmeter.io.load import as_qrels, as_run
from rankmeter.io.recsys import is_lists
from rankmeter.io.tables import Qrels, Run
from rankmeter.measures import Measure, family_row
from rankmeter.measures.traits import refuse_expected_ties
from rankmeter.pipeline import (
    MeasuresArg,
    alignment_metadata,
    evaluate_ranked,
    judged_items_suffice,
    parse_measures,
)
from rankmeter.progress import progress_bar, wanted
from rankmeter.results import EvaluationResult, SystemResults, with_integer_ids

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from rankmeter.core.candidates import CandidateChoice


@overload
def evaluate(
    qrels: Any,
    run: Mapping[str, Mapping[str, float]],
    measures: MeasuresArg,
    *,
    semantics: Semantics | None = None,
    options: EvaluationOptions | None = None,
    **keywords: Unpack[EvaluationKeywords],
) -> EvaluationResult: ...


@overload
def evaluate(
    qrels: Any,
    run: Mapping[str, Any],
    measures: MeasuresArg,
    *,
    semantics: Semantics | None = None,
    options: EvaluationOptions | None = None,
    **keywords: Unpack[EvaluationKeywords],
) -> SystemResults: ...


@overload
def evaluate(
    qrels: Any,
    run: Any,
    measures: MeasuresArg,
    *,
    semantics: Semantics | None = None,
    options: EvaluationOptions | None = None,
    **keywords: Unpack[EvaluationKeywords],
) -> EvaluationResult: ...


def evaluate(
    qrels: Any,
    run: Any,
    measures: MeasuresArg,
    *,
    semantics: Semantics | None = None,
    options: EvaluationOptions | None = None,
    **keywords: Unpack[EvaluationKeywords],
) -> EvaluationResult | SystemResults:
    """Evaluate a run (or several) against qrels.

    Parameters
    ----------
    qrels : path, DataFrame/Table, dict or Qrels
        Judgments: a TREC qrels file (``.gz`` too), a pandas/polars/pyarrow
        table with columns query_id, doc_id, relevance (or ``user_id,
        item_id[, rating]``: without a grade column every row has grade 1),
        ``{query_id: {doc_id: grade}}``, ``{user: {item, ...}}`` (sets or
        lists: grade 1), or :func:`rankmeter.interactions` of a sparse matrix.
        The ideal ranking always comes from all of a user's judgments.
    run : path, DataFrame/Table, dict or Run, or a mapping of them
        System output: a TREC run file, a table with query_id, doc_id, score,
        or ``{query_id: {doc_id: score}}``; or ranked lists without scores,
        whose order is the ranking: a table with a rank column (``rank``,
        ``rank_position``, ``position``, ``pos``; 1 = top) and no score,
        ``{user: [item, ...]}``, a table with a list column of items, or
        :func:`rankmeter.ranked_lists` of a 2-D array. Several runs as
        ``{system_name: run}``: the qrels are read once, the runs are
        evaluated in parallel on the machine's cores (``workers``) and a
        :class:`~rankmeter.results.SystemResults` is returned in the given
        order (values equal to evaluating each run alone).
    measures : str, Measure or iterable of them
        E.g. ``["ndcg@10", "map", "p(min_rel=2)@[5,10]"]``.
    semantics : Semantics, optional
        Ties, empty and missing queries, duplicates, depth, judged-only and
        seed as one value (:class:`rankmeter.Semantics`); ties default to
        ``trec`` (score desc, then doc id desc) for this input.
    options : EvaluationOptions, optional
        Every field of :class:`rankmeter.EvaluationOptions` applies:
        ``qrels_columns``, ``run_columns``, ``threads``, ``workers`` (several
        runs), ``progress`` (reading a run file), ``exclude``, ``candidates``,
        ``group_by``, ``items``.
    **keywords
        Fields of :class:`~rankmeter.Semantics` and of
        :class:`~rankmeter.EvaluationOptions` given one by one (``ties=``,
        ``exclude=``, ...): Semantics fields override ``semantics``; an
        option also set in ``options`` must have the same value there.

    Returns
    -------
    EvaluationResult or SystemResults
        ``metadata["semantics"]`` records the semantics used, whole. Query
        ids are strings, or integers (in numeric order) when the qrels are a
        dict or table with integer query ids.

    Notes
    -----
    A run file larger than :data:`rankmeter.io.load.BLOCK_BYTES` is read in
    blocks of whole queries of that size, parsed on one thread while earlier
    blocks are evaluated on the others, so memory stays bounded whatever the
    file's size; a run whose queries' lines are not together is read whole
    instead. The values are the same either way.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}
    >>> res = evaluate(qrels, run, ["ndcg@2", "p@2", "map"])
    >>> round(res["ndcg@2"], 6), res["p@2"], round(res["map"], 6)
    (0.760188, 0.5, 0.833333)
    >>> evaluate(qrels, run, "map", ties="stable", empty="skip").metadata["semantics"]["empty"]
    'skip'

    Top-K lists without scores, seen items excluded:

    >>> res = evaluate({"u1": {"a", "c"}}, {"u1": ["b", "a", "c"]}, ["r@1", "rr"], exclude={"u1": ["b"]})
    >>> res["r@1"], res["rr"], res.metadata["candidates"]["run_rows_excluded"]
    (0.5, 1.0, 1)
    """
    opts, semantic_keywords = split_keywords("evaluate", options, keywords, OPTION_FIELDS)
    sem = Semantics.build(semantics, "qrels", **semantic_keywords)
    qrels_columns, run_columns, threads, workers = opts.qrels_columns, opts.run_columns, opts.threads, opts.workers
    progress = opts.progress
    exclude, candidates, group_by, items = opts.exclude, opts.candidates, opts.group_by, opts.items
    parsed = parse_measures(measures)
    if items is not None or any(family_row(m.family).reads == "lists" for m in parsed):
        kwargs = {"qrels_columns": qrels_columns, "run_columns": run_columns, "threads": threads}
        found = _evaluate_items(qrels, run, parsed, sem, items, candidate_choice(exclude, candidates), kwargs)
        given = list(run.values()) if is_runs(run) else [run]
        tables = [("qrels", qrels, qrels_columns)] if qrels is not None else []
        tables += [("run", one, run_columns) for one in given]
        if qrels is not None or not isinstance(given[0], list | tuple):  # integer ids as the qrels' (or run's)
            kind, source, cols = tables[0]
            if integer_query_ids(source, kind, cols):
                found = _integer_ids(found)
        return _grouped(found, group_by, parsed, tables=tables)
    if _diversity_call(parsed):
        if exclude is not None or candidates is not None:
            raise PolicyError("exclude= and candidates= do not apply to diversity measures (intent qrels)")
        from rankmeter.diversity import evaluate_diversity
        from rankmeter.io.intents import as_intent_qrels

        intent_qrels = as_intent_qrels(qrels, qrels_columns)

        def diversity(one: Any) -> EvaluationResult:
            return evaluate_diversity(intent_qrels, one, parsed, semantics=sem, run_columns=run_columns)

        found = SystemResults.of({str(k): diversity(r) for k, r in run.items()}) if is_runs(run) else diversity(run)
        return _grouped(found, group_by, parsed)
    refuse_expected_ties(sem.tie_policy, parsed)
    choice = candidate_choice(exclude, candidates)
    if is_runs(run):
        q = as_qrels(qrels, qrels_columns)
        runs = _evaluate_runs(q, run, parsed, sem, run_columns, threads, workers, progress, choice)
        if integer_query_ids(qrels, "qrels", qrels_columns):
            runs = SystemResults.of({name: with_integer_ids(one) for name, one in runs.items()})
        tables = [("qrels", qrels, qrels_columns), *(("run", one, run_columns) for one in run.values())]
        return _grouped(runs, group_by, parsed, tables=tables)
    tables = [("qrels", qrels, qrels_columns), ("run", run, run_columns)]
    if load.run_file_in_blocks(run):
        from rankmeter import streaming

        try:
            result = streaming.evaluate_stream(
                qrels if qrels_columns is None else as_qrels(qrels, qrels_columns),
                run,
                parsed,
                semantics=sem,
                block_bytes=load.BLOCK_BYTES,
                progress=progress,
                threads=threads,
                exclude=None if choice is None else choice.exclude,  # pairs read once (Qrels pass through)
                candidates=None if choice is None else choice.given,
            )
            del result.metadata["streamed"]  # the same result as reading the run whole
            return _typed_and_grouped(result, parsed, group_by, [("qrels", qrels, qrels_columns), ("run", run, None)])
        except QueryOrderError:
            pass  # a query's lines are not together: read the whole run at once
    result = _evaluate_one(as_qrels(qrels, qrels_columns), run, parsed, sem, run_columns, threads, choice)
    return _typed_and_grouped(result, parsed, group_by, tables)


def _evaluate_one(
    q: Qrels,
    run: Any,
    parsed: list[Measure],
    sem: Semantics,
    run_columns: Mapping[str, str] | None,
    threads: int | None,
    choice: CandidateChoice | None,
) -> EvaluationResult:
    """One run read whole, aligned with ``q`` (restricted to the candidate set first) and evaluated."""
    r = as_run(run, run_columns)
    counts = None
    if choice is not None:
        q, r, counts = choice.apply(q, r)
    ranked, info = align(q, r, sem, judged_items=judged_items_suffice(sem.tie_policy, parsed), threads=threads)
    extra = alignment_metadata(info, sem, q.source, r.source, r.name, qrels_columns=q.columns, run_columns=r.columns)
    if choice is not None and counts is not None:
        from rankmeter.core.candidates import record

        record(extra, choice.name, counts)
    return evaluate_ranked(ranked, parsed, empty=sem.empty, metadata=extra)


def _integer_ids(found: EvaluationResult | SystemResults) -> EvaluationResult | SystemResults:
    """``found`` with integer query ids (:func:`~rankmeter.results.with_integer_ids`), each system's too."""
    if isinstance(found, SystemResults):
        return SystemResults.of({name: with_integer_ids(one) for name, one in found.items()})
    return with_integer_ids(found)


def _evaluate_items(
    qrels: Any, run: Any, parsed: list[Measure], sem: Semantics, items: Any, choice: Any, kw: dict[str, Any]
) -> EvaluationResult | SystemResults:
    """A call with beyond-accuracy measures (``items=``): accuracy from the qrels, the rest from the lists."""
    if is_runs(run):
        return SystemResults.of({str(k): _items_one(qrels, r, parsed, sem, items, choice, kw) for k, r in run.items()})
    return _items_one(qrels, run, parsed, sem, items, choice, kw)


def _items_one(
    qrels: Any, run: Any, parsed: list[Measure], sem: Semantics, items: Any, choice: Any, kw: dict[str, Any]
) -> EvaluationResult:
    """One run of :func:`_evaluate_items`."""
    from rankmeter.beyond import evaluate_with_items, reads_lists

    accuracy = [m for m in parsed if m not in reads_lists(parsed)]
    q = None if qrels is None and not accuracy else as_qrels(qrels, kw["qrels_columns"])
    r = [as_run(s, kw["run_columns"]) for s in run] if isinstance(run, list | tuple) else as_run(run, kw["run_columns"])
    one = isinstance(r, Run)  # several sampled runs: expected exposure only (evaluate_with_items says so)
    acc = (
        _evaluate_one(q, r, accuracy, sem, None, kw["threads"], choice) if q is not None and accuracy and one else None
    )
    return evaluate_with_items(q, r, parsed, items, sem, choice, acc)


def _typed_and_grouped(
    result: EvaluationResult, measures: list[Measure], group_by: Any, tables: list[tuple[str, Any, Any]]
) -> EvaluationResult:
    """``result`` with integer query ids when the qrels (``tables[0]``) had them, and its segments."""
    _, qrels, qrels_columns = tables[0]
    if integer_query_ids(qrels, "qrels", qrels_columns):
        result = with_integer_ids(result)
    grouped: EvaluationResult = _grouped(result, group_by, measures, tables=tables)
    return grouped


def _grouped(
    found: Any, group_by: Any, measures: list[Measure], *, tables: list[tuple[str, Any, Any]] | None = None
) -> Any:
    """``found`` with its segments: :func:`rankmeter.segments.with_groups`, imported only for ``group_by=``."""
    if group_by is None:
        return found
    from rankmeter.segments import with_groups

    return with_groups(found, group_by, measures, tables=tables or ())


def candidate_choice(exclude: Any, candidates: Any) -> CandidateChoice | None:
    """:func:`rankmeter.core.candidates.candidate_choice`, imported only when ``exclude=`` or ``candidates=`` is given.

    >>> candidate_choice(None, None) is None
    True
    """
    if exclude is None and candidates is None:
        return None
    from rankmeter.core import candidates as chosen

    return chosen.candidate_choice(exclude, candidates)


def _diversity_call(measures: list[Measure]) -> bool:
    """Whether every measure needs intent qrels (the call goes to ``evaluate_diversity``); mixing is an error."""
    diversity = [str(m) for m in measures if family_row(m.family).reads == "intents"]
    if not diversity:
        return False
    if len(diversity) < len(measures):
        raise MeasureSyntaxError(
            f"{', '.join(diversity)}: diversity measures read intent qrels ('query intent docno grade'); "
            "evaluate them in a call of their own (rankmeter.evaluate_diversity)"
        )
    return True


def is_runs(run: Any) -> bool:
    """Whether ``run`` is a mapping of several runs (``{name: run}``) rather than one ``{qid: {docid: score}}`` run.

    >>> is_runs({"bm25": "bm25.txt"}), is_runs({"bm25": {"q1": {"d1": 1.0}}}), is_runs({"q1": {"d1": 1.0}})
    (True, True, False)
    """
    if not isinstance(run, Mapping) or not run:
        return False
    first = next(iter(run.values()))
    if isinstance(first, str | os.PathLike | Run) or is_frame(first):
        return True
    return isinstance(first, Mapping) and (isinstance(next(iter(first.values()), None), Mapping) or is_lists(first))


def _same_name(runs: Mapping[Any, Any]) -> str:
    """The first system name that two keys of ``runs`` share once converted with ``str``.

    >>> _same_name({1: "a.txt", "1": "b.txt"})
    '1'
    """
    seen: set[str] = set()
    for name in map(str, runs):
        if name in seen:
            return name
        seen.add(name)
    return ""


class _RunsJob(NamedTuple):
    """What every run of a many-runs call shares: the qrels (read once), the runs, measures and semantics."""

    qrels: Qrels
    runs: dict[str, Any]
    measures: list[Measure]
    semantics: Semantics
    run_columns: Mapping[str, str] | None
    threads: int | None
    choice: CandidateChoice | None = None


def _evaluate_named(job: _RunsJob, item: tuple[str, Any]) -> EvaluationResult:
    """One run of a many-runs call: ``item`` is its name and the run (None: look it up in ``job.runs``).

    An error names the system: ``system 'bm25': run.txt:3: ...``.
    """
    name, run = item
    one = job.runs[name] if run is None else run
    try:
        if job.choice is not None:  # the qrels restricted once (kept by the choice), each run here
            return _evaluate_one(job.qrels, one, job.measures, job.semantics, job.run_columns, job.threads, job.choice)
        return evaluate(
            job.qrels, one, job.measures, semantics=job.semantics, run_columns=job.run_columns, threads=job.threads
        )
    except RankmeterError as exc:
        raise type(exc)(f"system {name!r}: {exc}") from exc


PROCESS_MIN_ROWS = 1 << 17
"""Fewest run rows, all runs together, that several runs are evaluated on worker processes for.

Under that, starting the workers costs more than it saves and the runs are evaluated in the
calling process. A file counts as its size over 40 bytes (a TREC run line).
"""


def _estimated_rows(run: Any) -> int:
    """About how many rows a run holds, without reading it: a file's size over 40 bytes, a table's length.

    >>> _estimated_rows({"q1": {"a": 1.0, "b": 0.5}, "q2": {"c": 0.1}})
    3
    """
    if isinstance(run, str | os.PathLike):
        try:
            return os.path.getsize(run) // 40
        except OSError:
            return 0  # the reader names the file
    if isinstance(run, Mapping):
        return sum(len(docs) if isinstance(docs, Mapping) else 1 for docs in run.values())
    try:
        return len(run)
    except TypeError:
        return 0


def _evaluate_runs(
    qrels: Qrels,
    runs: Mapping[str, Any],
    measures: list[Measure],
    semantics: Semantics,
    run_columns: Mapping[str, str] | None,
    threads: int | None,
    workers: int | None,
    progress: bool | None,
    choice: CandidateChoice | None = None,
) -> SystemResults:
    """Every run of ``runs`` against the same qrels (read once), on worker processes, results in the given order."""
    by_name = {str(name): run for name, run in runs.items()}
    if len(by_name) < len(runs):
        raise InputFormatError(f"runs: two systems have the same name {_same_name(runs)!r} once written as text")
    names = list(by_name)
    if workers is None:  # spawned workers re-import the caller's script: only when asked (its main guarded)
        from rankmeter.core.lists import usable_cpus

        workers = (threads if threads is not None else usable_cpus()) if forks() else 1
    if sum(_estimated_rows(r) for r in by_name.values()) < PROCESS_MIN_ROWS:
        workers = 1
    parallel = workers > 1 and len(names) > 1
    # once here (and inherited by forked workers); a problem of the qrels raised here
    prepare_qrels(qrels if choice is None else choice.restrict_qrels(qrels)[0], semantics)
    inherit = not parallel or forks()  # a spawned worker gets each run with its task, not all of them
    job = _RunsJob(
        qrels, by_name if inherit else {}, measures, semantics, run_columns, 1 if parallel else threads, choice
    )
    items = [(name, None if inherit else by_name[name]) for name in names]
    results: dict[str, EvaluationResult] = {}
    with progress_bar(len(names), "rankmeter evaluate", show=wanted(progress, False), unit="runs") as done:
        for name, result in zip(
            names, map_processes(_evaluate_named, job, items, workers, lambda item: item[0]), strict=True
        ):
            results[name] = result
            done(len(results))
    return SystemResults.of(results)
