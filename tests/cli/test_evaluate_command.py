"""``rankmeter evaluate`` end to end: table, JSON, CSV and trec_eval outputs, stdin, the console script."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rankmeter
from rankmeter.cli.main import main

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 a 1\nq2 0 z 1\nq3 0 x 0\n"
RUN = (
    "q1 Q0 a 1 3.0 sys\nq1 Q0 b 2 2.0 sys\nq1 Q0 c 3 1.0 sys\n"
    "q2 Q0 y 1 5.0 sys\nq2 Q0 a 2 4.0 sys\n"
    "q3 Q0 x 1 1.0 sys\n"
    "q9 Q0 a 1 1.0 sys\n"
)
MEASURES = ["ndcg@2", "map", "p@2", "rr", "num_q", "num_rel_ret"]


@pytest.fixture
def files(write):
    return str(write("qrels.txt", QRELS)), str(write("run.txt", RUN))


def _argv(files, *extra, measures=MEASURES):
    argv = ["evaluate", *files]
    for m in measures:
        argv += ["-m", m]
    return argv + list(extra)


@pytest.fixture
def api(files):
    return rankmeter.evaluate(*files, MEASURES)


def test_json_schema(files, api, capsys) -> None:
    assert main(_argv(files, "--format", "json")) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    data = json.loads(captured.out)
    assert list(data) == ["aggregate", "per_query", "metadata"]
    assert data["aggregate"] == api.aggregate
    assert list(data["aggregate"]) == ["ndcg@2", "map", "p@2", "rr", "num_q", "num_rel_ret"]
    assert all(list(row) == ["query_id", "measure", "value"] for row in data["per_query"])
    assert data["per_query"] == api.per_query
    assert {r["query_id"] for r in data["per_query"]} == {"q1", "q2", "q3"}
    meta = data["metadata"]
    assert meta["ties"] == "trec" and meta["empty"] == "zero" and meta["missing"] == "zero"
    assert meta["queries_evaluated"] == 3 and meta["queries_run_only"] == 1 and meta["run_only_query_ids"] == ["q9"]
    assert meta["measures"] == list(data["aggregate"])
    assert meta["rankmeter_version"] == rankmeter.__version__
    assert meta["run_name"] == "sys"


def test_json_values_by_hand(files, capsys) -> None:
    assert main(_argv(files, "--format", "json")) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {(r["query_id"], r["measure"]): r["value"] for r in data["per_query"]}
    # q1: a(2) b(0) c(1); R = 2 -> AP = (1 + 2/3) / 2
    assert rows[("q1", "map")] == pytest.approx((1 + 2 / 3) / 2)
    # q2: y (unjudged) a(1); z never retrieved; R = 2 -> AP = (1/2) / 2
    assert rows[("q2", "map")] == pytest.approx(0.25)
    assert rows[("q2", "rr")] == 0.5
    # q3: no relevant document -> 0 (empty='zero')
    assert rows[("q3", "map")] == 0.0
    assert data["aggregate"]["num_q"] == 3 and data["aggregate"]["num_rel_ret"] == 3


def test_json_options_are_passed_through(files, capsys) -> None:
    assert main(_argv(files, "--format", "json", "--empty", "skip", "--ties", "stable", "--depth", "1")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["metadata"]["empty"] == "skip" and data["metadata"]["ties"] == "stable"
    assert data["metadata"]["depth"] == 1
    assert {r["query_id"] for r in data["per_query"] if r["measure"] == "map"} == {"q1", "q2"}
    assert data["aggregate"]["map"] == pytest.approx((1 / 2 + 0) / 2)


def test_csv_output(files, api, capsys, tmp_path) -> None:
    assert main(_argv(files, "--format", "csv")) == 0
    text = capsys.readouterr().out
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["query_id", "measure", "value"]
    body = rows[1:]
    per_query = [r for r in body if r[0] != "all"]
    assert [(r[0], r[1]) for r in per_query] == [(x["query_id"], x["measure"]) for x in api.per_query]
    assert [float(r[2]) for r in per_query] == [x["value"] for x in api.per_query]
    assert {r[1]: float(r[2]) for r in body if r[0] == "all"} == api.aggregate
    # -o writes the same text to a file
    out = tmp_path / "res.csv"
    assert main(_argv(files, "--format", "csv", "-o", str(out))) == 0
    assert capsys.readouterr().out == ""
    assert out.read_text() == text


def test_trec_output(files, api, capsys) -> None:
    assert main(_argv(files, "--format", "trec")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(MEASURES)
    for line, name in zip(lines, api.measure_names, strict=True):
        measure_name, qid, value = line.split("\t")
        assert measure_name.strip() == name and qid == "all"
        want = api.aggregate[name]
        assert value == (str(int(want)) if name.startswith("num_") else f"{want:.4f}")
    assert main(_argv(files, "--format", "trec", "--per-query")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 * len(MEASURES) + len(MEASURES)
    assert lines[0].split("\t")[1] == "q1" and lines[-1].split("\t")[1] == "all"


def _cells(line: str) -> list[str]:
    """The words of a table line, without rich's column separators."""
    return [c for c in line.split() if c.strip("│┃|") != ""]


def test_table_output(files, api, capsys) -> None:
    assert main(_argv(files)) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    for name in api.measure_names:
        assert name in header
    all_row = next(_cells(line) for line in out.splitlines() if _cells(line)[:1] == ["all"])
    cells = all_row[1:]
    assert cells == [
        str(int(api.aggregate[n])) if n.startswith("num_") else f"{api.aggregate[n]:.4f}" for n in api.measure_names
    ]
    assert "3 queries evaluated" in out and "ties=trec" in out and "1 run-only queries ignored" in out


def test_table_per_query_and_digits(files, api, capsys) -> None:
    assert main(_argv(files, "--per-query", "--digits", "6")) == 0
    out = capsys.readouterr().out
    lines = {_cells(line)[0]: _cells(line)[1:] for line in out.splitlines() if _cells(line)}
    for qid in ("q1", "q2", "q3"):
        assert lines[qid][api.measure_names.index("map")] == f"{api.by_query('map')[qid]:.6f}"
    assert lines["all"][api.measure_names.index("map")] == f"{api.aggregate['map']:.6f}"


def test_default_measures(files, capsys) -> None:
    assert main(["evaluate", *files, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for name in ("ndcg@10", "map", "p@10", "rr", "num_q"):
        assert name in data["aggregate"]


def test_stdin_run(files, capsys, monkeypatch) -> None:
    qrels, run = files
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(Path(run).read_bytes())))
    assert main(["evaluate", qrels, "-", "-m", "map", "-m", "p@2", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = rankmeter.evaluate(qrels, run, ["map", "p@2"])
    assert data["aggregate"] == expected.aggregate
    assert data["metadata"]["run_source"] == "-"


def test_gz_run(files, tmp_path, capsys) -> None:
    import gzip

    qrels, run = files
    gz = tmp_path / "run.txt.gz"
    gz.write_bytes(gzip.compress(Path(run).read_bytes()))
    assert main(["evaluate", qrels, str(gz), "-m", "map", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["aggregate"] == rankmeter.evaluate(qrels, run, "map").aggregate


def _console_script() -> str:
    found = shutil.which("rankmeter")
    beside = Path(sys.executable).parent / "rankmeter"
    if beside.exists():
        return str(beside)
    if found:
        return found
    pytest.fail("the rankmeter console script is not installed (pip install -e .)", pytrace=False)


def test_console_script_subprocess(files, tmp_path) -> None:
    script = _console_script()
    qrels, run = files
    ok = subprocess.run(
        [script, "evaluate", qrels, run, "-m", "map", "-m", "ndcg@2", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    assert data["aggregate"] == rankmeter.evaluate(qrels, run, ["map", "ndcg@2"]).aggregate
    bad_run = tmp_path / "bad.txt"
    bad_run.write_text("q1 Q0 a 1 3.0 sys\nq1 Q0 b 2 oops sys\n")
    bad = subprocess.run(
        [script, "evaluate", qrels, str(bad_run), "-m", "map"], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 1  # bad input (2 is kept for a bad command line)
    assert bad.stdout == ""
    assert bad.stderr.splitlines() == [
        f"rankmeter evaluate: error: {bad_run}:2: query 'q1', document 'b': score 'oops' is not a number"
    ]


def test_threads_and_stream_give_the_same_json(files, capsys, monkeypatch) -> None:
    from rankmeter.core import join as join_module

    monkeypatch.setattr(join_module, "PARALLEL_MIN_ROWS", 1)  # the example run is tiny: let it take the block path
    outputs = []
    for extra in ([], ["--threads", "1"], ["--threads", "3"], ["--stream", "--block-mb", "1", "--threads", "2"]):
        assert main(_argv(files, "--format", "json", *extra)) == 0
        data = json.loads(capsys.readouterr().out)
        outputs.append((data["aggregate"], data["per_query"]))
    assert all(out == outputs[0] for out in outputs[1:])


def test_stream_passes_the_shuffle_seed(files, capsys) -> None:
    tied = "q1 Q0 a 1 1.0 s\nq1 Q0 b 2 1.0 s\nq1 Q0 c 3 1.0 s\nq1 Q0 d 4 1.0 s\nq1 Q0 e 5 1.0 s\n"
    run = Path(files[1]).with_name("tied.txt")
    run.write_text(tied)
    qrels = Path(files[0]).with_name("tied.qrels")
    qrels.write_text("q1 0 c 1\n")
    values = {}
    for seed in range(6):
        argv = [
            "evaluate",
            str(qrels),
            str(run),
            "-m",
            "rr",
            "--format",
            "json",
            "--ties",
            "shuffle",
            "--seed",
            str(seed),
        ]
        assert main([*argv, "--stream"]) == 0
        streamed = json.loads(capsys.readouterr().out)["aggregate"]["rr"]
        assert main(argv) == 0
        values[seed] = (streamed, json.loads(capsys.readouterr().out)["aggregate"]["rr"])
    assert all(a == b for a, b in values.values())  # the stream shuffles with the seed itself
    assert len({a for a, _ in values.values()}) > 1  # and the seed reaches it


def test_table_with_ci_shows_the_json_intervals(files, capsys) -> None:
    argv = _argv(files, "--ci", "0.9", "--n-resamples", "400", measures=["map", "rr"])
    assert main(argv) == 0
    row = next(_cells(line) for line in capsys.readouterr().out.splitlines() if _cells(line)[:2] == ["90%", "CI"])
    assert main([*argv, "--format", "json"]) == 0
    ci = json.loads(capsys.readouterr().out)["ci"]
    assert " ".join(row[2:]) == " ".join(f"[{ci[m]['low']:.4f}, {ci[m]['high']:.4f}]" for m in ("map", "rr"))


def test_evaluate_command_imports_neither_rich_nor_the_statistics(files) -> None:
    code = (
        "import sys\nfrom rankmeter.cli.main import main\n"
        f"main(['evaluate', {files[0]!r}, {files[1]!r}, '-m', 'map'])\n"
        "print(sorted(m for m in ('rich', 'scipy', 'rankmeter.stats', 'rankmeter.trec_eval', 'rankmeter.vectors',"
        " 'pandas', 'polars') if m in sys.modules), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.strip() == "[]"
    assert done.stdout.splitlines()[0].split() == ["query", "┃", "map"]
