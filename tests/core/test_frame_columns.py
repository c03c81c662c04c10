"""Tables with other tools' column names are understood without a mapping (ranx, ir_datasets, TREC)."""

from __future__ import annotations

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


def test_rankmeter_names_come_first_and_an_explicit_mapping_wins() -> None:
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1], "score": [0]})
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    assert rankmeter.evaluate(qrels, run, "rr")["rr"] == 0.5  # relevance (1), not score (0)
    assert rankmeter.evaluate(qrels, run, "rr", qrels_columns={"relevance": "score"})["rr"] == 0.0


def test_a_column_is_never_taken_for_two_roles() -> None:
    run = pd.DataFrame({"qid": ["q1"], "doc_id": ["a"], "score": [1.0]})
    qrels = pd.DataFrame({"topic": ["q1"], "doc_id": ["a"], "score": [1]})
    res = rankmeter.evaluate(qrels, run, "rr", qrels_columns={"query_id": "topic"})
    assert res["rr"] == 1.0
