"""The NumPy parser of plain TREC files (rankmeter.io.plain) against the pyarrow and the exact parsers.

Every file it takes must give the same query ids (codes and dictionary in the same order), document
ids, values (bit for bit) and run tag as the parsers it stands in front of; every file it refuses
goes to them, so values and error messages are theirs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.errors import InputFormatError, InvalidScoreError
from rankmeter.io import plain, trec

MAX_LINE = 1 << 20


def arrow_or_exact(data: bytes, qrels: bool) -> tuple:
    """What the parsers behind the NumPy one make of ``data`` (pyarrow's, else the exact one)."""
    return trec._parse_columns(data, "f.txt", 1, qrels=qrels)


def assert_same(data: bytes, qrels: bool) -> None:
    n_columns, value_col = (4, 3) if qrels else (6, 4)
    got = plain.parse_plain(data, n_columns, value_col, MAX_LINE)
    assert got is not None
    qids, dids, values, _, name, _ = arrow_or_exact(data, qrels)
    ref = rankmeter.Run(qids, dids, values)
    assert got.query_ids.tolist() == ref.query_ids.tolist()
    assert got.query_ids.codes.tolist() == ref.query_ids.codes.tolist()
    assert got.query_ids.dictionary.tolist() == ref.query_ids.dictionary.tolist()
    assert got.doc_ids.tolist() == ref.doc_ids.tolist()
    assert got.values.view(np.int64).tolist() == np.asarray(values, np.float64).view(np.int64).tolist()  # -0.0 too
    if not qrels:
        assert got.first_line[5] == name


def numbers() -> st.SearchStrategy[str]:
    """Decimal numbers as systems write them: integers, fixed and long decimals, signs, exponents."""
    floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
    return st.one_of(
        st.integers(-(10**20), 10**20).map(str),
        floats.map(repr),
        floats.map(lambda x: f"{x:.3f}"),
        floats.map(lambda x: f"{x:.17g}"),
        floats.map(lambda x: f"{x:e}"),
        st.sampled_from(["0", "-0", "-0.0", "5.", ".5", "+1", "+.25", "1E+2", "007", "0.1000000000000000055511"]),
    )


ids = st.text(alphabet="abcXYZ019_-#.:/", min_size=1, max_size=12).filter(lambda s: not s.startswith("#"))


@st.composite
def run_files(draw: st.DrawFn) -> bytes:
    """Ragged runs: queries of any length, interleaved or together, tie-heavy or distinct scores."""
    queries = draw(st.lists(ids, min_size=1, max_size=6, unique=True))
    rows = draw(st.lists(st.tuples(st.sampled_from(queries), ids, numbers()), min_size=1, max_size=60))
    if draw(st.booleans()):
        rows.sort(key=lambda r: queries.index(r[0]))  # each query's lines together, as systems write them
    if draw(st.booleans()):
        few = draw(st.lists(numbers(), min_size=1, max_size=3))
        rows = [(q, d, few[i % len(few)]) for i, (q, d, _) in enumerate(rows)]  # tie-heavy
    text = "".join(f"{q} Q0 {d} {i} {s} tag{len(q)}\n" for i, (q, d, s) in enumerate(rows))
    return text.encode() if draw(st.booleans()) else text.rstrip("\n").encode()


@given(run_files())
@settings(max_examples=150, deadline=None)
def test_runs_parse_as_the_other_parsers_do(data: bytes) -> None:
    assert_same(data, qrels=False)


@given(st.lists(st.tuples(ids, ids, numbers()), min_size=1, max_size=40))
@settings(max_examples=100, deadline=None)
def test_qrels_parse_as_the_other_parsers_do(rows: list[tuple[str, str, str]]) -> None:
    assert_same("".join(f"{q} 0 {d} {g}\n" for q, d, g in rows).encode(), qrels=True)


def test_many_rows_with_repeated_and_returning_queries() -> None:
    rng = np.random.default_rng(7)
    queries = rng.choice([f"q{i}" for i in range(50)], size=5000)
    digits = rng.integers(0, 6, size=5000)
    scores = [round(float(x), int(k)) for x, k in zip(rng.gamma(2.0, 2.0, size=5000), digits, strict=True)]
    rows = enumerate(zip(queries, scores, strict=True))
    text = "".join(f"{q} Q0 D{rng.integers(10**6)} {i} {s} bm25\n" for i, (q, s) in rows)
    assert_same(text.encode(), qrels=False)


@pytest.mark.parametrize(
    "data",
    [
        b"q Q0 d 1 1.0 t\td\n",  # a tab
        b"q Q0 d 1 1.0 t\r\n",  # CR LF
        b"q Q0  d 1 1.0 t\n",  # a doubled space
        b" q Q0 d 1 1.0 t\n",  # a leading space
        b"q Q0 d 1 1.0 t \n",  # a trailing space
        b"q Q0 d 1 1.0 t\n\nq Q0 e 2 0.5 t\n",  # a blank line
        b"# comment\nq Q0 d 1 1.0 t\n",  # a comment line
        b"q Q0 d 1 1.0 t\n#q Q0 d 1 1.0 t\n",  # a comment line with six fields
        "q Q0 d\u00e9 1 1.0 t\n".encode(),  # a byte over 127
        b"q Q0 d 1 1.0 t x\n",  # a seventh field
        b"q Q0 d 1 1.0\n",  # a missing field
        b"q Q0 d\x00 1 1.0 t\n",  # a NUL byte
        b"q Q0 d 1 1.2.3 t\n",  # not a number
        b"q Q0 d 1 - t\n",
        b"q Q0 d 1 nan t\n",  # a word (the other parsers read it, then report it)
        b"q Q0 d 1 1_0 t\n",
        b"",
    ],
)
def test_files_that_are_not_plain_are_left_to_the_other_parsers(data: bytes) -> None:
    assert plain.parse_plain(data, 6, 4, MAX_LINE) is None


def test_a_line_over_the_limit_is_left_to_the_exact_parser() -> None:
    assert plain.parse_plain(b"q Q0 d 1 1.0 t\n", 6, 4, 14) is not None
    assert plain.parse_plain(b"q Q0 d 1 1.0 t\n", 6, 4, 13) is None


def write(tmp_path, name: str, data: bytes):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_read_run_of_a_small_file_takes_the_numpy_parser(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = write(tmp_path, "run.txt", b"q1 Q0 a 1 2.5 bm25\nq1 Q0 b 2 1 bm25\nq2 Q0 a 1 3 bm25\n")
    run = trec.read_run(path)
    assert run.lines is None and run.name == "bm25" and run.scores.tolist() == [2.5, 1.0, 3.0]
    assert run.query_ids.codes.tolist() == [0, 0, 1] and run.doc_ids.tolist() == ["a", "b", "a"]
    assert trec.PLAIN_MAX_BYTES >= 8 << 20  # W2-sized files (7.3 MB) spare pyarrow's import


def test_read_run_of_a_big_file_takes_pyarrow(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = write(tmp_path, "run.txt", b"q1 Q0 a 1 2.5 bm25\nq1 Q0 b 2 1 bm25\n")
    monkeypatch.setattr(trec, "PLAIN_MAX_BYTES", 10)
    monkeypatch.setattr(plain, "parse_plain", lambda *a: pytest.fail("the NumPy parser ran"))
    run = trec.read_run(path)
    assert run.doc_ids.tolist() == ["a", "b"] and run.scores.tolist() == [2.5, 1.0]


def test_errors_of_small_files_name_file_line_query_document_and_value(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = write(tmp_path, "bad.run", b"q1 Q0 a 1 2.5 t\nq1 Q0 b 2 1.2.3 t\n")
    with pytest.raises(
        InvalidScoreError, match=r"bad\.run:2: query 'q1', document 'b': score '1\.2\.3' is not a number"
    ):
        trec.read_run(bad)
    infinite = write(tmp_path, "inf.qrels", b"q1 0 a 1\nq1 0 b 1e999\n")
    with pytest.raises(InvalidScoreError, match=r"inf\.qrels:2: query 'q1', document 'b': relevance is inf"):
        trec.read_qrels(infinite)
    short = write(tmp_path, "short.run", b"q1 Q0 a 1 2.5 t\nq1 Q0 b 2\n")
    with pytest.raises(InputFormatError, match=r"short\.run:2: expected at least 6 whitespace-separated columns"):
        trec.read_run(short)


@pytest.mark.parametrize("end", [b"", b"\n"])
def test_fields_at_the_very_end_of_the_file(tmp_path, end: bytes) -> None:  # type: ignore[no-untyped-def]
    """The widest grade on the last line: its window would leave the buffer (with or without a final newline)."""
    data = b"q1 0 a 1\nq1 0 b 0\nq2 0 longest_doc_id 12.25" + end
    assert_same(data, qrels=True)
    qrels = trec.read_qrels(write(tmp_path, "q.txt", data))  # memory-mapped
    assert qrels.doc_ids.tolist() == ["a", "b", "longest_doc_id"] and qrels.relevance.tolist() == [1.0, 0.0, 12.25]
    assert qrels.query_ids.codes.tolist() == [0, 0, 1] and qrels.query_ids.dictionary.tolist() == ["q1", "q2"]
