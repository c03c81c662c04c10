"""Dict-of-dicts input: the column-at-a-time reader gives exactly the item-by-item reader's tables."""

from __future__ import annotations

import re
from collections import OrderedDict
from types import MappingProxyType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.errors import InputFormatError, InvalidScoreError
from rankmeter.io.dicts import _flatten, _flatten_item_by_item

ids = st.one_of(st.text(min_size=1, max_size=6), st.integers(-5, 500))
numbers = st.one_of(
    st.integers(-3, 3),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.booleans(),
    st.sampled_from(["1", "2.5", "3", "-0.5e1"]),
    st.integers(0, 9).map(np.int64),
    st.floats(-10, 10, allow_nan=False).map(np.float32),
)
nested = st.dictionaries(ids, st.dictionaries(ids, numbers, max_size=6), max_size=6)


def _same(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> None:
    for x, y in zip(a[:2], b[:2], strict=True):  # ids: integers or text, equal as text (an integer is its text)
        assert x.astype(str).tolist() == y.astype(str).tolist()
    assert a[2].dtype.kind == b[2].dtype.kind and a[2].tolist() == b[2].tolist()


@settings(max_examples=200, deadline=None)
@given(nested)
def test_columns_equal_item_by_item(data) -> None:
    _same(_flatten(data, "run"), _flatten_item_by_item(data, "run"))


def test_values_and_order() -> None:
    q, d, v = _flatten({"q2": {"b": 1, 7: "2.5"}, 3: {"a": True}}, "qrels")
    assert q.tolist() == ["q2", "q2", "3"]
    assert d.tolist() == ["b", "7", "a"]
    assert v.tolist() == [1.0, 2.5, 1.0]


def test_any_mapping_is_accepted() -> None:
    data = {"q": MappingProxyType({"a": 1.0, "b": 2.0}), "r": OrderedDict(c=3)}
    _same(_flatten(data, "run"), (np.array(["q", "q", "r"]), np.array(["a", "b", "c"]), np.array([1.0, 2.0, 3.0])))


def test_first_bad_value_in_order_is_named() -> None:
    run = {"q1": {"a": 1.0, "b": None}, "q2": {"c": "x"}}
    with pytest.raises(
        InvalidScoreError, match=re.escape("run dict: query 'q1', document 'b': value None is not a number")
    ):
        _flatten(run, "run")


def test_first_problem_in_order_is_named_across_kinds() -> None:
    """A bad value before a query that is not a dict is named first, and the other way round."""
    with pytest.raises(InvalidScoreError, match=re.escape("run dict: query 'q1', document 'a': value 'x'")):
        _flatten({"q1": {"a": "x"}, "q2": [1]}, "run")
    with pytest.raises(InputFormatError, match=re.escape("run dict: query 'q1' maps to list")):
        _flatten({"q1": [1], "q2": {"a": "x"}}, "run")


def test_evaluate_many_tiny_jobs_in_one_call() -> None:
    """Jobs keyed apart by a prefix give each job's own values (the batched form docs/performance.md suggests)."""
    qrels = {"q": {"d1": 1, "d2": 0, "d3": 2}}
    runs = [{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d3": 3.0, "d1": 2.0}}]
    batched = rankmeter.evaluate(
        {f"{j}/q": qrels["q"] for j in range(2)},
        {f"{j}/{q}": docs for j, run in enumerate(runs) for q, docs in run.items()},
        "ndcg",
    )
    alone = [rankmeter.evaluate(qrels, run, "ndcg").aggregate["ndcg"] for run in runs]
    per_query = {row["query_id"]: row["value"] for row in batched.to_dict()["per_query"]}
    assert [per_query[f"{j}/q"] for j in range(2)] == alone
    ideal = 2 + 1 / np.log2(3)  # default linear gain (trec_eval's); grades 2, 1, 0 in the ideal order
    assert alone == pytest.approx([(1 + 2 / np.log2(4)) / ideal, 1.0], abs=1e-15)
