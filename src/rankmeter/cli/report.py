"""``rankmeter report``: one self-contained HTML page comparing runs against a baseline.

Usage::

    rankmeter report QRELS RUN_A RUN_B [RUN_C ...] -m ndcg@10 -m map -o report.html
        [--title TEXT] [every option of ``rankmeter compare``: --test, --correction, --baseline, ...]

The numbers are those of ``rankmeter compare`` with the same options; the page
(:func:`rankmeter.report.html`) adds per-query plots and tables, diagnostics and
the command that made it. Needs the ``report`` extra (``pip install 'rankmeter[report]'``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from rankmeter.cli.compare_command import add_comparison_options, comparison_options
from rankmeter.cli.runs import add_run_arguments, named_runs
from rankmeter.cli.status import INPUT_ERROR, USAGE_ERROR, exit_status
from rankmeter.io.escaping import printable


def add_parser(subparsers: Any) -> None:
    """Register the ``report`` subcommand on an :mod:`argparse` subparsers object.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="rankmeter")
    >>> add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["report", "q.txt", "a.run", "b.run", "-m", "map", "-o", "r.html"])
    >>> args.runs, args.output, args.test, args.handler is run
    (['a.run', 'b.run'], 'r.html', 't', True)
    """
    p = subparsers.add_parser(
        "report",
        help="write a self-contained HTML report comparing runs",
        description=(
            "Evaluate and compare runs as `rankmeter compare` does and write one HTML file (no network "
            "needed to open it): systems x measures with confidence intervals, paired tests with "
            "corrected p-values, per-query plots and a sortable per-query table, diagnostics."
        ),
    )
    add_run_arguments(p)
    p.add_argument("-o", "--output", required=True, metavar="HTML", help="where to write the report")
    p.add_argument("--title", help="page title (default: the systems' names)")
    add_comparison_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rankmeter report``: write the page to ``args.output``; exit status 0, 1 (bad input) or 2 (bad usage).

    Errors are printed as one line on stderr.
    """
    from rankmeter.errors import RankmeterError

    def fail(message: str, status: int = USAGE_ERROR) -> int:
        print(f"rankmeter report: error: {printable(message)}", file=sys.stderr)
        return status

    argv = getattr(args, "argv", None)
    command = shlex.join(["rankmeter", *argv]) if argv is not None else None
    try:
        runs = named_runs(args)
        from rankmeter.report.page import html

        html(
            args.qrels,
            runs,
            args.measures,
            output=args.output,
            title=args.title,
            command=command,
            **comparison_options(args),
        )
    except RankmeterError as exc:
        return fail(str(exc), exit_status(exc))
    except ImportError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"{exc.filename or ''}: {exc.strerror or exc}", INPUT_ERROR)
    print(f"report written to {args.output}", file=sys.stderr)
    return 0
