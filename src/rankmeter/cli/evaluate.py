"""``rankmeter evaluate QRELS RUN -m MEASURE ...``: evaluate a run and print a table, JSON or CSV."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from rankmeter.cli.options import add_evaluation_options, semantics_from_args

DEFAULT_MEASURES = ["ndcg@10", "ndcg", "map", "p@10", "r@100", "rr", "num_q", "num_ret", "num_rel", "num_rel_ret"]


def add_parser(sub: Any) -> None:
    """Register the ``evaluate`` subcommand."""
    p = sub.add_parser(
        "evaluate",
        help="evaluate a run against qrels",
        description="Evaluate a TREC run (or '-' for stdin) against TREC qrels (.gz accepted).",
    )
    p.add_argument("qrels", help="qrels file: qid iter docno rel")
    p.add_argument("run", help="run file: qid Q0 docno rank score tag ('-' reads stdin)")
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
    p.add_argument("--seed", type=int, default=None, help="seed for --ties shuffle")
    p.add_argument(
        "--stream",
        action="store_true",
        help="read the run in blocks of whole queries and fail if a query's lines are not together (without it, "
        "such a run is read whole instead); same result as without",
    )
    p.add_argument("--block-mb", type=int, default=8, help="block size for --stream in MiB (default: 8)")
    p.add_argument(
        "--progress",
        action="store_true",
        help="show a progress bar while the run file is read (default: for files over 256 MiB on a terminal)",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        metavar="N",
        help="threads for runs of a million rows or more (default: one per CPU, at most 8); values do not depend on it",
    )
    p.add_argument("--per-query", action="store_true", help="also print per-query values")
    p.add_argument(
        "--ci",
        type=float,
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
    p.add_argument("--n-resamples", type=int, default=10_000, help="bootstrap resamples for --ci (default: 10000)")
    p.add_argument("--format", choices=("table", "json", "csv", "trec"), default="table")
    p.add_argument("--digits", type=int, default=4, help="decimals in the table (default: 4)")
    p.add_argument("-o", "--output", default=None, help="write to this file instead of stdout")
    p.set_defaults(handler=run)


def _fmt(name: str, value: float, digits: int) -> str:
    if math.isnan(value):
        return "nan"
    if name.startswith("num_"):
        return str(int(round(value)))
    return f"{value:.{digits}f}"


def render_table(result: Any, per_query: bool, digits: int, intervals: dict[str, Any] | None = None) -> str:
    """A rich table of the aggregates (and per-query values) as plain text."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=None, show_edge=False, header_style="bold")
    table.add_column("query")
    for name in result.measure_names:
        table.add_column(name, justify="right")
    if per_query:
        for qi, qid in enumerate(result.query_ids.tolist()):
            row = [
                _fmt(n, float(result.values[qi, mi]), digits) if result.included[qi, mi] else "-"
                for mi, n in enumerate(result.measure_names)
            ]
            table.add_row(qid, *row)
        table.add_section()
    table.add_row("all", *[_fmt(n, result.aggregate[n], digits) for n in result.measure_names], style="bold")
    if intervals:
        level = next((ci.level for ci in intervals.values() if ci is not None), None)
        cells = [
            ""
            if intervals.get(n) is None
            else f"[{_fmt(n, intervals[n].low, digits)}, {_fmt(n, intervals[n].high, digits)}]"
            for n in result.measure_names
        ]
        table.add_row(f"{level:.0%} CI" if level is not None else "CI", *cells)
    console = Console(width=10_000, record=True, file=open("/dev/null", "w"), color_system=None)  # noqa: SIM115
    console.print(table)
    text = console.export_text()
    meta = result.metadata
    notes = [
        f"{meta['queries_evaluated']} queries evaluated",
        f"ties={meta['ties']}",
        f"empty={meta['empty']} ({meta['queries_empty']} without relevant documents)",
    ]
    if "missing" in meta:
        notes.append(f"missing={meta['missing']} ({meta['queries_missing']} missing from the run)")
        notes.append(f"{meta['queries_run_only']} run-only queries ignored")
    if meta.get("queries_with_ties_at_cutoff"):
        notes.append(f"{meta['queries_with_ties_at_cutoff']} queries with a tied group across a cutoff")
    return text + "; ".join(notes) + "\n"


def run(args: argparse.Namespace) -> int:
    """Execute ``rankmeter evaluate``."""
    measures = args.measures or DEFAULT_MEASURES
    semantics = semantics_from_args(args, seed=args.seed)
    if args.stream:
        from rankmeter.stream import evaluate_stream

        progress = True if args.progress else None
        result = evaluate_stream(
            args.qrels,
            args.run,
            measures,
            block_bytes=args.block_mb << 20,
            progress=progress,
            threads=args.threads,
            semantics=semantics,
        )
    else:
        from rankmeter.evaluate import evaluate

        result = evaluate(
            args.qrels,
            args.run,
            measures,
            semantics=semantics,
            threads=args.threads,
            progress=True if args.progress else None,
        )
    intervals = None
    if args.ci is not None:
        from rankmeter.stats.intervals import result_intervals

        intervals = result_intervals(
            result,
            level=args.ci,
            method=args.ci_method,
            n_resamples=args.n_resamples,
            seed=args.seed if args.seed is not None else 0,
        )
    if args.format == "json":
        data = result.to_dict()
        if intervals is not None:
            from rankmeter.stats.intervals import intervals_as_dict

            data["ci"] = intervals_as_dict(intervals)
        if not args.per_query:
            data["per_query"] = result.per_query  # the JSON always carries per-query rows
        import json

        from rankmeter.results import json_safe

        text = json.dumps(json_safe(data), indent=2) + "\n"
    elif args.format == "csv":
        text = result.to_csv()
    elif args.format == "trec":
        text = result.to_trec_eval(per_query=args.per_query)
    else:
        text = render_table(result, args.per_query, args.digits, intervals)
    if args.output:
        with open(args.output, "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0
