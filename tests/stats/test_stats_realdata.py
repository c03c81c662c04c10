"""End to end on TREC RAG 2024 data: ``rankmeter compare`` and ``evaluate --ci`` through the CLI, checked
against the Python API.

The second system is derived from the shipped run ``results.comment.test`` by a documented
perturbation: inside every query, the documents at ranks 1-10 are put in reverse order (ranks 11+
unchanged, scores rewritten so that the file's order is the ranking).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter.cli.main import main
from rankmeter.stats.intervals import result_intervals
from rankmeter.stats.significance import compare


def _shared() -> Path:
    here = Path(__file__).resolve()
    for candidate in (here.parents[1],):  # tests/realdata
        if (candidate / "realdata" / "trec_eval_test").is_dir():
            return candidate / "realdata" / "trec_eval_test"
    pytest.fail("tests/realdata/trec_eval_test not found", pytrace=False)


def _perturbed(run_path: Path, out: Path) -> Path:
    by_query: dict[str, list[list[str]]] = {}
    for line in run_path.read_text().splitlines():
        fields = line.split()
        if fields:
            by_query.setdefault(fields[0], []).append(fields)
    lines = []
    for qid, rows in by_query.items():
        rows.sort(key=lambda f: (-float(f[4]), f[2]), reverse=False)
        rows = rows[:10][::-1] + rows[10:]
        for rank, f in enumerate(rows, 1):
            lines.append(f"{qid} Q0 {f[2]} {rank} {1000 - rank} perturbed")
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.fixture(scope="module")
def rag(tmp_path_factory):
    d = _shared()
    qrels, run = d / "qrels.comment.test", d / "results.comment.test"
    tmp = tmp_path_factory.mktemp("rag")
    return qrels, run, _perturbed(run, tmp / "reversed_top10.txt")


def test_compare_cli_matches_api(rag, capsys) -> None:
    qrels, run_a, run_b = rag
    args = [
        "compare",
        str(qrels),
        str(run_a),
        str(run_b),
        "-m",
        "ndcg@10",
        "-m",
        "map",
        "--test",
        "randomization",
        "--seed",
        "7",
        "--n-resamples",
        "2000",
        "--format",
        "json",
    ]
    assert main(args) == 0
    cli = json.loads(capsys.readouterr().out)
    api = compare(
        str(qrels),
        {"results.comment": str(run_a), "reversed_top10": str(run_b)},
        ["ndcg@10", "map"],
        test="randomization",
        seed=7,
        n_resamples=2000,
    ).to_dict()
    for got, want in zip(cli["systems"], api["systems"], strict=True):
        assert got["measure"] == want["measure"]
        assert got["mean"] == pytest.approx(want["mean"], abs=1e-12)
        assert got["ci_low"] == pytest.approx(want["ci_low"], abs=1e-12)
    for got, want in zip(cli["pairs"], api["pairs"], strict=True):
        assert got["p_value"] == pytest.approx(want["p_value"], abs=1e-12)
        assert (got["wins"], got["ties"], got["losses"]) == (want["wins"], want["ties"], want["losses"])
    # the means are the evaluate() aggregates of each run
    ev_a = rankmeter.evaluate(qrels, run_a, ["ndcg@10", "map"])
    ev_b = rankmeter.evaluate(qrels, run_b, ["ndcg@10", "map"])
    means = {(s["name"], s["measure"]): s["mean"] for s in cli["systems"]}
    assert means[("results.comment", "ndcg@10")] == pytest.approx(ev_a["ndcg@10"], abs=1e-12)
    assert means[("reversed_top10", "map")] == pytest.approx(ev_b["map"], abs=1e-12)
    # reversing the top 10 hurts ndcg@10 on more queries than it helps
    pair = next(p for p in cli["pairs"] if p["measure"] == "ndcg@10")
    assert pair["effect_size"] < 0 and pair["losses"] > pair["wins"]
    assert pair["p_value"] >= 1 / 2001  # (b+1)/(m+1), never 0


def test_compare_table_shows_the_api_numbers(rag, capsys) -> None:
    qrels, run_a, run_b = rag
    assert main(["compare", str(qrels), str(run_a), str(run_b), "-m", "ndcg@10", "--format", "markdown"]) == 0
    table = capsys.readouterr().out
    ev_a = rankmeter.evaluate(qrels, run_a, ["ndcg@10"])
    ev_b = rankmeter.evaluate(qrels, run_b, ["ndcg@10"])
    assert f"{ev_a['ndcg@10']:.4f}" in table and f"{ev_b['ndcg@10']:.4f}" in table


def test_evaluate_ci_cli_matches_api(rag, capsys) -> None:
    qrels, run_a, _ = rag
    assert (
        main(
            [
                "evaluate",
                str(qrels),
                str(run_a),
                "-m",
                "ndcg@10",
                "-m",
                "num_q",
                "--ci",
                "0.9",
                "--ci-method",
                "percentile",
                "--n-resamples",
                "2000",
                "--seed",
                "3",
                "--format",
                "json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    res = rankmeter.evaluate(qrels, run_a, ["ndcg@10", "num_q"])
    want = result_intervals(res, level=0.9, method="percentile", n_resamples=2000, seed=3)["ndcg@10"]
    assert data["ci"]["ndcg@10"]["low"] == pytest.approx(want.low, abs=1e-12)
    assert data["ci"]["ndcg@10"]["high"] == pytest.approx(want.high, abs=1e-12)
    assert data["ci"]["num_q"] is None  # counts are summed, not averaged: no CI
    assert want.low <= res["ndcg@10"] <= want.high
    values = np.array(list(res.by_query("ndcg@10").values()))
    assert res["ndcg@10"] == pytest.approx(values.mean())


def test_compare_passes_evaluation_options(rag) -> None:
    qrels, run_a, run_b = rag
    runs = {"a": str(run_a), "b": str(run_b)}
    default = compare(str(qrels), runs, ["ndcg@10"], n_resamples=200)
    expected = compare(str(qrels), runs, ["ndcg@10"], n_resamples=200, evaluate_options={"ties": "expected"})
    want = rankmeter.evaluate(qrels, run_a, "ndcg@10", ties="expected")["ndcg@10"]
    assert expected.system("a", "ndcg@10").mean == pytest.approx(want, abs=1e-12)
    assert default.system("a", "ndcg@10").mean == pytest.approx(rankmeter.evaluate(qrels, run_a, "ndcg@10")["ndcg@10"])
    depth = compare(str(qrels), runs, ["num_ret"], n_resamples=200, evaluate_options={"depth": 5}, query_sets="error")
    assert depth.system("a", "num_ret").mean <= 5
