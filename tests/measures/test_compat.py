"""``compat`` against ir_measures' Compat: its test values on TREC CAsT 2019 data and its provider on random cases.

ir_measures' ``tests/test_compat.py`` (terrierteam/ir_measures at dc04a88; values "based on a manual
execution of https://github.com/claclark/Compatibility", checked there to 1e-9) on ``compat.qrels`` /
``compat.run``, copied unchanged to ``tests/realdata/ir_measures_cast2019``.
"""

from __future__ import annotations

import random
from pathlib import Path

import ir_measures
import pytest

import rankmeter
from rankmeter.errors import MeasureSyntaxError, PolicyError

EXPECTED = {
    "Compat(p=0.95)": {"31_1": 0.51779512165509, "31_2": 0.018400100569017922},
    "Compat(p=0.9)": {"31_1": 0.3761334522946854, "31_2": 0.004344079941789211},
    "Compat(p=0.8)": {"31_1": 0.16723008845234535, "31_2": 0.00022806427320561776},
}


@pytest.fixture(scope="module")
def cast_files(realdata: Path) -> tuple[str, str]:
    folder = realdata / "ir_measures_cast2019"
    return str(folder / "compat.qrels"), str(folder / "compat.run")


@pytest.mark.parametrize("name", list(EXPECTED))
def test_ir_measures_expected_values(cast_files: tuple[str, str], name: str) -> None:
    qrels, run = cast_files
    got = rankmeter.evaluate(qrels, run, name).by_query(str(rankmeter.parse(name)))
    assert got == pytest.approx(EXPECTED[name], abs=1e-9)


def test_ir_measures_expected_mean(cast_files: tuple[str, str]) -> None:
    qrels, run = cast_files
    assert rankmeter.evaluate(qrels, run, "Compat(p=0.95)")["compat"] == pytest.approx(0.268097611, abs=1e-9)


def _peer(name: str, qrels: object, run: object) -> dict[str, float]:
    measure = ir_measures.parse_measure(name)
    return {m.query_id: float(m.value) for m in ir_measures.compat.iter_calc([measure], qrels, run)}


def _random_cases(seed: int, n: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n):
        docs = [f"d{i}" for i in range(rng.choice([1, 4, 10, 30]))]
        scores = rng.sample(range(1, 10_000), len(docs))  # positive and distinct: see the tests below
        run[f"q{q}"] = {d: s / 100 for d, s in zip(docs, scores, strict=True)}
        judged = {d: rng.choice([-1, 0, 0, 1, 2, 3]) for d in docs if rng.random() < 0.7}
        judged.update({f"x{i}": rng.choice([0, 1, 2, 3]) for i in range(rng.randint(0, 6))})
        if not any(g > 0 for g in judged.values()):
            judged["x_rel"] = 1
        qrels[f"q{q}"] = judged
    return qrels, run


@pytest.mark.parametrize("name", ["Compat", "Compat(p=0.8)", "Compat(p=0.5,normalize=False)", "Compat(p=1)"])
def test_ir_measures_provider_on_random_cases(name: str) -> None:
    qrels, run = _random_cases(11, 60)
    want = _peer(name, qrels, run)
    got = rankmeter.evaluate(qrels, run, name).by_query(str(rankmeter.parse(name)))
    assert got == pytest.approx(want, abs=1e-12)


def test_worked_example() -> None:
    # qrels a: 1, b: 1; run b > c. Ideal (b, a): b follows the ranking. D = 2, weights 1 and 0.95 / 2.
    # overlap: b from depth 1: 1 + 0.475; the ideal's own: 1.475 + 0.475 (a from depth 2)
    got = rankmeter.evaluate({"q": {"a": 1, "b": 1}}, {"q": {"b": 2.0, "c": 1.0}}, "compat")["compat"]
    assert got == pytest.approx(1.475 / 1.95, abs=1e-15)
    raw = rankmeter.evaluate({"q": {"a": 1, "b": 1}}, {"q": {"b": 2.0, "c": 1.0}}, "compat(normalize=false)")
    assert raw["compat(normalize=false)"] == pytest.approx(1.475 / 1.95, abs=1e-15)  # D = 2: the same divisor


def test_equal_grades_follow_the_ranking_whatever_the_scores() -> None:
    # Two relevant documents of grade 1, one retrieved with a negative score. The ideal puts the retrieved
    # one first (the order most compatible with the run): D = 2, overlap 1 + 0.475, best 1.475 + 0.475.
    qrels, run = {"q": {"a": 1, "b": 1}}, {"q": {"b": -2.0, "c": -3.0}}
    assert rankmeter.evaluate(qrels, run, "compat")["compat"] == pytest.approx(1.475 / 1.95, abs=1e-15)
    # ir_measures orders the ideal by score with 0.0 for documents not retrieved, so a comes first there:
    # b then overlaps from depth 2 only, 0.475 / 1.95
    assert _peer("Compat", qrels, run)["q"] == pytest.approx(0.475 / 1.95, abs=1e-15)


def test_name_round_trips() -> None:
    for name in ["Compat", "Compat(p=0.8)", "compat(normalize=false,p=0.5)"]:
        m = rankmeter.parse(name)
        assert rankmeter.parse(str(m)) == m
    assert str(rankmeter.parse("Compat(p=0.95, normalize=True)")) == "compat"


def test_normalize_must_be_a_boolean() -> None:
    with pytest.raises(MeasureSyntaxError, match=r"normalize must be true or false, got 'yes'"):
        rankmeter.parse("compat(normalize=yes)")


def test_expected_ties_are_refused() -> None:
    with pytest.raises(PolicyError, match=r"measure 'compat' has no exact expectation"):
        rankmeter.evaluate_lists([[1, 0, 2]], [[1.0, 1.0, 0.5]], "compat", ties="expected")


def test_no_relevant_document_scores_zero() -> None:
    # no relevant document: the ideal is empty and so is its own RBO, which rankmeter and ir_measures score 0
    qrels, run = {"q": {"a": 0}}, {"q": {"a": 2.0, "b": 1.0}}
    for name in ["Compat", "Compat(normalize=False)"]:
        got = rankmeter.evaluate(qrels, run, name).by_query(str(rankmeter.parse(name)))
        assert got == {"q": 0.0} == _peer(name, qrels, run)


def test_equal_grades_below_unretrieved_higher_ones() -> None:
    # the ideal is a, b (grade 3, not retrieved), then x, y, z (grade 1) in the run's order: x, y, z sit at
    # ideal positions 3, 4, 5 and overlap from depths 3, 4, 5 (D = 5, S(m) = sum_{d=m}^{5} 0.95^(d-1) / d)
    qrels, run = {"q": {"a": 3, "b": 3, "x": 1, "y": 1, "z": 1}}, {"q": {"x": 3.0, "y": 2.0, "z": 1.0}}

    def suffix(m: int) -> float:
        return sum(0.95 ** (d - 1) / d for d in range(m, 6))

    want = (suffix(3) + suffix(4) + suffix(5)) / sum(suffix(m) for m in range(1, 6))
    assert rankmeter.evaluate(qrels, run, "Compat")["compat"] == pytest.approx(want, abs=1e-15)
    assert _peer("Compat", qrels, run)["q"] == pytest.approx(want, abs=1e-15)
