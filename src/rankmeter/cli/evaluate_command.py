"""``rankmeter evaluate QRELS RUN [RUN ...] -m MEASURE ...``: evaluate runs and print a table, JSON or CSV.

One run prints its measures (and per-query values); several runs (files, directories, globs) are
evaluated against qrels read once, a run per worker process (one per CPU), and print one systems x
measures table (per-query rows in long format with a ``system`` column). Systems are named as by ``rankmeter compare``.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from rankmeter.cli.engines import add_engine_options, evaluate_on_engine
from rankmeter.cli.options import (
    MAX_BLOCK_MB,
    MAX_DIGITS,
    MAX_PARALLEL,
    MAX_RESAMPLES,
    MAX_SEED,
    add_csv_safe_option,
    add_evaluation_options,
    add_group_options,
    check_resamples,
    fraction,
    group_by_from_args,
    integer,
    semantics_from_args,
)
from rankmeter.cli.output import tables_for, write_output
from rankmeter.cli.runs import expand_runs, system_names
from rankmeter.cli.text_table import SECTION, render_text_table
from rankmeter.errors import PolicyError

DEFAULT_MEASURES = ["ndcg@10", "ndcg", "map", "p@10", "r@100", "rr", "num_q", "num_ret", "num_rel", "num_rel_ret"]


def add_parser(sub: Any) -> None:
    """Register the ``evaluate`` subcommand."""
    p = sub.add_parser(
        "evaluate",
        help="evaluate a run against qrels",
        description="Evaluate TREC runs (or '-' for stdin) against TREC qrels (.gz accepted). Several runs, "
        "directories or globs give one systems x measures table, the qrels read once and the runs evaluated "
        "in parallel.",
    )
    p.add_argument("qrels", help="qrels file: qid iter docno rel")
    p.add_argument(
        "runs",
        metavar="RUN",
        nargs="+",
        help="run file: qid Q0 docno rank score tag ('-' reads stdin); several files, directories or globs: "
        "one row per system, named after the file stem",
    )
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measure name, repeatable (e.g. ndcg@10, 'ndcg(gain=exp)@[5,10]', map); "
        f"default: {' '.join(DEFAULT_MEASURES)}",
    )
    add_evaluation_options(p)
    p.add_argument("--seed", type=integer(0, MAX_SEED), default=None, help="seed for --ties shuffle")
    p.add_argument(
        "--stream",
        action="store_true",
        help="read the run in blocks of whole queries and fail if a query's lines are not together (without it, "
        "such a run is read whole instead); same result as without",
    )
    p.add_argument(
        "--block-mb",
        type=integer(1, MAX_BLOCK_MB),
        default=8,
        help=f"block size for --stream in MiB, 1 to {MAX_BLOCK_MB} (default: 8)",
    )
    p.add_argument(
        "--progress",
        action="store_true",
        help="show a progress bar while the run file is read (default: for files over 256 MiB on a terminal)",
    )
    p.add_argument(
        "--threads",
        type=integer(1, MAX_PARALLEL),
        default=None,
        metavar="N",
        help="threads for runs of a million rows or more (default: one per CPU, at most 8); values do not depend on it",
    )
    p.add_argument(
        "--workers",
        type=integer(1, MAX_PARALLEL),
        default=None,
        metavar="N",
        help="for several runs: processes, each evaluating a run at a time (default: --threads when given, else one "
        "per CPU; 1: one run after the other); values do not depend on it",
    )
    p.add_argument(
        "--exclude",
        default=None,
        metavar="FILE",
        help="(user, item) pairs removed from every ranking and from the ideal, e.g. the training interactions: "
        "a CSV/TSV/Parquet table with user and item columns (user_id, item_id, ...) or a TREC qrels file",
    )
    p.add_argument(
        "--candidates",
        default=None,
        metavar="FILE",
        help="the only (user, item) pairs ranked and judged (e.g. one positive and 100 sampled negatives per "
        "user), in the forms of --exclude",
    )
    add_engine_options(p)
    add_group_options(p)
    p.add_argument("--per-query", action="store_true", help="also print per-query values")
    p.add_argument(
        "--ci",
        type=fraction,
        default=None,
        metavar="LEVEL",
        help="add a bootstrap confidence interval of each mean over queries, e.g. --ci 0.95",
    )
    p.add_argument(
        "--ci-method",
        default="BCa",
        choices=("BCa", "percentile", "basic"),
        help="bootstrap method for --ci (default: BCa)",
    )
    p.add_argument(
        "--n-resamples",
        type=integer(1, MAX_RESAMPLES),
        default=10_000,
        help="bootstrap resamples for --ci, at least 2 / (1 - level) (default: 10000)",
    )
    p.add_argument("--format", choices=("table", "json", "csv", "trec"), default="table")
    add_csv_safe_option(p)
    p.add_argument(
        "--digits",
        type=integer(0, MAX_DIGITS),
        default=4,
        help=f"decimals in the table, 0 to {MAX_DIGITS} (default: 4)",
    )
    p.add_argument("-o", "--output", default=None, help="write to this file instead of stdout")
    p.set_defaults(handler=run)


def _fmt(name: str, value: float, digits: int) -> str:
    if math.isnan(value):
        return "nan"
    if name.startswith("num_"):
        return str(int(round(value)))
    return f"{value:.{digits}f}"


def _value_cells(result: Any, qi: int, digits: int) -> list[str]:
    return [
        _fmt(n, float(result.values[qi, mi]), digits) if result.included[qi, mi] else "-"
        for mi, n in enumerate(result.measure_names)
    ]


def _interval_cells(names: list[str], intervals: dict[str, Any], digits: int) -> tuple[str, list[str]]:
    level = next((ci.level for ci in intervals.values() if ci is not None), None)
    cells = [
        ""
        if intervals.get(n) is None
        else f"[{_fmt(n, intervals[n].low, digits)}, {_fmt(n, intervals[n].high, digits)}]"
        for n in names
    ]
    return (f"{level:.0%} CI" if level is not None else "CI"), cells


def _notes(meta: dict[str, Any], counts_only: bool = False) -> list[str]:
    notes = [f"{meta['queries_evaluated']} queries evaluated"]
    if not counts_only:
        notes.append(f"ties={meta['ties']}")
    notes.append(
        f"{meta['queries_empty']} without relevant documents"
        if counts_only
        else f"empty={meta['empty']} ({meta['queries_empty']} without relevant documents)"
    )
    if "missing" in meta:
        notes.append(
            f"{meta['queries_missing']} missing from the run"
            if counts_only
            else f"missing={meta['missing']} ({meta['queries_missing']} missing from the run)"
        )
        notes.append(f"{meta['queries_run_only']} run-only queries ignored")
    if "candidates" in meta:
        c = meta["candidates"]
        run_rows = c["run_rows_excluded"] + c["run_rows_not_candidates"]
        notes.append(
            f"candidates={meta['semantics']['candidates']} (removed {run_rows}"
            f" run rows, {c['qrels_rows_excluded'] + c['qrels_rows_not_candidates']} qrels rows; "
            f"{c['users_left_without_relevant']} users left without relevant items)"
        )
    if meta.get("queries_with_ties_at_cutoff"):
        notes.append(f"{meta['queries_with_ties_at_cutoff']} queries with a tied group across a cutoff")
    return notes


def render_table(result: Any, per_query: bool, digits: int, intervals: dict[str, Any] | None = None) -> str:
    """The aggregates (and per-query values) as a text table, then the query counts."""
    rows: list[list[str] | None] = []
    segments = _query_segments(result) if per_query else None  # a segment column beside the per-query values
    blank = [] if segments is None else [""]
    if per_query:
        rows += [
            [str(qid), *([] if segments is None else [segments[qi]]), *_value_cells(result, qi, digits)]
            for qi, qid in enumerate(result.query_ids.tolist())
        ]
        rows.append(SECTION)
    rows.append(["all", *blank, *[_fmt(n, result.aggregate[n], digits) for n in result.measure_names]])
    if intervals:
        label, cells = _interval_cells(result.measure_names, intervals, digits)
        rows.append([label, *blank, *cells])
    table = render_text_table(
        ["query", *(["segment"] if blank else []), *result.measure_names], rows, left=1 + len(blank)
    )
    return table + "; ".join(_notes(result.metadata)) + "\n" + render_segments([("", result)], digits)


def _query_segments(result: Any) -> list[str] | None:
    """Each query's segment as text (``(none)`` for none), or None for a result without segments."""
    from rankmeter.results import segment_text

    groups = getattr(result, "groups", None)
    if groups is None:
        return None
    return [segment_text(groups.segments[m] if m >= 0 else None) for m in groups.member.tolist()]


def render_segments(results: list[tuple[str, Any]], digits: int) -> str:
    """The per-segment aggregates of grouped results as a text table (a ``system`` column for several), or ''.

    >>> import rankmeter
    >>> res = rankmeter.evaluate({"u1": {"a": 1}, "u2": {"b": 1}}, {"u1": {"a": 1.0}, "u2": {"x": 1.0, "b": 0.5}},
    ...                          "rr", group_by={"u1": "warm", "u2": "cold"})
    >>> [line.split() for line in render_segments([("", res)], 2).splitlines()[3:5]]
    [['cold', '│', '1', '│', '0.50'], ['warm', '│', '1', '│', '1.00']]
    """
    from rankmeter.results import segment_text

    grouped = [(system, r) for system, r in results if r.groups is not None]
    if not grouped:
        return ""
    names = grouped[0][1].measure_names
    rows: list[list[str] | None] = []
    for system, result in grouped:
        g = result.groups
        for si, segment in enumerate(g.segments):
            cells = [_fmt(n, float(g.values[si, mi]), digits) for mi, n in enumerate(names)]
            rows.append([*([system] if system else []), segment_text(segment), str(int(g.queries[si])), *cells])
    header = [*(["system"] if grouped[0][0] else []), "segment", "queries", *names]
    meta = grouped[0][1].metadata["groups"]
    note = f"segments from {meta['source']}; missing={meta['missing']}"
    if meta["queries_without_segment"]:
        note += f" ({meta['queries_without_segment']} queries without a segment)"
    return "\n" + render_text_table(header, rows, left=len(header) - len(names) - 1) + note + "\n"


def render_systems_table(
    results: Any, per_query: bool, digits: int, intervals: dict[str, dict[str, Any] | None] | None = None
) -> str:
    """The systems x measures table (per-query rows first with ``per_query``) as text, then each system's counts.

    >>> import rankmeter
    >>> runs = {"a": {"q1": {"x": 1.0}}, "b": {"q1": {"y": 1.0, "x": 0.5}}}
    >>> text = render_systems_table(rankmeter.evaluate({"q1": {"x": 1}}, runs, "rr"), False, 2)
    >>> [line.split() for line in text.splitlines()[2:4]]
    [['a', '│', '1.00'], ['b', '│', '0.50']]
    """
    names = results.measure_names
    text = ""
    if per_query:
        rows: list[list[str] | None] = [
            [system, qid, *_value_cells(result, qi, digits)]
            for system, result in results.items()
            for qi, qid in enumerate(result.query_ids.tolist())
        ]
        text = render_text_table(["system", "query", *names], rows, left=2) + "\n"
    rows = []
    for system, result in results.items():
        rows.append([system, *[_fmt(n, result.aggregate[n], digits) for n in names]])
        found = (intervals or {}).get(system)
        if found:
            label, cells = _interval_cells(names, found, digits)
            rows.append([f"  {label}", *cells])
    first = next(iter(results.values()))
    shared = f"ties={first.metadata['ties']}; empty={first.metadata['empty']}"
    if "missing" in first.metadata:
        shared += f"; missing={first.metadata['missing']}"
    counts = "".join(f"{system}: {'; '.join(_notes(r.metadata, counts_only=True))}\n" for system, r in results.items())
    segments = render_segments(list(results.items()), digits)
    return text + render_text_table(["system", *names], rows) + shared + "\n" + counts + segments


def run(args: argparse.Namespace) -> int:
    """Execute ``rankmeter evaluate``: one run, or several as one systems x measures table."""
    measures = args.measures or DEFAULT_MEASURES
    check_resamples(args.ci, args.n_resamples)
    semantics = semantics_from_args(args, seed=args.seed)
    paths = expand_runs(list(args.runs), qrels=args.qrels)
    if len(paths) == 1:
        result = _grouped(args, _evaluate_one(args, args.qrels, paths[0], measures, semantics), paths)
        with tables_for(args.output):
            text = _render_one(result, args)
    else:
        results = _grouped(args, _evaluate_many(args, paths, measures, semantics), paths)
        with tables_for(args.output):
            text = _render_many(results, args)
    write_output(text, args.output)
    return 0


def _candidate_options(args: argparse.Namespace) -> dict[str, Any]:
    """``exclude=`` and ``candidates=`` of the call (with ``--stream`` too: each block of the run is restricted)."""
    return {"exclude": args.exclude, "candidates": args.candidates}


def _evaluate_one(args: argparse.Namespace, qrels: Any, path: str, measures: list[str], semantics: Any) -> Any:
    pairs = _candidate_options(args)
    if args.engine != "local":
        return evaluate_on_engine(args, qrels, path, measures, semantics, **pairs)
    progress = True if args.progress else None
    if args.stream:
        from rankmeter.streaming import evaluate_stream

        return evaluate_stream(
            qrels,
            path,
            measures,
            block_bytes=args.block_mb << 20,
            progress=progress,
            threads=args.threads,
            semantics=semantics,
            **pairs,
        )
    from rankmeter.by_ids import evaluate

    return evaluate(qrels, path, measures, semantics=semantics, threads=args.threads, progress=progress, **pairs)


def _evaluate_many(args: argparse.Namespace, paths: list[str], measures: list[str], semantics: Any) -> Any:
    """Every run against qrels read once: a run per worker process, or (``--stream``) one after the other in blocks."""
    from rankmeter.by_ids import evaluate

    if "-" in paths:
        raise PolicyError("standard input ('-') can only be read as the only run")
    runs = dict(zip(system_names(paths), paths, strict=True))
    if not args.stream and args.engine == "local":
        return evaluate(
            args.qrels,
            runs,
            measures,
            semantics=semantics,
            threads=args.threads,
            workers=args.workers,
            progress=True if args.progress else None,
            **_candidate_options(args),
        )
    from rankmeter.io.load import as_qrels
    from rankmeter.results import SystemResults

    qrels = as_qrels(args.qrels) if args.engine == "local" else args.qrels  # an engine reads the file itself
    return SystemResults.of(
        {name: _evaluate_one(args, qrels, path, measures, semantics) for name, path in runs.items()}
    )


def _grouped(args: argparse.Namespace, results: Any, paths: list[str]) -> Any:
    """The result(s) with their per-segment aggregates when ``--group-by`` is given."""
    group_by = group_by_from_args(args)
    if group_by is None:
        return results
    from rankmeter.measures import parse
    from rankmeter.segments import with_groups

    measures = [parse(m) for m in results.measure_names]
    tables = [("qrels", args.qrels, None), *(("run", path, None) for path in paths)]
    return with_groups(results, group_by, measures, tables=tables)


def _intervals(args: argparse.Namespace, result: Any) -> Any:
    if args.ci is None:
        return None
    from rankmeter.stats.intervals import result_intervals

    return result_intervals(
        result,
        level=args.ci,
        method=args.ci_method,
        n_resamples=args.n_resamples,
        seed=args.seed if args.seed is not None else 0,
    )


def _json(data: dict[str, Any]) -> str:
    from rankmeter.results import result_json

    return result_json(data) + "\n"


def _render_one(result: Any, args: argparse.Namespace) -> str:
    intervals = _intervals(args, result)
    return _render(result, args, intervals, render_table, lambda as_dict: as_dict(intervals))


def _render_many(results: Any, args: argparse.Namespace) -> str:
    intervals = {name: _intervals(args, result) for name, result in results.items()}
    return _render(
        results,
        args,
        intervals,
        render_systems_table,
        lambda as_dict: {name: as_dict(found) for name, found in intervals.items()},
    )


def _render(results: Any, args: argparse.Namespace, intervals: Any, table: Any, ci_json: Any) -> str:
    """One result or several in ``args.format``; ``ci_json(intervals_as_dict)`` gives the intervals for JSON."""
    if args.format == "json":
        data = results.to_dict()
        if args.ci is not None:
            from rankmeter.stats.intervals import intervals_as_dict

            data["ci"] = ci_json(intervals_as_dict)
        return _json(data)
    if args.format == "csv":
        return str(results.to_csv(safe=args.csv_safe))
    if args.format == "trec":
        return str(results.to_trec_eval(per_query=args.per_query))
    return str(table(results, args.per_query, args.digits, intervals))
