"""``rankmeter compare`` end to end on small TREC files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from rankmeter.cli.compare_command import add_parser, run
from rankmeter.cli.runs import system_names
from rankmeter.errors import PolicyError


def write_files(tmp: Path, n_queries: int = 25) -> tuple[Path, list[Path]]:
    rng = np.random.default_rng(0)
    rels = {(q, d): int(rng.random() < 0.3) for q in range(n_queries) for d in range(20)}
    qrels = tmp / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{d} {r}\n" for (q, d), r in rels.items()))
    runs = []
    for name, noise in [("bm25", 2.0), ("dense", 0.5)]:
        path = tmp / f"{name}.run"
        lines = []
        for q in range(n_queries):
            scores = sorted(((rels[(q, d)] + rng.normal(0, noise), d) for d in range(20)), reverse=True)
            lines += [f"{q} Q0 d{d} {r} {s:.5f} {name}\n" for r, (s, d) in enumerate(scores, 1)]
        path.write_text("".join(lines))
        runs.append(path)
    return qrels, runs


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="rankmeter")
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["compare", *argv])


def test_system_names_from_stems() -> None:
    assert system_names(["x/bm25.run", "y/dense.txt"]) == ["bm25", "dense"]
    assert system_names(["x/bm25.run", "x/bm25.txt"]) == ["bm25.run", "bm25.txt"]
    assert system_names(["x/bm25.run", "y/bm25.run"]) == ["x/bm25.run", "y/bm25.run"]
    with pytest.raises(PolicyError, match="the same run is given twice: x/a.run"):
        system_names(["x/a.run", "x/a.run"])


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = write_files(tmp_path)
    args = parse(
        [
            str(qrels),
            *map(str, runs),
            "-m",
            "ndcg@10",
            "-m",
            "map",
            "--test",
            "randomization",
            "--n-resamples",
            "500",
            "--seed",
            "3",
            "--format",
            "json",
        ]
    )
    assert args.handler is run
    assert run(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in out["systems"]] == ["bm25", "bm25", "dense", "dense"]
    assert [(p["baseline"], p["system"], p["measure"]) for p in out["pairs"]] == [
        ("bm25", "dense", "ndcg@10"),
        ("bm25", "dense", "map"),
    ]
    assert out["metadata"]["seed"] == 3 and out["metadata"]["n_resamples"] == 500
    assert all(0 < p["p_value"] <= 1 for p in out["pairs"])


@pytest.mark.parametrize(
    "fmt,needle",
    [("markdown", "| System |"), ("latex", "\\toprule"), ("csv", "measure,baseline,system"), ("table", "(baseline)")],
)
def test_text_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, needle: str) -> None:
    qrels, runs = write_files(tmp_path)
    assert run(parse([str(qrels), *map(str, runs), "-m", "p@5", "--format", fmt, "--baseline", "dense"])) == 0
    out = capsys.readouterr().out
    assert needle in out
    if fmt != "csv":
        assert "dense (baseline)" in out


def test_plot_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = write_files(tmp_path)
    png = tmp_path / "out.png"
    argv = [str(qrels), *map(str, runs), "-m", "ndcg@10", "--format", "csv", "--plot", str(png)]
    assert run(parse(argv)) == 0
    assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 5_000
    assert "plot written" in capsys.readouterr().err


def test_errors_exit_1_for_input_and_2_for_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = write_files(tmp_path)
    assert run(parse([str(qrels), str(runs[0]), "-m", "map"])) == 2
    assert "at least 2 runs" in capsys.readouterr().err
    assert run(parse([str(qrels), *map(str, runs), "-m", "map", "--baseline", "nope"])) == 2
    assert "baseline 'nope'" in capsys.readouterr().err
    assert run(parse([str(qrels), str(runs[0]), str(runs[0]), "-m", "map"])) == 2
    assert "given twice" in capsys.readouterr().err
    assert run(parse([str(qrels), str(runs[0]), str(tmp_path / "missing.run"), "-m", "map"])) == 1
    assert "missing.run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse([str(qrels), *map(str, runs), "-m", "map", "--test", "anova"])


def test_main_dispatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rankmeter.cli import main

    qrels, runs = write_files(tmp_path)
    assert main.main(["compare", str(qrels), *map(str, runs), "-m", "map", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["metadata"]["test"] == "t"


def test_cli_module_import_is_light() -> None:
    import subprocess
    import sys

    code = "import sys, rankmeter.cli.compare_command; print('scipy' in sys.modules, 'matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
