"""``compare`` and the HTML report evaluate the runs on the many-runs worker path, with unchanged output.

The reference is the comparison built from each run evaluated alone (one :func:`rankmeter.evaluate` call
per run, as :func:`rankmeter.compare` did before the runs went to the workers); its rendered tables,
JSON and report page must equal the worker path's byte for byte on examples/compare/.
:data:`rankmeter.by_ids.PROCESS_MIN_ROWS` is set to 0 so that the small example runs go to the
worker processes.
"""

from __future__ import annotations

import datetime
import importlib
from pathlib import Path
from typing import Any

import pytest

import rankmeter
from rankmeter.report.page import html
from rankmeter.report.tables import render_latex, render_markdown, render_text
from rankmeter.stats.significance import compare, compare_per_query, evaluate_systems

EVALUATE = importlib.import_module("rankmeter.by_ids")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "compare"
QRELS = str(EXAMPLE / "qrels.txt")
RUNS = {name: str(EXAMPLE / "runs" / f"{name}.txt") for name in ("bm25", "bm25_rm3", "dense")}
MEASURES = ["ndcg@10", "map", "p@5", "rr"]
OPTIONS: dict[str, Any] = {"test": "randomization", "n_resamples": 2000, "seed": 7}


@pytest.fixture(autouse=True)
def every_run_to_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(EVALUATE, "PROCESS_MIN_ROWS", 0)


def _one_by_one() -> dict[str, Any]:
    """Each run evaluated alone (its own qrels reading), as the comparison's reference."""
    return {name: rankmeter.evaluate(QRELS, path, MEASURES) for name, path in RUNS.items()}


def _rendered(comparison: Any) -> list[str]:
    return [comparison.to_json(), render_markdown(comparison), render_latex(comparison), render_text(comparison)]


def test_compare_on_the_workers_renders_as_each_run_alone() -> None:
    alone = _one_by_one()
    reference = compare_per_query(
        {name: (list(r.query_ids), list(r.measure_names), r.values) for name, r in alone.items()}, **OPTIONS
    )
    found = compare(QRELS, RUNS, MEASURES, evaluate_options={"workers": 2}, **OPTIONS)
    assert _rendered(found) == _rendered(reference)


def test_evaluate_systems_gives_each_run_its_own_result_and_metadata() -> None:
    alone = _one_by_one()
    found = evaluate_systems(QRELS, RUNS, MEASURES, evaluate_options={"workers": 2})
    assert list(found) == list(RUNS)
    for name, result in found.items():
        assert result.to_json() == alone[name].to_json()
        assert result.metadata == alone[name].metadata


def test_report_page_on_the_workers_equals_the_page_of_each_run_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    page = importlib.import_module("rankmeter.report.page")
    monkeypatch.setattr(page._dt, "datetime", _FixedClock)  # both pages carry one render time
    found = html(QRELS, RUNS, MEASURES, command="rankmeter report ...", evaluate_options={"workers": 2}, **OPTIONS)
    alone = _one_by_one()
    stats = importlib.import_module("rankmeter.stats.significance")
    monkeypatch.setattr(stats, "evaluate_systems", lambda *args, **kwargs: alone)
    reference = html(QRELS, RUNS, MEASURES, command="rankmeter report ...", **OPTIONS)
    assert "2026-01-02 03:04 UTC" in found
    assert found == reference


class _FixedClock(datetime.datetime):
    """A clock that always reads 2026-01-02 03:04 UTC (a page states when it was rendered, to the minute)."""

    @classmethod
    def now(cls, tz: datetime.tzinfo | None = None) -> _FixedClock:
        return cls(2026, 1, 2, 3, 4, tzinfo=tz)


def test_a_run_that_does_not_look_like_one_is_evaluated_alone() -> None:
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    runs = {"empty": {}, "full": {"q1": {"d1": 1.0}, "q2": {"d2": 1.0}}}
    found = evaluate_systems(qrels, runs, "rr", evaluate_options={"empty": "zero", "missing": "zero"})
    assert {name: r["rr"] for name, r in found.items()} == {"empty": 0.0, "full": 1.0}


def test_cli_workers_flag_gives_the_same_comparison(capsys: pytest.CaptureFixture[str]) -> None:
    from rankmeter.cli.main import main

    argv = ["compare", QRELS, *RUNS.values(), "-m", "ndcg@10", "-m", "map", "--format", "json"]
    assert main(argv) == 0
    alone = capsys.readouterr().out
    assert main([*argv, "--workers", "2"]) == 0
    assert capsys.readouterr().out == alone
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--workers", "0"])
    assert exited.value.code == 2
    assert "argument --workers: must be an integer in [1, 1024], got '0'" in capsys.readouterr().err
