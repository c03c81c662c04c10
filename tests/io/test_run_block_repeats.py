"""Streaming never lets a repeated (query, document) reach a measure: the whole-file result or its error, always."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.errors import DuplicateEntryError, QueryOrderError, RankmeterError
from rankmeter.io.run_blocks import iter_run_chunks

QRELS = {"q0": {"d0": 1, "d1": 2, "d2": 0}, "q1": {"d1": 1, "d3": 1}, "q2": {"d0": 0, "d4": 3}}
MEASURES = ["map", "ndcg", "num_ret", "p@2"]


def _outcome(qrels: object, run: object, **options: object) -> object:
    """The per-query values and aggregates of a call, or the class and message of its error."""
    try:
        res = rankmeter.evaluate(qrels, run, MEASURES, ties="stable", **options)  # type: ignore[arg-type]
    except RankmeterError as exc:
        return type(exc).__name__, str(exc)
    return res.per_query, res.aggregate


def _stream(path: Path, block_bytes: int, **options: object) -> object:
    try:
        res = rankmeter.evaluate_stream(QRELS, path, MEASURES, ties="stable", block_bytes=block_bytes, **options)
    except RankmeterError as exc:
        return type(exc).__name__, str(exc)
    return res.per_query, res.aggregate


LINE = st.tuples(st.sampled_from(["q0", "q1", "q2"]), st.sampled_from(["d0", "d1", "d2", "d3", "d4"]),
                 st.sampled_from([1.0, 2.0, 3.0]))  # fmt: skip
FILLER = st.sampled_from(["", "# a comment", "   "])


@settings(max_examples=120, deadline=None, database=None)
@given(
    st.lists(st.tuples(LINE, st.one_of(st.none(), FILLER)), min_size=1, max_size=9),
    st.sampled_from(["error", "first", "max"]),
    st.sampled_from([1, 9, 23, 64, 1 << 16]),
)
def test_streaming_gives_the_whole_read_or_refuses_an_interleaved_run(
    tmp_path_factory: pytest.TempPathFactory, rows: list, duplicates: str, block_bytes: int
) -> None:
    lines = []
    for (qid, doc, score), filler in rows:
        lines.append(f"{qid} Q0 {doc} 1 {score} t")
        if filler is not None:
            lines.append(filler)
    path = tmp_path_factory.mktemp("run") / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    whole = _outcome(QRELS, rankmeter.read_run(path), duplicates=duplicates)
    streamed = _stream(path, block_bytes, duplicates=duplicates)
    queries = [qid for (qid, _, _), _ in rows]
    together = all(queries[i - 1] == q or q not in queries[:i] for i, q in enumerate(queries) if i)
    if together:  # blank and comment lines between a query's lines do not separate them
        assert streamed == whole  # the same values, or the same error naming the same lines
    else:
        assert streamed == whole or streamed[0] == "QueryOrderError"


def test_a_repeat_across_blocks_is_the_whole_read_error(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q0 Q0 d0 1 3.0 t\nq0 Q0 d1 2 2.0 t\n\nq0 Q0 d2 3 1.5 t\nq0 Q0 d0 4 1.0 t\nq1 Q0 d1 1 1.0 t\n")
    whole = _outcome(QRELS, rankmeter.read_run(path))
    assert whole[0] == "DuplicateEntryError" and "run.txt:5: query 'q0', document 'd0' appears twice" in whole[1]
    for block_bytes in (1, 8, 17, 40, 90):  # the repeat in the same block as its first line, or blocks later
        assert _stream(path, block_bytes) == whole, block_bytes


def test_a_repeat_is_named_as_the_whole_read_names_it(tmp_path: Path) -> None:
    # four equal lines: at 23-byte blocks lines 3 and 4 arrive in one block, after lines 1 and 2 were read
    path = tmp_path / "run.txt"
    path.write_text("q0 Q0 d0 1 1.0 t\n" * 4)
    whole = _outcome(QRELS, rankmeter.read_run(path))
    assert "run.txt:2: query 'q0', document 'd0' appears twice in the run (first at line 1" in whole[1]
    for block_bytes in range(1, 80):
        assert _stream(path, block_bytes) == whole, block_bytes


def test_a_repeat_after_other_queries_is_never_evaluated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q0 Q0 d0 1 3.0 t\nq1 Q0 d1 1 1.0 t\nq0 Q0 d0 2 1.0 t\n")
    with pytest.raises(QueryOrderError, match=r"run\.txt:3: query 'q0' appears again after other queries"):
        rankmeter.evaluate_stream(QRELS, path, MEASURES, block_bytes=16)
    monkeypatch.setattr(importlib.import_module("rankmeter.io.load"), "BLOCK_BYTES", 16)  # evaluate reads in blocks
    with pytest.raises(DuplicateEntryError, match=r"run\.txt:3: query 'q0', document 'd0' appears twice"):
        rankmeter.evaluate(QRELS, str(path), MEASURES)  # read whole once the order is known: the repeat is seen
    kept = rankmeter.evaluate(QRELS, str(path), MEASURES, duplicates="max")
    assert kept.per_query == rankmeter.evaluate(QRELS, rankmeter.read_run(path), MEASURES, duplicates="max").per_query


def test_the_worker_path_reports_the_repeat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("q0 Q0 d0 1 3.0 t\nq1 Q0 d1 1 1.0 t\n")
    bad.write_text("q0 Q0 d0 1 3.0 t\nq0 Q0 d1 2 2.0 t\n# c\nq0 Q0 d0 3 1.0 t\n")
    monkeypatch.setattr(importlib.import_module("rankmeter.io.load"), "BLOCK_BYTES", 16)
    with pytest.raises(DuplicateEntryError, match=r"bad\.txt:4: query 'q0', document 'd0' appears twice"):
        rankmeter.evaluate(QRELS, {"good": str(good), "bad": str(bad)}, MEASURES, workers=2)


@pytest.mark.parametrize("filler", ["", "# between", "  \t"])
def test_blank_and_comment_lines_keep_a_query_in_one_block(tmp_path: Path, filler: str) -> None:
    path = tmp_path / "run.txt"
    path.write_text(f"q0 Q0 d0 1 3.0 t\n{filler}\nq0 Q0 d1 2 2.0 t\nq1 Q0 d1 1 1.0 t\n")
    for block_bytes in range(1, 70):
        blocks = [run.query_ids.tolist() for run, _ in iter_run_chunks(path, block_bytes=block_bytes)]
        assert [q for block in blocks for q in block] == ["q0", "q0", "q1"], block_bytes
        assert all(len(set(block)) == 1 for block in blocks if len(block) > 1) or len(blocks) == 1, block_bytes
