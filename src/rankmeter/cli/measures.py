"""``rankmeter measures``: list every measure family with its parameters and definition."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    """Register the ``measures`` subcommand."""
    p = sub.add_parser("measures", help="list every measure with its parameters and definition")
    p.set_defaults(handler=run)


def describe() -> str:
    """One block per family: name, cutoff rule, aggregation, parameters, definition."""
    from rankmeter.measures import ALIASES, FAMILIES

    aliases: dict[str, list[str]] = {}
    for alias, family in ALIASES.items():
        aliases.setdefault(family, []).append(alias)
    blocks = []
    for fam in FAMILIES.values():
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
    return "\n".join(blocks) + "\n"


def run(args: argparse.Namespace) -> int:
    """Print the measure list."""
    print(describe(), end="")
    return 0
