"""Tables with other tools' column names are understood without a mapping (ranx, ir_datasets, TREC)."""

from __future__ import annotations

import re

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import rankmeter

QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}}
RUN = {"q1": {"a": 0.1, "b": 0.9, "c": 0.5}, "q2": {"x": 3.0, "y": 4.0}}
MEASURES = ["ndcg@2", "map", "rr"]


def _rows(table: dict, value: str, names: tuple[str, str, str]) -> dict:
    q, d, v = names
    rows = [(qid, did, val) for qid, docs in table.items() for did, val in docs.items()]
    return {q: [r[0] for r in rows], d: [r[1] for r in rows], v: [r[2] for r in rows]}


@pytest.mark.parametrize("make", [pd.DataFrame, pl.DataFrame, pa.table])
@pytest.mark.parametrize(
    ("qrels_names", "run_names"),
    [
        (("q_id", "doc_id", "score"), ("q_id", "doc_id", "score")),  # ranx
        (("query_id", "doc_id", "relevance"), ("query_id", "doc_id", "score")),  # ir_datasets
        (("qid", "docno", "rel"), ("qid", "docno", "score")),  # TREC
        (("qid", "docid", "relevance"), ("q_id", "docno", "score")),  # mixed
    ],
)
def test_known_names_need_no_mapping(make, qrels_names, run_names) -> None:
    expected = rankmeter.evaluate(QRELS, RUN, MEASURES)
    got = rankmeter.evaluate(
        make(_rows(QRELS, "relevance", qrels_names)), make(_rows(RUN, "score", run_names)), MEASURES
    )
    assert got.to_dict()["per_query"] == expected.to_dict()["per_query"]
    # q1: b (0.9, grade 0), c (0.5, grade 1): ndcg@2 = (1/log2 3) / (2 + 1/log2 3)
    assert got.by_query("ndcg@2")["q1"] == pytest.approx((1 / 1.584962500721156) / (2 + 1 / 1.584962500721156))


def test_a_table_with_several_candidates_is_an_error_until_a_mapping_settles_it() -> None:
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1], "score": [0]})
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(
        rankmeter.InputFormatError,
        match=re.escape(
            "table has several columns for relevance: 'relevance', 'score'; pass qrels_columns={'relevance': '<name>'}"
        ),
    ):
        rankmeter.evaluate(qrels, run, "rr")
    assert rankmeter.evaluate(qrels, run, "rr", qrels_columns={"relevance": "relevance"})["rr"] == 0.5
    assert rankmeter.evaluate(qrels, run, "rr", qrels_columns={"relevance": "score"})["rr"] == 0.0


def test_the_columns_used_are_in_the_metadata() -> None:
    qrels = pd.DataFrame({"user_id": ["u1", "u1"], "item_id": ["a", "b"], "rating": [5, 0]})
    run = pl.DataFrame({"user_id": ["u1", "u1"], "item_id": ["a", "b"], "score": [0.1, 0.9]})
    res = rankmeter.evaluate(qrels, run, "rr")
    assert res["rr"] == 0.5
    assert res.metadata["qrels_columns"] == {"query_id": "user_id", "doc_id": "item_id", "relevance": "rating"}
    assert res.metadata["run_columns"] == {"query_id": "user_id", "doc_id": "item_id", "score": "score"}
    assert "run_columns" not in rankmeter.evaluate(QRELS, RUN, "rr").metadata


@pytest.mark.parametrize("suffix", [".parquet", ".feather", ".arrow", ".csv", ".tsv", ".csv.gz"])
def test_table_files_are_read_by_suffix(tmp_path, suffix) -> None:
    import pyarrow.csv as pcsv
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    qrels = pa.table({"qid": ["007", "7"], "docno": ["a", "b"], "rel": [1, 2]})
    run = pa.table({"qid": ["007", "007", "7"], "docno": ["a", "x", "b"], "score": [1.0, 2.0, 1.0]})
    paths = []
    for name, table in (("qrels", qrels), ("run", run)):
        path = tmp_path / f"{name}{suffix}"
        if suffix == ".parquet":
            pq.write_table(table, path)
        elif suffix in (".feather", ".arrow"):
            feather.write_feather(table, path)
        else:
            delimiter = "\t" if suffix == ".tsv" else ","
            options = pcsv.WriteOptions(delimiter=delimiter)
            if suffix.endswith(".gz"):
                with pa.CompressedOutputStream(str(path), "gzip") as out:
                    pcsv.write_csv(table, out, options)
            else:
                pcsv.write_csv(table, path, options)
        paths.append(path)
    res = rankmeter.evaluate(*paths, ["rr", "num_q"])
    assert res.by_query("rr") == {"007": 0.5, "7": 1.0}  # '007' and '7' stay two queries
    assert res.metadata["qrels_source"] == str(paths[0])
    assert res.metadata["run_columns"] == {"query_id": "qid", "doc_id": "docno", "score": "score"}


def test_a_table_file_that_cannot_be_read_names_the_file(tmp_path) -> None:
    path = tmp_path / "run.parquet"
    path.write_text("1 Q0 a 1 2.0 t\n")
    with pytest.raises(rankmeter.InputFormatError, match=re.escape(f"{path}: cannot read it as a parquet table")):
        rankmeter.evaluate({"1": {"a": 1}}, path, "rr")


def test_a_column_is_never_taken_for_two_roles() -> None:
    run = pd.DataFrame({"qid": ["q1"], "doc_id": ["a"], "score": [1.0]})
    qrels = pd.DataFrame({"topic": ["q1"], "doc_id": ["a"], "score": [1]})
    res = rankmeter.evaluate(qrels, run, "rr", qrels_columns={"query_id": "topic"})
    assert res["rr"] == 1.0


def test_a_missing_table_file_names_the_file(tmp_path) -> None:
    with pytest.raises(rankmeter.InputFormatError, match=re.escape(f"{tmp_path / 'none.csv'}: cannot read file")):
        rankmeter.evaluate({"1": {"a": 1}}, tmp_path / "none.csv", "rr")


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow"])
@pytest.mark.parametrize(
    ("column", "message"),
    [
        ("score", r"column 'score' has 1 missing values; the first in row 2 \(query 'q2', document 'c'\)$"),
        ("doc_id", r"column 'doc_id' has 1 missing values; the first in row 2 \(query 'q2'\)$"),
        ("query_id", r"column 'query_id' has 1 missing values; the first in row 2$"),
    ],
)
def test_a_missing_value_names_its_row_query_and_document(kind: str, column: str, message: str) -> None:
    data = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]}
    data[column] = [*data[column][:2], None]
    frame = {"pandas": pd.DataFrame, "polars": pl.DataFrame, "arrow": pa.table}[kind](data)
    with pytest.raises(rankmeter.InputFormatError, match=message):
        rankmeter.evaluate({"q1": {"a": 1}}, frame, "rr")
