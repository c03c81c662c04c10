"""rankmeter.EvaluationOptions: one value for the evaluation options, the same results as the keywords, its errors."""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
import pandas as pd
import pytest

import rankmeter
from rankmeter import EvaluationOptions, PolicyError
from rankmeter.core.options import (
    OPTION_FIELDS,
    ArrayKeywords,
    ColumnKeywords,
    DistributedKeywords,
    EvaluationKeywords,
    ListKeywords,
    StreamKeywords,
    option_names,
)
from rankmeter.core.semantics import FIELDS as SEMANTICS_FIELDS

QRELS = {"u1": {"a": 1, "c": 1}, "u2": {"b": 2}}
RUN = {"u1": {"b": 3.0, "a": 2.0, "c": 1.0}, "u2": {"a": 2.0, "b": 1.0}}
SEEN = {"u1": ["b"]}
SEGMENTS = {"u1": "new", "u2": "old"}


def test_the_keyword_names_are_declared_once_for_the_type_checker() -> None:
    assert set(typing.get_type_hints(EvaluationKeywords)) == OPTION_FIELDS | SEMANTICS_FIELDS
    assert [f.name for f in dataclasses.fields(EvaluationOptions)] == [
        "qrels_columns",
        "run_columns",
        "threads",
        "workers",
        "progress",
        "exclude",
        "candidates",
        "group_by",
        "items",
    ]


def test_each_entry_point_declares_the_options_it_reads() -> None:
    assert option_names(EvaluationKeywords) == OPTION_FIELDS
    assert option_names(StreamKeywords) == {"progress", "threads", "exclude", "candidates"}
    assert option_names(ArrayKeywords) == {"exclude", "progress", "group_by", "items"}
    assert option_names(ListKeywords) == {"group_by"}
    assert option_names(ColumnKeywords) == {"qrels_columns", "run_columns"}
    assert option_names(DistributedKeywords) == {
        "qrels_columns",
        "run_columns",
        "exclude",
        "candidates",
        "items",
        "group_by",
    }


def test_evaluate_takes_the_value_and_the_keywords_with_the_same_result() -> None:
    by_value = rankmeter.evaluate(QRELS, RUN, ["rr", "r@1"], options=EvaluationOptions(exclude=SEEN, group_by=SEGMENTS))
    by_keyword = rankmeter.evaluate(QRELS, RUN, ["rr", "r@1"], exclude=SEEN, group_by=SEGMENTS)
    # u1 without b: a (relevant) first, rr 1, r@1 = 1/2; u2: b second, rr 1/2, r@1 = 0
    assert by_value.by_query("rr") == by_keyword.by_query("rr") == {"u1": 1.0, "u2": 0.5}
    assert by_value.by_query("r@1") == by_keyword.by_query("r@1") == {"u1": 0.5, "u2": 0.0}
    assert by_value.by_group("rr") == by_keyword.by_group("rr") == {"new": 1.0, "old": 0.5}
    assert by_value.metadata["candidates"] == by_keyword.metadata["candidates"]


def test_evaluate_of_several_runs_takes_workers_from_the_value() -> None:
    runs = {"x": RUN, "y": {"u1": {"a": 1.0}, "u2": {"b": 1.0}}}
    by_value = rankmeter.evaluate(QRELS, runs, "rr", options=EvaluationOptions(workers=1, threads=1))
    by_keyword = rankmeter.evaluate(QRELS, runs, "rr", workers=1, threads=1)
    assert by_value.aggregate == by_keyword.aggregate == {"x": {"rr": 0.5}, "y": {"rr": 1.0}}


def test_a_keyword_equal_to_the_value_and_a_value_with_semantics_keywords_are_one_call() -> None:
    opts = EvaluationOptions(exclude=SEEN)
    same = rankmeter.evaluate(QRELS, RUN, "rr", options=opts, exclude=SEEN, ties="stable")
    assert same.by_query("rr") == {"u1": 1.0, "u2": 0.5}
    assert same.metadata["semantics"]["ties"] == "stable"


def test_evaluate_stream_takes_the_value_and_the_keywords_with_the_same_result(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "run.txt"
    path.write_text("u1 Q0 b 1 3.0 s\nu1 Q0 a 2 2.0 s\nu1 Q0 c 3 1.0 s\nu2 Q0 a 1 2.0 s\nu2 Q0 b 2 1.0 s\n")
    by_value = rankmeter.evaluate_stream(QRELS, path, "rr", block_bytes=16, options=EvaluationOptions(exclude=SEEN))
    by_keyword = rankmeter.evaluate_stream(QRELS, path, "rr", block_bytes=16, exclude=SEEN)
    assert by_value.by_query("rr") == by_keyword.by_query("rr") == {"u1": 1.0, "u2": 0.5}


def test_evaluate_arrays_takes_the_value_and_the_keywords_with_the_same_result() -> None:
    y_true = [[0, 1, 0], [1, 0, 0]]
    y_score = [[0.9, 0.5, 0.1], [0.2, 0.8, 0.4]]
    seen = np.array([[True, False, False], [False, False, False]])
    by_value = rankmeter.evaluate_arrays(
        y_true, y_score, "rr", options=EvaluationOptions(exclude=seen, group_by=["a", "b"])
    )
    by_keyword = rankmeter.evaluate_arrays(y_true, y_score, "rr", exclude=seen, group_by=["a", "b"])
    # row 0 without column 0: the relevant item first; row 1: the relevant item third
    assert by_value.by_query("rr") == by_keyword.by_query("rr") == {"0": 1.0, "1": pytest.approx(1 / 3)}
    assert by_value.by_group("rr") == by_keyword.by_group("rr")


def test_evaluate_lists_takes_group_by_from_the_value() -> None:
    y_true, y_score = [[1, 0], [0, 0, 1]], [[0.9, 0.1], [0.5, 0.4, 0.3]]
    by_value = rankmeter.evaluate_lists(y_true, y_score, "rr", options=EvaluationOptions(group_by=["a", "b"]))
    by_keyword = rankmeter.evaluate_lists(y_true, y_score, "rr", group_by=["a", "b"])
    assert by_value.by_group("rr") == by_keyword.by_group("rr") == {"a": 1.0, "b": pytest.approx(1 / 3)}


def test_evaluate_diversity_takes_the_columns_from_the_value() -> None:
    qrels = pd.DataFrame({"qid": ["q1"] * 3, "subtopic": ["1", "1", "2"], "docno": ["d1", "d2", "d3"], "grade": 1})
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    columns = {"query_id": "qid", "intent": "subtopic", "doc_id": "docno", "relevance": "grade"}
    by_value = rankmeter.evaluate_diversity(qrels, run, "strec@[1,3]", options=EvaluationOptions(qrels_columns=columns))
    by_keyword = rankmeter.evaluate_diversity(qrels, run, "strec@[1,3]", qrels_columns=columns)
    assert by_value.aggregate == by_keyword.aggregate == {"strec@1": 0.5, "strec@3": 1.0}


def test_a_conflicting_pair_is_an_error() -> None:
    with pytest.raises(PolicyError, match=r"evaluate: threads=2 as a keyword but threads=1 in options=; give it once"):
        rankmeter.evaluate(QRELS, RUN, "rr", options=EvaluationOptions(threads=1), threads=2)


def test_a_conflicting_table_is_named_by_its_type() -> None:
    with pytest.raises(
        PolicyError, match=r"exclude=a DataFrame as a keyword but exclude=\{'u1': \['b'\]\} in options="
    ):
        rankmeter.evaluate(
            QRELS, RUN, "rr", options=EvaluationOptions(exclude=SEEN), exclude=pd.DataFrame({"user_id": ["u1"] * 30})
        )


def test_an_option_the_entry_point_does_not_read_is_an_error() -> None:
    with pytest.raises(PolicyError, match=r"evaluate_lists does not take exclude= \(it reads group_by\)"):
        rankmeter.evaluate_lists([[1]], [[0.5]], "rr", options=EvaluationOptions(exclude={"0": ["a"]}))


def test_options_of_another_type_are_an_error() -> None:
    with pytest.raises(TypeError, match="options must be a rankmeter.EvaluationOptions, got dict"):
        rankmeter.evaluate(QRELS, RUN, "rr", options={"threads": 1})  # type: ignore[arg-type]


def test_an_unknown_keyword_is_an_error() -> None:
    with pytest.raises(
        TypeError,
        match="evaluate: unknown option 'thread'; the Semantics fields are depth, .*, ties and the options candidates, ",
    ):
        rankmeter.evaluate(QRELS, RUN, "rr", thread=1)  # type: ignore[call-overload]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("threads", 0, "threads must be a positive integer or None, got 0"),
        ("workers", True, "workers must be a positive integer or None, got True"),
        ("progress", "yes", "progress must be True, False or None, got 'yes'"),
        ("run_columns", ["qid"], "run_columns must be a mapping of column names, got list"),
    ],
)
def test_each_field_is_checked_when_the_value_is_made(field: str, value: object, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        EvaluationOptions(**{field: value})  # type: ignore[arg-type]


def test_replace_refuses_an_unknown_field() -> None:
    with pytest.raises(TypeError, match="unknown evaluation option 'thread'; the options are candidates, exclude"):
        EvaluationOptions().replace(thread=1)
