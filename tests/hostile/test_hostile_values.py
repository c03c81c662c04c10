"""Hand-made hostile values: gains, numbers in every reader, options at and past their limits, escaping.

Each case writes down its expected outcome: a value (with the formula), or the exact error. Together
with :mod:`tests.hostile.test_cli_errors` this is the hostile-input suite of docs/errors.md.
"""

from __future__ import annotations

import math
import re
import unicodedata
from decimal import Decimal

import numpy as np
import pandas as pd
import polars as pl
import pytest

import rankmeter
from rankmeter.errors import InputFormatError, InvalidScoreError, MeasureSyntaxError
from rankmeter.measures import parse

QRELS = {"1": {"a": 1, "b": 0}}
RUN = {"1": {"a": 2.0, "b": 1.0}}


# --- gains: refused at parse time when they are not finite ---------------------------------------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ndcg(gain={1:1e400})@5", r"gain table entry '1:1e400': the gain must be a finite number, got inf$"),
        ("ndcg(gain={1:nan})@5", r"gain table entry '1:nan': the gain must be a finite number, got nan$"),
        ("ndcg(gain={1:-inf})@5", r"gain table entry '1:-inf': the gain must be a finite number, got -inf$"),
        ("ndcg(gain={inf:1})", r"gain table entry 'inf:1': the grade must be a finite number, got inf$"),
        ("err(gain={1:nan})@3", r"gain table entry '1:nan': the gain must be a finite number, got nan$"),
        ("ndcg(gain={1:1_0})", r"'1_0' is not a number$"),
        ("ndcg(gain={\u0661:1})", r"'\u0661' is not a number$"),
        ("ndcg(discount=jarvelin(1e400))", r"jarvelin base must be > 1 and finite, got inf$"),
    ],
)
def test_non_finite_gains_are_refused_when_parsed(text: str, message: str) -> None:
    with pytest.raises(MeasureSyntaxError, match=message):
        parse(text)


@pytest.mark.parametrize("gain", [{1: math.inf}, {1: math.nan}, {math.nan: 1}, {1: 10**400}, {1: True}, {1: "2"}])
def test_non_finite_gains_are_refused_from_python(gain: dict) -> None:
    with pytest.raises(MeasureSyntaxError, match=r"must be a finite number, got"):
        rankmeter.measures.measure("ndcg", gain=gain)


def test_finite_gain_tables_still_work() -> None:
    """Near neighbour: a large finite gain is kept; nDCG = (1e300 / log2 2) / (1e300 / log2 2) = 1."""
    got = rankmeter.evaluate(QRELS, RUN, "ndcg(gain={1:1e300})@5")
    assert list(got.aggregate.values()) == [1.0]


# --- gain=exp: 2^r - 1 overflows from grade 1024 on; never reported as 0.0 -------------------------------
def test_exp_gain_of_grade_1024_is_a_located_error() -> None:
    with pytest.raises(InvalidScoreError, match=r"query '2': DCG is inf \(its highest grade is 1024\); gains must"):
        rankmeter.evaluate({"1": {"a": 1}, "2": {"c": 1024}}, {"1": {"a": 1.0}, "2": {"c": 1.0}}, "ndcg(gain=exp)@5")


@pytest.mark.parametrize(
    ("measure", "what"), [("dcg(gain=exp)", "DCG"), ("cg(gain=exp)", "CG"), ("idcg(gain=exp)@[1,2]", "the ideal DCG")]
)
def test_every_cumulative_gain_refuses_an_overflow(measure: str, what: str) -> None:
    with pytest.raises(InvalidScoreError, match=rf"measure '{re.escape(measure)}': query '1': {what} is inf"):
        rankmeter.evaluate({"1": {"a": 1024}}, {"1": {"a": 1.0}}, measure)


def test_exp_gain_of_grade_1023_is_computed() -> None:
    """Near neighbour: 2^1023 - 1 is finite; a single relevant document at rank 1 gives nDCG 1."""
    got = rankmeter.evaluate({"1": {"a": 1023, "b": 0}}, {"1": {"a": 2.0, "b": 1.0}}, "ndcg(gain=exp)@5")
    assert got.aggregate["ndcg(gain=exp)@5"] == 1.0


def test_exp_gains_whose_sum_overflows_are_refused() -> None:
    """Three documents of grade 1023 are each finite but DCG = (2^1023 - 1)(1 + 1/log2 3 + 1/2) is not."""
    qrels, run = {"1": {"a": 1023, "b": 1023, "c": 1023}}, {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    with pytest.raises(InvalidScoreError, match=r"query '1': DCG is inf \(its highest grade is 1023\)"):
        rankmeter.evaluate(qrels, run, "dcg(gain=exp)")
    assert rankmeter.evaluate(qrels, run, "dcg(gain=exp)@2").aggregate["dcg(gain=exp)@2"] == pytest.approx(
        (2.0**1023 - 1) * (1 + 1 / math.log2(3))
    )


def test_err_advice_for_a_high_grade_works() -> None:
    """err@3 on grade 1024 advises err(gmax=1024); following it gives R = 2^0 - 2^-1024 = 1.0, ERR = 1."""
    qrels, run = {"1": {"a": 1024, "b": 0}}, {"1": {"a": 2.0, "b": 1.0}}
    with pytest.raises(
        InputFormatError, match=r"grade 1024 gives stopping probability .*; raise gmax \(err\(gmax=1024\)\)$"
    ):
        rankmeter.evaluate(qrels, run, "err@3")
    assert rankmeter.evaluate(qrels, run, "err(gmax=1024)@3").aggregate["err(gmax=1024)@3"] == 1.0


def test_negative_table_gains_give_what_semantics_md_says() -> None:
    """A negative gain counts against DCG and sorts last in the ideal ranking (docs/semantics.md).

    Judged a (gain 1) and b (gain -1); the run ranks b then a: DCG = -1/log2 2 + 1/log2 3 = -0.369...,
    IDCG (all judged, no cutoff) = 1 - 1/log2 3 = 0.369..., so nDCG = -1.
    """
    got = rankmeter.evaluate({"1": {"a": 1, "b": 2}}, {"1": {"a": 1.0, "b": 2.0}}, "ndcg(gain={2:-1})")
    d3 = 1 / math.log2(3)
    assert got.aggregate["ndcg(gain={2:-1})"] == pytest.approx((-1 + d3) / (1 - d3))


# --- one number grammar for every reader: ASCII decimal, finite, or a named error ------------------------
TEXT_NOT_NUMBERS = ["1_0", "\u0661\u0660", " 5 ", "0x10", "1e", "", "\u00bd", "5\u00a0"]


def _frame(value: object) -> pd.DataFrame:
    return pd.DataFrame(
        {"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": pd.Series([value, "0.5"], dtype=object)}
    )


@pytest.mark.parametrize("text", TEXT_NOT_NUMBERS)
def test_text_that_the_file_reader_refuses_is_refused_in_dicts(text: str) -> None:
    with pytest.raises(
        InvalidScoreError, match=rf"^run dict: query '1', document 'a': value {re.escape(repr(text))} is not a number$"
    ):
        rankmeter.evaluate(QRELS, {"1": {"a": text, "b": 0.5}}, "rr")


@pytest.mark.parametrize("text", TEXT_NOT_NUMBERS)
def test_text_that_the_file_reader_refuses_is_refused_in_frames(text: str) -> None:
    with pytest.raises(
        InvalidScoreError, match=rf"^row 0: query '1', document 'a': score {re.escape(repr(text))} is not a number$"
    ):
        rankmeter.evaluate(QRELS, _frame(text), "rr")


def test_every_unicode_digit_script_is_refused_by_every_reader(tmp_path) -> None:
    """Each non-ASCII decimal digit (category Nd) is refused by the dict, frame and file readers alike."""
    scripts = [
        chr(c) for c in range(0x80, 0x1FBFA) if unicodedata.category(chr(c)) == "Nd" and unicodedata.digit(chr(c)) == 5
    ]
    assert len(scripts) > 50
    for five in scripts:
        for run in ({"1": {"a": five, "b": 0.5}}, _frame(five)):
            with pytest.raises(InvalidScoreError, match="is not a number"):
                rankmeter.evaluate(QRELS, run, "rr")
        path = tmp_path / "run.txt"
        path.write_text(f"1 Q0 a 1 {five} t\n", encoding="utf-8")
        with pytest.raises(InvalidScoreError, match="is not a number"):
            rankmeter.evaluate(QRELS, str(path), "rr")


@pytest.mark.parametrize("text", ["2.5", "-1e2", "+.5", "3.", "1E-3"])
def test_plain_text_numbers_are_read_everywhere_alike(text: str, tmp_path) -> None:
    """Near neighbours: ASCII decimals are read, as the TREC file reader reads them."""
    path = tmp_path / "run.txt"
    path.write_text(f"1 Q0 a 1 {text} t\n1 Q0 b 2 0 t\n")
    want = rankmeter.evaluate(QRELS, str(path), "ndcg").aggregate
    assert rankmeter.evaluate(QRELS, {"1": {"a": text, "b": "0"}}, "ndcg").aggregate == want
    assert rankmeter.evaluate(QRELS, _frame(text).assign(score=[text, "0"]), "ndcg").aggregate == want
    assert float(text) == rankmeter.io.validate.as_float(text)


def test_an_int_past_the_float_range_is_a_located_error() -> None:
    message = (
        r"query '1', document 'a': \w+ 1000000000000000000\d*\.\.\.0{10} \(401 characters\) is beyond the float range"
    )
    with pytest.raises(InvalidScoreError, match=message):
        rankmeter.evaluate(QRELS, {"1": {"a": 10**400, "b": 0.5}}, "rr")
    with pytest.raises(InvalidScoreError, match=message):
        rankmeter.evaluate(QRELS, _frame(10**400), "rr")
    with pytest.raises(
        InvalidScoreError,
        match=r"^qrels dict: query '1', document 'a': value 10{19}\.\.\.0{10} \(310 characters\) is beyond",
    ):
        rankmeter.evaluate({"1": {"a": 10**308 * 10, "b": 0}}, RUN, "rr")


def test_big_ints_within_the_float_range_and_decimals_are_read() -> None:
    """Near neighbours: 2**63 (past int64) and Decimal are numbers."""
    got = rankmeter.evaluate(QRELS, {"1": {"a": 2**63, "b": Decimal("0.5")}}, "rr")
    assert got.aggregate["rr"] == 1.0
    got = rankmeter.evaluate(QRELS, _frame(Decimal("3")), "rr")
    assert got.aggregate["rr"] == 1.0


def test_complex_scores_are_refused_by_every_reader() -> None:
    with pytest.raises(InvalidScoreError, match=r"value \(1\+2j\) is not a number \(complex\)$"):
        rankmeter.evaluate(QRELS, {"1": {"a": 1 + 2j, "b": 0.5}}, "rr")
    with pytest.raises(InvalidScoreError, match=r"score \(1\+2j\) is not a number \(complex\)$"):
        rankmeter.evaluate(QRELS, _frame(1 + 2j), "rr")
    with pytest.raises(
        InputFormatError,
        match=r"^y_score: cannot convert to a float array \(y_score\[0\]\[0\] \(1\+5j\) is not a number \(complex\)\)$",
    ):
        rankmeter.evaluate_arrays([[1, 0]], np.array([[1 + 5j, 2]]), "rr")
    with pytest.raises(InputFormatError, match=r"y_true\[0\]\[0\] \(1\+0j\) is not a number \(complex\)"):
        rankmeter.evaluate_lists([np.array([1, 1 + 0j])], [[0.5, 0.2]], "rr")


def test_text_in_arrays_follows_the_same_grammar() -> None:
    with pytest.raises(InputFormatError, match=r"y_score\[0\]\[0\] '1_0' is not a number"):
        rankmeter.evaluate_arrays([[1, 0]], [["1_0", "2"]], "rr")
    assert rankmeter.evaluate_arrays([[1, 0]], [["3", "2"]], "rr").aggregate["rr"] == 1.0


def test_polars_text_scores_follow_the_grammar() -> None:
    frame = pl.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": ["\u0665", "0.5"]})
    with pytest.raises(InvalidScoreError, match=r"^row 0: query '1', document 'a': score '\u0665' is not a number$"):
        rankmeter.evaluate(QRELS, frame, "rr")


@pytest.mark.parametrize("qrels", [{}, {"1": {}}, {"1": {}, "2": {}}])
def test_an_empty_qrels_dict_is_an_error_like_an_empty_qrels_file(qrels: dict) -> None:
    with pytest.raises(InputFormatError, match=r"^qrels dict: no judgments"):
        rankmeter.evaluate(qrels, RUN, "rr")


def test_a_qrels_dict_of_one_judgment_is_not_empty() -> None:
    assert rankmeter.evaluate({"1": {"a": 0}}, RUN, "rr").aggregate["rr"] == 0.0
