"""compare_per_query (all the work) and compare (evaluation wrapper) with real values."""

from __future__ import annotations

import importlib
import json
import math
import sys
import types
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from rankmeter.errors import InputFormatError, PolicyError, RankmeterError
from rankmeter.stats.bootstrap import mean_ci
from rankmeter.stats.comparison import Comparison
from rankmeter.stats.corrections import adjust
from rankmeter.stats.effects import cohens_dz
from rankmeter.stats.paired import paired_test
from rankmeter.stats.significance import compare, compare_per_query
from rankmeter.stats.tukey import randomized_tukey_hsd, tukey_hsd

MEASURES = ["ndcg@10", "map"]


def make_per_query(n: int = 30, seed: int = 0, shifts: tuple[float, ...] = (0.0, 0.02, 0.08)) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    qids = [f"q{i:03d}" for i in range(n)]
    base = rng.beta(2, 3, (n, len(MEASURES)))
    out = {}
    for name, shift in zip(["bm25", "rm3", "dense"], shifts, strict=False):
        values = np.clip(base + rng.normal(shift, 0.08, base.shape), 0, 1) if shift else base
        out[name] = (qids, MEASURES, values)
    return out


def test_systems_rows_means_and_cis() -> None:
    pq = make_per_query()
    cmp = compare_per_query(pq, n_resamples=999, seed=3)
    assert [(r.name, r.measure) for r in cmp.systems] == [(s, m) for s in ["bm25", "rm3", "dense"] for m in MEASURES]
    for row in cmp.systems:
        x = pq[row.name][2][:, MEASURES.index(row.measure)]
        assert row.mean == pytest.approx(x.mean(), rel=1e-12)
        ci = mean_ci(x, n_resamples=999, seed=3)
        assert (row.ci_low, row.ci_high) == (ci.low, ci.high)
    assert cmp.metadata["ci_level"] == 0.95 and cmp.metadata["ci_method"] == "BCa"


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization", "bootstrap"])
@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh", "none"])
def test_pairs_equal_standalone_tests_and_correction_over_all_pairs(test: str, correction: str) -> None:
    pq = make_per_query()
    cmp = compare_per_query(pq, test=test, correction=correction, n_resamples=500, seed=7)
    assert [(p.measure, p.baseline, p.system) for p in cmp.pairs] == [
        (m, "bm25", s) for m in MEASURES for s in ["rm3", "dense"]
    ]
    raw = []
    for pair in cmp.pairs:
        j = MEASURES.index(pair.measure)
        a, b = pq["bm25"][2][:, j], pq[pair.system][2][:, j]
        ref = paired_test(a, b, test, n_resamples=500, seed=7)  # same seed: common random numbers
        assert (pair.statistic, pair.p_value, pair.test) == (ref.statistic, ref.p_value, ref.test)
        assert pair.p_value_mc_se == ref.mc_error
        assert pair.mean_difference == pair.effect_size == pytest.approx(np.mean(b - a), rel=1e-12)
        assert pair.effect_size_standardized == cohens_dz(a, b)
        assert (pair.wins, pair.ties, pair.losses) == (int((b > a).sum()), int((b == a).sum()), int((b < a).sum()))
        raw.append(ref.p_value)
    expected = adjust(raw, correction)  # one family: every (system x measure) pair
    assert [p.p_adjusted for p in cmp.pairs] == pytest.approx(list(expected), rel=1e-15)
    assert [p.significant for p in cmp.pairs] == [bool(x < 0.05) for x in expected]
    assert cmp.metadata["correction"] == correction and cmp.metadata["family_size"] == 4
    if test in ("randomization", "bootstrap"):
        se = cmp.metadata["monte_carlo_se"]
        assert len(se) == 4
        assert se[0]["se"] == pytest.approx(math.sqrt(se[0]["p_value"] * (1 - se[0]["p_value"]) / 500))
    else:
        assert cmp.metadata["monte_carlo_se"] == []


def test_clear_improvement_is_significant_and_small_one_is_not() -> None:
    pq = make_per_query(n=80, shifts=(0.0, 0.0005, 0.1))
    cmp = compare_per_query(pq, test="randomization", n_resamples=2000)
    dense = cmp.pair("ndcg@10", "dense")
    assert dense is not None and dense.significant and dense.p_value == 1 / 2001
    rm3 = cmp.pair("ndcg@10", "rm3")
    assert rm3 is not None and not rm3.significant


def test_baseline_option_and_pair_order() -> None:
    cmp = compare_per_query(make_per_query(), baseline="dense", n_resamples=200)
    assert cmp.baseline == "dense" and cmp.metadata["baseline"] == "dense"
    assert {(p.baseline, p.system) for p in cmp.pairs} == {("dense", "bm25"), ("dense", "rm3")}
    assert cmp.names == ["bm25", "rm3", "dense"]  # display order unchanged
    with pytest.raises(PolicyError, match="baseline 'nope' is not one of the systems"):
        compare_per_query(make_per_query(), baseline="nope")


@pytest.mark.parametrize("test", ["tukey", "randomized-tukey"])
def test_tukey_tests_compare_all_pairs(test: str) -> None:
    pq = make_per_query()
    cmp = compare_per_query(pq, test=test, baseline="rm3", n_resamples=500, seed=2)
    assert [(p.measure, p.baseline, p.system) for p in cmp.pairs] == [
        (m, b, s) for m in MEASURES for b, s in [("rm3", "bm25"), ("rm3", "dense"), ("bm25", "dense")]
    ]
    order = ["rm3", "bm25", "dense"]
    for j, m in enumerate(MEASURES):
        x = np.column_stack([pq[n][2][:, j] for n in order])
        ref = tukey_hsd(x) if test == "tukey" else randomized_tukey_hsd(x, n_resamples=500, seed=2)
        rows = [p for p in cmp.pairs if p.measure == m]
        for row, (i, k) in zip(rows, [(0, 1), (0, 2), (1, 2)], strict=True):
            assert row.p_value == row.p_adjusted == ref.p_value[i, k]
            assert row.statistic == pytest.approx(x[:, k].mean() - x[:, i].mean())
    assert cmp.metadata["correction"] == "none" and cmp.metadata["correction_requested"] == "holm"
    assert any("already adjusted" in note for note in cmp.metadata["notes"])


def test_query_set_mismatch_error_names_system_and_queries() -> None:
    pq = make_per_query(n=10)
    qids, measures, values = pq["rm3"]
    pq["rm3"] = (qids[:7], measures, values[:7])
    message = r"'rm3' lacks 3 of the 10 queries \('q007', 'q008', 'q009'\)"
    with pytest.raises(PolicyError, match=message) as err:
        compare_per_query(pq)
    assert isinstance(err.value, RankmeterError) and isinstance(err.value, ValueError)
    assert "query_sets='intersect'" in str(err.value)


def test_query_sets_intersect_records_dropped_counts() -> None:
    pq = make_per_query(n=10)
    qids, measures, values = pq["rm3"]
    pq["rm3"] = (qids[2:], measures, values[2:])
    qids, measures, values = pq["dense"]
    pq["dense"] = (qids + ["extra"], measures, np.vstack([values, [[0.5, 0.5]]]))
    cmp = compare_per_query(pq, query_sets="intersect", n_resamples=200)
    assert cmp.query_ids.tolist() == qids[2:]
    assert cmp.metadata["queries"] == {
        "compared": 8,
        "per_system": {"bm25": 10, "rm3": 8, "dense": 11},
        "dropped": {"bm25": 2, "rm3": 0, "dense": 3},
    }
    assert cmp.system("bm25", "map").mean == pytest.approx(pq["bm25"][2][2:, 1].mean())


def test_alignment_by_query_id_not_by_position() -> None:
    pq = make_per_query(n=12)
    qids, measures, values = pq["dense"]
    perm = np.random.default_rng(0).permutation(12)
    shuffled = dict(pq)
    shuffled["dense"] = ([qids[i] for i in perm], measures, values[perm])
    a = compare_per_query(pq, n_resamples=200)
    b = compare_per_query(shuffled, n_resamples=200)
    assert a.pairs == b.pairs and a.systems == b.systems


def test_input_errors() -> None:
    pq = make_per_query(n=5)
    with pytest.raises(InputFormatError, match="at least 2 systems"):
        compare_per_query({"bm25": pq["bm25"]})
    bad = dict(pq)
    bad["rm3"] = (pq["rm3"][0], ["ndcg@10", "p@5"], pq["rm3"][2])
    with pytest.raises(InputFormatError, match="has measures"):
        compare_per_query(bad)
    nan = dict(pq)
    values = pq["rm3"][2].copy()
    values[1, 0] = np.nan
    nan["rm3"] = (pq["rm3"][0], MEASURES, values)
    with pytest.raises(InputFormatError, match="'ndcg@10' is not finite for query 'q001'"):
        compare_per_query(nan)
    dup = dict(pq)
    dup["rm3"] = (["q000"] * 5, MEASURES, pq["rm3"][2])
    with pytest.raises(InputFormatError, match="duplicate query ids"):
        compare_per_query(dup)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"test": "z"}, "unknown test 'z'"),
        ({"correction": "sidak"}, "unknown correction"),
        ({"alpha": 1.5}, "alpha must be in"),
        ({"ci": 0}, "confidence level"),
        ({"ci_method": "bc"}, "unknown CI method"),
        ({"query_sets": "union"}, "unknown query_sets policy"),
        ({"n_resamples": 0}, "positive integer"),
        ({"seed": -1}, "non-negative integer"),
    ]
    for kwargs, message in cases:
        with pytest.raises(RankmeterError, match=message):
            compare_per_query(pq, **kwargs)


def test_seed_none_is_recorded_and_reproduces() -> None:
    pq = make_per_query()
    first = compare_per_query(pq, seed=None, test="randomization", n_resamples=300)
    seed = first.metadata["seed"]
    assert isinstance(seed, int)
    again = compare_per_query(pq, seed=seed, test="randomization", n_resamples=300)
    assert first.pairs == again.pairs and first.systems == again.systems


def test_degenerate_pairs_are_reported_not_crashing() -> None:
    qids = ["a", "b", "c", "d"]
    same = (qids, ["map"], [[0.1], [0.2], [0.3], [0.4]])
    for test in ["t", "wilcoxon", "randomization", "bootstrap"]:
        cmp = compare_per_query({"x": same, "y": same}, test=test, n_resamples=100)
        pair = cmp.pairs[0]
        assert pair.p_value == 1.0 and pair.effect_size_standardized == 0.0
        assert (pair.wins, pair.ties, pair.losses) == (0, 4, 0)


def test_export_schema_and_formats() -> None:
    cmp = compare_per_query(make_per_query(), test="randomization", n_resamples=300)
    d = cmp.to_dict()
    assert set(d) == {"systems", "pairs", "metadata"}
    assert all(list(row) == ["name", "measure", "mean", "ci_low", "ci_high"] for row in d["systems"])
    required = [
        "measure",
        "baseline",
        "system",
        "test",
        "statistic",
        "p_value",
        "p_adjusted",
        "effect_size",
        "wins",
        "ties",
        "losses",
    ]
    assert all(list(row)[: len(required)] == required for row in d["pairs"])
    for key in [
        "test",
        "correction",
        "alpha",
        "n_resamples",
        "seed",
        "ci_level",
        "ci_method",
        "monte_carlo_se",
        "queries",
    ]:
        assert key in d["metadata"]
    parsed = json.loads(cmp.to_json())
    assert parsed["pairs"][0]["p_value"] == d["pairs"][0]["p_value"]
    assert parsed["metadata"]["n_resamples"] == 300
    frame = cmp.to_pandas()
    assert len(frame) == 4 and frame["p_adjusted"].tolist() == [p.p_adjusted for p in cmp.pairs]
    assert len(cmp.to_pandas("systems")) == 6
    csv_text = cmp.to_csv()
    assert csv_text.splitlines()[0].startswith("measure,baseline,system,test,statistic,p_value")
    assert len(csv_text.splitlines()) == 5
    assert cmp.to_csv("systems").splitlines()[0] == "name,measure,mean,ci_low,ci_high"
    with pytest.raises(PolicyError, match="unknown table"):
        cmp.to_csv("queries")
    from rankmeter.report.tables import render_latex, render_markdown

    assert "| System |" in render_markdown(cmp) and r"\toprule" in render_latex(cmp)


def test_to_json_is_strict_with_non_finite_values() -> None:
    qids = ["a", "b", "c"]
    cmp = compare_per_query(
        {"x": (qids, ["map"], [[0.1], [0.2], [0.3]]), "y": (qids, ["map"], [[0.2], [0.3], [0.4]])},
        test="t",
    )
    pair = cmp.pairs[0]
    assert pair.effect_size_standardized == math.inf and pair.statistic == math.inf
    text = cmp.to_json()
    assert "Infinity" not in text and "NaN" not in text
    assert json.loads(text)["pairs"][0]["effect_size_standardized"] is None


# -- compare(): the evaluation wrapper --------------------------------------------------------


@dataclass
class FakeResult:
    query_ids: np.ndarray
    measure_names: list[str]
    values: np.ndarray
    metadata: dict[str, Any]


def test_compare_evaluates_every_run_in_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    pq = make_per_query(n=15)
    calls = []

    def fake_evaluate(qrels: Any, runs: Any, measures: Any) -> dict[str, FakeResult]:
        calls.append((qrels, dict(runs), list(measures)))
        return {
            name: FakeResult(np.array(pq[r][0]), list(pq[r][1]), np.asarray(pq[r][2]), {}) for name, r in runs.items()
        }

    module = types.ModuleType("rankmeter.by_ids")
    module.evaluate = fake_evaluate  # type: ignore[attr-defined]
    module.is_runs = importlib.import_module("rankmeter.by_ids").is_runs  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rankmeter.by_ids", module)
    runs = {"bm25": "bm25", "rm3": "rm3", "dense": "dense"}
    cmp = compare("qrels.txt", runs, MEASURES, test="bootstrap", n_resamples=300, seed=5)
    assert calls == [("qrels.txt", runs, MEASURES)]  # the qrels read once, the runs on the many-runs path
    assert cmp == compare_per_query(pq, test="bootstrap", n_resamples=300, seed=5)


def test_compare_validates_before_evaluating(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("rankmeter.by_ids")
    module.evaluate = lambda *a: pytest.fail("evaluate must not be called")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rankmeter.by_ids", module)
    with pytest.raises(PolicyError, match="unknown test"):
        compare("q", {"a": "a", "b": "b"}, "map", test="anova")
    with pytest.raises(InputFormatError, match="at least 2 runs"):
        compare("q", {"a": "a"}, "map")
    with pytest.raises(PolicyError, match="baseline 'c'"):
        compare("q", {"a": "a", "b": "b"}, "map", baseline="c")


def test_compare_with_the_real_evaluate() -> None:
    qrels = {f"q{i}": {"d1": 1, "d2": 1, "d3": 0, "d4": 2} for i in range(12)}
    good = {q: {"d4": 4.0, "d1": 3.0, "d2": 2.0, "d3": 1.0} for q in qrels}
    worse = {"d3": 4.0, "d1": 3.0, "d2": 2.0, "d4": 1.0}
    bad = {q: (worse if i % 3 else good[q]) for i, q in enumerate(qrels)}
    cmp = compare(qrels, {"bad": bad, "good": good}, ["ndcg@3", "p@1"], test="randomization", n_resamples=999)
    assert isinstance(cmp, Comparison)
    assert cmp.measures == ["ndcg@3", "p@1"]
    p1 = cmp.pair("p@1", "good")
    assert p1 is not None and (p1.wins, p1.ties, p1.losses) == (8, 4, 0)
    assert p1.mean_difference == pytest.approx(8 / 12)
    assert cmp.system("good", "p@1").mean == 1.0
