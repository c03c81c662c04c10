"""C/W/L families (insq, inst, bpm, nerr8-nerr11) against ir_measures' expected values and its cwl_eval provider.

The expected values are those of ir_measures' ``tests/test_cwl_eval.py`` (terrierteam/ir_measures at
dc04a88, "based on a manual execution of cwl-eval", checked there to 1e-4) on its ``cwl.qrels`` /
``cwl.run``, copied unchanged to ``tests/realdata/ir_measures_cwl``. The provider itself (ir_measures
with the ``cwl-eval`` package) is then run on random graded cases.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path

import ir_measures
import numpy as np
import pytest

import rankmeter
from rankmeter.errors import MeasureSyntaxError, PolicyError

EXPECTED = {
    "BPM(T=1.0, max_rel=1)@20": (1.0000, 1.0000, 0.1667),
    "BPM(T=2.0, max_rel=1)@10": (0.6667, 1.0000, 0.2857),
    "INSQ(T=1.0, max_rel=1)": (0.5872, 0.6629, 0.0880),
    "INSQ(T=2.0, max_rel=1)": (0.4513, 0.5068, 0.1292),
    "INST(T=1.0, max_rel=1)": (0.7934, 0.9226, 0.0888),
    "INST(T=2.0, max_rel=1)": (0.5994, 0.6924, 0.1397),
    "NERR8(max_rel=1)@10": (1.0000, 1.0000, 0.1667),
    "NERR9(max_rel=1)@10": (1.0000, 1.0000, 0.0680),
    "NERR10(p=0.8, max_rel=1)": (1.0000, 1.0000, 0.0888),
    "NERR11(T=2.0, max_rel=1)": (1.0000, 1.0000, 0.0691),
}

# every family, graded (max_rel=3, min_rel=1 moves the zero) and with targets, cutoffs and persistences
PEER_NAMES = [
    "INSQ(max_rel=3)",
    "INSQ(T=2.5, max_rel=3)",
    "INST(max_rel=3)",
    "INST(T=3, min_rel=1, max_rel=3)",
    "BPM(max_rel=3)@5",
    "BPM(T=2, max_rel=2)@20",
    "NERR8(max_rel=3)@3",
    "NERR8(min_rel=1, max_rel=3)@12",
    "NERR9(max_rel=3)@4",
    "NERR9(max_rel=2)@30",
    "NERR10(max_rel=3)",
    "NERR10(p=0.5, max_rel=3)",
    "NERR11(max_rel=3)",
    "NERR11(T=0.5, max_rel=2)",
]


@pytest.fixture(scope="module")
def cwl_files(realdata: Path) -> tuple[str, str]:
    folder = realdata / "ir_measures_cwl"
    return str(folder / "cwl.qrels"), str(folder / "cwl.run")


@pytest.mark.parametrize("name", list(EXPECTED))
def test_ir_measures_expected_values(cwl_files: tuple[str, str], name: str) -> None:
    qrels, run = cwl_files
    got = rankmeter.evaluate(qrels, run, name).by_query(str(rankmeter.parse(name)))
    assert list(got) == ["T1", "T2", "T3"]
    np.testing.assert_allclose(list(got.values()), EXPECTED[name], rtol=0, atol=1e-4)


def _peer(name: str, qrels: object, run: object) -> dict[str, float]:
    logging.getLogger("ir_measures.cwl_eval").disabled = True  # its notes on unused grade levels
    measure = ir_measures.parse_measure(name)
    return {m.query_id: float(m.value) for m in ir_measures.cwl_eval.iter_calc([measure], qrels, run)}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_cwl_eval_provider_on_its_own_files(cwl_files: tuple[str, str], name: str) -> None:
    qrels, run = cwl_files
    want = _peer(name, list(ir_measures.read_trec_qrels(qrels)), list(ir_measures.read_trec_run(run)))
    got = rankmeter.evaluate(qrels, run, name).by_query(str(rankmeter.parse(name)))
    assert got == pytest.approx(want, abs=1e-12)


def _random_cases(seed: int, n: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n):
        docs = [f"d{i}" for i in range(rng.choice([1, 3, 8, 25, 60]))]
        scores = rng.sample(range(10_000), len(docs))  # no ties: the order is the same for both tools
        run[f"q{q}"] = {d: s / 100 for d, s in zip(docs, scores, strict=True)}
        judged = {d: rng.choice([-1, 0, 0, 1, 2, 3, 4]) for d in docs if rng.random() < 0.8}
        judged.update({f"x{i}": rng.choice([0, 1, 3]) for i in range(rng.randint(0, 3))})
        qrels[f"q{q}"] = judged or {"x": 0}
    return qrels, run


@pytest.mark.parametrize("name", PEER_NAMES)
def test_cwl_eval_provider_on_random_graded_cases(name: str) -> None:
    # grades -1..4 (clipped into [min_rel, max_rel]), unjudged documents, lists of 1 to 60 documents
    qrels, run = _random_cases(7, 40)
    want = _peer(name, qrels, run)
    got = rankmeter.evaluate(qrels, run, name).by_query(str(rankmeter.parse(name)))
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(
    "name", ["INSQ(max_rel=1)", "INST(T=3, max_rel=1)", "NERR10(p=0.999, max_rel=1)", "NERR11(max_rel=1)"]
)
def test_lists_longer_than_the_horizon_are_cut_at_1000(name: str) -> None:
    # cwl_eval reads 1000 ranks (ir_measures' max_n): a relevant document at rank 1001 adds nothing
    qrels = {"q": {"d0": 1, "d500": 1, "d1000": 1}}
    run = {"q": {f"d{i}": -float(i) for i in range(1200)}}
    key = str(rankmeter.parse(name))
    got = rankmeter.evaluate(qrels, run, name)[key]
    assert got == pytest.approx(_peer(name, qrels, run)["q"], abs=1e-12)
    assert got == pytest.approx(rankmeter.evaluate({"q": {"d0": 1, "d500": 1}}, run, name)[key], abs=1e-15)


def test_insq_written_out() -> None:
    # one relevant document at rank 2 of 2, T = 1, horizon n = 1000:
    # prod_{j<i} C_j = (2 / (i + 1))^2, so EU = (2/3)^2 / sum_{i=1}^{1000} (2 / (i + 1))^2
    weights = [(2 / (i + 1)) ** 2 for i in range(1, 1001)]
    want = weights[1] / sum(weights)
    got = rankmeter.evaluate_lists([[0, 1]], [[2.0, 1.0]], "insq(max_rel=1)")["insq(max_rel=1)"]
    assert got == pytest.approx(want, abs=1e-15)


def test_names_round_trip() -> None:
    for name in [*EXPECTED, *PEER_NAMES]:
        m = rankmeter.parse(name)
        assert rankmeter.parse(str(m)) == m


def test_max_rel_is_required() -> None:
    with pytest.raises(MeasureSyntaxError, match=r"measure 'inst' needs max_rel, the grade whose gain is 1"):
        rankmeter.evaluate_lists([[1, 0]], [[2.0, 1.0]], "inst", ties="stable")


def test_min_rel_below_max_rel() -> None:
    with pytest.raises(MeasureSyntaxError, match=r"min_rel must be below max_rel, got 3 and 2"):
        rankmeter.evaluate_lists([[1, 0]], [[2.0, 1.0]], "inst(min_rel=3,max_rel=2)", ties="stable")


def test_target_must_be_positive() -> None:
    with pytest.raises(MeasureSyntaxError, match=r"measure 'INST\(T=0, max_rel=1\)': t must be > 0, got '0'"):
        rankmeter.parse("INST(T=0, max_rel=1)")


def test_persistence_in_unit_interval() -> None:
    with pytest.raises(
        MeasureSyntaxError, match=r"measure 'nerr10\(p=1.5,max_rel=1\)': p must lie in \[0, 1\], got '1.5'"
    ):
        rankmeter.parse("nerr10(p=1.5,max_rel=1)")


@pytest.mark.parametrize("name", ["inst(max_rel=1)", "bpm(max_rel=1)@5", "nerr8(max_rel=1)@3", "nerr11(max_rel=1)"])
def test_order_dependent_families_refuse_expected_ties(name: str) -> None:
    with pytest.raises(PolicyError, match=r"has no exact expectation over tied orderings"):
        rankmeter.evaluate_lists([[1, 0, 1]], [[1.0, 1.0, 0.5]], name, ties="expected")


@pytest.mark.parametrize(
    "name",
    [
        "INSQ(max_rel=1)",
        "INST(T=3, max_rel=1)",
        "NERR8(max_rel=1)@1000",
        "NERR8(max_rel=1)@1001",
        "NERR9(max_rel=1)@1000",
        "NERR9(max_rel=1)@1001",
        "NERR10(p=0.999, max_rel=1)",
        "NERR11(max_rel=1)",
    ],
)
@pytest.mark.parametrize("length", [999, 1000, 1001])
def test_lists_at_the_horizon(name: str, length: int) -> None:
    # one list shorter than the 1000-rank horizon, one exactly as long, one longer, and cutoffs at and past it
    qrels = {"q": {"d0": 1, "d500": 1, "d998": 1}}
    run = {"q": {f"d{i}": -float(i) for i in range(length)}}
    got = rankmeter.evaluate(qrels, run, name)[str(rankmeter.parse(name))]
    assert got == pytest.approx(_peer(name, qrels, run)["q"], abs=1e-12)


def test_insq_expected_ties_past_the_horizon() -> None:
    # no tied scores, so the expectation over tied orderings is the one order cwl_eval reads, cut at 1000 ranks
    qrels = {"q": {"d0": 1, "d500": 1, "d998": 1, "d1100": 1}}
    run = {"q": {f"d{i}": -float(i) for i in range(1200)}}
    got = rankmeter.evaluate(qrels, run, "INSQ(max_rel=1)", ties="expected")["INSQ(max_rel=1)"]
    assert got == pytest.approx(_peer("INSQ(max_rel=1)", qrels, run)["q"], abs=1e-12)


@pytest.mark.parametrize("p", [0.999, 0.99])
def test_nerr10_patience_close_to_one(p: float) -> None:
    # C_i = p (1 - g_i) to the horizon: with p near 1 the ranks past a short list still weigh.
    # Grades 0, 1, 0 with max_rel=2: gains 0, 1/2, 0, so C = p, p/2, p and prod_{j<i} C_j = 1, p, p^2/2;
    # past rank 3, prod_{j<i} C_j = (p^3/2) p^(i-4), summed over i = 4..1000: (p^3/2) (1 - p^997) / (1 - p)
    name = f"nerr10(p={p},max_rel=2)"
    got = rankmeter.evaluate_lists([[0, 1, 0]], [[3.0, 2.0, 1.0]], name, ties="stable")[name]
    want = (p / 2) / (1 + p + p**2 / 2 + p**3 / 2 * (1 - p**997) / (1 - p))
    assert got == pytest.approx(want, abs=1e-15)
    qrels, run = _random_cases(11, 30)
    peer = f"NERR10(p={p}, max_rel=3)"
    assert rankmeter.evaluate(qrels, run, peer).by_query(peer) == pytest.approx(_peer(peer, qrels, run), abs=1e-12)


def test_min_rel_equal_to_max_rel() -> None:
    with pytest.raises(MeasureSyntaxError, match=r"min_rel must be below max_rel, got 2 and 2"):
        rankmeter.evaluate_lists([[1, 0]], [[2.0, 1.0]], "insq(min_rel=2,max_rel=2)", ties="stable")
