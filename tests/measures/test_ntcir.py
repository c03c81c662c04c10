"""``q_measure``, ``gap`` and ``irbu`` against NTCIREVAL's published output, pyNTCIREVAL and NTCIREVAL's formulas.

* NTCIREVAL's ``README`` (version 190111) and pyNTCIREVAL's test data (``tests/dat/res_test_compute*.txt``,
  mpkato/pyNTCIREVAL at db0b342, NTCIREVAL's output for its ``sample.res`` / ``sample.rel``): Q-measure
  0.0967 with ``-g 1:2:3``, 0.0929 with ``-g 1:4:9``, Q@0002 0.2500 (four decimals).
* pyNTCIREVAL's ``QMeasure`` run in the test on random graded cases.
* GAP and iRBU: NTCIREVAL's ``compute`` prints them only with ``-gap`` / ``-rbup``, and no published output
  shows them; they are checked against the loops of ``ntcir_eval.c``'s ``eval_compute`` written out below
  in plain Python (``py_gap``, ``py_irbu``) and against hand-computed values.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from pyNTCIREVAL import Labeler
from pyNTCIREVAL.metrics import QMeasure

import rankmeter
from rankmeter.errors import InputFormatError, MeasureSyntaxError, PolicyError

# NTCIREVAL's sample.rel (d1-d3 L3, d4-d6 L2, d7-d10 L1, d11 L0) and sample.res (d11, d1, d12, d4)
SAMPLE_QRELS = {"q": {**{f"d{i}": g for i, g in enumerate([3, 3, 3, 2, 2, 2, 1, 1, 1, 1], 1)}, "d11": 0}}
SAMPLE_RUN = {"q": {"d11": 4.0, "d1": 3.0, "d12": 2.0, "d4": 1.0}}


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("q_measure", 0.0967),  # -g 1:2:3 (README, res_test_compute.txt)
        ("q_measure@1000", 0.0967),  # Q@1000 (README)
        ("q_measure@2", 0.2500),  # Q@0002, -cutoffs 2 (res_test_compute_cutoff.txt)
        ("q_measure(gain={1:1,2:4,3:9})", 0.0929),  # -g 1:4:9 (res_test_compute_grade.txt)
    ],
)
def test_ntcireval_published_output(name: str, printed: float) -> None:
    got = rankmeter.evaluate(SAMPLE_QRELS, SAMPLE_RUN, name)[str(rankmeter.parse(name))]
    assert abs(got - printed) <= 5e-5


def _random_cases(seed: int, n: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n):
        docs = [f"d{i}" for i in range(rng.choice([1, 3, 6, 15, 40]))]
        scores = rng.sample(range(10_000), len(docs))
        run[f"q{q}"] = {d: s / 100 for d, s in zip(docs, scores, strict=True)}
        judged = {d: rng.choice([0, 0, 1, 1, 2, 3]) for d in docs if rng.random() < 0.8}
        judged.update({f"x{i}": rng.choice([0, 1, 2, 3]) for i in range(rng.randint(0, 5))})
        judged.setdefault("x_rel", 2)
        qrels[f"q{q}"] = judged
    return qrels, run


def _levels(qrels: dict[str, int], run: dict[str, float]) -> tuple[list[int | None], list[int]]:
    """The run's levels in rank order (None: unjudged) and the judged levels."""
    ranked = sorted(run, key=lambda d: -run[d])
    return [qrels.get(d) for d in ranked], list(qrels.values())


@pytest.mark.parametrize("beta", [1.0, 0.5, 3.0])
@pytest.mark.parametrize("cutoff", [None, 1, 5, 20])
@pytest.mark.parametrize("gains", [(1, 2, 3), (1, 4, 9)])
def test_pyntcireval_q_measure_on_random_cases(beta: float, cutoff: int | None, gains: tuple[int, ...]) -> None:
    qrels, run = _random_cases(5, 30)
    table = "{" + ",".join(f"{lvl}:{g}" for lvl, g in enumerate(gains, 1)) + "}"
    name = f"q_measure(beta={beta},gain={table})" + (f"@{cutoff}" if cutoff else "")
    got = rankmeter.evaluate(qrels, run, name).by_query(str(rankmeter.parse(name)))
    for q in qrels:
        labeler = Labeler(qrels[q])
        ranked = sorted(run[q], key=lambda d: -run[q][d])
        xrelnum = labeler.compute_per_level_doc_num(len(gains) + 1)
        want = QMeasure(xrelnum, list(gains), beta, cutoff=cutoff).compute(labeler.label(ranked))
        assert got[q] == pytest.approx(want, abs=1e-12), q


def _h(level: int) -> int:
    return level * (level + 1)


def py_gap(levels: list[int | None], judged: list[int], k: int | None) -> float:
    """NTCIREVAL eval_compute's GAP / GAP@k: GAPsum over ranks <= min(k, n), divided by GAPisum[min(k, R)]."""
    lv = [max(x or 0, 0) for x in levels]
    ideal = sorted((x for x in judged if x > 0), reverse=True)
    r = len(ideal)
    n = len(lv) if k is None else min(k, len(lv))
    total = 0.0
    for i in range(1, n + 1):
        if lv[i - 1] > 0:
            total += sum(_h(min(lv[i - 1], lv[j - 1])) for j in range(1, i + 1)) / i
    depth = r if k is None else min(k, r)
    return total / sum(_h(x) for x in ideal[:depth])


def py_irbu(levels: list[int | None], p: float, gmax: int, k: int | None) -> float:
    """NTCIREVAL eval_compute's iRBU@k with linear gains: sum p^i dsat(i-1) g_i / (gmax + 1)."""
    total, dsat = 0.0, 1.0
    top = levels if k is None else levels[:k]
    for i, level in enumerate(top, start=1):
        g = max(level or 0, 0) / (gmax + 1)
        total += p**i * dsat * g
        dsat *= 1 - g
    return total


@pytest.mark.parametrize("cutoff", [None, 1, 3, 10])
def test_gap_against_ntcireval_formula(cutoff: int | None) -> None:
    qrels, run = _random_cases(6, 40)
    name = "gap" + (f"@{cutoff}" if cutoff else "")
    got = rankmeter.evaluate(qrels, run, name).by_query(name)
    for q in qrels:
        levels, judged = _levels(qrels[q], run[q])
        assert got[q] == pytest.approx(py_gap(levels, judged, cutoff), abs=1e-12), q


@pytest.mark.parametrize(("p", "cutoff"), [(0.99, None), (0.9, 5), (0.5, 2), (1.0, 20)])
def test_irbu_against_ntcireval_formula(p: float, cutoff: int | None) -> None:
    qrels, run = _random_cases(7, 40)
    name = f"irbu(gmax=3,p={p})" + (f"@{cutoff}" if cutoff else "")
    got = rankmeter.evaluate(qrels, run, name).by_query(str(rankmeter.parse(name)))
    for q in qrels:
        levels, _ = _levels(qrels[q], run[q])
        assert got[q] == pytest.approx(py_irbu(levels, p, 3, cutoff), abs=1e-12), q


def test_gap_written_out() -> None:
    # levels 2, 0, 1 down the list, judged {a: 2, b: 0, c: 1, d: 3}: ranks 1 and 3 are relevant
    # rank 1: h(2) / 1 = 6; rank 3: (h(min(1, 2)) + h(1)) / 3 = 4 / 3; ideal 3, 2, 1: h = 12 + 6 + 2 = 20
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "d": 3}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    res = rankmeter.evaluate(qrels, run, ["gap", "gap@1"])
    assert res["gap"] == pytest.approx((6 + 4 / 3) / 20, abs=1e-15)
    assert res["gap@1"] == pytest.approx(6 / 12, abs=1e-15)  # GAPisum[min(1, R)] = h(3)


def test_names_round_trip() -> None:
    for name in ["q_measure(beta=0.5)@10", "Q-measure", "gap@5", "irbu(gmax=3,p=0.99)@10"]:
        m = rankmeter.parse(name)
        assert rankmeter.parse(str(m)) == m
    assert str(rankmeter.parse("Q@10")) == "q_measure@10"


def test_irbu_needs_p_and_gmax() -> None:
    with pytest.raises(MeasureSyntaxError, match=r"measure 'irbu\(p=0.9\)' needs p \(persistence\) and gmax"):
        rankmeter.evaluate_lists([[1, 0]], [[2.0, 1.0]], "irbu(p=0.9)", ties="stable")


def test_irbu_grade_above_gmax() -> None:
    with pytest.raises(InputFormatError, match=r"query '0': grade 3 has a gain above that of gmax=2; raise gmax"):
        rankmeter.evaluate_lists([[3, 0]], [[2.0, 1.0]], "irbu(gmax=2,p=0.9)", ties="stable")


def test_gap_refuses_expected_ties() -> None:
    with pytest.raises(PolicyError, match=r"measure 'gap' has no exact expectation"):
        rankmeter.evaluate_lists([[1, 2, 0]], [[1.0, 1.0, 0.5]], "gap", ties="expected")


def test_q_measure_and_irbu_expected_ties_are_the_mean_over_orderings() -> None:
    grades, scores = [2, 0, 1, 3, 0], [0.9, 0.5, 0.5, 0.5, 0.1]
    names = ["q_measure", "q_measure@2", "irbu(gmax=3,p=0.8)@3"]
    expected = rankmeter.evaluate_lists([grades], [scores], names, ties="expected").values[0]
    middle = [[1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1]]
    orders = [[0, *m, 4] for m in middle]
    each = rankmeter.evaluate_lists(
        [[grades[i] for i in o] for o in orders], [[5.0, 4.0, 3.0, 2.0, 1.0]] * 6, names, ties="stable"
    ).values
    np.testing.assert_allclose(expected, each.mean(axis=0), rtol=0, atol=1e-12)


def test_q_measure_ignores_the_gain_of_documents_that_are_not_relevant() -> None:
    # a (-1), n (0), unjudged u, b (1), c (2): relevant at ranks 4 and 5, R = 2, ideal gains 2, 1 (cg* 2, 3, 3, ...)
    # ((1 + 1) / (4 + 3) + (2 + 3) / (5 + 3)) / 2, whatever gain a table gives grades -1 and 0
    qrels = {"q": {"a": -1, "n": 0, "b": 1, "c": 2}}
    run = {"q": {"a": 4.0, "n": 3.5, "u": 3.0, "b": 2.0, "c": 1.0}}
    for name in ["q_measure", "q_measure(gain={1:1,2:2})", "q_measure(gain={-1:3,0:5,1:1,2:2})"]:
        assert rankmeter.evaluate(qrels, run, name).values[0, 0] == pytest.approx((2 / 7 + 5 / 8) / 2, abs=1e-15)


def test_gap_ignores_negative_grades() -> None:
    # a (-2) is not relevant: it adds no h(level) to b's pairs; b at rank 2: h(1) / 2 over the ideal's h(1)
    res = rankmeter.evaluate({"q": {"a": -2, "b": 1}}, {"q": {"a": 2.0, "b": 1.0}}, "gap")
    assert res["gap"] == pytest.approx((2 / 2) / 2, abs=1e-15)


def test_gap_fractional_grade() -> None:
    # grade 0.5: h(0.5) = 0.75 above and below the line; b (grade 1) at rank 2 pairs with a through h(min(0.5, 1))
    # rank 1: h(0.5) / 1; rank 2: (h(0.5) + h(1)) / 2; ideal 1, 0.5: h = 2 + 0.75
    res = rankmeter.evaluate({"q": {"a": 0.5, "b": 1}}, {"q": {"a": 2.0, "b": 1.0}}, "gap")
    assert res["gap"] == pytest.approx((0.75 + (0.75 + 2) / 2) / 2.75, abs=1e-15)


@pytest.mark.parametrize("name", ["gap", "gap@3", "q_measure", "q_measure@3"])
def test_no_relevant_document(name: str) -> None:
    # R = 0: 0 / 0, scored 0 (rankmeter's empty="zero") alone and beside a query that has relevant documents
    qrels = {"q1": {"a": 0}, "q2": {"b": 1}}
    run = {"q1": {"a": 2.0, "c": 1.0}, "q2": {"b": 1.0}}
    assert rankmeter.evaluate({"q1": qrels["q1"]}, {"q1": run["q1"]}, name).values.tolist() == [[0.0]]
    assert rankmeter.evaluate(qrels, run, name).values.tolist() == [[0.0], [1.0]]
