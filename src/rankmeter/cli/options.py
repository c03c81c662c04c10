"""Command-line options shared by the subcommands: the semantics, the segments of ``--group-by``, and the
ranges of numeric options.

Every numeric option is read by :func:`integer` or :func:`fraction`, which accept ASCII decimal numbers
only (no ``1_0``, no other digit scripts, as every reader of rankmeter) and check the option's range while
the command line is parsed, before any file is read: a value out of range is one ``error:`` line naming
the option, exit status 2.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from typing import Any

from rankmeter.core.semantics import DUPLICATE_POLICIES, EMPTY_POLICIES, MISSING_POLICIES, TIE_POLICIES, Semantics
from rankmeter.errors import PolicyError

MAX_INT64 = 2**63 - 1
MAX_SEED = 2**64 - 1
MAX_DIGITS = 17
"""Decimals a table may show: a float64 holds 17 significant digits, more would print noise."""
MAX_BLOCK_MB = 1024
"""The largest ``--block-mb``: a block is held in memory (with the largest query)."""
MAX_RESAMPLES = 10_000_000
MAX_PARALLEL = 1024
"""The most ``--threads``, ``--workers`` or ``--partitions``."""


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 30 else repr(text[:12] + "...") + f" ({len(text)} characters)"


def integer(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: an ASCII decimal integer in [low, high].

    >>> integer(1, 10)("7")
    7
    >>> integer(1, 10)("\u0667")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer in [1, 10], got '\u0667'
    """

    def parse(text: str) -> int:
        digits = text.lstrip("+-").lstrip("0")
        if not re.fullmatch(r"[+-]?[0-9]+", text) or len(digits) > 30 or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"must be an integer in [{low}, {high}], got {_shown(text)}")
        return int(text)

    parse.__name__ = "integer"  # argparse names the type in its own messages
    return parse


def fraction(text: str) -> float:
    """An argparse ``type``: a number strictly between 0 and 1 (a confidence or significance level).

    >>> fraction("0.95")
    0.95
    >>> fraction("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a number in (0, 1), got 'nan'
    """
    if re.fullmatch(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", text) and 0 < float(text) < 1:
        return float(text)
    raise argparse.ArgumentTypeError(f"must be a number in (0, 1), got {_shown(text)}")


def check_resamples(level: float | None, n_resamples: int) -> None:
    """Refuse too few resamples for a ``level`` interval: each tail needs one, so n >= 2 / (1 - level).

    With fewer, the interval's ends are single resamples (``--ci 0.95 --n-resamples 1`` gave an "interval"
    that excluded the estimate).

    >>> check_resamples(0.95, 40)
    >>> check_resamples(0.95, 39)
    Traceback (most recent call last):
    ...
    rankmeter.errors.PolicyError: --n-resamples 39 is too few for a 95% interval: at least 40 (2 / (1 - level))
    """
    if level is None:
        return
    need = math.ceil(round(2 / (1 - level), 9))
    if n_resamples < need:
        raise PolicyError(
            f"--n-resamples {n_resamples} is too few for a {level:.0%} interval: at least {need} (2 / (1 - level))"
        )


def add_csv_safe_option(parser: argparse.ArgumentParser) -> None:
    """``--csv-safe``: with ``--format csv``, ids a spreadsheet would run as formulas get a leading ``'``."""
    parser.add_argument(
        "--csv-safe",
        action="store_true",
        help="with --format csv: prefix ids starting with = + - @ (tab, CR) with ' so that a spreadsheet does not run "
        "them as formulas; such ids then no longer read back unchanged (default: off, the CSV round-trips)",
    )


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
    parser.add_argument(
        "--depth", type=integer(1, MAX_INT64), default=None, help="evaluate only the top N of each query (trec_eval -M)"
    )
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
