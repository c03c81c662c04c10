"""Hand-made hostile values: gains, numbers in every reader, options at and past their limits, escaping.

Each case writes down its expected outcome: a value (with the formula), or the exact error. Together
with :mod:`tests.hostile.test_cli_errors` this is the hostile-input suite of docs/errors.md.
"""

from __future__ import annotations

import csv
import io
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
def test_exp_gain_overflow_under_several_cutoffs_names_its_query() -> None:
    qrels = {"1": {"a": 1}, "2": {"c": 1024}, "3": {"a": 2}}
    run = {"1": {"a": 1.0}, "2": {"c": 1.0}, "3": {"a": 1.0}}
    with pytest.raises(InvalidScoreError, match=r"query '2': DCG is inf \(its highest grade is 1024\)"):
        rankmeter.evaluate(qrels, run, "ndcg(gain=exp)@[1,5]")


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


def test_a_signalling_nan_decimal_is_refused_by_dicts_and_frames() -> None:
    with pytest.raises(InvalidScoreError, match=r"value Decimal\('sNaN'\) is not a number$"):
        rankmeter.evaluate(QRELS, {"1": {"a": Decimal("sNaN"), "b": 0.5}}, "rr")
    with pytest.raises(InvalidScoreError, match=r"^column 'score' holds a signalling NaN \(Decimal\('sNaN'\)\)"):
        rankmeter.evaluate(QRELS, _frame(Decimal("sNaN")), "rr")


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


def test_an_empty_qrels_table_is_an_error_like_an_empty_qrels_file(tmp_path) -> None:
    import pandas as pd

    empty = pd.DataFrame({"user_id": pd.Series([], dtype="int64"), "item_id": pd.Series([], dtype="int64")})
    with pytest.raises(InputFormatError, match=r"^<qrels table>: no judgments \(the table has no rows\)$"):
        rankmeter.evaluate(empty, RUN, "rr")
    (tmp_path / "qrels.csv").write_text("query_id,doc_id,relevance\n")
    with pytest.raises(InputFormatError, match=r"qrels\.csv: no judgments \(the table has no rows\)$"):
        rankmeter.evaluate(tmp_path / "qrels.csv", RUN, "rr")


def test_a_qrels_dict_of_one_judgment_is_not_empty() -> None:
    assert rankmeter.evaluate({"1": {"a": 0}}, RUN, "rr").aggregate["rr"] == 0.0


# --- ids that are escape sequences, markup or formulas -----------------------------------------------------
ESC_ID = "q\x1b]0;PWNED\x07\x1b[31m"


def _two_systems(first: str, second: str) -> rankmeter.stats.Comparison:
    qids = ["1", "2", "3"]
    return rankmeter.stats.compare_per_query(
        {first: (qids, ["map"], [[1.0], [1.0], [1.0]]), second: (qids, ["map"], [[0.5], [1.0], [0.5]])},
        n_resamples=100,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "q.txt", "bad.txt", "-m", "map"],
        ["evaluate", "q.txt", "bad.txt", "-m", "map", "--stream"],
        ["trec_eval", "q.txt", "bad.txt"],
        ["evaluate", "q.txt", "-m", "map", "--depth", ESC_ID],
    ],
)
def test_escape_sequences_in_ids_never_reach_the_terminal_in_errors(argv: list[str], tmp_path, monkeypatch) -> None:
    from tests.hostile.test_cli_errors import one_error_line, run_cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "bad.txt").write_text(f"{ESC_ID} Q0 a 1 x t\n")
    status, stderr = run_cli(argv if argv[-2] != "--depth" else [*argv[:2], "bad.txt", *argv[2:]])
    assert status in (1, 2)
    line = one_error_line(stderr)
    assert "\x1b" not in stderr and "\x07" not in stderr
    assert "q\\x1b]0;PWNED\\x07\\x1b[31m" in line


def test_compare_tables_show_ids_as_text() -> None:
    """The rich tables: escapes written out, and ``[red]`` is a name, not rich markup."""
    text = rankmeter.report.render_text(_two_systems("x[red]y", ESC_ID), color=True)
    assert "\x07" not in text and "\x1b]" not in text
    assert "q\\x1b]0;PWNED\\x07\\x1b[31m" in text
    assert "x[red]y (baseline)" in text


def test_markdown_neutralises_link_and_image_markup() -> None:
    text = rankmeter.report.render_markdown(_two_systems("![t](https://evil.example/pixel.png)", "[x](javascript:1)"))
    assert "![t](" not in text and "[x](" not in text
    assert "\\!\\[t\\](https://evil.example/pixel.png) (baseline)" in text
    assert "\\[x\\](javascript:1)" in text


FORMULAS = ['=HYPERLINK("http://x")', "+1", "-1", "@SUM(A1)", "\tx", "=1+2"]


@pytest.mark.parametrize("formula", FORMULAS)
def test_csv_safe_neutralises_formulas_and_the_default_round_trips(formula: str) -> None:
    result = rankmeter.evaluate({formula: {"a": 1}}, {formula: {"a": 1.0}}, "map")
    rows = list(csv.reader(io.StringIO(result.to_csv())))
    assert rows[1] == [formula, "map", "1.0"]  # default: ids read back unchanged
    rows = list(csv.reader(io.StringIO(result.to_csv(safe=True))))
    assert rows[1] == ["'" + formula, "map", "1.0"] and rows[2] == ["all", "map", "1.0"]
    pairs = list(csv.DictReader(io.StringIO(_two_systems("base", formula).to_csv("pairs", safe=True))))
    assert pairs[0]["system"] == "'" + formula and pairs[0]["mean_difference"] == "-0.3333333333333333"


def test_csv_safe_leaves_other_ids_and_negative_values_alone() -> None:
    """Near neighbours: ids that merely contain = or - keep their text; values are numbers, never prefixed."""
    result = rankmeter.evaluate({"a=b": {"x": 1}, "q-1": {"y": 1}}, {"a=b": {"x": 1.0}, "q-1": {"z": 1.0}}, "map")
    assert result.to_csv(safe=True) == result.to_csv()
    cmp = _two_systems("a", "b")
    assert "-0.3333333333333333" in cmp.to_csv("pairs", safe=True)


def test_csv_safe_on_the_command_line(tmp_path, monkeypatch) -> None:
    from tests.hostile.test_cli_errors import run_cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text("=1+2 0 a 1\n")
    (tmp_path / "r.txt").write_text("=1+2 Q0 a 1 1 t\n")
    out = tmp_path / "out.csv"
    assert run_cli(["evaluate", "q.txt", "r.txt", "-m", "map", "--format", "csv", "--csv-safe", "-o", str(out)]) == (
        0,
        "",
    )
    assert out.read_text() == "query_id,measure,value\n'=1+2,map,1.0\nall,map,1.0\n"


# --- cutoffs: ASCII digits, at and past int64 ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("p@\u0665", r"cutoff '\u0665' is not a positive integer$"),
        ("p@[5,\u0661\u0660]", r"cutoff '\u0661\u0660' is not a positive integer$"),
        ("p@\uff15", r"cutoff '\uff15' is not a positive integer$"),  # fullwidth 5
        ("p@9223372036854775808", r"cutoff 9223372036854775808 is too large \(at most 9223372036854775807\)$"),
        ("p@" + "9" * 5000, r"^measure 'p@9{28}\.\.\.9{10}': cutoff 9{12}\.\.\.\(5000 digits\) is too large"),
        ("p@0", r"cutoff must be >= 1, got 0$"),
    ],
)
def test_cutoffs_are_ascii_and_fit_an_int64(text: str, message: str) -> None:
    with pytest.raises(MeasureSyntaxError, match=message):
        parse(text)


def test_cutoffs_at_the_limit_and_with_leading_zeros_are_read() -> None:
    assert parse("p@9223372036854775807").cutoffs == (9223372036854775807,)
    assert parse("p@05") == parse("p@5")
    assert parse("p@" + "0" * 40 + "7") == parse("p@7")
    got = rankmeter.evaluate(QRELS, RUN, ["p@9223372036854775807", "ndcg@9223372036854775807"]).aggregate
    assert got == {"p@9223372036854775807": 1 / 9223372036854775807, "ndcg@9223372036854775807": 1.0}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("seed", 2**70, r"seed must be below 2\*\*64, got 1180591620717411303424$"),
        ("depth", 10**20, r"depth must be below 2\*\*63"),
    ],
)
def test_semantics_refuse_seeds_and_depths_past_their_integer_type(field: str, value: int, message: str) -> None:
    with pytest.raises(rankmeter.PolicyError, match=message):
        rankmeter.Semantics(ties="shuffle" if field == "seed" else "trec", **{field: value})


def test_the_largest_seed_and_depth_work() -> None:
    sem = rankmeter.Semantics(ties="shuffle", seed=2**64 - 1, depth=2**63 - 1)
    assert rankmeter.evaluate(QRELS, RUN, "rr", semantics=sem).aggregate["rr"] == 1.0


@pytest.mark.parametrize(
    ("qrels", "where"),
    [({"q": {"d": 1}}, "query 'q', intent 'd'"), ({"q": 3}, "query 'q'")],
)
def test_plain_qrels_for_a_diversity_measure_are_a_located_error(qrels: dict, where: str) -> None:
    with pytest.raises(InputFormatError, match=rf"^intent qrels dict: {where}: expected \{{document: grade\}}, got"):
        rankmeter.evaluate(qrels, {"q": {"d": 1.0}}, "alpha_ndcg@3")
