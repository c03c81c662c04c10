"""Command-line options shared by the subcommands that evaluate runs (``evaluate``, ``compare``)."""

from __future__ import annotations

import argparse
from typing import Any

from rankmeter.aggregate import EMPTY_POLICIES
from rankmeter.core.align import DUPLICATE_POLICIES, MISSING_POLICIES
from rankmeter.core.ties import TIE_POLICIES


def add_evaluation_options(
    parser: argparse.ArgumentParser, *, empty_policies: tuple[str, ...] = EMPTY_POLICIES
) -> None:
    """``--ties --empty --missing --duplicates --depth --judged-only``, the options of :func:`rankmeter.evaluate`.

    >>> p = argparse.ArgumentParser(); add_evaluation_options(p)
    >>> evaluation_options(p.parse_args(["--ties", "expected", "--depth", "5"]))["ties"]
    'expected'
    """
    parser.add_argument("--ties", choices=TIE_POLICIES, default="trec", help="tie policy (default: trec)")
    parser.add_argument(
        "--empty",
        choices=empty_policies,
        default="zero",
        help="queries with no relevant judged document (default: zero)",
    )
    parser.add_argument(
        "--missing",
        choices=MISSING_POLICIES,
        default="zero",
        help="judged queries absent from the run (default: zero, as trec_eval -c)",
    )
    parser.add_argument(
        "--duplicates",
        choices=DUPLICATE_POLICIES,
        default="error",
        help="repeated (query, document) pairs (default: error)",
    )
    parser.add_argument("--depth", type=int, default=None, help="evaluate only the top N of each query (trec_eval -M)")
    parser.add_argument("--judged-only", action="store_true", help="drop unjudged documents (trec_eval -J)")


def evaluation_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments for :func:`rankmeter.evaluate` from parsed :func:`add_evaluation_options` flags."""
    return {
        "ties": args.ties,
        "empty": args.empty,
        "missing": args.missing,
        "duplicates": args.duplicates,
        "depth": args.depth,
        "judged_only": args.judged_only,
    }
