"""Command-line options shared by the subcommands that evaluate runs (``evaluate``, ``compare``): the semantics."""

from __future__ import annotations

import argparse

from rankmeter.core.semantics import DUPLICATE_POLICIES, EMPTY_POLICIES, MISSING_POLICIES, TIE_POLICIES, Semantics


def add_evaluation_options(
    parser: argparse.ArgumentParser, *, empty_policies: tuple[str, ...] = EMPTY_POLICIES
) -> None:
    """``--ties --empty --missing --duplicates --depth --judged-only``, the options of :func:`rankmeter.evaluate`.

    Flags and defaults are those of :class:`rankmeter.Semantics`.

    >>> p = argparse.ArgumentParser(); add_evaluation_options(p)
    >>> semantics_from_args(p.parse_args(["--ties", "stable", "--depth", "5"])).depth
    5
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


def semantics_from_args(args: argparse.Namespace, seed: int | None = None) -> Semantics:
    """The :class:`~rankmeter.Semantics` of parsed :func:`add_evaluation_options` flags (``seed`` for shuffled ties).

    >>> p = argparse.ArgumentParser(); add_evaluation_options(p)
    >>> semantics_from_args(p.parse_args(["--empty", "skip"])).as_dict()["empty"]
    'skip'
    """
    return Semantics(
        ties=args.ties,
        empty=args.empty,
        missing=args.missing,
        duplicates=args.duplicates,
        depth=args.depth,
        judged_only=args.judged_only,
        seed=seed,
    )
