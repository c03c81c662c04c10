"""Several runs in one call: ``rankmeter.evaluate(qrels, {name: run})`` and ``rankmeter evaluate QRELS RUN RUN ...``.

Every value must be the one each run gets when evaluated alone, whatever the input kind, the threads
and the reading mode; the CLI's directories and globs name the files they stand for.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankmeter
from rankmeter.cli.main import main
from rankmeter.errors import InputFormatError, InvalidScoreError, PolicyError

MEASURES = ["ndcg@5", "ndcg", "map", "p@3", "rr", "r@10", "num_rel_ret"]


def _random_qrels_and_runs(seed: int, n_runs: int = 4) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Tie-heavy runs (scores on a 0.1 grid) over ragged queries, some judged queries missing, some run-only."""
    rng = np.random.default_rng(seed)
    qrels_rows = []
    for q in range(12):
        docs = rng.choice(40, size=rng.integers(1, 15), replace=False)
        qrels_rows += [(f"q{q}", f"d{d}", int(rng.integers(0, 4))) for d in docs]
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for r in range(n_runs):
        rows = []
        for q in rng.choice(14, size=10, replace=False):  # q12, q13: run-only; two judged queries missing
            docs = rng.choice(40, size=rng.integers(1, 25), replace=False)
            rows += [(f"q{q}", f"d{d}", float(np.round(rng.random(), 1))) for d in docs]
        runs[f"sys{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return qrels, runs


def _write_trec(path: Path, run: pd.DataFrame) -> str:
    lines = [f"{q} Q0 {d} {i + 1} {s} {path.stem}" for i, (q, d, s) in enumerate(run.itertuples(index=False))]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _write_qrels(path: Path, qrels: pd.DataFrame) -> str:
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels.itertuples(index=False)))
    return str(path)


def _same(a: rankmeter.EvaluationResult, b: rankmeter.EvaluationResult) -> None:
    assert a.measure_names == b.measure_names
    assert a.query_ids.tolist() == b.query_ids.tolist()
    np.testing.assert_array_equal(a.values, b.values)  # identical, NaN where NaN
    np.testing.assert_array_equal(a.included, b.included)
    assert a.aggregate == b.aggregate
    for key in ("queries_evaluated", "queries_missing", "missing_query_ids", "run_only_query_ids", "semantics"):
        assert a.metadata[key] == b.metadata[key]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("ties", ["trec", "expected", "stable", "optimistic", "pessimistic"])
def test_each_system_equals_its_run_evaluated_alone(seed: int, ties: str) -> None:
    qrels, runs = _random_qrels_and_runs(seed)
    together = rankmeter.evaluate(qrels, runs, MEASURES, ties=ties, empty="skip")
    assert isinstance(together, rankmeter.SystemResults)
    assert together.systems == list(runs)
    for name, run in runs.items():
        _same(together[name], rankmeter.evaluate(qrels, run, MEASURES, ties=ties, empty="skip"))
    assert together.aggregate == {name: together[name].aggregate for name in runs}


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_threads_do_not_change_values(threads: int) -> None:
    qrels, runs = _random_qrels_and_runs(7, n_runs=6)
    reference = rankmeter.evaluate(qrels, runs, MEASURES, threads=1)
    for name in runs:
        _same(rankmeter.evaluate(qrels, runs, MEASURES, threads=threads)[name], reference[name])


def test_input_kinds_mix_files_frames_dicts_and_run_objects(tmp_path: Path) -> None:
    qrels, runs = _random_qrels_and_runs(3, n_runs=4)
    qrels_path = _write_qrels(tmp_path / "qrels.txt", qrels)
    a, b, c, d = runs.values()
    as_dict = {q: dict(zip(g.doc_id, g.score, strict=True)) for q, g in c.groupby("query_id")}
    mixed = {
        "file": _write_trec(tmp_path / "a.txt", a),
        "frame": b,
        "dict": as_dict,
        "run": rankmeter.read_run(_write_trec(tmp_path / "d.txt", d)),
    }
    together = rankmeter.evaluate(qrels_path, mixed, MEASURES)
    for (name, run), frame in zip(mixed.items(), runs.values(), strict=True):
        _same(together[name], rankmeter.evaluate(qrels_path, run, MEASURES))
        _same(together[name], rankmeter.evaluate(qrels_path, frame, MEASURES))


def test_a_dict_of_run_dicts_is_several_runs_and_a_run_dict_is_one() -> None:
    qrels = {"q1": {"a": 1, "b": 2}}
    one = {"q1": {"a": 0.5, "b": 0.4}}
    assert isinstance(rankmeter.evaluate(qrels, one, "ndcg"), rankmeter.EvaluationResult)
    many = rankmeter.evaluate(qrels, {"x": one, "y": {"q1": {"b": 0.9, "a": 0.1}}}, "ndcg")
    assert isinstance(many, rankmeter.SystemResults)
    # x ranks a (1) above b (2): (1 + 2/log2(3)) / (2 + 1/log2(3)); y has the ideal order
    assert many.aggregate["x"]["ndcg"] == pytest.approx((1 + 2 / np.log2(3)) / (2 + 1 / np.log2(3)), rel=1e-15)
    assert many.aggregate["y"]["ndcg"] == 1.0


def test_tidy_outputs_carry_the_system() -> None:
    qrels, runs = _random_qrels_and_runs(5, n_runs=2)
    res = rankmeter.evaluate(qrels, runs, ["ndcg@5", "rr"])
    rows = list(csv.DictReader(io.StringIO(res.to_csv())))
    per_query = [r for r in rows if r["query_id"] != "all"]
    assert len(per_query) == sum(len(res[n].per_query) for n in runs)
    for row in rows:
        result = res[row["system"]]
        expected = result.aggregate[row["measure"]] if row["query_id"] == "all" else None
        if expected is None:
            expected = result.by_query(row["measure"])[row["query_id"]]
        assert float(row["value"]) == expected
    table = res.to_pandas("aggregate")
    assert table.loc["sys1", "rr"] == res["sys1"]["rr"] and list(table.columns) == ["ndcg@5", "rr"]
    assert set(res.to_polars()["system"].to_list()) == {"sys0", "sys1"}
    assert res.to_arrow().column_names == ["system", "query_id", "measure", "value"]
    data = json.loads(res.to_json())
    assert data["aggregate"] == res.aggregate and data["metadata"]["systems"] == ["sys0", "sys1"]
    assert data["metadata"]["per_system"]["sys0"]["queries_evaluated"] == res["sys0"].metadata["queries_evaluated"]


def test_an_error_names_the_system(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 a 1 x tag\n")
    with pytest.raises(InvalidScoreError, match=r"system 'broken': .*bad.txt:1: query 'q1', document 'a': score 'x'"):
        rankmeter.evaluate({"q1": {"a": 1}}, {"ok": {"q1": {"a": 1.0}}, "broken": str(bad)}, "rr")


# --- the command line --------------------------------------------------------------------------------------------


@pytest.fixture
def run_files(tmp_path: Path) -> tuple[str, list[str]]:
    qrels, runs = _random_qrels_and_runs(11, n_runs=3)
    folder = tmp_path / "runs"
    folder.mkdir()
    paths = [_write_trec(folder / f"{name}.txt", run) for name, run in runs.items()]
    return _write_qrels(tmp_path / "qrels.txt", qrels), paths


def _cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["evaluate", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_several_runs_equal_each_run_alone(run_files, capsys) -> None:
    qrels, paths = run_files
    flags = [arg for m in MEASURES for arg in ("-m", m)]
    data = _cli_json(capsys, qrels, *paths, *flags)
    assert data["metadata"]["systems"] == ["sys0", "sys1", "sys2"]
    for name, path in zip(data["metadata"]["systems"], paths, strict=True):
        alone = _cli_json(capsys, qrels, path, *flags)
        assert data["aggregate"][name] == alone["aggregate"]
        assert [
            {k: v for k, v in row.items() if k != "system"} for row in data["per_query"] if row["system"] == name
        ] == alone["per_query"]


@pytest.mark.parametrize("form", ["directory", "glob", "stream"])
def test_cli_directory_glob_and_stream_give_the_files_values(run_files, capsys, form: str) -> None:
    qrels, paths = run_files
    folder = str(Path(paths[0]).parent)
    Path(folder, ".hidden").write_text("not a run\n")
    Path(folder, "qrels.txt").write_text(Path(qrels).read_text())  # the qrels beside the runs is not a run
    given = {"directory": [folder], "glob": [folder + "/sys*.txt"], "stream": [*paths, "--stream"]}[form]
    qrels_arg = str(Path(folder, "qrels.txt")) if form == "directory" else qrels
    data = _cli_json(capsys, qrels_arg, *given, "-m", "ndcg@5", "-m", "map")
    assert data == _cli_json(capsys, qrels, *paths, "-m", "ndcg@5", "-m", "map") | {"metadata": data["metadata"]}
    assert data["metadata"]["systems"] == ["sys0", "sys1", "sys2"]


def test_cli_table_and_csv(run_files, capsys) -> None:
    qrels, paths = run_files
    assert main(["evaluate", qrels, *paths, "-m", "rr", "-m", "p@3", "--digits", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    api = rankmeter.evaluate(qrels, dict(zip(["sys0", "sys1", "sys2"], paths, strict=True)), ["rr", "p@3"])
    for name in api.systems:
        row = next(line.split() for line in lines if line.split()[:1] == [name])
        assert row == [name, "│", f"{api[name]['rr']:.3f}", "│", f"{api[name]['p@3']:.3f}"]
    assert lines[5] == "ties=trec; empty=zero; missing=zero"
    assert lines[6].startswith(f"sys0: {api['sys0'].metadata['queries_evaluated']} queries evaluated")
    assert main(["evaluate", qrels, *paths, "-m", "rr", "--format", "csv"]) == 0
    only_rr = rankmeter.evaluate(qrels, dict(zip(api.systems, paths, strict=True)), "rr")
    assert capsys.readouterr().out == only_rr.to_csv()


def test_cli_ci_per_system(run_files, capsys) -> None:
    qrels, paths = run_files
    data = _cli_json(capsys, qrels, *paths, "-m", "rr", "--ci", "0.9", "--n-resamples", "500")
    for name in data["metadata"]["systems"]:
        low, high = data["ci"][name]["rr"]["low"], data["ci"][name]["rr"]["high"]
        assert low <= data["aggregate"][name]["rr"] <= high


@pytest.mark.parametrize(
    ("argv", "message", "status"),
    [
        (["{folder}/empty"], "{folder}/empty: directory holds no run file", 1),
        (["{folder}/*.nothing"], "{folder}/*.nothing: pattern matches no run file", 1),
        (["{run}", "-"], "standard input ('-') can only be read as the only run", 2),
        (["{run}", "{run}"], "the same run is given twice: {run}", 2),
    ],
)
def test_cli_run_argument_errors(run_files, capsys, argv: list[str], message: str, status: int) -> None:
    qrels, paths = run_files
    folder = str(Path(paths[0]).parent)
    Path(folder, "empty").mkdir()
    fill = {"folder": folder, "run": paths[0]}
    assert main(["evaluate", qrels, *(a.format(**fill) for a in argv), "-m", "rr"]) == status
    assert capsys.readouterr().err == f"rankmeter evaluate: error: {message.format(**fill)}\n"


def test_expand_runs_errors_are_input_errors(tmp_path: Path) -> None:
    from rankmeter.cli.runs import expand_runs, system_names

    with pytest.raises(InputFormatError, match="pattern matches no run file"):
        expand_runs([str(tmp_path / "*.run")])
    with pytest.raises(PolicyError, match="given twice"):
        system_names(["a.txt", "a.txt"])


def test_qrels_sharing_a_document_column_keep_their_own_grades() -> None:
    """What the alignment derives once is kept with the document ids; another table's grades must not reuse it."""
    from rankmeter.core.join import align, prepare_qrels
    from rankmeter.core.semantics import Semantics
    from rankmeter.io.tables import Qrels, Run

    first = Qrels(np.array(["q1", "q1", "q1"]), np.array(["a", "a", "b"]), np.array([1.0, 3.0, 0.0]), "first.txt")
    second = Qrels(first.query_ids, first.doc_ids, np.array([2.0, 0.0, 1.0]), "second.txt")  # the same id columns
    run = Run(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([2.0, 1.0]))
    prepare_qrels(first, Semantics.build(None, "qrels", duplicates="max"))
    shared, _ = align(second, run, duplicates="max")
    fresh = Qrels(np.array(["q1", "q1", "q1"]), np.array(["a", "a", "b"]), np.array([2.0, 0.0, 1.0]), "fresh.txt")
    alone, _ = align(fresh, run, duplicates="max")
    assert shared.grades.tolist() == alone.grades.tolist() == [2.0, 1.0]
    assert shared.ideal_grades.tolist() == alone.ideal_grades.tolist()
