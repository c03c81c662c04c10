"""``rankmeter evaluate --engine spark|dask``: the evaluation on a cluster engine instead of this process."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rankmeter.cli.options import MAX_PARALLEL, integer
from rankmeter.errors import PolicyError

if TYPE_CHECKING:
    from rankmeter.core.semantics import Semantics
    from rankmeter.results import EvaluationResult

ENGINES = ("local", "spark", "dask")


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """``--engine`` and ``--partitions``."""
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="where to evaluate: this process (default), Spark (the active or a new local[*] session; "
        "rankmeter[spark]) or dask (the current scheduler; rankmeter[dask]); the values are the same",
    )
    parser.add_argument(
        "--partitions",
        type=integer(1, MAX_PARALLEL),
        default=None,
        metavar="N",
        help="partitions by query for --engine spark|dask",
    )


def evaluate_on_engine(
    args: argparse.Namespace, qrels: Any, run: Any, measures: list[str], semantics: Semantics, **pairs: Any
) -> EvaluationResult:
    """The result of ``rankmeter.spark.evaluate`` or ``rankmeter.dask.evaluate`` on one run.

    ``pairs``: ``exclude=`` and ``candidates=``, passed on.
    """
    if args.stream:
        raise PolicyError(f"--stream reads the run in this process; it does not go with --engine {args.engine}")
    result: Any
    if args.engine == "spark":
        from rankmeter.spark import evaluate as on_spark

        result = on_spark(qrels, run, measures, semantics=semantics, partitions=args.partitions, **pairs)
    else:
        from rankmeter.dask import evaluate as on_dask

        result = on_dask(qrels, run, measures, semantics=semantics, partitions=args.partitions, **pairs)
    evaluated: EvaluationResult = result.result
    return evaluated
