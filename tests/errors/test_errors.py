"""Layer 4: error contracts. Each bad input gets its own test and its message checked.

Every error is a :class:`rankmeter.RankmeterError` (and therefore a ``ValueError``) of the
documented subclass; messages name the file and line, the query and the document where there is
one, and the value received.
"""

from __future__ import annotations

import contextlib
import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import rankmeter
from rankmeter import (
    DuplicateEntryError,
    InputFormatError,
    InvalidScoreError,
    MeasureSyntaxError,
    PolicyError,
    RankmeterError,
)
from rankmeter.cli.main import main

QRELS = "301 0 D1 1\n301 0 D2 0\n301 0 D3 2\n"
RUN = "301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 1.5 tag\n301 Q0 D3 3 0.5 tag\n"


@contextlib.contextmanager
def fails(exc_type: type[RankmeterError], pattern: str):
    """pytest.raises + the hierarchy contract (RankmeterError, ValueError)."""
    with pytest.raises(exc_type, match=pattern) as info:
        yield info
    assert isinstance(info.value, RankmeterError)
    assert isinstance(info.value, ValueError)


def esc(text: str) -> str:
    return re.escape(text)


def test_hierarchy() -> None:
    for cls in (InputFormatError, DuplicateEntryError, InvalidScoreError, MeasureSyntaxError, PolicyError):
        assert issubclass(cls, RankmeterError)
    assert issubclass(RankmeterError, ValueError)


# --- TREC files ------------------------------------------------------------------------------------
def test_qrels_line_with_too_few_columns(write) -> None:
    q = write("qrels.txt", "301 0 D1 1\n301 0 D2\n")
    with fails(InputFormatError, esc(f"{q}:2: expected 4 whitespace-separated columns") + ".*got 3: '301 0 D2'"):
        rankmeter.read_qrels(q)


def test_qrels_line_with_too_many_columns(write) -> None:
    q = write("qrels.txt", "301 0 D1 1\n\n301 0 D2 1 extra\n")
    with fails(InputFormatError, esc(f"{q}:3: expected 4 whitespace-separated columns") + ".*got 5"):
        rankmeter.evaluate(q, {"301": {"D1": 1.0}}, "p@1")


def test_run_line_with_fewer_than_six_columns(write) -> None:
    r = write("run.txt", RUN + "301 Q0 D4 4 0.1\n")
    with fails(InputFormatError, esc(f"{r}:4: expected at least 6 whitespace-separated columns") + ".*got 5"):
        rankmeter.read_run(r)


def test_non_numeric_score(write) -> None:
    r = write("run.txt", "301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 abc tag\n")
    with fails(InvalidScoreError, esc(f"{r}:2: query '301', document 'D2': score 'abc' is not a number")):
        rankmeter.evaluate(write("q.txt", QRELS), r, "p@1")


def test_non_numeric_score_after_a_comment(write) -> None:
    r = write("run.txt", "# header\n301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 1,5 tag\n")
    with fails(InvalidScoreError, esc(f"{r}:3: query '301', document 'D2': score '1,5' is not a number")):
        rankmeter.read_run(r)


def test_non_numeric_relevance(write) -> None:
    q = write("qrels.txt", "301 0 D1 1\n301 0 D2 high\n")
    with fails(InvalidScoreError, esc(f"{q}:2: query '301', document 'D2': relevance 'high' is not a number")):
        rankmeter.read_qrels(q)


@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity"])
def test_infinite_score_in_file(write, value) -> None:
    r = write("run.txt", f"301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 {value} tag\n")
    with fails(InvalidScoreError, esc(f"{r}:2: query '301', document 'D2': score is ") + ".*inf.*finite"):
        rankmeter.read_run(r)


def test_nan_score_in_file_with_comment(write) -> None:
    r = write("run.txt", "# c\n301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 nan tag\n")
    with fails(InvalidScoreError, esc(f"{r}:3: query '301', document 'D2': score is nan")):
        rankmeter.read_run(r)


@pytest.mark.parametrize("value", ["nan", "NaN", "-nan"])
def test_nan_score_in_file(write, value) -> None:
    r = write("run.txt", f"301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 {value} tag\n")
    with fails(InvalidScoreError, esc(f"{r}:2: query '301', document 'D2': score is nan")):
        rankmeter.read_run(r)


@pytest.mark.parametrize("value", ["NA", "null", "N/A", "#N/A", "1.#IND", "NULL"])
def test_null_like_score_in_file(write, value) -> None:
    r = write("run.txt", f"301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 {value} tag\n")
    with fails(InvalidScoreError, esc(f"{r}:2: query '301', document 'D2': score {value!r} is not a number")):
        rankmeter.read_run(r)


@pytest.mark.parametrize("value", ["nan", "NA", "null"])
def test_nan_relevance_in_file(write, value) -> None:
    q = write("qrels.txt", f"301 0 D1 1\n301 0 D2 {value}\n")
    with fails(InvalidScoreError, esc(f"{q}:2: query '301', document 'D2': relevance")):
        rankmeter.read_qrels(q)


def test_nan_score_in_dict() -> None:
    with fails(InvalidScoreError, esc("query '301', document 'D2': score is nan")):
        rankmeter.evaluate({"301": {"D1": 1}}, {"301": {"D1": 1.0, "D2": float("nan")}}, "p@1")


def test_infinite_grade_in_dict() -> None:
    with fails(InvalidScoreError, esc("query '301', document 'D1': relevance is inf")):
        rankmeter.evaluate({"301": {"D1": float("inf")}}, {"301": {"D1": 1.0}}, "p@1")


def test_non_numeric_value_in_dict() -> None:
    with fails(InvalidScoreError, esc("run dict: query '301', document 'D1': value 'x' is not a number")):
        rankmeter.evaluate({"301": {"D1": 1}}, {"301": {"D1": "x"}}, "p@1")


def test_dict_of_non_dicts() -> None:
    with fails(InputFormatError, esc("qrels dict: query '302' maps to list, expected a dict")):
        rankmeter.evaluate({"301": {"D1": 1}, "302": ["D1"]}, {"301": {"D1": 1.0}}, "p@1")


@pytest.mark.parametrize("lib", ["pandas", "polars", "pyarrow"])
def test_nan_and_inf_score_in_table(lib) -> None:
    qrels = {"query_id": ["q"], "doc_id": ["a"], "relevance": [1]}
    for bad, shown in ((np.inf, "inf"), (np.nan, "nan")):
        run = {"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, bad]}
        make = {"pandas": pd.DataFrame, "polars": pl.DataFrame, "pyarrow": pa.table}[lib]
        pattern = esc(f"row 2: query 'q', document 'b': score is {shown}")
        if lib == "pandas" and shown == "nan":
            pattern = esc("column 'score' has 1 missing values")  # pandas stores NaN as its missing value
            with fails(InputFormatError, pattern):
                rankmeter.evaluate(make(qrels), make(run), "p@1")
            continue
        with fails(InvalidScoreError, pattern):
            rankmeter.evaluate(make(qrels), make(run), "p@1")


def test_non_numeric_score_in_table() -> None:
    q = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    r = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": ["1.0", "zz"]})
    with fails(InvalidScoreError, esc("row 1: query 'q', document 'b': score 'zz' is not a number")):
        rankmeter.evaluate(q, r, "p@1")


def test_nan_in_dense_arrays() -> None:
    with fails(InvalidScoreError, esc("y_score[0, 1] is nan; values must be finite numbers")):
        rankmeter.evaluate_arrays([[1, 0]], [[0.5, np.nan]], "p@1")
    with fails(InvalidScoreError, esc("y_true[1, 0] is inf")):
        rankmeter.evaluate_arrays([[1, 0], [np.inf, 0]], [[0.5, 1], [0.1, 0.2]], "p@1")
    with fails(InvalidScoreError, esc("y_score[0][1] is nan")):
        rankmeter.evaluate_lists([[1, 0]], [[0.5, np.nan]], "p@1")


def test_nan_under_the_mask_is_ignored() -> None:
    res = rankmeter.evaluate_arrays([[1, 0]], [[0.5, np.nan]], "p@1", mask=[[True, False]])
    assert res["p@1"] == 1.0


# --- duplicates -------------------------------------------------------------------------------------
def test_duplicate_in_run_names_both_lines(write) -> None:
    r = write("run.txt", "301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 1.5 tag\n301 Q0 D1 3 1.0 tag\n")
    with fails(
        DuplicateEntryError, esc(f"{r}:3: query '301', document 'D1' appears twice in the run (first at line 1")
    ):
        rankmeter.evaluate(write("q.txt", QRELS), r, "p@1")


def test_duplicate_in_qrels_names_both_lines(write) -> None:
    q = write("qrels.txt", "301 0 D1 1\n301 0 D2 0\n# comment\n301 0 D1 2\n")
    with fails(
        DuplicateEntryError,
        esc(f"{q}:4: query '301', document 'D1' appears twice in the qrels (first at line 1") + ".*duplicates=",
    ):
        rankmeter.evaluate(q, write("run.txt", RUN), "p@1")


def test_duplicate_in_table() -> None:
    q = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "relevance": [1, 0]})
    with fails(DuplicateEntryError, "query 'q', document 'a' appears twice in the qrels"):
        rankmeter.evaluate(q, {"q": {"a": 1.0}}, "p@1")


def test_duplicates_first_and_max_escapes(write) -> None:
    q = write("qrels.txt", "301 0 D1 0\n301 0 D2 0\n301 0 D1 1\n")
    r = write("run.txt", "301 Q0 D1 1 0.5 tag\n301 Q0 D2 2 1.5 tag\n301 Q0 D1 3 2.5 tag\n")
    first = rankmeter.evaluate(q, r, ["p@1", "num_ret", "num_rel"], duplicates="first")
    # first: D1 has grade 0 and score 0.5, D2 (score 1.5, grade 0) is ranked first
    assert first["p@1"] == 0.0 and first["num_ret"] == 2 and first["num_rel"] == 0
    assert first.metadata["duplicates_dropped"] == 2
    best = rankmeter.evaluate(q, r, ["p@1", "num_ret", "num_rel"], duplicates="max")
    # max: D1 has grade 1 and score 2.5, so it is first and relevant
    assert best["p@1"] == 1.0 and best["num_ret"] == 2 and best["num_rel"] == 1
    assert best.metadata["duplicates_dropped"] == 2


# --- files ---------------------------------------------------------------------------------------------
def test_empty_file(write) -> None:
    e = write("empty.txt", "")
    with fails(InputFormatError, esc(f"{e}: file has no")):
        rankmeter.read_run(e)


def test_file_with_only_comments_and_blank_lines(write) -> None:
    e = write("comments.txt", "# nothing here\n\n   \n# really\n")
    with fails(InputFormatError, esc(f"{e}: file has no")):
        rankmeter.read_qrels(e)


def test_missing_file(tmp_path) -> None:
    p = tmp_path / "nope.txt"
    with fails(InputFormatError, esc(f"{p}: cannot read file") + ".*No such file"):
        rankmeter.evaluate(p, {"q": {"a": 1.0}}, "p@1")


def test_unreadable_object() -> None:
    with fails(InputFormatError, esc("cannot read qrels from int")):
        rankmeter.evaluate(42, {"q": {"a": 1.0}}, "p@1")
    with fails(InputFormatError, esc("cannot read a run from list")):
        rankmeter.evaluate({"q": {"a": 1}}, [1, 2], "p@1")


# --- measures ------------------------------------------------------------------------------------------
def test_unknown_measure() -> None:
    with fails(MeasureSyntaxError, esc("unknown measure 'foo'; known measures: ") + ".*ndcg"):
        rankmeter.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "foo@5")


def test_unknown_parameter() -> None:
    with fails(MeasureSyntaxError, esc("measure 'ndcg(foo=1)@5': ndcg has no parameter 'foo' (parameters: gain")):
        rankmeter.parse("ndcg(foo=1)@5")
    with fails(MeasureSyntaxError, esc("measure 'p' has no parameter 'gain' (parameters: min_rel, divisor)")):
        rankmeter.measures.measure("p", 5, gain="exp")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("p@0", "measure 'p@0': cutoff must be >= 1, got 0"),
        ("p@1.5", "measure 'p@1.5': cutoff '1.5' is not a positive integer"),
        ("p@-3", "measure 'p@-3': cutoff '-3' is not a positive integer"),
        ("p@x", "measure 'p@x': cutoff 'x' is not a positive integer"),
        ("ndcg@[]", "measure 'ndcg@[]': empty cutoff list"),
        ("ndcg@[1,5", "measure 'ndcg@[1,5': cutoff list must end with ']'"),
        ("ndcg@[1,0]", "cutoff must be >= 1, got 0"),
    ],
)
def test_bad_cutoff(text, message) -> None:
    with fails(MeasureSyntaxError, esc(message)):
        rankmeter.parse(text)


def test_bad_cutoff_in_builder() -> None:
    with fails(MeasureSyntaxError, esc("cutoffs must be >= 1, got [0]")):
        rankmeter.measures.measure("p", 0)


def test_missing_required_cutoff() -> None:
    with fails(MeasureSyntaxError, esc("measure 'p' needs a cutoff, e.g. 'p@10'")):
        rankmeter.parse("p")
    with fails(MeasureSyntaxError, esc("measure 'success' needs a cutoff")):
        rankmeter.measures.measure("hit_rate")


def test_cutoff_on_a_measure_without_cutoff() -> None:
    with fails(MeasureSyntaxError, esc("measure 'rprec' takes no cutoff, got '@5'")):
        rankmeter.parse("rprec@5")
    with fails(MeasureSyntaxError, esc("measure 'num_q' takes no cutoff")):
        rankmeter.parse("num_q@10")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ndcg(gain=cube)", "gain must be linear, exp or a table {grade:gain,...}, got 'cube'"),
        ("ndcg(gain={1})", "gain table entry '1' must be grade:gain"),
        ("ndcg(discount=jarvelin(1))", "jarvelin base must be > 1 and finite, got 1.0"),
        ("ndcg(discount=log10)", "discount must be log2 or jarvelin(b), got 'log10'"),
        ("ndcg(ideal=all)", "ideal must be 'judged' or 'retrieved', got 'all'"),
        ("p(min_rel=abc)@5", "'abc' is not a number"),
        ("ndcg(gain=exp", "unbalanced parentheses"),
        ("ndcg(gain=exp,gain=linear)", "parameter 'gain' given twice"),
        ("map(min_rel)", "parameter 'min_rel' must look like name=value"),
        ("ndcg junk", "unexpected text 'junk'"),
        ("@5", "cannot parse measure '@5'"),
    ],
)
def test_bad_parameter_values(text, message) -> None:
    with fails(MeasureSyntaxError, esc(message)):
        rankmeter.parse(text)


def test_no_measures() -> None:
    with fails(MeasureSyntaxError, esc("no measures given")):
        rankmeter.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [])


# --- policies ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ties": "random"}, "unknown ties policy 'random'; choose one of trec, stable, expected"),
        ({"empty": "drop"}, "unknown empty policy 'drop'; choose one of zero, skip, nan, one, error"),
        ({"missing": "drop"}, "unknown missing policy 'drop'; choose one of zero, skip, error"),
        ({"duplicates": "last"}, "unknown duplicates policy 'last'; choose one of error, first, max"),
        ({"depth": 0}, "depth must be a positive integer, got 0"),
        ({"depth": 5, "ties": "expected"}, "depth truncation is not defined for ties='expected'"),
    ],
)
def test_unknown_or_bad_policy(kwargs, message) -> None:
    with fails(PolicyError, esc(message)):
        rankmeter.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "p@1", **kwargs)


@pytest.mark.parametrize("entry", ["arrays", "lists"])
def test_unknown_policy_dense(entry) -> None:
    f = rankmeter.evaluate_arrays if entry == "arrays" else rankmeter.evaluate_lists
    with fails(PolicyError, esc("unknown ties policy 'docid'")):
        f([[1, 0]], [[1.0, 0.5]], "p@1", ties="docid")
    with fails(PolicyError, esc("unknown empty policy 'ignore'")):
        f([[1, 0]], [[1.0, 0.5]], "p@1", empty="ignore")


def test_missing_error() -> None:
    with fails(PolicyError, esc("1 judged queries have no documents in the run") + ".*q2.*missing='error'"):
        rankmeter.evaluate({"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 1.0}}, "p@1", missing="error")


def test_empty_error() -> None:
    with fails(PolicyError, esc("1 queries have no relevant judged document for ndcg@5: q2") + ".*empty='error'"):
        rankmeter.evaluate(
            {"q1": {"a": 1}, "q2": {"b": 0}}, {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, "ndcg@5", empty="error"
        )


# --- dense arrays ----------------------------------------------------------------------------------------
def test_dense_shape_mismatch() -> None:
    with fails(InputFormatError, esc("y_true has shape (1, 2) but y_score has shape (1, 3)")):
        rankmeter.evaluate_arrays([[1, 0]], [[0.5, 1, 2]], "p@1")


def test_dense_wrong_rank() -> None:
    with fails(InputFormatError, esc("y_true must have shape (n_lists, list_size), got shape (1, 1, 2)")):
        rankmeter.evaluate_arrays([[[1, 0]]], [[[0.5, 1]]], "p@1")


def test_dense_not_numeric() -> None:
    with fails(InputFormatError, esc("y_score: cannot convert to a float array")):
        rankmeter.evaluate_arrays([[1, 0]], [["a", 1]], "p@1")


def test_ragged_mismatches() -> None:
    with fails(InputFormatError, esc("y_true has 2 lists but y_score has 1")):
        rankmeter.evaluate_lists([[1, 0], [1]], [[0.5, 1]], "p@1")
    with fails(InputFormatError, esc("list 1: y_true has 1 items but y_score has 2")):
        rankmeter.evaluate_lists([[1, 0], [1]], [[0.5, 1], [1, 2]], "p@1")


def test_mask_not_boolean() -> None:
    with fails(InputFormatError, esc("mask must be boolean, got dtype int")):
        rankmeter.evaluate_arrays([[1, 0]], [[0.5, 1]], "p@1", mask=[[1, 0]])


def test_mask_shape() -> None:
    with fails(InputFormatError, esc("mask has shape (1, 3), expected (1, 2)")):
        rankmeter.evaluate_arrays([[1, 0]], [[0.5, 1]], "p@1", mask=[[True, False, True]])


def test_sample_weight_shape() -> None:
    with fails(InputFormatError, esc("sample_weight must be a scalar, shape (1,), (1, 1) or (1, 2), got shape (3,)")):
        rankmeter.evaluate_arrays([[1, 0]], [[0.5, 1]], "p@1", sample_weight=[1, 2, 3])


def test_negative_sample_weight() -> None:
    with fails(InvalidScoreError, esc("sample_weight[0, 1] is -2.0; weights must be >= 0")):
        rankmeter.evaluate_arrays([[1, 0]], [[0.5, 1]], "p@1", sample_weight=[[1, -2]])


def test_nan_sample_weight() -> None:
    with fails(InvalidScoreError, esc("sample_weight[0, 0] is nan")):
        rankmeter.evaluate_arrays([[1, 0]], [[0.5, 1]], "p@1", sample_weight=[[np.nan, 1]])


# --- tables ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lib", ["pandas", "polars", "pyarrow"])
def test_missing_column(lib) -> None:
    make = {"pandas": pd.DataFrame, "polars": pl.DataFrame, "pyarrow": pa.table}[lib]
    run = make({"topic": ["q"], "doc_id": ["a"], "score": [1.0]})
    with fails(
        InputFormatError,
        esc(
            "table has no column for query_id (looked for 'query_id', 'q_id', 'qid', 'user_id'; columns: topic, doc_id, score); "
            "pass run_columns={'query_id': '<name>'}"
        ),
    ):
        rankmeter.evaluate({"q": {"a": 1}}, run, "p@1")
    # the documented way out
    res = rankmeter.evaluate({"q": {"a": 1}}, run, "p@1", run_columns={"query_id": "topic"})
    assert res["p@1"] == 1.0


def test_unknown_column_role() -> None:
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    with fails(InputFormatError, esc("columns= names no role 'grade'; the roles are query_id, doc_id, relevance")):
        rankmeter.evaluate(qrels, {"q": {"a": 1.0}}, "p@1", qrels_columns={"grade": "relevance"})


def test_missing_renamed_column() -> None:
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    with fails(InputFormatError, esc("table has no column 'grade' for relevance")):
        rankmeter.evaluate(qrels, {"q": {"a": 1.0}}, "p@1", qrels_columns={"relevance": "grade"})


@pytest.mark.parametrize(("lib", "column"), [("pandas", "score"), ("polars", "query_id"), ("pyarrow", "doc_id")])
def test_null_in_column(lib, column) -> None:
    data = {"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 2.0]}
    data[column] = [data[column][0], None]
    make = {"pandas": pd.DataFrame, "polars": pl.DataFrame, "pyarrow": pa.table}[lib]
    with fails(InputFormatError, esc(f"column {column!r} has 1 missing values")):
        rankmeter.evaluate({"q": {"a": 1}}, make(data), "p@1")


# --- CLI ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "extra", "message", "status"),
    [
        (
            "301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 abc tag\n",
            [],
            ":2: query '301', document 'D2': score 'abc' is not a number",
            1,
        ),
        (
            "301 Q0 D1 1 2.5 tag\n301 Q0 D1 2 1.5 tag\n",
            [],
            ":2: query '301', document 'D1' appears twice in the run",
            1,
        ),
        ("301 Q0 D1 1 2.5\n", [], ":1: expected at least 6 whitespace-separated columns", 1),
        (RUN, ["-m", "ndcg@0"], "measure 'ndcg@0': cutoff must be >= 1, got 0", 2),
        (RUN, ["-m", "rprec@5"], "measure 'rprec' takes no cutoff", 2),
        (
            RUN + "302 Q0 D9 1 1.0 tag\n",
            ["--empty", "error", "-m", "p@1"],
            "1 queries have no relevant judged document for p@1: 302",
            2,  # a PolicyError: the 'error' policy the command line asked for
        ),
    ],
)
def test_cli_error_is_one_line_with_its_status(write, capsys, content, extra, message, status) -> None:
    q = write("qrels.txt", QRELS + "302 0 D9 0\n")
    r = write("run.txt", content)
    code = main(["evaluate", str(q), str(r), *extra])
    captured = capsys.readouterr()
    assert code == status  # 1: bad input; 2: a bad command line (options, measures, policies)
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("rankmeter evaluate: error: ")
    assert message in lines[0]
    assert "Traceback" not in captured.err


def test_cli_missing_file_is_one_line(tmp_path, capsys) -> None:
    code = main(["evaluate", str(tmp_path / "no-qrels"), str(tmp_path / "no-run"), "-m", "map"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("rankmeter evaluate: error: ")
    assert "cannot read file" in err


def test_cli_bad_choice_exits_2(write, capsys) -> None:
    # argparse rejects unknown policies before rankmeter runs: usage + one error line, exit status 2
    with pytest.raises(SystemExit) as info:
        main(["evaluate", str(write("q", QRELS)), str(write("r", RUN)), "--ties", "random"])
    assert info.value.code == 2
    assert "invalid choice: 'random'" in capsys.readouterr().err
