"""``rankmeter measures``: list every measure family with its parameters and definition."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankmeter.measures.family import Family


def add_parser(sub: Any) -> None:
    """Register the ``measures`` subcommand."""
    p = sub.add_parser("measures", help="list every measure with its parameters and definition")
    p.set_defaults(handler=run)


def describe() -> str:
    """One block per family: name, cutoff rule, aggregation, parameters, definition.

    The families of :func:`rankmeter.evaluate` first, then the judgment-free ones of
    :func:`rankmeter.similarity` (:mod:`rankmeter.measures.similarity_families`).

    >>> text = describe()
    >>> "ndcg " in text, "judgment-free measures (rankmeter.similarity" in text, "rbo_prefix " in text
    (True, True, True)
    """
    from rankmeter.measures import ALIASES, FAMILIES, similarity_families

    blocks = _blocks(FAMILIES.values(), ALIASES)
    blocks.append("judgment-free measures (rankmeter.similarity: two runs compared, @k cuts both lists)")
    blocks += _blocks(similarity_families.FAMILIES, similarity_families.ALIASES)
    return "\n".join(blocks) + "\n"


def _blocks(families: Iterable[Family], alias_table: dict[str, str]) -> list[str]:
    aliases: dict[str, list[str]] = {}
    for alias, family in alias_table.items():
        aliases.setdefault(family, []).append(alias)
    blocks = []
    for fam in families:
        cut = {"required": "@k required", "optional": "@k optional", "none": "no cutoff"}[fam.cutoff]
        head = f"{fam.name:<12} {fam.description}"
        info = [f"    {cut}; aggregated by {fam.aggregate}"]
        if fam.trec_name:
            info.append(f"    trec_eval: {fam.trec_name}")
        if fam.name in aliases:
            info.append(f"    aliases: {', '.join(sorted(aliases[fam.name]))}")
        for pname, param in fam.params.items():
            default = "none" if param.default is None else param.default
            info.append(f"    {pname}={default}: {param.doc}")
        blocks.append("\n".join([head, *info]))
    return blocks


def run(args: argparse.Namespace) -> int:
    """Print the measure list."""
    print(describe(), end="")
    return 0
