"""pandas object-dtype ids: the values of the same ids in every other form, and their missing values located."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankmeter

MEASURES = ["ndcg@10", "map", "rr", "p@2", "num_rel_ret"]


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(7)
    queries = np.array(["q10", "q9", "Q1", "é", "q1 "], dtype=object)
    run = pd.DataFrame({"query_id": np.repeat(queries, 6), "doc_id": [f"d{i % 9}" for i in range(30)],
                        "score": rng.integers(0, 3, 30).astype(float)})  # fmt: skip
    run = run.drop_duplicates(["query_id", "doc_id"])
    qrels = pd.DataFrame({"query_id": np.repeat(queries, 3), "doc_id": [f"d{i % 7}" for i in range(15)],
                          "relevance": rng.integers(0, 3, 15)})  # fmt: skip
    return qrels.drop_duplicates(["query_id", "doc_id"]), run


def test_object_ids_give_the_values_of_arrow_backed_strings() -> None:
    qrels, run = _frames()
    as_object = rankmeter.evaluate(qrels.astype({"query_id": object}), run.astype({"query_id": object}), MEASURES)
    as_str = rankmeter.evaluate(qrels.astype({"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"}),
                                run.astype({"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"}), MEASURES)  # fmt: skip
    assert as_object.query_ids.tolist() == as_str.query_ids.tolist() == sorted(set(qrels["query_id"]))
    for m in MEASURES:
        assert as_object.by_query(m) == as_str.by_query(m)


def test_object_ids_of_several_types_are_each_ones_text() -> None:
    # 1 and "1" are the same id (its text), as for a column of one type
    qrels = pd.DataFrame({"query_id": pd.Series([1, "q2"], dtype=object), "doc_id": ["a", "b"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["1", "q2"], "doc_id": ["a", "c"], "score": [1.0, 1.0]})
    assert rankmeter.evaluate(qrels, run, "rr").by_query("rr") == {"1": 1.0, "q2": 0.0}


@pytest.mark.parametrize("missing", [None, np.nan])
def test_a_missing_object_query_id_names_its_row(missing: object) -> None:
    run = pd.DataFrame({"query_id": pd.Series(["q1", missing, "q2"], dtype=object), "doc_id": ["a", "b", "c"],
                        "score": [1.0, 1.0, 1.0]})  # fmt: skip
    with pytest.raises(
        rankmeter.InputFormatError, match=r"column 'query_id' has 1 missing values; the first in row 1$"
    ):
        rankmeter.evaluate({"q1": {"a": 1}}, run, "rr")
