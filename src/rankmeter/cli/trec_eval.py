"""``rankmeter trec_eval [trec_eval flags] QRELS RUN``: a drop-in for trec_eval 10, byte for byte.

The subcommand hands its arguments untouched to :func:`rankmeter.trec_eval.app.run_trec_eval`,
which parses them exactly as trec_eval does (``-mP.5,10``, ``-m P.5,10``,
``-M1000``, ``-l2``, ``-qc``, long options). :func:`main` is the standalone
``rankmeter-trec-eval`` console script.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any


def add_parser(sub: Any) -> None:
    """Register the ``trec_eval`` subcommand (all arguments are passed through to trec_eval's parser)."""
    p = sub.add_parser(
        "trec_eval",
        help="trec_eval 10 drop-in: same flags, same output (try 'rankmeter trec_eval -h')",
        description="Evaluate like trec_eval 10 (same flags, same output). Run 'rankmeter trec_eval -h'.",
        add_help=False,
        prefix_chars="\x00",
    )
    p.add_argument("trec_eval_args", nargs=argparse.REMAINDER, help="trec_eval's flags and the two files")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``rankmeter trec_eval``."""
    from rankmeter.trec_eval.app import run_trec_eval

    return run_trec_eval(list(args.trec_eval_args))


def main(argv: Sequence[str] | None = None) -> int:
    """``rankmeter-trec-eval [flags] QRELS RUN`` on ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    from rankmeter.trec_eval.app import run_trec_eval

    return run_trec_eval(sys.argv[1:] if argv is None else list(argv))


def script() -> int:
    """The ``rankmeter-trec-eval`` console script: :func:`main` on ``sys.argv``, then the process ends
    (:func:`~rankmeter.cli.status.end_process`)."""
    from rankmeter.cli.status import end_process

    return end_process(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
