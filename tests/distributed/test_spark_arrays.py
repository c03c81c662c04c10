"""rankmeter.spark.arrays: RankingEvaluator's rows (Arrow list arrays) as ranked lists, checked against rankmeter.evaluate.

No Spark session: these are the Arrow batches RankmeterEvaluator's partitions receive.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.errors import DuplicateEntryError, InputFormatError
from rankmeter.pipeline import evaluate_ranked
from rankmeter.spark.arrays import ranked_from_arrays

MEASURES = ["ndcg@5", "ndcg", "map", "map@3", "p@3", "r@5", "rr", "bpref", "ndcg(gain=exp)@4"]


def local_values(rows: list, grades: list | None, measures: list[str]) -> np.ndarray:
    """rankmeter.evaluate on the rows as qrels (labels, first copy) and a run (item i scored -i, first copy)."""
    qrels, run = {}, {}
    for i, (predicted, labels) in enumerate(rows):
        judged: dict[str, float] = {}
        for j, x in enumerate(labels):
            judged.setdefault(str(x), grades[i][j] if grades else 1)
        qrels[str(i)] = judged
        ranked: dict[str, float] = {}
        for pos, x in enumerate(predicted):
            ranked.setdefault(str(x), -float(pos))
        run[str(i)] = ranked
    result = rankmeter.evaluate(qrels, run, measures, ties="stable", missing="zero", empty="zero")
    return result.values[np.argsort(result.query_ids.astype(int))]  # in row order


def ours(rows: list, grades: list | None, measures: list[str], item_type: pa.DataType) -> np.ndarray:
    prediction = pa.array([p for p, _ in rows], pa.list_(item_type))
    label = pa.array([lab for _, lab in rows], pa.list_(item_type))
    relevance = None if grades is None else pa.array(grades, pa.list_(pa.float64()))
    return evaluate_ranked(ranked_from_arrays(prediction, label, relevance), measures).values


@st.composite
def ranking_rows(draw):  # noqa: ANN001, ANN201 - rows of predicted items (repeats allowed) and labels
    n = draw(st.integers(1, 8))
    universe = draw(st.integers(2, 12))
    items = st.integers(0, universe)
    rows = [(draw(st.lists(items, max_size=10)), draw(st.lists(items, min_size=1, max_size=6))) for _ in range(n)]
    graded = draw(st.booleans())
    grades = [[float(draw(st.integers(0, 3))) for _ in lab] for _, lab in rows] if graded else None
    return rows, grades


@settings(max_examples=60, deadline=None)
@given(ranking_rows(), st.sampled_from([pa.int64(), pa.float64(), pa.string()]))
def test_values_equal_rankmeter_evaluate(data, item_type) -> None:
    rows, grades = data
    if item_type == pa.float64():
        rows = [([float(x) for x in p], [float(x) for x in lab]) for p, lab in rows]
    elif item_type == pa.string():
        rows = [([f"d{x}" for x in p], [f"d{x}" for x in lab]) for p, lab in rows]
    expected = local_values(rows, grades, MEASURES)
    assert np.allclose(ours(rows, grades, MEASURES, item_type), expected, rtol=0, atol=1e-12)


def test_row_by_row_and_keyed_matching_agree_on_wide_rows() -> None:
    """Numbers without repeats take the row-by-row comparison; text, and > 16 labels, the keyed one."""
    rng = np.random.default_rng(4)
    rows = [
        (rng.permutation(200)[:50].tolist(), rng.permutation(200)[: rng.integers(1, 30)].tolist()) for _ in range(40)
    ]
    text = [([f"i{x}" for x in p], [f"i{x}" for x in lab]) for p, lab in rows]
    numbers = ours(rows, None, MEASURES, pa.int64())
    assert np.allclose(numbers, ours(text, None, MEASURES, pa.string()), rtol=0, atol=1e-12)
    assert np.allclose(numbers, local_values(rows, None, MEASURES), rtol=0, atol=1e-12)


def test_a_repeated_item_keeps_its_first_place_and_the_rest_move_up() -> None:
    r = ranked_from_arrays(pa.array([[7, 3, 7, 5]]), pa.array([[5]]))
    assert r.offsets.tolist() == [0, 3] and r.grades.tolist() == [0.0, 0.0, 1.0]  # 5 is now third


def test_duplicates_error_names_the_row_column_and_document() -> None:
    with pytest.raises(DuplicateEntryError, match=r"partition 2, row 11: column 'pred' lists document '3.0' twice"):
        ranked_from_arrays(
            pa.array([[1.0], [3.0, 3.0]]), pa.array([[1.0], [3.0]]), None, "error", ("pred", "lab"), "partition 2, ",
            first_row=10,
        )  # fmt: skip
    with pytest.raises(DuplicateEntryError, match=r"row 0: column 'label' lists document 'a' twice"):
        ranked_from_arrays(pa.array([["a"]]), pa.array([["a", "a"]]), duplicates="error")


def test_a_null_item_is_an_error() -> None:
    with pytest.raises(InputFormatError, match=r"row 1: column 'label' holds a null item"):
        ranked_from_arrays(pa.array([[1.0], [2.0]]), pa.array([[1.0], [None]]))


def test_relevance_needs_one_grade_per_label() -> None:
    with pytest.raises(InputFormatError, match=r"row 0: 1 relevance values for 2 labels"):
        ranked_from_arrays(pa.array([[1.0]]), pa.array([[1.0, 2.0]]), pa.array([[3.0]]))


def test_mixed_item_types_compare_as_numbers() -> None:
    r = ranked_from_arrays(pa.array([[1, 2]]), pa.array([[2.0]]))
    assert r.grades.tolist() == [0.0, 1.0]
