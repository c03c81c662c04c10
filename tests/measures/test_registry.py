"""The measure tables: a name means the same looked up in the core families first or in the whole table.

A job that names only core families (``ndcg``, ``map``, ``mrr``, ...) is answered from
:mod:`rankmeter.measures.core_families` without importing the other family modules; these tests show
that every name gets the same family either way, that the registry refuses a name given two meanings
(which is what keeps the two look-ups equal), and which modules a fresh interpreter loads.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rankmeter import MeasureSyntaxError
from rankmeter.measures import ALIASES, FAMILIES, core_families, parse, registry, trec_families
from rankmeter.measures._tables import canonical_name, family_row

OTHER_FAMILY_MODULES = [
    "rankmeter.measures.registry",
    "rankmeter.measures.trec_families",
    "rankmeter.measures.diversity_families",
    "rankmeter.measures.ir_families",
    "rankmeter.measures.recsys_families",
    "rankmeter.measures.beyond_families",
]


def test_every_family_and_alias_resolves_as_in_the_whole_table() -> None:
    for name in FAMILIES:
        assert canonical_name(name) == name
        assert family_row(name) is FAMILIES[name]
    for alias, name in ALIASES.items():
        assert canonical_name(alias) == name
    assert canonical_name("no_such_measure") is None
    with pytest.raises(KeyError):
        family_row("no_such_measure")


def test_the_core_rows_come_first_in_the_table() -> None:
    assert list(FAMILIES)[: len(core_families.FAMILIES)] == [f.name for f in core_families.FAMILIES]
    assert all(FAMILIES[f.name] is f for f in core_families.FAMILIES)
    assert {a: ALIASES[a] for a in core_families.ALIASES} == core_families.ALIASES


def test_an_alias_given_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec_families, "ALIASES", {**trec_families.ALIASES, "mrr": "bpref"})
    with pytest.raises(RuntimeError, match="measure name 'mrr' registered twice"):
        registry.tables()


def test_an_alias_spelled_like_a_family_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec_families, "ALIASES", {**trec_families.ALIASES, "ndcg": "bpref"})
    with pytest.raises(RuntimeError, match="measure name 'ndcg' registered twice"):
        registry.tables()


def test_a_family_given_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec_families, "FAMILIES", [*trec_families.FAMILIES, FAMILIES["map"]])
    with pytest.raises(RuntimeError, match="measure family 'map' registered twice"):
        registry.tables()


def test_core_names_load_no_other_family_module_and_other_names_load_the_table() -> None:
    code = (
        "import json, sys\n"
        "from rankmeter.measures import parse, traits_of\n"
        f"others = {OTHER_FAMILY_MODULES!r}\n"
        "names = [str(parse(n)) for n in ('nDCG@10', 'MRR', 'map', 'ndcg_burges@5', 'P(rel=2)@5', 'err@3')]\n"
        "core = [traits_of(n).top_k for n in ('ndcg', 'lrap')]\n"
        "before = [m for m in others if m in sys.modules]\n"
        "bpref = str(parse('BPREF'))\n"
        "print(json.dumps([names, core, before, [m for m in others if m not in sys.modules], bpref]))"
    )
    got = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert got == [
        ["ndcg@10", "rr", "map", "ndcg(gain=exp)@5", "p(min_rel=2)@5", "err@3"],
        [True, False],
        [],
        [],
        "bpref",
    ]


def test_an_unknown_name_lists_every_family() -> None:
    with pytest.raises(
        MeasureSyntaxError, match=r"unknown measure 'ndgc'; did you mean 'ndcg'\?; known measures: .*bpref"
    ):
        parse("ndgc@10")


def test_an_unknown_attribute_of_the_package_is_named_on_the_package() -> None:
    import rankmeter.measures

    with pytest.raises(AttributeError, match="module 'rankmeter.measures' has no attribute 'nope'"):
        rankmeter.measures.nope  # noqa: B018
