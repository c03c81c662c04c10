"""Streaming evaluation gives exactly the in-memory result, with each query evaluated once."""

from __future__ import annotations

import gzip
import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.errors import InputFormatError, QueryOrderError
from rankmeter.io.run_blocks import iter_run_chunks

MEASURES = ["map", "ndcg", "ndcg@[5,10]", "p@[5,10,100]", "rr", "rprec", "num_q", "num_ret", "num_rel", "num_rel_ret"]


def _random_files(tmp_path, seed: int, gz: bool = False):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(40):
        qid = f"q{q:03d}"
        for d in rng.choice(200, size=30, replace=False):
            qrels.append(f"{qid} 0 D{d} {rng.integers(-1, 4)}")
        if q % 7 == 3:
            continue  # judged but missing from the run
        n = int(rng.integers(0, 80))
        scores = np.round(rng.normal(size=n), 1)  # ties
        sep = "\t" if q % 2 else " "
        for rank, (d, s) in enumerate(zip(rng.choice(200, size=n, replace=False), scores, strict=True), 1):
            run.append(sep.join([qid, "Q0", f"D{d}", str(rank), str(s), "t"]))
    run += ["zz Q0 D1 1 1.0 t"]  # run-only query
    qpath = tmp_path / "qrels.txt"
    qpath.write_text("\n".join(qrels) + "\n")
    rpath = tmp_path / ("run.txt.gz" if gz else "run.txt")
    data = ("\n".join(run) + "\n").encode()
    rpath.write_bytes(gzip.compress(data) if gz else data)
    return qpath, rpath


def _same_result(a, b) -> None:
    assert a.measure_names == b.measure_names
    assert a.query_ids.tolist() == b.query_ids.tolist()
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.included, b.included)
    assert a.aggregate == b.aggregate
    assert {k: v for k, v in a.metadata.items() if k != "streamed"} == {
        k: v for k, v in b.metadata.items() if k != "streamed"
    }


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("block", [64, 1000, 1 << 20])
def test_stream_equals_in_memory(tmp_path, seed, block) -> None:
    """The whole run read at once (a Run object) against the run file read in blocks, every metadata field too."""
    qpath, rpath = _random_files(tmp_path, seed, gz=seed % 2 == 1)
    whole_run = rankmeter.read_run(rpath)
    for missing in ("zero", "skip"):
        a = rankmeter.evaluate(qpath, whole_run, MEASURES, missing=missing)
        b = rankmeter.evaluate_stream(qpath, rpath, MEASURES, missing=missing, block_bytes=block)
        _same_result(a, b)
        assert b.metadata["streamed"] is True and "streamed" not in a.metadata


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"depth": 5, "ties": "stable"},
        {"judged_only": True, "ties": "pessimistic"},
        {"duplicates": "first", "empty": "skip"},
        {"duplicates": "max", "ties": "optimistic", "empty": "nan"},
        {"missing": "skip", "ties": "expected"},
    ],
)
def test_evaluate_reads_run_files_in_blocks(tmp_path, monkeypatch, seed, options) -> None:
    """``evaluate(qrels, path)`` reads the file in blocks: the result is the whole-run one, metadata included."""
    evaluate_module = importlib.import_module("rankmeter.io.load")
    monkeypatch.setattr(evaluate_module, "BLOCK_BYTES", 700)  # many blocks
    qpath, rpath = _random_files(tmp_path, seed, gz=seed == 3)
    if "duplicates" in options:  # repeated pairs in both files
        with open(qpath, "a") as fh:
            fh.write("q001 0 D7 3\nq001 0 D7 1\n")
        with open(rpath, "ab") as fh:
            fh.write(gzip.compress(b"zz Q0 D1 2 0.5 t\n") if seed == 3 else b"zz Q0 D1 2 0.5 t\n")
    whole = rankmeter.evaluate(qpath, rankmeter.read_run(rpath), MEASURES, **options)
    blocks = rankmeter.evaluate(qpath, rpath, MEASURES, **options)
    _same_result(whole, blocks)
    assert "streamed" not in blocks.metadata


def test_evaluate_reads_an_interleaved_run_whole(tmp_path, monkeypatch) -> None:
    """A run whose query lines are not together cannot be read in blocks; evaluate reads it at once instead."""
    evaluate_module = importlib.import_module("rankmeter.io.load")
    monkeypatch.setattr(evaluate_module, "BLOCK_BYTES", 16)
    run = tmp_path / "run.txt"
    run.write_text("a Q0 d1 1 2.0 t\nb Q0 d1 1 2.0 t\na Q0 d2 2 1.0 t\n")
    qrels = {"a": {"d2": 1}, "b": {"d1": 1}}
    res = rankmeter.evaluate(qrels, run, ["rr", "num_ret"])
    assert res.by_query("rr") == {"a": 0.5, "b": 1.0} and res.aggregate["num_ret"] == 3
    with pytest.raises(QueryOrderError, match=r"run\.txt:3: query 'a' appears again after other queries"):
        rankmeter.evaluate_stream(qrels, run, "rr", block_bytes=16)


def test_evaluate_and_stream_agree_on_an_empty_run_file(tmp_path) -> None:
    run = tmp_path / "run.txt"
    run.write_text("")
    for f in (rankmeter.evaluate, rankmeter.evaluate_stream):
        with pytest.raises(InputFormatError, match=r"run\.txt: file has no qid lines"):
            f({"a": {"d": 1}}, run, "map")


def test_stream_on_real_trec_data(trec_eval_dir) -> None:
    d = trec_eval_dir
    for qrels, run in (("qrels.test", "results.test"), ("qrels.comment.test", "results.comment.test")):
        a = rankmeter.evaluate(d / qrels, d / run, MEASURES)
        b = rankmeter.evaluate_stream(d / qrels, d / run, MEASURES, block_bytes=4096)
        assert a.aggregate == b.aggregate


def test_stream_chunks_hold_whole_queries(tmp_path) -> None:
    _, rpath = _random_files(tmp_path, 1)
    seen = []
    for run, _ in iter_run_chunks(rpath, block_bytes=100):
        ids = run.query_ids.tolist() if hasattr(run.query_ids, "tolist") else list(run.query_ids)
        seen.extend(dict.fromkeys(ids))
    assert len(seen) == len(set(seen))


def test_stream_refuses_interleaved_queries(tmp_path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("a Q0 d1 1 2 t\nb Q0 d1 1 2 t\na Q0 d2 2 1 t\n")
    with pytest.raises(InputFormatError, match=r"run.txt:3: query 'a' appears again after other queries"):
        rankmeter.evaluate_stream({"a": {"d1": 1}}, path, "map", block_bytes=10)


def test_stream_error_names_the_line(tmp_path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("a Q0 d1 1 2 t\na Q0 d2 2 1 t\nb Q0 d1 1 x t\n")
    with pytest.raises(rankmeter.InvalidScoreError, match=r"run.txt:3: query 'b', document 'd1': score 'x'"):
        rankmeter.evaluate_stream({"a": {"d1": 1}}, path, "map", block_bytes=16)


def test_cli_stream_matches(tmp_path, capsys) -> None:
    from rankmeter.cli.main import main

    qpath, rpath = _random_files(tmp_path, 3)
    assert main(["evaluate", str(qpath), str(rpath), "-m", "map", "-m", "ndcg@10", "--format", "json"]) == 0
    plain = capsys.readouterr().out
    assert (
        main(
            [
                "evaluate",
                str(qpath),
                str(rpath),
                "-m",
                "map",
                "-m",
                "ndcg@10",
                "--format",
                "json",
                "--stream",
                "--block-mb",
                "1",
            ]
        )
        == 0
    )
    streamed = capsys.readouterr().out
    import json

    assert json.loads(plain)["aggregate"] == json.loads(streamed)["aggregate"]


def test_read_ahead_keeps_order_and_raises_in_turn() -> None:
    from rankmeter.io.run_blocks import read_ahead

    produced = []

    def items():
        for i in range(5):
            produced.append(i)
            if i == 3:
                raise ValueError("bad block 3")
            yield i

    got = []
    with pytest.raises(ValueError, match="bad block 3"):
        for item in read_ahead(items()):
            got.append(item)
    assert got == [0, 1, 2]  # block 3's error surfaces only after blocks 0-2 were handed over
    assert produced == [0, 1, 2, 3]


def test_read_ahead_stops_when_the_consumer_fails() -> None:
    from rankmeter.io.run_blocks import read_ahead

    produced = []

    def items():
        for i in range(100):
            produced.append(i)
            yield i

    with pytest.raises(RuntimeError, match="consumer"):
        for item in read_ahead(items()):
            if item == 2:
                raise RuntimeError("consumer")
    assert produced == [0, 1, 2, 3]  # one item ahead at most, then nothing more is read


@pytest.mark.parametrize(
    ("qrels_text", "run_text", "message"),
    [
        ("a 0 d1 1\n", "a Q0 d1 1 2.0 t\nb Q0 d1 1 2.0 t\nb Q0 d1 2 1.0 t\n",
         r"run\.txt:3: query 'b', document 'd1' appears twice in the run \(first at line 2"),
        ("a 0 d1 1\nb 0 d2 0\na 0 d1 2\n", "a Q0 d1 1 2.0 t\n",
         r"qrels\.txt:3: query 'a', document 'd1' appears twice in the qrels \(first at line 1"),
        ("a 0 d1 1\n", "a Q0 d1 1 2.0 t\nb Q0 d2 1 nan t\n", r"run\.txt:2: query 'b', document 'd2': score"),
    ],
)  # fmt: skip
def test_block_and_whole_reads_report_the_same_error(tmp_path, monkeypatch, qrels_text, run_text, message) -> None:
    monkeypatch.setattr(importlib.import_module("rankmeter.io.load"), "BLOCK_BYTES", 16)
    qpath, rpath = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qpath.write_text(qrels_text)
    rpath.write_text(run_text)
    errors = []
    for run in (rpath, str(rpath)):
        with pytest.raises(rankmeter.RankmeterError, match=message) as caught:
            rankmeter.evaluate(qpath, run if isinstance(run, str) else rankmeter.read_run(run), "map")
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


def test_progress_bar_on_request(tmp_path, monkeypatch, capsys) -> None:
    """evaluate(progress=True) on a run file read in blocks, and rankmeter evaluate --progress, draw a bar on stderr."""
    from rankmeter.cli.main import main

    monkeypatch.setattr(importlib.import_module("rankmeter.io.load"), "BLOCK_BYTES", 200)
    qpath, rpath = _random_files(tmp_path, 0)
    quiet = rankmeter.evaluate(qpath, rpath, "map")
    assert capsys.readouterr().err == ""  # not a terminal: no bar by default
    shown = rankmeter.evaluate(qpath, rpath, "map", progress=True)
    assert "rankmeter evaluate" in capsys.readouterr().err
    assert shown.aggregate == quiet.aggregate
    assert main(["evaluate", str(qpath), str(rpath), "-m", "map", "--progress", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert "rankmeter evaluate" in captured.err and '"map"' in captured.out


@pytest.mark.parametrize("gz", [False, True])
def test_chunks_report_bytes_of_the_file_on_disk(tmp_path, gz) -> None:
    """Progress is measured against the file's size, so a .gz file reports compressed bytes."""
    _, rpath = _random_files(tmp_path, 2, gz=gz)
    done = [n for _, n in iter_run_chunks(rpath, block_bytes=512)]
    assert done == sorted(done) and done[-1] == rpath.stat().st_size


def test_blocks_evaluated_at_once_report_the_first_problem_in_file_order(tmp_path) -> None:
    """A duplicate in the first block is reported, not the later query that reappears (read while it is ranked)."""
    lines = ["a Q0 d1 1 2.0 t", "a Q0 d1 2 1.0 t"]  # the duplicate, line 2
    lines += ["b Q0 d1 1 2.0 t", "b Q0 d2 2 1.0 t"]
    lines += ["a Q0 d9 1 0.5 t"]  # 'a' again two blocks later, read while the first block is still ranked
    run = tmp_path / "run.txt"
    run.write_text("\n".join(lines) + "\n")
    for threads in (1, 2, 4):
        with pytest.raises(rankmeter.DuplicateEntryError, match=r"run\.txt:2: query 'a', document 'd1'"):
            rankmeter.evaluate_stream({"a": {"d1": 1}}, run, "map", block_bytes=20, threads=threads)
    with pytest.raises(QueryOrderError, match=r"run\.txt:5: query 'a' appears again"):
        rankmeter.evaluate_stream({"a": {"d1": 1}}, run, "map", block_bytes=20, threads=2, duplicates="first")


PIECES = [b"", b" ", b"\t", b"\r", b"\x0b", b"\x0c", b"#", b"a", b"\x00", b"\xff", b"1 Q0 d 1 2 t"]
LINES = st.lists(st.sampled_from(PIECES), max_size=5).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINES, max_size=8))
def test_has_rows_finds_a_line_neither_blank_nor_a_comment(lines: list[bytes]) -> None:
    from rankmeter.io.run_blocks import _has_rows

    block = b"\n".join(lines)
    expected = any(line.strip() and not line.startswith(b"#") for line in block.split(b"\n"))
    assert _has_rows(block) == expected
