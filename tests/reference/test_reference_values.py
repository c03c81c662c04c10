"""Layer 1: worked examples (docs/reference-values.md, R1-R7) and trec_eval's own test outputs.

Every expected value is written as a formula; the 6-decimal numbers of that page are
checked as well (absolute tolerance 5e-7, half a unit of the last printed digit).
"""

from __future__ import annotations

import gzip
import itertools
import json
from math import log2

import pytest

import rankmeter
from rankmeter.cli.main import main
from tests.reference_data import R7_CODES, R7_LABELS, R7_QUERY_CODE, R7_QUERY_LABELS, R7_TABLE

TABLE_TOL = 5e-7  # the tables print 6 decimals
EXACT = 1e-12


def approx_table(x: float) -> object:
    return pytest.approx(x, abs=TABLE_TOL)


def approx_exact(x: float) -> object:
    return pytest.approx(x, rel=EXACT, abs=EXACT)


# ---------------------------------------------------------------------------------------------
# R1. Wikipedia's DCG example: ranked grades [3, 2, 3, 0, 1, 2]
# ---------------------------------------------------------------------------------------------
R1_GRADES = [3, 2, 3, 0, 1, 2]
R1_SCORES = [6, 5, 4, 3, 2, 1]  # ranks the grades in the listed order

R1_DCG = 3 / log2(2) + 2 / log2(3) + 3 / log2(4) + 0 / log2(5) + 1 / log2(6) + 2 / log2(7)
R1_IDCG = 3 / log2(2) + 3 / log2(3) + 2 / log2(4) + 2 / log2(5) + 1 / log2(6) + 0 / log2(7)
R1_DCG_EXP = (
    (2**3 - 1) / log2(2)
    + (2**2 - 1) / log2(3)
    + (2**3 - 1) / log2(4)
    + (2**0 - 1) / log2(5)
    + (2**1 - 1) / log2(6)
    + (2**2 - 1) / log2(7)
)
R1_IDCG_EXP = (
    (2**3 - 1) / log2(2)
    + (2**3 - 1) / log2(3)
    + (2**2 - 1) / log2(4)
    + (2**2 - 1) / log2(5)
    + (2**1 - 1) / log2(6)
    + (2**0 - 1) / log2(7)
)


@pytest.mark.parametrize("entry", ["arrays", "lists"])
def test_r1_wikipedia_dcg(entry: str) -> None:
    measures = ["dcg@6", "idcg@6", "ndcg@6", "dcg(gain=exp)@6", "idcg(gain=exp)@6", "ndcg(gain=exp)@6"]
    if entry == "arrays":
        res = rankmeter.evaluate_arrays([R1_GRADES], [R1_SCORES], measures)
    else:
        res = rankmeter.evaluate_lists([R1_GRADES], [R1_SCORES], measures)
    agg = res.aggregate
    assert agg["dcg@6"] == approx_exact(R1_DCG)
    assert agg["idcg@6"] == approx_exact(R1_IDCG)
    assert agg["ndcg@6"] == approx_exact(R1_DCG / R1_IDCG)
    assert agg["dcg(gain=exp)@6"] == approx_exact(R1_DCG_EXP)
    assert agg["idcg(gain=exp)@6"] == approx_exact(R1_IDCG_EXP)
    assert agg["ndcg(gain=exp)@6"] == approx_exact(R1_DCG_EXP / R1_IDCG_EXP)
    # the printed table
    assert agg["dcg@6"] == approx_table(6.861127)
    assert agg["idcg@6"] == approx_table(7.140995)
    assert agg["ndcg@6"] == approx_table(0.960808)
    assert agg["dcg(gain=exp)@6"] == approx_table(13.848264)
    assert agg["idcg(gain=exp)@6"] == approx_table(14.595391)
    assert agg["ndcg(gain=exp)@6"] == approx_table(0.948811)


# ---------------------------------------------------------------------------------------------
# R2. the ideal comes from every judged document, not only the retrieved ones
# ---------------------------------------------------------------------------------------------
R2_QRELS = {"q": {"d1": 3, "d2": 2, "d3": 3, "d4": 0, "d5": 1, "d6": 2, "u1": 3, "u2": 0}}
R2_RUN = {"q": {"d1": 6.0, "d2": 5.0, "d3": 4.0, "d4": 3.0, "d5": 2.0, "d6": 1.0}}
R2_IDCG = 3 / log2(2) + 3 / log2(3) + 3 / log2(4) + 2 / log2(5) + 2 / log2(6) + 1 / log2(7)


def test_r2_ideal_from_all_judged_documents() -> None:
    res = rankmeter.evaluate(R2_QRELS, R2_RUN, ["dcg@6", "idcg@6", "ndcg@6", "ndcg(ideal=retrieved)@6"])
    agg = res.aggregate
    assert agg["dcg@6"] == approx_exact(R1_DCG)
    assert agg["idcg@6"] == approx_exact(R2_IDCG)
    assert agg["ndcg@6"] == approx_exact(R1_DCG / R2_IDCG)
    assert agg["idcg@6"] == approx_table(8.384055)
    assert agg["ndcg@6"] == approx_table(0.818354)
    # the scikit-learn / keras-rs ideal (the retrieved documents only) gives R1's value instead
    assert agg["ndcg(ideal=retrieved)@6"] == approx_table(0.960808)


def test_r2_through_cli_files(write, capsys) -> None:
    qrels = write("r2.qrels", "".join(f"q 0 {d} {g}\n" for d, g in R2_QRELS["q"].items()))
    run = write("r2.run", "".join(f"q Q0 {d} {i} {s} seed004\n" for i, (d, s) in enumerate(R2_RUN["q"].items(), 1)))
    assert main(["evaluate", str(qrels), str(run), "-m", "ndcg@6", "-m", "idcg@6", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["aggregate"]["idcg@6"] == approx_exact(R2_IDCG)
    assert data["aggregate"]["ndcg@6"] == approx_table(0.818354)


# ---------------------------------------------------------------------------------------------
# R3. the Järvelin-Kekäläinen discount (no discount below rank b = 2, then 1/log2(i))
# ---------------------------------------------------------------------------------------------
R3_DCG = 3 + 2 / log2(2) + 3 / log2(3) + 0 / log2(4) + 1 / log2(5) + 2 / log2(6)
R3_IDCG = 3 + 3 / log2(2) + 2 / log2(3) + 2 / log2(4) + 1 / log2(5) + 0 / log2(6)


@pytest.mark.parametrize("spelling", ["jarvelin(2)", "jarvelin"])
def test_r3_jarvelin_discount(spelling: str) -> None:
    measures = [f"dcg(discount={spelling})@6", f"idcg(discount={spelling})@6", f"ndcg(discount={spelling})@6"]
    res = rankmeter.evaluate_arrays([R1_GRADES], [R1_SCORES], measures)
    dcg, idcg, ndcg = (res[m] for m in measures)
    assert dcg == approx_exact(R3_DCG)
    assert idcg == approx_exact(R3_IDCG)
    assert ndcg == approx_exact(R3_DCG / R3_IDCG)
    assert (dcg, idcg, ndcg) == (approx_table(8.097171), approx_table(8.692536), approx_table(0.931509))
    # canonical name: jarvelin and jarvelin(2) are the same measure
    assert res.measure_names == [
        "dcg(discount=jarvelin(2))@6",
        "idcg(discount=jarvelin(2))@6",
        "ndcg(discount=jarvelin(2))@6",
    ]


# ---------------------------------------------------------------------------------------------
# R4. MAP over two topics
# ---------------------------------------------------------------------------------------------
def _r4_inputs() -> tuple[dict, dict]:
    qrels: dict[str, dict[str, int]] = {"t1": {}, "t2": {}}
    run: dict[str, dict[str, float]] = {"t1": {}, "t2": {}}
    # topic 1: 4 relevant, retrieved at ranks 1, 2, 4, 7 of 10
    for rank in range(1, 11):
        doc = f"t1-d{rank:02d}"
        run["t1"][doc] = 100.0 - rank
        qrels["t1"][doc] = 1 if rank in (1, 2, 4, 7) else 0
    # topic 2: 5 relevant, 3 retrieved at ranks 1, 3, 5 of 10, two never retrieved
    for rank in range(1, 11):
        doc = f"t2-d{rank:02d}"
        run["t2"][doc] = 100.0 - rank
        qrels["t2"][doc] = 1 if rank in (1, 3, 5) else 0
    qrels["t2"]["t2-unretrieved-a"] = 1
    qrels["t2"]["t2-unretrieved-b"] = 1
    return qrels, run


def test_r4_map() -> None:
    qrels, run = _r4_inputs()
    res = rankmeter.evaluate(qrels, run, ["map", "ap", "num_rel", "num_rel_ret"])
    ap1 = (1 / 1 + 2 / 2 + 3 / 4 + 4 / 7) / 4
    ap2 = (1 / 1 + 2 / 3 + 3 / 5 + 0 + 0) / 5
    per_q = res.by_query("map")
    assert per_q["t1"] == approx_exact(ap1)
    assert per_q["t2"] == approx_exact(ap2)
    assert res["map"] == approx_exact((ap1 + ap2) / 2)
    assert res.by_query("ap") == res.by_query("map")
    assert (per_q["t1"], per_q["t2"], res["map"]) == (
        approx_table(0.830357),
        approx_table(0.453333),
        approx_table(0.641845),
    )
    assert res["num_rel"] == 9 and res["num_rel_ret"] == 7


# ---------------------------------------------------------------------------------------------
# R5. per-user nDCG@5 of two recommenders; all nine songs are judged
# ---------------------------------------------------------------------------------------------
SONGS = "ABCDEFGHI"
R5_GRADES = {  # the tutorial's relevance_true (grade of songs A..I)
    "USER1": [3, 3, 2, 2, 1, 1, 0, 0, 0],
    "USER2": [3, 2, 1, 1, 2, 0, 1, 1, 1],
    "USER3": [0, 1, 0, 1, 2, 3, 3, 1, 0],
}
R5_SYSTEMS = {  # the tutorial's s1_prediction and s2_prediction (top 5, best first)
    "S1": {"USER1": "AECDF", "USER2": "GEABD", "USER3": "CGFBE"},
    "S2": {"USER1": "ABCGE", "USER2": "BAGEF", "USER3": "EGFBI"},
}
R5_TABLE = {  # user: (S1 linear, S1 exp, S2 linear, S2 exp)
    "USER1": (0.823294, 0.740632, 0.879379, 0.911477),
    "USER2": (0.824107, 0.720022, 0.864255, 0.821434),
    "USER3": (0.685090, 0.692276, 0.867837, 0.826209),
}


def _dcg5(grades: list[int], gain) -> float:
    return sum(gain(g) / log2(i + 2) for i, g in enumerate(grades[:5]))


def test_r5_seed001_recommenders() -> None:
    qrels = {u: dict(zip(SONGS, g, strict=True)) for u, g in R5_GRADES.items()}
    for si, (system, tops) in enumerate(R5_SYSTEMS.items()):
        run = {u: {song: 5.0 - i for i, song in enumerate(top)} for u, top in tops.items()}
        res = rankmeter.evaluate(qrels, run, ["ndcg@5", "ndcg(gain=exp)@5"])
        for gi, (name, gain) in enumerate([("ndcg@5", lambda r: r), ("ndcg(gain=exp)@5", lambda r: 2**r - 1)]):
            per_user = res.by_query(name)
            for user, top in tops.items():
                ranked = [R5_GRADES[user][SONGS.index(s)] for s in top]
                ideal = sorted(R5_GRADES[user], reverse=True)
                expected = _dcg5(ranked, gain) / _dcg5(ideal, gain)
                assert per_user[user] == approx_exact(expected), (system, name, user)
                assert per_user[user] == approx_table(R5_TABLE[user][2 * si + gi]), (system, name, user)


def test_r5_binary_gain_of_seed001_is_not_exp_gain() -> None:
    # the tutorial's "binary" DCG uses 2^r (not 2^r - 1): it would give irrelevant songs a gain of 1.
    # rankmeter's exp gain gives them 0, so a list of irrelevant songs scores DCG 0.
    res = rankmeter.evaluate_arrays([[0, 0, 1]], [[3, 2, 1]], ["dcg(gain=exp)", "dcg"])
    assert res["dcg(gain=exp)"] == approx_exact((2**1 - 1) / log2(4))
    assert res["dcg"] == approx_exact(1 / log2(4))


# ---------------------------------------------------------------------------------------------
# R6. scikit-learn's documented examples
# ---------------------------------------------------------------------------------------------
R6_TRUE = [[10, 0, 0, 1, 5]]
R6_IDCG = 10 / log2(2) + 5 / log2(3) + 1 / log2(4) + 0 / log2(5) + 0 / log2(6)


def test_r6_sklearn_example_1() -> None:
    res = rankmeter.evaluate_arrays(R6_TRUE, [[0.1, 0.2, 0.3, 4, 70]], ["ndcg", "dcg"])
    # ranked: 5 (70), 1 (4), 0 (.3), 0 (.2), 10 (.1)
    dcg = 5 / log2(2) + 1 / log2(3) + 0 / log2(4) + 0 / log2(5) + 10 / log2(6)
    assert res["dcg"] == approx_exact(dcg)
    assert res["ndcg"] == approx_exact(dcg / R6_IDCG)
    assert res["ndcg"] == approx_table(0.695694)
    assert res["dcg"] == approx_table(9.499458)


def test_r6_sklearn_example_2() -> None:
    res = rankmeter.evaluate_arrays(R6_TRUE, [[0.05, 1.1, 1.0, 0.5, 0.0]], ["ndcg", "ndcg@4"])
    # ranked: 0 (1.1), 0 (1.), 1 (.5), 10 (.05), 5 (0.)
    dcg = 0 / log2(2) + 0 / log2(3) + 1 / log2(4) + 10 / log2(5) + 5 / log2(6)
    dcg4 = 0 / log2(2) + 0 / log2(3) + 1 / log2(4) + 10 / log2(5)
    idcg4 = 10 / log2(2) + 5 / log2(3) + 1 / log2(4) + 0 / log2(5)
    assert res["ndcg"] == approx_exact(dcg / R6_IDCG)
    assert res["ndcg@4"] == approx_exact(dcg4 / idcg4)
    assert res["ndcg"] == approx_table(0.493680)
    assert res["ndcg@4"] == approx_table(0.352024)
    assert rankmeter.evaluate_arrays(R6_TRUE, R6_TRUE, "ndcg@4")["ndcg@4"] == 1.0


def test_r6_sklearn_ties() -> None:
    y_true, y_score = [[1, 0, 0, 0, 0]], [[1, 1, 0, 0, 0]]
    # expected ties: the relevant item is at rank 1 with probability 1/2
    assert rankmeter.evaluate_arrays(y_true, y_score, "ndcg@1")["ndcg@1"] == approx_exact(0.5 * 1 / log2(2))
    # first listed wins (sklearn ignore_ties=False would average; 'stable' is input order)
    assert rankmeter.evaluate_arrays(y_true, y_score, "ndcg@1", ties="stable")["ndcg@1"] == 1.0
    assert rankmeter.evaluate_lists(y_true, y_score, "ndcg@1", ties="stable")["ndcg@1"] == 1.0
    assert rankmeter.evaluate_lists(y_true, y_score, "ndcg@1")["ndcg@1"] == 0.5


# ---------------------------------------------------------------------------------------------
# R7. Hamming ranking, multi-label relevance, ties
# ---------------------------------------------------------------------------------------------
R7_HAMMING = [sum(a != b for a, b in zip(R7_QUERY_CODE, c, strict=True)) for c in R7_CODES]
R7_REL = [sum(a * b for a, b in zip(R7_QUERY_LABELS, lab, strict=True)) for lab in R7_LABELS]
R7_SCORE = [-h for h in R7_HAMMING]


def test_r7_derived_columns_match_the_table() -> None:
    assert R7_HAMMING == [0, 1, 1, 1, 4, 2, 2, 2]
    assert R7_REL == [1, 1, 2, 0, 1, 0, 1, 2]


def _r7_orderings() -> list[list[int]]:
    """Every ranking of the 8 items that respects the distance order (3! * 3! = 36)."""
    groups = [[i for i in range(8) if R7_HAMMING[i] == d] for d in sorted(set(R7_HAMMING))]
    return [sum(combo, []) for combo in itertools.product(*(map(list, itertools.permutations(g)) for g in groups))]


def _r7_ndcg_exp(order: list[int], k: int) -> float:
    ideal = sorted(R7_REL, reverse=True)
    dcg = sum((2 ** R7_REL[i] - 1) / log2(r + 2) for r, i in enumerate(order[:k]))
    idcg = sum((2**g - 1) / log2(r + 2) for r, g in enumerate(ideal[:k]))
    return dcg / idcg


def _r7_ap(order: list[int], k: int) -> float:
    hits, total = 0, 0.0
    for r, i in enumerate(order[:k], start=1):
        if R7_REL[i] > 0:
            hits += 1
            total += hits / r
    return total / sum(1 for g in R7_REL if g > 0)


@pytest.mark.parametrize("k", sorted(R7_TABLE))
def test_r7_hamming_ties(k: int) -> None:
    measures = [f"ndcg(gain=exp)@{k}", f"map@{k}"]
    got = {
        ties: rankmeter.evaluate_arrays([R7_REL], [R7_SCORE], measures, ties=ties)
        for ties in ("expected", "pessimistic", "optimistic")
    }
    orders = _r7_orderings()
    assert len(orders) == 36
    ndcgs = [_r7_ndcg_exp(o, k) for o in orders]
    aps = [_r7_ap(o, k) for o in orders]
    formula = {
        "expected": (sum(ndcgs) / len(ndcgs), sum(aps) / len(aps)),
        "pessimistic": (min(ndcgs), min(aps)),
        "optimistic": (max(ndcgs), max(aps)),
    }
    for j, ties in enumerate(("expected", "pessimistic", "optimistic")):
        ndcg, ap = got[ties][measures[0]], got[ties][measures[1]]
        assert ndcg == pytest.approx(formula[ties][0], abs=1e-12), ties
        assert ap == pytest.approx(formula[ties][1], abs=1e-12), ties
        assert ndcg == approx_table(R7_TABLE[k][j]), ties
        assert ap == approx_table(R7_TABLE[k][3 + j]), ties


def test_r7_stable_ties_and_acg() -> None:
    measures = ["ndcg(gain=exp)@3", "ndcg(gain=exp)@8", "map", "acg@3", "acg@5"]
    res = rankmeter.evaluate_arrays([R7_REL], [R7_SCORE], measures, ties="stable")
    # stable: item index order inside each distance group -> items 0 | 1 2 3 | 5 6 7 | 4
    ranked = [1, 1, 2, 0, 0, 1, 2, 1]
    ideal_gains = [3, 3, 1, 1, 1, 1, 0, 0]  # 2^r - 1 of [2, 2, 1, 1, 1, 1, 0, 0]
    ndcg3 = ((2**1 - 1) / log2(2) + (2**1 - 1) / log2(3) + (2**2 - 1) / log2(4)) / (
        3 / log2(2) + 3 / log2(3) + 1 / log2(4)
    )
    ndcg8 = sum((2**g - 1) / log2(i + 2) for i, g in enumerate(ranked)) / sum(
        g / log2(i + 2) for i, g in enumerate(ideal_gains)
    )
    ap = (1 / 1 + 2 / 2 + 3 / 3 + 4 / 6 + 5 / 7 + 6 / 8) / 6
    assert res["ndcg(gain=exp)@3"] == approx_exact(ndcg3)
    assert res["ndcg(gain=exp)@8"] == approx_exact(ndcg8)
    assert res["map"] == approx_exact(ap)
    assert res["acg@3"] == approx_exact((1 + 1 + 2) / 3)
    assert res["acg@5"] == approx_exact((1 + 1 + 2 + 0 + 0) / 5)
    assert (res["ndcg(gain=exp)@3"], res["ndcg(gain=exp)@8"], res["map"], res["acg@3"], res["acg@5"]) == (
        approx_table(0.580577),
        approx_table(0.731376),
        approx_table(0.855159),
        approx_table(1.333333),
        approx_table(0.8),
    )


def test_r7_expected_acg() -> None:
    res = rankmeter.evaluate_arrays([R7_REL], [R7_SCORE], ["acg@3", "acg@5"])
    # top 3 = item 0 (grade 1) + two of the group {1, 2, 3} (mean grade 1)
    assert res["acg@3"] == approx_exact((1 + 2 * (1 + 2 + 0) / 3) / 3)
    # top 5 = items 0..3 (grades 1+1+2+0) + one of {5, 6, 7} (mean grade 1)
    assert res["acg@5"] == approx_exact((1 + 1 + 2 + 0 + (0 + 1 + 2) / 3) / 5)
    assert res["acg@3"] == approx_table(1.0) and res["acg@5"] == approx_table(1.0)


# ---------------------------------------------------------------------------------------------
# trec_eval's own test outputs (usnistgov/trec_eval test/, NIST; tests/realdata/trec_eval_test)
# ---------------------------------------------------------------------------------------------
# (output file, qrels, run, evaluate keyword arguments, trec_eval -l) -- the commands are those of
# trec_eval's Makefile `quicktest`; -c is missing="zero" (rankmeter's default), -M100 is depth=100.
TREC_EVAL_CASES = [
    pytest.param("out.test", "qrels.test", "results.test", {}, None, id="default"),
    pytest.param("out.test.aq", "qrels.test", "results.test", {}, None, id="all_trec-q"),
    pytest.param("out.test.aqc", "qrels.test", "results.trunc", {"missing": "zero"}, None, id="all_trec-q-c"),
    pytest.param("out.test.aqcM", "qrels.test", "results.trunc", {"depth": 100}, None, id="all_trec-q-c-M100"),
    pytest.param("out.test.aql", "qrels.rel_level", "results.test", {}, 2.0, id="all_trec-q-l2"),
    pytest.param("out.test.meas_params", "qrels.test", "results.test", {}, None, id="meas_params"),
    pytest.param("out.comment.test", "qrels.comment.test", "results.comment.test", {}, None, id="comment"),
]


@pytest.mark.parametrize(("out", "qrels", "run", "kwargs", "min_rel"), TREC_EVAL_CASES)
def test_trec_eval_outputs_per_query_and_all(
    trec_eval_dir, parse_trec_eval_output, rankmeter_name, format_like_trec_eval, out, qrels, run, kwargs, min_rel
) -> None:
    expected = parse_trec_eval_output(trec_eval_dir / out)
    rows = {(te, q): v for (te, q), v in expected.items() if rankmeter_name(te, min_rel) is not None}
    names = sorted({rankmeter_name(te, min_rel) for te, _ in rows})
    res = rankmeter.evaluate(trec_eval_dir / qrels, trec_eval_dir / run, names, **kwargs)
    per_query = {name: res.by_query(name) for name in names}
    mismatches = []
    for (te, q), printed in sorted(rows.items()):
        name = rankmeter_name(te, min_rel)
        value = res[name] if q == "all" else per_query[name][q]
        if format_like_trec_eval(te, value) != printed:
            mismatches.append((te, q, printed, value))
    assert not mismatches
    # the comparison covered what it should
    per_query_rows = [k for k in rows if k[1] != "all"]
    if out in ("out.test", "out.comment.test"):
        assert not per_query_rows and len(rows) == 16
    else:
        assert {q for _, q in per_query_rows} == {"301", "302", "303"}
    if out == "out.test.aqc":  # topic 302 is missing from results.trunc and counts as 0 (-c)
        assert res.metadata["queries_missing"] == 1 and res.metadata["missing_query_ids"] == ["302"]
        assert expected[("map", "302")] == "0.0000" and per_query["map"]["302"] == 0.0
    if out == "out.comment.test":  # 301 topics ranked, 31 judged: the rest are run-only
        assert res.metadata["queries_run_only"] == 270


def test_trec_eval_out_test_via_cli_json(trec_eval_dir, parse_trec_eval_output, capsys) -> None:
    measures = [
        "map",
        "rprec",
        "rr",
        "p@[5,10,15,20,30,100,200,500,1000]",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
    ]
    argv = ["evaluate", str(trec_eval_dir / "qrels.test"), str(trec_eval_dir / "results.test"), "--format", "json"]
    for m in measures:
        argv += ["-m", m]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    data = json.loads(captured.out)
    expected = parse_trec_eval_output(trec_eval_dir / "out.test")
    translate = {
        "map": "map",
        "Rprec": "rprec",
        "recip_rank": "rr",
        "num_q": "num_q",
        "num_ret": "num_ret",
        "num_rel": "num_rel",
        "num_rel_ret": "num_rel_ret",
    }
    translate.update({f"P_{k}": f"p@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)})
    for te, name in translate.items():
        printed = expected[(te, "all")]
        value = data["aggregate"][name]
        if te.startswith("num_"):
            assert value == int(printed), te
        else:
            assert f"{value:.4f}" == printed, te
            assert value == pytest.approx(float(printed), abs=5e-5), te
    # per-query rows are present in the JSON and agree with out.test.aq
    aq = parse_trec_eval_output(trec_eval_dir / "out.test.aq")
    rows = {(r["query_id"], r["measure"]): r["value"] for r in data["per_query"]}
    for q in ("301", "302", "303"):
        assert f"{rows[(q, 'map')]:.4f}" == aq[("map", q)]
        assert f"{rows[(q, 'p@10')]:.4f}" == aq[("P_10", q)]
        assert int(rows[(q, "num_rel_ret")]) == int(aq[("num_rel_ret", q)])


def test_trec_eval_gz_and_trec_format(trec_eval_dir, parse_trec_eval_output, tmp_path, capsys) -> None:
    run_gz = tmp_path / "results.test.gz"
    run_gz.write_bytes(gzip.compress((trec_eval_dir / "results.test").read_bytes()))
    argv = [
        "evaluate",
        str(trec_eval_dir / "qrels.test"),
        str(run_gz),
        "-m",
        "map",
        "-m",
        "P@[5,10]",
        "-m",
        "recip_rank",
        "-m",
        "num_rel_ret",
        "--format",
        "trec",
        "--per-query",
    ]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    got = {}
    for line in lines:
        name, q, v = line.split("\t")
        got[(name.strip(), q)] = v
    aq = parse_trec_eval_output(trec_eval_dir / "out.test.aq")
    pairs = {"map": "map", "p@5": "P_5", "p@10": "P_10", "rr": "recip_rank", "num_rel_ret": "num_rel_ret"}
    for q in ("301", "302", "303", "all"):
        for ours, theirs in pairs.items():
            assert got[(ours, q)] == aq[(theirs, q)], (ours, q)


# ---------------------------------------------------------------------------------------------
# qrels.test.with-comments: '#' comment lines and one docno that contains '#'
# ---------------------------------------------------------------------------------------------
def test_with_comments_file_content(trec_eval_dir) -> None:
    plain = rankmeter.read_qrels(trec_eval_dir / "qrels.test")
    commented = rankmeter.read_qrels(trec_eval_dir / "qrels.test.with-comments")
    assert len(plain) == len(commented) == 3681  # the three '#' lines at line start are comments
    diff_plain = set(zip(plain.query_ids.tolist(), plain.doc_ids.tolist(), plain.relevance.tolist(), strict=True))
    diff_comm = set(
        zip(commented.query_ids.tolist(), commented.doc_ids.tolist(), commented.relevance.tolist(), strict=True)
    )
    # the only difference: CR93E-1860 (grade 0) is spelled CR#93E-1860; the '#' belongs to the docno
    assert diff_plain - diff_comm == {("301", "CR93E-1860", 0.0)}
    assert diff_comm - diff_plain == {("301", "CR#93E-1860", 0.0)}
    # line numbers still refer to the file, comments included
    i = commented.doc_ids.tolist().index("CR#93E-1860")
    assert commented.location(i) == (str(trec_eval_dir / "qrels.test.with-comments"), 8)


ALL_FAMILIES_ON_FILES = [
    "map",
    "rprec",
    "rr",
    "p@[5,10,100,1000]",
    "r@[10,1000]",
    "ndcg",
    "ndcg@[10,20]",
    "success@[1,5,10]",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "judged@[10,500]",
]


def test_with_comments_same_results_on_results_test(trec_eval_dir) -> None:
    # CR93E-1860 is a non-relevant document that results.test does not retrieve, so the two qrels
    # files must give the same value for every measure and query.
    run = rankmeter.read_run(trec_eval_dir / "results.test")
    assert "CR93E-1860" not in run.doc_ids.tolist()
    a = rankmeter.evaluate(trec_eval_dir / "qrels.test", run, ALL_FAMILIES_ON_FILES)
    b = rankmeter.evaluate(trec_eval_dir / "qrels.test.with-comments", run, ALL_FAMILIES_ON_FILES)
    assert a.measure_names == b.measure_names
    assert a.values.tolist() == b.values.tolist()
    assert a.aggregate == b.aggregate


def test_with_comments_where_the_hash_docno_matters(trec_eval_dir, tmp_path) -> None:
    # Derived run (not a NIST file): results.test plus, for topic 301, the two spellings of the docno
    # at the bottom of the ranking. With qrels.test only CR93E-1860 is judged; with the commented
    # file only CR#93E-1860 is. Both are non-relevant, so only judged@k and -J change.
    text = (trec_eval_dir / "results.test").read_text()
    text += "301 Q0 CR93E-1860 501 -100.0 STANDARD\n301 Q0 CR#93E-1860 502 -200.0 STANDARD\n"
    run_path = tmp_path / "results.derived"
    run_path.write_text(text)
    measures = ["judged@[501,502]", "map", "p@1000", "num_ret", "num_rel_ret"]
    a = rankmeter.evaluate(trec_eval_dir / "qrels.test", run_path, measures)
    b = rankmeter.evaluate(trec_eval_dir / "qrels.test.with-comments", run_path, measures)
    ja, jb = a.by_query("judged@501"), b.by_query("judged@501")
    # 301's top 500 are the same documents in both; rank 501 is judged only in qrels.test
    assert ja["301"] - jb["301"] == pytest.approx(1 / 501, abs=1e-15)
    # at 502 each file judges exactly one of the two extra documents
    assert a.by_query("judged@502")["301"] == pytest.approx(b.by_query("judged@502")["301"], abs=1e-15)
    for m in ("map", "p@1000", "num_ret", "num_rel_ret"):
        assert a.by_query(m) == b.by_query(m), m
    assert a.by_query("num_ret")["301"] == 502
    # judged_only (-J) drops the unjudged spelling: for 301 exactly one of the two extra documents
    # survives, whichever qrels file is used
    base = rankmeter.evaluate(
        trec_eval_dir / "qrels.test", trec_eval_dir / "results.test", ["num_ret"], judged_only=True
    ).by_query("num_ret")["301"]
    for qrels in ("qrels.test", "qrels.test.with-comments"):
        res = rankmeter.evaluate(trec_eval_dir / qrels, run_path, ["num_ret"], judged_only=True)
        assert res.by_query("num_ret")["301"] == base + 1, qrels
