"""Hypothesis on the number grammar of the dict, frame and file readers, and on hostile ids through every writer.

Numbers: a text value is read by the dict reader, the frame reader and the TREC file reader alike -- the
same float, or the same refusal -- and exactly when the reference grammar (ASCII decimal, finite) says so.
Writers: any id goes through CSV and JSON and comes back unchanged; through Markdown, LaTeX and the HTML
report it cannot inject markup, and undoing the writer's escapes gives it back (line breaks as spaces).
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
import tempfile
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.errors import InputFormatError, InvalidScoreError
from rankmeter.report import render_html, render_latex, render_markdown
from rankmeter.report.tables import _LATEX_SPECIAL, _md_escape

SETTINGS = settings(max_examples=80, deadline=None, database=None, suppress_health_check=list(HealthCheck))

# text that looks like a number: ASCII decimals, digits of every script, separators, signs, words, spaces
NUMBERS = st.one_of(
    st.from_regex(r"[+-]?(?:[0-9]{1,4}\.?[0-9]{0,3}|\.[0-9]{1,3})(?:[eE][+-]?[0-9]{1,3})?", fullmatch=True),
    st.text(st.characters(categories=["Nd"]), min_size=1, max_size=3),
    st.text(st.sampled_from("0123456789_.eE+-x\u0661\u0665\u00bd\u00a0 infatyINF"), min_size=1, max_size=6),
)
_DIR = Path(tempfile.mkdtemp(prefix="rankmeter-numbers-"))
QRELS = {"1": {"a": 1, "b": 0}}
PLAIN = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
"""The reference grammar, written out again: ASCII digits only (``nan`` and ``inf`` are then refused as not finite)."""


def _outcome(run: object) -> float | str:
    try:
        return rankmeter.evaluate(QRELS, run, "rr").aggregate["rr"]
    except (InvalidScoreError, InputFormatError):  # a frame names a NaN as a missing value
        return "refused"


@SETTINGS
@given(NUMBERS)
def test_every_reader_reads_a_text_number_alike(text: str) -> None:
    want_ok = bool(PLAIN.fullmatch(text)) and math.isfinite(float(text))
    by_dict = _outcome({"1": {"a": text, "b": "0.5"}})
    frame = pd.DataFrame(
        {"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": pd.Series([text, "0.5"], dtype=object)}
    )
    by_frame = _outcome(frame)
    assert by_dict == by_frame
    assert (by_dict != "refused") == want_ok, text
    if want_ok:
        assert by_dict == (1.0 if float(text) > 0.5 else 0.5)
    if text and not re.search(r"\s", text) and "#" not in text:  # a TREC field: no whitespace
        path = _DIR / "run.txt"
        path.write_text(f"1 Q0 a 1 {text} t\n1 Q0 b 2 0.5 t\n", encoding="utf-8")
        assert _outcome(str(path)) == by_dict, text


@SETTINGS
@given(st.one_of(st.integers(), st.floats(), st.complex_numbers(), st.decimals(allow_nan=True)))
def test_python_numbers_in_dicts_and_frames_are_read_alike(value: object) -> None:
    by_dict = _outcome({"1": {"a": value, "b": 0.5}})
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": pd.Series([value, 0.5], dtype=object)})
    assert _outcome(frame) == by_dict
    try:
        ok = not isinstance(value, complex) and math.isfinite(float(value))  # type: ignore[arg-type]
    except (OverflowError, ValueError):  # ints past the float range; Decimal's signalling NaN
        ok = False
    assert (by_dict != "refused") == ok, value


IDS = st.text(min_size=1, max_size=12)


def _comparison(names: list[str]) -> rankmeter.stats.Comparison:
    qids = ["1", "2", "3"]
    runs = {name: (qids, ["map"], [[1.0 - 0.1 * i], [0.5], [0.2 * i]]) for i, name in enumerate(names)}
    return rankmeter.stats.compare_per_query(runs, n_resamples=50)


@SETTINGS
@given(st.lists(IDS, min_size=2, max_size=3, unique=True))
def test_system_names_round_trip_through_csv_and_json(names: list[str]) -> None:
    cmp = _comparison(names)
    rows = list(csv.DictReader(io.StringIO(cmp.to_csv("systems"), newline="")))
    assert {r["name"] for r in rows} == set(names)
    safe = {r["name"] for r in csv.DictReader(io.StringIO(cmp.to_csv("systems", safe=True), newline=""))}
    assert safe == {"'" + n if n[0] in "=+-@\t\r" else n for n in names}
    assert {s["name"] for s in json.loads(cmp.to_json())["systems"]} == set(names)


def _md_unescape(cell: str) -> str:
    cell = re.sub(r"\\(.)", r"\1", cell)
    return cell.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


@SETTINGS
@given(IDS)
def test_markdown_cells_hold_no_markup_and_give_the_id_back(name: str) -> None:
    cell = _md_escape(name)
    assert not re.search(r"(?<!\\)[|\[\]*_`<>\n\r]", cell)
    assert _md_unescape(cell) == name.replace("\n", " ").replace("\r", " ")
    text = render_markdown(_comparison([name, name + "!"]), details=False)
    assert text.count(cell) >= 1


_LATEX_BACK = sorted(((v, k) for k, v in _LATEX_SPECIAL.items() if k not in "\n\r"), key=lambda kv: -len(kv[0]))


def _latex_unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        for escaped, raw in _LATEX_BACK:
            if text.startswith(escaped, i):
                out.append(raw)
                i += len(escaped)
                break
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


@SETTINGS
@given(IDS)
def test_latex_gives_the_id_back_and_no_bare_special(name: str) -> None:
    text = render_latex(_comparison([name, "b" + name]))
    row = next(line for line in text.split("\n") if line.endswith(r"\\") and "(baseline)" in line)
    shown = row.split(" (baseline)")[0]
    assert _latex_unescape(shown) == name.replace("\n", " ").replace("\r", " ")
    assert not re.search(r"(?<!\\)[%$#_&{}]", shown.replace(r"\textbackslash{}", "").replace(r"{}", ""))


@settings(max_examples=15, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(IDS)
def test_html_report_escapes_the_id_and_keeps_it(name: str) -> None:
    page = render_html(_comparison([name, name + "2"]))
    data = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
    assert data is not None
    assert "<" not in data.group(1) and ">" not in data.group(1)
    assert name in json.loads(data.group(1))["systems"]
    visible = re.sub(r"<script.*?</script>|<style.*?</style>", "", page, flags=re.S)
    if "<" in name:
        assert name not in visible  # never as markup
    assert name in html.unescape(visible)
