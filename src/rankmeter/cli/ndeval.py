"""``rankmeter ndeval [ndeval's options] QRELS RUN``: a drop-in for NIST's ndeval 4.5 (same options, same CSV).

The arguments are handed untouched to :func:`rankmeter.ndeval.app.run_ndeval`, which parses them as
ndeval does (``-alpha 0.5``, ``-traditional``, ``-c``, ``-M 20``, ``-baseline RUN``).
"""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    """Register the ``ndeval`` subcommand (all arguments are passed through to ndeval's parser)."""
    p = sub.add_parser(
        "ndeval",
        help="NIST ndeval drop-in: diversity measures, same options, same CSV output (try 'rankmeter ndeval -help')",
        description="Evaluate like ndeval (same options, same output). Run 'rankmeter ndeval -help'.",
        add_help=False,
        prefix_chars="\x00",
    )
    p.add_argument("ndeval_args", nargs=argparse.REMAINDER, help="ndeval's options and the two files")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``rankmeter ndeval``."""
    from rankmeter.ndeval.app import run_ndeval

    return run_ndeval(list(args.ndeval_args))
