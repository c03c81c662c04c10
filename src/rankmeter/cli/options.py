"""Command-line options shared by the subcommands that evaluate runs (``evaluate``, ``compare``): the semantics,
and the segments of ``--group-by``."""

from __future__ import annotations

import argparse
from typing import Any

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


def add_group_options(parser: argparse.ArgumentParser) -> None:
    """``--group-by FILE_OR_COLUMN`` and ``--group-missing``: results per segment (``group_by=`` of the API).

    >>> p = argparse.ArgumentParser(); add_group_options(p)
    >>> spec = group_by_from_args(p.parse_args(["--group-by", "cohort", "--group-missing", "none"]))
    >>> spec.by, spec.missing
    ('cohort', 'none')
    >>> group_by_from_args(p.parse_args([])) is None
    True
    """
    parser.add_argument(
        "--group-by",
        metavar="FILE_OR_COLUMN",
        default=None,
        help="also aggregate per segment: a CSV/TSV/Parquet/Feather file with query id (query_id, user_id, qid) "
        "and segment (segment, group) columns, or a column of the qrels or run table files",
    )
    parser.add_argument(
        "--group-missing",
        choices=("error", "skip", "none"),
        default="error",
        help="queries without a segment: fail, leave them out of every segment, or give them the segment "
        "'(none)' (default: error)",
    )


def group_by_from_args(args: argparse.Namespace) -> Any:
    """The :class:`rankmeter.GroupBy` of :func:`add_group_options` flags, or None without ``--group-by``."""
    if args.group_by is None:
        return None
    from rankmeter.segments import GroupBy

    return GroupBy(args.group_by, missing=args.group_missing)
