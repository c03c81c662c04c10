"""``rankmeter report`` / ``rankmeter.report.html``: the page, opened in headless Chromium.

The page must load from disk with no console error and no network request,
hold the numbers of ``rankmeter compare --format json`` (to the last digit in
its ``data-*`` attributes, rounded as shown in its text), show every query's
values in the per-query table, sort it, show a query on hover, and never run
markup taken from an id.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter.cli.main import main
from rankmeter.report.page import fmt, fmt_p, script_json
from tests.report.browser import browser, open_report

HOSTILE = ["<img/src=x/onerror=window.pwned=1>", "</script><script>window.pwned=2</script>", "a&amp;b"]
MEASURES = ["ndcg@10", "map", "p@5"]


def write_files(tmp: Path, n_queries: int = 30) -> tuple[Path, list[Path]]:
    """Qrels and three runs: tied scores, a query missing from one run, a query only in another."""
    rng = np.random.default_rng(18)
    queries = [f"q{i:02d}" for i in range(n_queries - len(HOSTILE))] + HOSTILE
    rels = {(q, d): int(rng.integers(0, 3)) * int(rng.random() < 0.4) for q in queries for d in range(15)}
    qrels = tmp / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{d} {r}\n" for (q, d), r in rels.items()))
    runs = []
    for name, noise in [("bm25", 2.0), ("dense", 1.0), ("hybrid", 0.6)]:
        lines = []
        for q in queries:
            if name == "dense" and q == "q03":
                continue  # judged, missing from this run
            for d in range(15):
                score = round(rels[(q, d)] + rng.normal(0, noise), 1)  # one decimal: ties
                lines.append(f"{q} Q0 d{d} 0 {score} {name}\n")
        if name == "hybrid":
            lines.append(f"zz-unjudged Q0 d1 0 1.0 {name}\n")  # only in the run
        path = tmp / f"{name}.run"
        path.write_text("".join(lines))
        runs.append(path)
    return qrels, runs


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("report")
    qrels, runs = write_files(tmp)
    common = [str(qrels), *map(str, runs), *(a for m in MEASURES for a in ("-m", m)), "--n-resamples", "500"]
    out = tmp / "out" / "report.html"
    out.parent.mkdir()  # rankmeter creates no directories
    assert main(["report", *common, "-o", str(out), "--title", "three systems"]) == 0
    return {"tmp": tmp, "qrels": qrels, "runs": runs, "argv": common, "html": out}


@pytest.fixture(scope="module")
def compare_json(made: dict) -> dict:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["compare", *made["argv"], "--format", "json"]) == 0
    return json.loads(buf.getvalue())


@pytest.fixture(scope="module")
def page(made: dict):
    with browser() as context:
        loaded = open_report(context, made["html"])
        yield loaded
        loaded.page.screenshot(path=str(made["tmp"] / "report.png"), full_page=True)


def numbers(text: str) -> float | None:
    return None if text in ("", "nan") else float(text)


def test_loads_without_errors_or_network(page, made: dict) -> None:
    assert page.page.evaluate("document.documentElement.dataset.ready") == "true"
    assert page.problems() == []
    assert page.page.title() == "three systems"
    # the file holds its scripts: no src= attribute, no link to a stylesheet
    assert page.page.evaluate("document.querySelectorAll('script[src], link[rel=stylesheet]').length") == 0
    assert page.page.locator("#diff-plot canvas").count() == 1
    assert page.page.locator("#paired-plot canvas").count() == 1
    assert page.page.locator("#means-plot canvas").count() == 1


def test_ids_are_text_never_markup(page) -> None:
    assert page.page.evaluate("window.pwned") is None
    assert page.page.evaluate("document.querySelectorAll('img').length") == 0
    assert page.page.evaluate("document.querySelectorAll('script').length") == 4  # data, comparison, vega, report
    shown = page.page.eval_on_selector_all("#per-query-table tbody td.qid", "cells => cells.map(c => c.textContent)")
    assert set(HOSTILE) <= set(shown)


def test_systems_table_matches_compare_json(page, compare_json: dict) -> None:
    cells = page.page.eval_on_selector_all(
        "#systems-table td[data-system]",
        "cells => cells.map(c => ({system: c.dataset.system, measure: c.dataset.measure, mean: c.dataset.mean, "
        "low: c.dataset.low, high: c.dataset.high, text: c.querySelector('.mean').textContent, "
        "ci: c.querySelector('.ci').textContent}))",
    )
    expected = {(r["name"], r["measure"]): r for r in compare_json["systems"]}
    assert len(cells) == len(expected) == 3 * len(MEASURES)
    for cell in cells:
        row = expected[(cell["system"], cell["measure"])]
        assert float(cell["mean"]) == row["mean"]
        assert float(cell["low"]) == row["ci_low"] and float(cell["high"]) == row["ci_high"]
        assert cell["text"] == f"{row['mean']:.4f}"
        assert cell["ci"] == f"[{row['ci_low']:.4f}, {row['ci_high']:.4f}]"


def test_pairs_table_matches_compare_json(page, compare_json: dict) -> None:
    rows = page.page.eval_on_selector_all(
        "#pairs-table tbody tr",
        "rows => rows.map(r => ({key: [r.dataset.measure, r.dataset.baseline, r.dataset.system], "
        "cells: Object.fromEntries([...r.querySelectorAll('td[data-field]')].map(c => "
        "[c.dataset.field, [c.dataset.value, c.textContent]]))}))",
    )
    expected = {(p["measure"], p["baseline"], p["system"]): p for p in compare_json["pairs"]}
    assert len(rows) == len(expected) == 2 * len(MEASURES)
    for row in rows:
        pair = expected[tuple(row["key"])]
        cells = row["cells"]
        for field in ("mean_difference", "p_value", "p_adjusted", "statistic", "effect_size_standardized"):
            value = numbers(cells[field][0])
            assert value == pair[field] or (value is None and pair[field] is None), field
        assert cells["p_adjusted"][1] == fmt_p(pair["p_adjusted"])
        assert cells["p_value"][1] == fmt_p(pair["p_value"])
        assert cells["mean_difference"][1] == f"{pair['mean_difference']:+.4f}"
        assert cells["wtl"][0] == f"{pair['wins']}/{pair['ties']}/{pair['losses']}"
        assert cells["significant"][0] == ("true" if pair["significant"] else "false")
    # the corrected p-values are Holm's over the 6 comparisons, not the raw ones
    raw = sorted(p["p_value"] for p in compare_json["pairs"])
    assert min(p["p_adjusted"] for p in compare_json["pairs"]) == pytest.approx(min(1.0, 6 * raw[0]))


def test_per_query_table_holds_every_value(page, made: dict) -> None:
    qrels, runs = made["qrels"], made["runs"]
    results = {r.stem: rankmeter.evaluate(str(qrels), str(r), ["map"]) for r in runs}
    page.page.select_option("#pq-measure", "map")
    head = page.page.eval_on_selector_all("#per-query-table thead th", "ths => ths.map(t => t.textContent)")
    assert head == ["query", "bm25", "dense", "hybrid", "\u0394 dense \u2212 bm25"]
    rows = page.page.eval_on_selector_all(
        "#per-query-table tbody tr", "rows => rows.map(r => [...r.children].map(c => c.title || c.textContent))"
    )
    assert len(rows) == 30
    for query, *values, _delta in rows:
        for name, shown in zip(["bm25", "dense", "hybrid"], values, strict=True):
            assert float(shown) == results[name].by_query("map")[query]
    assert results["dense"].by_query("map")["q03"] == 0.0  # missing: scored zero


def test_per_query_table_sorts(page) -> None:
    table = page.page.locator("#per-query-table")
    page.page.select_option("#pq-measure", "ndcg@10")

    def deltas() -> list[float]:
        return [float(t) for t in table.locator("tbody tr td:last-child").all_text_contents()]

    table.locator("thead th", has_text="\u0394").click()
    ascending = deltas()
    assert ascending == sorted(ascending) and ascending[0] < ascending[-1]
    table.locator("thead th", has_text="\u0394").click()
    assert deltas() == sorted(ascending, reverse=True)
    table.locator("thead th").first.click()
    ids = table.locator("tbody td.qid").all_text_contents()
    assert ids == sorted(ids)


def test_hover_shows_the_query(page, made: dict) -> None:
    """Moving the mouse onto a point of the scatter shows its query and values in a tooltip."""
    p = page.page
    p.select_option("#plot-measure", "map")
    p.wait_for_function("() => document.documentElement.dataset.plotted === 'dense on map'")
    p.locator("#paired-plot").scroll_into_view_if_needed()
    target = p.evaluate(
        """() => {
        const data = JSON.parse(document.getElementById('report-data').textContent);
        const base = data.values.bm25.map, val = data.values.dense.map;
        const i = data.queries.indexOf('q07');
        const view = window.rankmeterViews.paired;
        const [ox, oy] = view.origin();
        const box = view.container().querySelector('canvas').getBoundingClientRect();
        const pad = view.padding();
        return {x: box.left + pad.left + ox + view.scale('x')(base[i]), y: box.top + pad.top + oy + view.scale('y')(val[i]),
                base: base[i], value: val[i]};
    }"""
    )
    p.mouse.move(target["x"] - 10, target["y"] - 10)
    p.mouse.move(target["x"], target["y"], steps=4)
    tooltip = p.locator(".vg-tooltip.visible")
    tooltip.wait_for(state="visible", timeout=5000)
    text = tooltip.text_content()
    assert "q07" in text and f"{target['base']:.4f}" in text and f"{target['value']:.4f}" in text
    # a click shows the query in the per-query table
    p.mouse.click(target["x"], target["y"])
    p.wait_for_function("() => document.getElementById('pq-count').textContent.startsWith('1 of')")
    assert p.locator("#pq-filter").input_value() == "q07"
    assert p.locator("#per-query-table tbody td.qid").all_text_contents() == ["q07"]
    p.locator("#pq-filter").fill("")
    p.wait_for_function("() => document.getElementById('pq-count').textContent.startsWith('30 of')")


def test_diagnostics(page) -> None:
    def cell(system: str, field: str) -> str:
        return page.page.locator(f"#diagnostics-table tr[data-system='{system}'] td[data-field='{field}']").inner_text()

    assert cell("dense", "queries_missing") == "1"
    assert cell("bm25", "queries_missing") == "0"
    assert cell("hybrid", "queries_run_only") == "1"
    assert int(cell("bm25", "queries_with_ties")) > 0
    details = page.page.locator("details.ids[data-system='dense']")
    assert "q03" in details.text_content()


def test_provenance(page, made: dict) -> None:
    command = page.page.locator("#command").inner_text()
    assert command.startswith("rankmeter report ") and str(made["html"]) in command and "--n-resamples 500" in command
    versions = page.page.locator("#versions-table").inner_text()
    assert f"rankmeter\t{rankmeter.__version__}" in versions and "vega-lite" in versions


def test_screenshot(page, made: dict, tmp_path: Path) -> None:
    out = tmp_path / "report.png"
    page.page.screenshot(path=str(out), full_page=True)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 50_000


def test_python_api_writes_the_same_numbers(made: dict, compare_json: dict, tmp_path: Path) -> None:
    runs = {r.stem: str(r) for r in made["runs"]}
    html = rankmeter.report.html(str(made["qrels"]), runs, MEASURES, n_resamples=500, output=tmp_path / "r.html")
    embedded = html.split('<script type="application/json" id="comparison-data">', 1)[1].split("</script>", 1)[0]
    data = json.loads(embedded)
    assert data["systems"] == compare_json["systems"] and data["pairs"] == compare_json["pairs"]
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == html
    # the provenance shows this call
    call = f"rankmeter.report.html({str(made['qrels'])!r}, {{'bm25': {runs['bm25']!r}"
    assert call.replace("'", "&#39;") in html and "n_resamples=500)" in html


def test_script_json_escapes_every_tag_opener() -> None:
    text = script_json({"q": HOSTILE, "x": [0.1, math.inf]})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"q": HOSTILE, "x": [0.1, None]}


def test_formats() -> None:
    assert fmt(2 / 3) == "0.6667" and fmt(None) == fmt(math.nan) == "\u2013"
    assert fmt_p(0.04999) == "0.05" and fmt_p(5e-5) == "< 1e-4"


def test_cli_errors(made: dict, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = made["qrels"], made["runs"]
    out = made["tmp"] / "never.html"
    assert main(["report", str(qrels), str(runs[0]), "-m", "map", "-o", str(out)]) == 2
    assert "rankmeter report: error: need at least 2 runs to compare, got 1" in capsys.readouterr().err
    argv = ["report", str(qrels), *map(str, runs), "-m", "map", "-o", str(out), "--baseline", "nope"]
    assert main(argv) == 2
    assert "error: baseline 'nope' is not one of the runs: 'bm25', 'dense', 'hybrid'" in capsys.readouterr().err
    assert main(["report", str(qrels), str(runs[0]), str(made["tmp"] / "absent.run"), "-m", "map", "-o", str(out)]) == 1
    assert "absent.run" in capsys.readouterr().err
    assert not out.exists()


def test_import_stays_light() -> None:
    import subprocess
    import sys

    code = "import sys, rankmeter, rankmeter.report; print(sorted({'jinja2', 'vl_convert'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_unknown_option_is_named(made: dict) -> None:
    runs = {r.stem: str(r) for r in made["runs"]}
    with pytest.raises(TypeError, match="html: unknown option 'tset'; the options are alpha, baseline"):
        rankmeter.report.html(str(made["qrels"]), runs, "map", tset="t")


def test_tooltips_escape_ids(page) -> None:
    """Hovering the bars of the hostile ids shows them as text in the tooltip, never as markup."""
    p = page.page
    p.select_option("#plot-measure", "map")
    p.select_option("#plot-system", "dense")
    p.wait_for_function("() => document.documentElement.dataset.plotted === 'dense on map'")
    p.locator("#diff-plot").scroll_into_view_if_needed()
    shown = []
    for query in HOSTILE:
        target = p.evaluate(
            """(q) => {
            const data = JSON.parse(document.getElementById('report-data').textContent);
            const base = data.values.bm25.map, val = data.values.dense.map;
            const order = data.queries.map((x, i) => [val[i] - base[i], i]).sort((a, b) => a[0] - b[0]);
            const rank = order.findIndex(([d, i]) => data.queries[i] === q);
            const view = window.rankmeterViews.diff;
            const [ox, oy] = view.origin();
            const pad = view.padding();
            const box = view.container().querySelector('canvas').getBoundingClientRect();
            return {x: box.left + pad.left + ox + view.scale('x')(rank + 0.5),
                    y: box.top + pad.top + oy + view.scale('y')(order[rank][0] / 2)};
        }""",
            query,
        )
        p.mouse.move(target["x"] - 3, target["y"] - 3)
        p.mouse.move(target["x"], target["y"], steps=3)
        p.wait_for_timeout(200)
        tips = p.locator(".vg-tooltip.visible")
        if tips.count():
            shown.append((query, tips.first.text_content(), tips.first.inner_html()))
    assert shown, "no tooltip appeared over the hostile ids' bars"
    for query, text, markup in shown:
        assert query in text and "<script" not in markup and "<img" not in markup
    assert p.evaluate("window.pwned") is None
    assert p.evaluate("document.querySelectorAll('img').length") == 0
