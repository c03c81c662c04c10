"""Ids and system names with separators, quotes, markup and LaTeX specials: round-trip or cannot inject markup."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.cli.text_table import render_text_table
from rankmeter.errors import InputFormatError
from rankmeter.report import render_latex, render_markdown

HOSTILE = [
    "a,b",
    'say "hi"',
    "it's",
    "t\tab",
    "line\nbreak",
    "<script>alert(1)</script>",
    "50%_&$#{}~^\\",
    "a|b*c`d",
    "=1+2",
    "é ü 中",
    "  padded  ",
    "\x1b[31mred",
]

IDS = st.lists(st.sampled_from(HOSTILE) | st.text(min_size=1, max_size=8), min_size=1, max_size=5, unique=True)


def _result(qids: list[str]) -> rankmeter.EvaluationResult:
    qrels = {q: {"d1": 1, "d2": 0} for q in qids}
    run = {q: {"d1": float(i), "d2": 1.5} for i, q in enumerate(qids)}
    return rankmeter.evaluate(qrels, run, ["map", "ndcg@2"])


@settings(max_examples=40, deadline=None, database=None)
@given(qids=IDS.filter(lambda q: "all" not in q))  # the aggregate rows' name: tests/test_result_aggregate_name.py
def test_csv_and_json_round_trip_any_query_id(qids) -> None:
    res = _result(qids)
    rows = list(csv.DictReader(io.StringIO(res.to_csv())))
    got = {(r["query_id"], r["measure"]): float(r["value"]) for r in rows[: len(res.per_query)]}
    want = {(r["query_id"], r["measure"]): r["value"] for r in res.per_query}
    assert got == want
    back = json.loads(res.to_json())
    assert {(r["query_id"], r["measure"]): r["value"] for r in back["per_query"]} == want


def test_csv_round_trips_system_names_of_several_runs() -> None:
    qrels = {"1": {"a": 1}}
    runs = {name: {"1": {"a": 1.0, "b": 2.0}} for name in HOSTILE[:6]}
    res = rankmeter.evaluate(qrels, runs, ["rr"])
    rows = list(csv.DictReader(io.StringIO(res.to_csv())))
    assert {r["system"] for r in rows} == set(HOSTILE[:6])
    assert json.loads(res.to_json()).keys() >= {"aggregate"}


def _comparison(names: list[str]):
    qrels = {str(q): {"a": 1, "b": 1} for q in range(6)}
    runs = {name: {str(q): {"a": float((q + i) % 3), "b": 1.0} for q in range(6)} for i, name in enumerate(names)}
    return rankmeter.compare(qrels, runs, ["map", "p@1"], n_resamples=200)


def test_markdown_cannot_inject_markup_or_break_the_table() -> None:
    names = ["<script>alert(1)</script>", "a|b", "x_y*z", "line\nbreak"]
    text = render_markdown(_comparison(names), details=False)
    assert "<script>" not in text and "&lt;script&gt;" in text
    table = [line for line in text.splitlines() if line.startswith("|")]
    cells = {len(re.split(r"(?<!\\)\|", line)) for line in table}
    assert len(cells) == 1  # every row has as many unescaped pipes
    assert not any(line.startswith("break") for line in text.splitlines())


def test_latex_escapes_every_special_character() -> None:
    names = ["50%_&$#{}~^\\", "<b>"]
    text = render_latex(_comparison(names))
    assert r"50\%\_\&\$\#\{\}\textasciitilde{}\textasciicircum{}\textbackslash{}" in text
    assert r"\textless{}b\textgreater{}" in text
    body = text.replace(r"\\", "")  # row ends
    for special in "%$#_":
        assert not re.search(rf"(?<!\\){re.escape(special)}", body.split("System", 1)[1].split(r"\bottomrule")[0])


def test_trec_text_refuses_ids_it_cannot_hold_and_keeps_the_others() -> None:
    good = ["a,b", 'say"hi"', "<script>", "50%_&$#{}"]
    text = _result(good).to_trec_eval(per_query=True)
    assert {line.split("\t")[1] for line in text.splitlines()} == {*good, "all"}
    with pytest.raises(InputFormatError, match=r"query 't\\tab': trec_eval's text format"):
        _result(["t\tab"]).to_trec_eval(per_query=True)


def test_terminal_table_shows_control_characters_as_escapes() -> None:
    text = render_text_table(["query", "map"], [["\x1b[31mred", "1.0"], ["line\nbreak", "0.5"]])
    assert "\x1b" not in text and "\\x1b[31mred" in text
    assert len(text.splitlines()) == 4
