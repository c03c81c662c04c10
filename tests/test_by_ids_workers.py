"""Several runs on worker processes: values, metadata, order and errors equal to each run evaluated alone.

The runs here are small, so :data:`rankmeter.by_ids.PROCESS_MIN_ROWS` is set to 0 to send them to the
workers (forked where the platform forks; one test spawns them).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankmeter
from rankmeter.core import processes
from rankmeter.core.processes import map_processes
from rankmeter.errors import DuplicateEntryError, InputFormatError, InvalidScoreError
from tests.cli.test_many_runs import _same as same_values

EVALUATE = importlib.import_module("rankmeter.by_ids")
MEASURES = ["ndcg@5", "ndcg", "map", "p@3", "rr", "r@10", "num_rel_ret", "num_ret"]


@pytest.fixture(autouse=True)
def every_run_to_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(EVALUATE, "PROCESS_MIN_ROWS", 0)


def _random_files(folder: Path, seed: int, n_runs: int) -> tuple[str, dict[str, str]]:
    """A qrels file and tie-heavy run files (scores on a 0.1 grid), ragged queries, missing and run-only queries."""
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(15):
        for d in rng.choice(50, size=rng.integers(1, 20), replace=False):
            lines.append(f"q{q} 0 d{d} {rng.integers(-1, 4)}\n")
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(lines))
    runs = {}
    for r in range(n_runs):
        queries = rng.choice(18, size=int(rng.integers(8, 16)), replace=False)  # q15-q17 only in runs
        rows = [
            f"q{q} Q0 d{d} {i} {np.round(rng.random(), 1)} sys{r}\n"
            for q in queries
            for i, d in enumerate(rng.choice(50, size=rng.integers(1, 30), replace=False))
        ]
        path = folder / f"sys{r}.txt"
        path.write_text("".join(rows))
        runs[f"sys{r}"] = str(path)
    return str(qrels), runs


def _same(a: rankmeter.EvaluationResult, b: rankmeter.EvaluationResult) -> None:
    same_values(a, b)
    assert a.metadata == b.metadata


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "options",
    [
        {"ties": "trec"},
        {"ties": "expected", "empty": "skip"},
        {"ties": "stable", "missing": "skip"},
        {"ties": "pessimistic", "judged_only": True},
        {"ties": "optimistic", "depth": 5},
        {"ties": "shuffle", "seed": 3},
    ],
)
def test_workers_give_each_runs_own_result(tmp_path: Path, seed: int, options: dict) -> None:
    qrels, runs = _random_files(tmp_path, seed, n_runs=5)
    together = rankmeter.evaluate(qrels, runs, MEASURES, workers=2, **options)
    assert together.systems == list(runs)
    for name, path in runs.items():
        _same(together[name], rankmeter.evaluate(qrels, path, MEASURES, **options))


def test_runs_whose_queries_the_qrels_do_not_cover_and_runs_that_they_do(tmp_path: Path) -> None:
    qrels, runs = _random_files(tmp_path, 4, n_runs=2)
    covered = tmp_path / "covered.txt"  # only judged queries: aligned with the qrels' keys derived once
    covered.write_text("".join(line for line in Path(runs["sys0"]).read_text().splitlines(True) if "q1" not in line))
    mixed = {"covered": str(covered), **runs, "again": str(covered)}
    together = rankmeter.evaluate(qrels, mixed, MEASURES, workers=3)
    for name, path in mixed.items():
        _same(together[name], rankmeter.evaluate(qrels, path, MEASURES))
    sequential = rankmeter.evaluate(qrels, mixed, MEASURES, workers=1)
    for name in mixed:
        _same(together[name], sequential[name])


def test_in_memory_runs_go_to_the_workers_too(tmp_path: Path) -> None:
    qrels, runs = _random_files(tmp_path, 5, n_runs=3)
    frames = {name: rankmeter.read_run(path) for name, path in runs.items()}
    table = pd.read_csv(runs["sys1"], sep=" ", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"])
    kinds = {"run": frames["sys0"], "frame": table[["query_id", "doc_id", "score"]], "file": runs["sys2"]}
    together = rankmeter.evaluate(qrels, kinds, MEASURES, workers=2)
    for name, run in kinds.items():
        _same(together[name], rankmeter.evaluate(qrels, run, MEASURES))


def test_spawned_workers_give_the_same_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qrels, runs = _random_files(tmp_path, 6, n_runs=3)
    forked = rankmeter.evaluate(qrels, runs, MEASURES, workers=2)
    monkeypatch.setattr(processes, "forks", lambda: False)
    monkeypatch.setattr(EVALUATE, "forks", lambda: False)
    runs["frame"] = rankmeter.read_run(runs["sys0"])  # sent with its task, not inherited
    spawned = rankmeter.evaluate(qrels, runs, MEASURES, workers=2)
    for name in forked:
        _same(spawned[name], forked[name])
    _same(spawned["frame"], forked["sys0"])


def test_the_first_bad_run_in_the_given_order_is_reported(tmp_path: Path) -> None:
    qrels, runs = _random_files(tmp_path, 7, n_runs=3)
    late = tmp_path / "late.txt"  # a large run whose problem is on its last line: it fails last
    late.write_text("".join(f"q1 Q0 x{i} 1 0.5 t\n" for i in range(100_000)) + "q1 Q0 y 1 nan t\n")
    early = tmp_path / "early.txt"
    early.write_text("q1 Q0 a 1 0.5 t\nq1 Q0 b 2 oops t\n")
    given = {"ok": runs["sys0"], "late": str(late), "ok2": runs["sys1"], "early": str(early)}
    with pytest.raises(InvalidScoreError, match=rf"^system 'late': {late}:100001: query 'q1', document 'y': score"):
        rankmeter.evaluate(qrels, given, MEASURES, workers=2)
    with pytest.raises(InvalidScoreError, match=rf"^system 'early': {early}:2: query 'q1', document 'b': score 'oops'"):
        rankmeter.evaluate(qrels, {"early": str(early), "late": str(late)}, MEASURES, workers=2)


def test_a_missing_run_file_is_named(tmp_path: Path) -> None:
    qrels, runs = _random_files(tmp_path, 8, n_runs=2)
    gone = str(tmp_path / "gone.txt")
    with pytest.raises(InputFormatError, match=rf"^system 'gone': {gone}: cannot read file"):
        rankmeter.evaluate(qrels, {**runs, "gone": gone}, MEASURES, workers=2)


def test_a_qrels_problem_is_reported_once_before_any_run(tmp_path: Path) -> None:
    qrels, runs = _random_files(tmp_path, 9, n_runs=2)
    first = Path(qrels).read_text().splitlines(True)[0]
    Path(qrels).write_text(Path(qrels).read_text() + first)
    n = len(Path(qrels).read_text().splitlines())
    with pytest.raises(DuplicateEntryError, match=rf"^{qrels}:{n}: query '{first.split()[0]}', document"):
        rankmeter.evaluate(qrels, runs, MEASURES, workers=2)
    kept = rankmeter.evaluate(qrels, runs, MEASURES, workers=2, duplicates="first")
    for name, path in runs.items():
        _same(kept[name], rankmeter.evaluate(qrels, path, MEASURES, duplicates="first"))


def test_small_runs_and_spawning_platforms_stay_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(EVALUATE, "PROCESS_MIN_ROWS", 4)
    asked: list[int] = []

    def recording(fn, job, items, workers, *label):  # type: ignore[no-untyped-def]
        asked.append(workers)
        return map_processes(fn, job, items, workers, *label)

    monkeypatch.setattr(EVALUATE, "map_processes", recording)
    qrels = {"q1": {"a": 1}}
    three_rows = {"x": {"q1": {"a": 1.0}}, "y": {"q1": {"a": 1.0, "b": 0.5}}}
    four_rows = {"x": {"q1": {"b": 2.0, "a": 1.0}}, "y": {"q1": {"a": 1.0, "b": 0.5}}}
    assert rankmeter.evaluate(qrels, three_rows, "rr", workers=2).aggregate == {"x": {"rr": 1.0}, "y": {"rr": 1.0}}
    assert rankmeter.evaluate(qrels, four_rows, "rr", workers=2).aggregate == {"x": {"rr": 0.5}, "y": {"rr": 1.0}}
    assert rankmeter.evaluate(qrels, four_rows, "rr", threads=3).aggregate == {"x": {"rr": 0.5}, "y": {"rr": 1.0}}
    assert asked == [1, 2, 3]
    monkeypatch.setattr(EVALUATE, "forks", lambda: False)  # spawning platforms: workers only when asked
    assert rankmeter.evaluate(qrels, four_rows, "rr").aggregate == {"x": {"rr": 0.5}, "y": {"rr": 1.0}}
    assert rankmeter.evaluate(qrels, four_rows, "rr", workers=2).aggregate == {"x": {"rr": 0.5}, "y": {"rr": 1.0}}
    assert asked == [1, 2, 3, 1, 2]


def test_progress_counts_the_runs_as_the_workers_finish_them(tmp_path: Path, capsys) -> None:
    qrels, runs = _random_files(tmp_path, 10, n_runs=4)
    shown = rankmeter.evaluate(qrels, runs, ["map"], workers=2, progress=True)
    err = capsys.readouterr().err
    assert "rankmeter evaluate" in err and "4/4 runs" in err
    assert shown.aggregate == rankmeter.evaluate(qrels, runs, ["map"], workers=1).aggregate


def test_cli_workers_give_the_same_output(tmp_path: Path, capsys) -> None:
    from rankmeter.cli.main import main

    qrels, runs = _random_files(tmp_path, 11, n_runs=4)
    outputs = []
    for workers in ("1", "2", "4"):
        assert main(["evaluate", qrels, str(tmp_path / "sys*.txt"), "-m", "ndcg", "-m", "rr", "--per-query",
                     "--format", "json", "--workers", workers]) == 0  # fmt: skip
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2]
    assert '"systems": [\n      "sys0",\n      "sys1",\n      "sys2",\n      "sys3"\n    ]' in outputs[0]
