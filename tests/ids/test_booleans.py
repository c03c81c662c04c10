"""Boolean ids are refused by every reader, whatever the input form (a boolean has no single text form)."""

from __future__ import annotations

from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix

import rankmeter
from rankmeter.errors import InputFormatError
from rankmeter.ids.booleans import check_engine_columns

BOOL_ID = r"id (True|False) is a boolean; ids are text or integers"
BOOL_COLUMN = r"the ids are booleans; ids are text or integers"


def _as_dict(qids: list[Any], dids: list[Any]) -> dict[Any, dict[Any, float]]:
    out: dict[Any, dict[Any, float]] = {}
    for q, d in zip(qids, dids, strict=True):
        out.setdefault(q, {})[d] = 1.0
    return out


def _forms(qids: list[Any], dids: list[Any], value: str = "relevance") -> dict[str, Any]:
    """The same (query, document) rows as a dict, pandas (typed and object), polars and pyarrow tables."""
    rel = [1.0] * len(qids)
    forms = {
        "dict": _as_dict(qids, dids),
        "pandas": pd.DataFrame({"query_id": qids, "doc_id": dids, value: rel}),
        "pandas object": pd.DataFrame(
            {"query_id": pd.Series(qids, dtype=object), "doc_id": pd.Series(dids, dtype=object), value: rel}
        ),
    }
    if all(len({type(v) for v in ids}) == 1 for ids in (qids, dids)):  # typed columns hold one type
        forms["polars"] = pl.DataFrame({"query_id": qids, "doc_id": dids, value: rel})
        forms["pyarrow"] = pa.table({"query_id": qids, "doc_id": dids, value: rel})
    return forms


def test_the_forms_read_booleans_differently_so_each_is_refused() -> None:
    """What a boolean would read as: Python's text 'True', Arrow's 'true' -- the ambiguity the refusal removes."""
    assert str(True) == "True"
    assert pa.array([True]).cast(pa.string()).to_pylist() == ["true"]
    for table in _forms([True], ["a"]).values():
        with pytest.raises(InputFormatError, match=BOOL_ID):
            rankmeter.evaluate(table, {"true": {"a": 1.0}}, "P@1")
    for table in _forms([True], ["a"], "score").values():
        with pytest.raises(InputFormatError, match=BOOL_ID):
            rankmeter.evaluate({"True": {"a": 1}}, table, "P@1")


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.sampled_from(["q1", "q2", "True", "false"]), min_size=1, max_size=6),
    st.integers(min_value=0, max_value=5),
    st.sampled_from(["query", "document"]),
    st.booleans(),
    st.booleans(),
)
def test_a_boolean_anywhere_is_refused_in_every_form(
    names: list[str], at: int, role: str, value: bool, whole: bool
) -> None:
    """One boolean among text ids (dict, pandas object column) or a whole boolean column (every form)."""
    qids: list[Any] = list(names)
    dids: list[Any] = [f"d{i}" for i in range(len(names))]
    column = qids if role == "query" else dids
    column[:] = [value] * len(column) if whole else column
    column[at % len(names)] = value
    for table in _forms(qids, dids).values():
        with pytest.raises(InputFormatError, match=BOOL_ID):
            rankmeter.evaluate(table, {"q1": {"d0": 1.0}}, "P@1")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["q1", "True", "false", "7"]), min_size=1, max_size=6))
def test_text_ids_that_read_like_booleans_agree_in_every_form(names: list[str]) -> None:
    dids = [f"d{i}" for i in range(len(names))]
    run = _as_dict(names, dids)
    expected = rankmeter.evaluate(_as_dict(names, dids), run, "P@1").per_query
    for name, table in _forms(names, dids).items():
        assert rankmeter.evaluate(table, run, "P@1").per_query == expected, name


def test_numpy_and_list_readers_refuse_booleans() -> None:
    with pytest.raises(InputFormatError, match=r"ranked_lists: items: " + BOOL_ID):
        rankmeter.ranked_lists(np.array([[True, False]]))
    with pytest.raises(InputFormatError, match=r"ranked_lists: users=: " + BOOL_ID):
        rankmeter.ranked_lists(np.array([[1, 2]]), users=["u1", True][1:])
    with pytest.raises(InputFormatError, match=r"ranked_lists: item_ids=: " + BOOL_ID):
        rankmeter.ranked_lists(np.array([[0, 1]]), item_ids=np.array([True, False]))
    with pytest.raises(InputFormatError, match=r"<interactions>: users=: " + BOOL_ID):
        rankmeter.interactions(csr_matrix([[1.0]]), users=[False])
    with pytest.raises(InputFormatError, match=r"run: item: " + BOOL_ID):
        rankmeter.evaluate({"u": {"a": 1}}, {"u": ["a", True]}, "P@1")
    with pytest.raises(InputFormatError, match=r"qrels: user: " + BOOL_ID):
        rankmeter.evaluate({True: {"a"}}, {"u": ["a"]}, "P@1")
    with pytest.raises(InputFormatError, match=r"qrels dict: document: " + BOOL_ID):
        rankmeter.evaluate({"q": {False: 1}}, {"q": {"a": 1.0}}, "P@1")


def test_a_list_column_of_booleans_is_refused() -> None:
    recs = pa.table({"user_id": ["u1"], "items": [[True, False]]})
    with pytest.raises(InputFormatError, match=r"column 'items': " + BOOL_ID):
        rankmeter.evaluate({"u1": {"true": 1}}, recs, "P@1")


def test_qrels_and_run_built_directly_refuse_boolean_columns() -> None:
    for ids in (np.array([True]), pa.array([False])):
        with pytest.raises(InputFormatError, match=r"id column: " + BOOL_COLUMN):
            rankmeter.Qrels(ids, np.array(["a"]), np.ones(1))


def test_engine_tables_are_checked_from_their_schema() -> None:
    frame = dd.from_pandas(pd.DataFrame({"qid": ["q1", "q2"], "docno": [True, False]}), npartitions=1)
    with pytest.raises(InputFormatError, match=r"column 'docno': " + BOOL_COLUMN):
        check_engine_columns(frame, {"query_id": "qid", "doc_id": "docno"})
    check_engine_columns(frame, {"query_id": "qid"})  # the boolean column is not an id here


def test_a_catalogue_of_booleans_is_refused() -> None:
    with pytest.raises(InputFormatError, match=r"Items: catalog: " + BOOL_ID):
        rankmeter.Items(catalog=["a", True])
    with pytest.raises(InputFormatError, match=r"Items: catalog: " + BOOL_COLUMN):
        rankmeter.Items(catalog=pd.Series([True, False]))
    assert rankmeter.Items(catalog=["True", "a"]).catalog.tolist() == ["True", "a"]  # text is an id
