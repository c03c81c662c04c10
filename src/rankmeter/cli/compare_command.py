"""``rankmeter compare``: evaluate several runs and test their differences against a baseline.

Usage::

    rankmeter compare QRELS RUN_A RUN_B [RUN_C ...] -m ndcg@10 -m map
        [--test t|wilcoxon|randomization|bootstrap|tukey|randomized-tukey]
        [--correction holm|bonferroni|bh|none] [--alpha 0.05] [--seed 0]
        [--n-resamples 10000] [--baseline NAME] [--ci 0.95] [--ci-method BCa|percentile|basic]
        [--query-sets error|intersect] [--format table|markdown|latex|json|csv] [--plot out.png]

Systems are named after their run file's stem (``runs/bm25.txt`` -> ``bm25``);
when two stems clash the file names are used, and the paths as given when
those clash too. The first run is the baseline unless ``--baseline`` names one.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankmeter.cli import options
from rankmeter.cli.options import add_evaluation_options, add_group_options, group_by_from_args, semantics_from_args
from rankmeter.cli.runs import add_run_arguments, named_runs
from rankmeter.cli.status import INPUT_ERROR, USAGE_ERROR, exit_status
from rankmeter.io.escaping import printable

FORMATS = ("table", "markdown", "latex", "json", "csv")


def add_comparison_options(p: argparse.ArgumentParser) -> None:
    """``-m``, the test, correction, CI and evaluation options shared by ``compare`` and ``report``.

    >>> p = argparse.ArgumentParser(); add_comparison_options(p)
    >>> sorted(comparison_options(p.parse_args(["-m", "map", "--test", "wilcoxon"])))[:4]
    ['alpha', 'baseline', 'ci', 'ci_method']
    """
    from rankmeter.stats.bootstrap import CI_METHODS
    from rankmeter.stats.corrections import CORRECTIONS
    from rankmeter.stats.options import TESTS

    p.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        required=True,
        metavar="MEASURE",
        help="measure to compare on (repeatable), e.g. -m ndcg@10 -m map",
    )
    p.add_argument("--test", default="t", choices=TESTS, help="significance test (default: t)")
    p.add_argument(
        "--correction", default="holm", choices=CORRECTIONS, help="multiple-testing correction (default: holm)"
    )
    p.add_argument("--alpha", type=options.fraction, default=0.05, help="significance level (default: 0.05)")
    seed = options.integer(0, options.MAX_SEED)
    p.add_argument("--seed", type=seed, default=0, help="seed of all resampling (default: 0)")
    add_evaluation_options(p, empty_policies=("zero", "one"))  # paired tests need a value for every query
    p.add_argument(
        "--n-resamples",
        type=options.integer(1, options.MAX_RESAMPLES),
        default=10_000,
        help="resamples for CIs and resampling tests, at least 2 / (1 - level) (default: 10000)",
    )
    p.add_argument("--baseline", metavar="NAME", help="name of the baseline system (default: first run)")
    p.add_argument(
        "--ci", type=options.fraction, default=0.95, help="confidence level of the intervals (default: 0.95)"
    )
    p.add_argument("--ci-method", default="BCa", choices=CI_METHODS, help="bootstrap CI method (default: BCa)")
    p.add_argument(
        "--query-sets",
        default="error",
        choices=("error", "intersect"),
        help="when runs cover different queries: fail, or keep the common ones (default: error)",
    )
    p.add_argument(
        "--workers",
        type=options.integer(1, options.MAX_PARALLEL),
        default=None,
        metavar="N",
        help="processes, each evaluating a run at a time (default: one per CPU; 1: one run after the other); "
        "values do not depend on it",
    )
    add_group_options(p)


def comparison_options(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments of :func:`rankmeter.compare` from :func:`add_comparison_options` flags (no measures)."""
    options.check_resamples(args.ci, args.n_resamples)
    return {
        "baseline": args.baseline,
        "test": args.test,
        "correction": args.correction,
        "alpha": args.alpha,
        "n_resamples": args.n_resamples,
        "seed": args.seed,
        "ci": args.ci,
        "ci_method": args.ci_method,
        "query_sets": args.query_sets,
        "semantics": semantics_from_args(args, seed=args.seed if args.ties == "shuffle" else None),
        "group_by": group_by_from_args(args),
        "evaluate_options": None if args.workers is None else {"workers": args.workers},
    }


def add_parser(subparsers: Any) -> None:
    """Register the ``compare`` subcommand on an :mod:`argparse` subparsers object.

    The parser's defaults include ``handler=run`` (what :func:`rankmeter.cli.main.main` calls).

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="rankmeter")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["compare", "q.txt", "a.run", "b.run", "-m", "ndcg@10", "--test", "t"])
    >>> args.runs, args.measures, args.correction, args.handler is run
    (['a.run', 'b.run'], ['ndcg@10'], 'holm', True)
    """
    p = subparsers.add_parser(
        "compare",
        help="compare runs with significance tests",
        description=(
            "Evaluate every run, then report per-system means with bootstrap confidence intervals "
            "and paired significance tests of every system against the baseline (the first run "
            "unless --baseline), with a multiple-testing correction over all (system x measure) pairs."
        ),
    )
    add_run_arguments(p)
    add_comparison_options(p)
    p.add_argument("--format", default="table", choices=FORMATS, help="output format (default: table)")
    options.add_csv_safe_option(p)
    p.add_argument("--plot", metavar="PNG", help="also write an overview plot (needs matplotlib)")
    p.set_defaults(handler=run)


def _render(comparison: Any, fmt: str, csv_safe: bool = False) -> str | None:
    """The comparison in ``fmt``; with segments, each segment's comparison after the overall one
    (CSV: the ``segment_pairs`` table). None for the terminal table, which is printed."""
    if fmt == "json":
        return comparison.to_json() + "\n"
    if fmt == "csv":
        return str(comparison.to_csv("segment_pairs" if comparison.groups is not None else "pairs", safe=csv_safe))
    if fmt == "markdown":
        from rankmeter.report.tables import render_markdown

        return _with_segments(comparison, render_markdown, "\n### segment {} ({} queries)\n\n")
    if fmt == "latex":
        from rankmeter.report.tables import render_latex

        return _with_segments(comparison, render_latex, "\n%% segment {} ({} queries)\n")
    return None


def _with_segments(comparison: Any, render: Any, title: str) -> str:
    from rankmeter.results import segment_text

    text = str(render(comparison))
    for group in comparison.groups or []:
        text += title.format(segment_text(group.segment), group.n_queries) + str(
            render(comparison.within(group.segment))
        )
    return text


def run(args: argparse.Namespace) -> int:
    """Run ``rankmeter compare``.

    Evaluates the runs, prints the comparison in ``args.format`` on stdout and
    writes the overview plot to ``args.plot`` if given. Errors are printed as
    one line on stderr.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed by the parser of :func:`add_parser`.

    Returns
    -------
    int
        Exit status: 0 on success, 1 for bad input, 2 for bad options.
    """
    from rankmeter.errors import RankmeterError
    from rankmeter.stats.significance import compare

    def fail(message: str, status: int = USAGE_ERROR) -> int:
        print(f"rankmeter compare: error: {printable(message)}", file=sys.stderr)
        return status

    try:
        comparison = compare(
            args.qrels,
            named_runs(args),
            args.measures,
            **comparison_options(args),
        )
    except RankmeterError as exc:
        return fail(str(exc), exit_status(exc))
    except OSError as exc:
        return fail(f"{exc.filename or ''}: {exc.strerror or exc}", INPUT_ERROR)

    text = _render(comparison, args.format, args.csv_safe)
    if text is None:
        from rankmeter.report.tables import print_table
        from rankmeter.results import segment_text

        print_table(comparison)
        for group in comparison.groups or []:
            print(f"\nsegment {segment_text(group.segment)} ({group.n_queries} queries)")
            print_table(comparison.within(group.segment))
    else:
        sys.stdout.write(text)
    if args.plot:
        try:
            from rankmeter.report.plots import plot_overview

            path = plot_overview(comparison, args.plot)
        except ImportError as exc:
            return fail(str(exc))
        print(f"plot written to {path}", file=sys.stderr)
    return 0
