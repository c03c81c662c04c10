"""rankmeter.ComparisonOptions: one value for compare's options, the same results as the keywords, its errors."""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
import pytest
from scipy import stats as scipy_stats

import rankmeter
from rankmeter import ComparisonOptions, EvaluationOptions, PolicyError
from rankmeter.stats.options import COMPARISON_FIELDS, ComparisonKeywords

QIDS = [f"q{i}" for i in range(8)]
BM25 = [0.31, 0.45, 0.22, 0.60, 0.38, 0.27, 0.50, 0.10]
RERANK = [0.40, 0.52, 0.25, 0.66, 0.37, 0.35, 0.50, 0.20]
PER_QUERY = {
    "bm25": (QIDS, ["ndcg@10"], np.array(BM25)[:, None]),
    "rerank": (QIDS, ["ndcg@10"], np.array(RERANK)[:, None]),
}
QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}, "q3": {"d": 1, "e": 1}}
RUNS = {
    "x": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0, "z": 2.0}, "q3": {"d": 1.0}},
    "y": {"q1": {"b": 2.0, "a": 1.0}, "q2": {"c": 2.0}, "q3": {"e": 2.0, "d": 1.0}},
}


def test_the_keyword_names_are_declared_once_for_the_type_checker() -> None:
    assert set(typing.get_type_hints(ComparisonKeywords)) == COMPARISON_FIELDS
    assert [f.name for f in dataclasses.fields(ComparisonOptions)] == list(ComparisonKeywords.__annotations__)


def test_compare_per_query_takes_the_value_and_the_keywords_with_the_same_result() -> None:
    by_value = rankmeter.compare_per_query(PER_QUERY, options=ComparisonOptions(test="t", correction=None))
    by_keyword = rankmeter.compare_per_query(PER_QUERY, test="t", correction=None)
    assert by_value == by_keyword
    # the paired t-test, as SciPy's ttest_rel gives it on the same values
    expected = scipy_stats.ttest_rel(RERANK, BM25).pvalue
    assert by_value.pairs[0].p_value == pytest.approx(expected, rel=1e-12)
    assert by_value.metadata["correction"] == "none"


def test_compare_takes_both_option_values_and_the_keywords_with_the_same_result() -> None:
    by_value = rankmeter.compare(
        QRELS,
        RUNS,
        ["rr"],
        evaluate_options=EvaluationOptions(workers=1),
        options=ComparisonOptions(baseline="y", n_resamples=200, seed=4),
    )
    by_keyword = rankmeter.compare(
        QRELS, RUNS, ["rr"], evaluate_options={"workers": 1}, baseline="y", n_resamples=200, seed=4
    )
    assert by_value == by_keyword
    # rr per query: x (1, 1/2, 1), y (1/2, 1, 1)
    assert [(r.name, r.mean) for r in by_value.systems] == [("x", pytest.approx(5 / 6)), ("y", pytest.approx(5 / 6))]
    assert by_value.metadata["baseline"] == "y"


def test_the_report_takes_the_value_and_the_keywords() -> None:
    by_value = rankmeter.report.html(QRELS, RUNS, "rr", options=ComparisonOptions(test="wilcoxon", n_resamples=200))
    by_keyword = rankmeter.report.html(QRELS, RUNS, "rr", test="wilcoxon", n_resamples=200)
    assert "wilcoxon" in by_value
    call = "&#39;rr&#39;, test=&#39;wilcoxon&#39;, n_resamples=200)</pre>"  # the call, written out
    assert call in by_value and call in by_keyword
    assert len(by_value) == len(by_keyword)


def test_a_keyword_repeating_the_value_in_another_spelling_is_one_call() -> None:
    opts = ComparisonOptions(test="randomization", n_resamples=200, seed=1)
    assert rankmeter.compare_per_query(PER_QUERY, options=opts, test="permutation") == rankmeter.compare_per_query(
        PER_QUERY, options=opts
    )


def test_a_conflicting_pair_is_an_error() -> None:
    with pytest.raises(
        PolicyError, match=r"compare_per_query: test='t' as a keyword but test='wilcoxon' in options=; give it once"
    ):
        rankmeter.compare_per_query(PER_QUERY, options=ComparisonOptions(test="wilcoxon"), test="t")


def test_options_of_another_type_are_an_error() -> None:
    with pytest.raises(TypeError, match="options must be a rankmeter.ComparisonOptions, got EvaluationOptions"):
        rankmeter.compare_per_query(PER_QUERY, options=EvaluationOptions())  # type: ignore[arg-type]


def test_an_unknown_keyword_is_an_error() -> None:
    with pytest.raises(
        TypeError, match=r"compare: unknown option 'tset'; the options are alpha, baseline, ci, ci_method, correction"
    ):
        rankmeter.compare(QRELS, RUNS, "rr", tset="t")  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("alpha", 0.0, r"alpha must be in \(0, 1\), got 0.0"),
        ("ci", 1.0, r"ci \(the confidence level\) must be in \(0, 1\), got 1.0"),
        ("query_sets", "union", "unknown query_sets policy 'union'; choose one of error, intersect"),
        ("seed", -1, "seed must be a non-negative integer or None, got -1"),
        ("test", "anova", "unknown test 'anova'"),
    ],
)
def test_each_field_is_checked_when_the_value_is_made(field: str, value: object, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        ComparisonOptions(**{field: value})  # type: ignore[arg-type]


def test_replace_refuses_an_unknown_field() -> None:
    with pytest.raises(TypeError, match="unknown comparison option 'tset'; the options are alpha, baseline"):
        ComparisonOptions().replace(tset="t")


def test_a_seed_of_none_draws_one_and_records_it() -> None:
    cmp = rankmeter.compare_per_query(PER_QUERY, options=ComparisonOptions(seed=None, n_resamples=200))
    again = rankmeter.compare_per_query(PER_QUERY, seed=cmp.metadata["seed"], n_resamples=200)
    assert isinstance(cmp.metadata["seed"], int)
    assert cmp.systems == again.systems
