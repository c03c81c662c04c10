"""Codes in string order (ids.order.string_codes) and in ndeval's subtopic order (number_order_codes), written out."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.ids.convert import as_ids
from rankmeter.ids.order import number_order_codes, string_codes

ids_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=20)


def _codes_by_bytes(values: list[str]) -> list[int]:
    """Each value's place among the distinct values sorted by their UTF-8 bytes (``strcmp`` order)."""
    distinct = sorted(set(values), key=lambda v: v.encode("utf-8"))
    return [distinct.index(v) for v in values]


@settings(max_examples=150, deadline=None)
@given(st.lists(ids_text, max_size=40))
def test_string_codes_number_the_distinct_ids_in_byte_order(values: list[str]) -> None:
    expected = _codes_by_bytes(values)
    assert string_codes(as_ids(np.array(values, dtype=str))).tolist() == expected
    assert string_codes(as_ids(pa.array(values, pa.string()))).tolist() == expected
    assert string_codes(as_ids(pa.array(values, pa.string()), coded=True)).tolist() == expected


def test_string_codes_of_ids_longer_than_the_sort_words() -> None:
    values = ["x" * 80 + "b", "x" * 80 + "a", "a", "x" * 80 + "b"]
    assert string_codes(as_ids(np.array(values))).tolist() == [2, 1, 0, 2]


def test_number_order_codes_order_natural_numbers_by_value_and_other_ids_as_text() -> None:
    # ndeval sorts subtopics numerically when every one is a number: 2 before 10
    assert number_order_codes(as_ids(np.array(["10", "2", "10", "1"]))).tolist() == [2, 1, 2, 0]
    # one id that is not a natural number: every id by its text ("10" < "2" < "x")
    assert number_order_codes(as_ids(np.array(["10", "2", "x"]))).tolist() == [0, 1, 2]
    assert number_order_codes(as_ids(np.array(["-1", "2"]))).tolist() == [0, 1]
    assert number_order_codes(as_ids(np.array([], dtype=str))).tolist() == []


def test_a_long_document_id_judged_under_two_intents_is_one_document() -> None:
    import rankmeter
    from rankmeter.io.intents import intent_qrels_from_dict
    from rankmeter.io.tables import Run

    long = "d" * 70  # longer than the eight words order_words reads
    qrels = intent_qrels_from_dict({"1": {"1": {long: 1, "b": 1}, "2": {long: 1}}})
    run = Run(np.array(["1", "1"]), np.array([long, "b"]), np.array([2.0, 1.0]))
    got = rankmeter.evaluate(qrels, run, ["alpha_ndcg@5", "subtopic_recall@1"]).to_dict()["aggregate"]
    # rank 1 covers both intents (gain 1 + 1), rank 2 intent 1 again (gain 0.5 / log2 3): the ideal order itself
    assert got == {"alpha_ndcg@5": 1.0, "strec@1": 1.0}
