"""Integer ids read back from their text a column at a time: the same integers as ``int`` gives, or None."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.ids.integers import integer_text, integer_values
from rankmeter.results import EvaluationResult, with_integer_ids


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(10**18) + 1, 10**18 - 1), min_size=1, max_size=30))
def test_the_text_of_integers_reads_back_as_int_reads_it(values: list[int]) -> None:
    text = np.array([str(v) for v in values])
    found = integer_values(text)
    assert found is not None and found.dtype == np.int64
    assert found.tolist() == [int(t) for t in text.tolist()]


@pytest.mark.parametrize(
    "text",
    [
        ["07"],
        ["-0"],
        ["-"],
        [""],
        ["1_000"],
        [" 7"],
        ["7 "],
        ["+7"],
        ["\u0663"],
        ["1\x002"],
        ["1", ""],
        ["5-"],
        ["1000000000000000000"],
        ["9223372036854775807"],
        ["a"],
    ],  # fmt: skip
)
def test_text_other_than_an_integers_own_is_left_to_the_caller(text: list[str]) -> None:
    assert integer_values(np.array(text)) is None


def test_with_integer_ids_reads_non_canonical_integers_as_int_does() -> None:
    res = EvaluationResult(np.array(["07", "10", "9"]), ["m"], np.array([[1.0], [2.0], [3.0]]),
                           np.ones((3, 1), dtype=bool), {"m": 2.0}, {})  # fmt: skip
    out = with_integer_ids(res)
    assert out.query_ids.tolist() == [7, 9, 10] and out.values[:, 0].tolist() == [1.0, 3.0, 2.0]
    canonical = with_integer_ids(
        EvaluationResult(
            np.array(["10", "-3", "9"]),
            ["m"],
            np.array([[1.0], [2.0], [3.0]]),
            np.ones((3, 1), dtype=bool),
            {"m": 2.0},
            {},
        )  # fmt: skip
    )
    assert canonical.query_ids.tolist() == [-3, 9, 10] and canonical.values[:, 0].tolist() == [2.0, 3.0, 1.0]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=30))
def test_integer_text_is_str_of_each_value_and_reads_back(values: list[int]) -> None:
    text = integer_text(np.array(values, dtype=np.int64))
    assert text.tolist() == [str(v) for v in values]
    small = [v for v in values if abs(v) < 10**18]
    assert integer_values(integer_text(np.array(small, dtype=np.int64)).text()).tolist() == small
