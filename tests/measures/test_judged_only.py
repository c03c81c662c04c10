"""``judged_only=True`` is trec_eval's ``-J``: ir_measures' own test cases, pytrec_eval and ``rankmeter trec_eval -J``.

trec_eval (``form_res_rels.c``) stores a negative qrels grade as "in the pool, but unjudged", and
``-J`` keeps only documents with a grade >= 0. The cases below are ir_measures' ``test_judged_only``
and ``test_P`` (``tests/test_pytrec_eval.py``, terrierteam/ir_measures at dc04a88): the same run
with and without ``judged_only``, and the run with the unjudged documents removed by hand.
"""

from __future__ import annotations

import math
from pathlib import Path

import ir_measures
import numpy as np
import pytest
import pytrec_eval

import rankmeter
from rankmeter.cli.main import main

QRELS = {"0": {"D0": -1, "D1": 1, "D3": 2, "D4": 1}}
RUN = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1}}
# D2 is not in the qrels and D0 has grade -1: both are unjudged for trec_eval
RUN_UNJUDGED_REMOVED = {"0": {"D1": 0.3, "D3": 0.4, "D4": 0.1}}

# the 13 measures of ir_measures' test_judged_only, in its spelling
IR_MEASURES_NAMES = [
    "P@4",
    "RR",
    "Rprec",
    "AP",
    "AP@4",
    "nDCG",
    "nDCG@4",
    "R@2",
    "SetP",
    "SetAP",
    "SetF",
    "Success@2",
    "IPrec@0.5",
]

# the same measures in trec_eval's names (pytrec_eval), for the direct comparison
PYTREC_NAMES = {
    "P@4": "P_4",
    "RR": "recip_rank",
    "Rprec": "Rprec",
    "AP": "map",
    "AP@4": "map_cut_4",
    "nDCG": "ndcg",
    "nDCG@4": "ndcg_cut_4",
    "R@2": "recall_2",
    "SetP": "set_P",
    "SetAP": "set_map",
    "SetF": "set_F",
    "Success@2": "success_2",
    "IPrec@0.5": "iprec_at_recall_0.50",
}


def _ours(run: dict, name: str, **options: bool) -> float:
    return float(rankmeter.evaluate(QRELS, run, name, **options).by_query(str(rankmeter.parse(name)))["0"])


def _ir_measures(run: dict, name: str, judged_only: bool) -> float:
    m = ir_measures.parse_measure(name)
    m = m(judged_only=True) if judged_only else m
    (metric,) = ir_measures.pytrec_eval.iter_calc([m], QRELS, run)
    return float(metric.value)


@pytest.mark.parametrize("name", IR_MEASURES_NAMES)
def test_judged_only_is_the_run_without_unjudged_documents(name: str) -> None:
    # ir_measures' two assertions: equal to the hand-filtered run, different from the whole run
    judged = _ours(RUN, name, judged_only=True)
    assert judged == _ours(RUN_UNJUDGED_REMOVED, name)
    assert judged != _ours(RUN, name)


@pytest.mark.parametrize("name", IR_MEASURES_NAMES)
def test_judged_only_equals_ir_measures(name: str) -> None:
    assert _ours(RUN, name, judged_only=True) == pytest.approx(_ir_measures(RUN, name, True), abs=1e-12)
    assert _ours(RUN, name) == pytest.approx(_ir_measures(RUN, name, False), abs=1e-12)


def test_judged_only_equals_pytrec_eval() -> None:
    keys = set(PYTREC_NAMES.values())
    want = pytrec_eval.RelevanceEvaluator(QRELS, keys, judged_docs_only_flag=True).evaluate(RUN)["0"]
    got = rankmeter.evaluate(QRELS, RUN, IR_MEASURES_NAMES, judged_only=True)
    for name, key in PYTREC_NAMES.items():
        assert got.by_query(str(rankmeter.parse(name)))["0"] == pytest.approx(want[key], abs=1e-12), name


def test_precision_with_negative_grades() -> None:
    # ir_measures' test_P: P@4 0.5 / 0.25, P(judged_only=True)@4 0.75 / 0.25
    qrels = {"0": {"D0": -1, "D1": 1, "D3": 2, "D4": 1}, "1": {"D0": 1, "D3": 0, "D4": -1}}
    run = {
        "0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
        "1": {"D1": 0.8, "D0": 0.7, "D3": 0.3, "D2": 0.4},
    }
    assert rankmeter.evaluate(qrels, run, "P@4").by_query("p@4") == {"0": 0.5, "1": 0.25}
    assert rankmeter.evaluate(qrels, run, "P@4", judged_only=True).by_query("p@4") == {"0": 0.75, "1": 0.25}


def test_unjudged_dropped_counts_negative_grades() -> None:
    res = rankmeter.evaluate(QRELS, RUN, "num_ret", judged_only=True)
    assert res.metadata["unjudged_dropped"] == 2  # D2 (not judged) and D0 (grade -1)
    assert res["num_ret"] == 3.0


def _write(path: Path, rows: list[str]) -> str:
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_trec_eval_cli_minus_j_agrees(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = _write(tmp_path / "qrels", [f"0 0 {d} {g}" for d, g in QRELS["0"].items()])
    run = _write(tmp_path / "run", [f"0 Q0 {d} {i} {s} r" for i, (d, s) in enumerate(RUN["0"].items(), start=1)])
    assert main(["trec_eval", "-J", "-q", "-m", "map", "-m", "P.4", "-m", "recip_rank", qrels, run]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    cli = {(name, q): float(v) for name, q, v in lines if q == "0"}
    ours = rankmeter.evaluate(qrels, run, ["map", "p@4", "rr"], judged_only=True)
    for key, name in (("map", "map"), ("P_4", "p@4"), ("recip_rank", "rr")):
        assert cli[(key, "0")] == pytest.approx(ours.by_query(name)["0"], abs=5e-5), key
    assert math.isclose(ours["rr"], 1.0)  # D3 (grade 2) is first once D0 and D2 are gone


# trec_eval's own test files: qrels.rel_level grades -1..4 (304 documents at -1) and run results.test,
# whose tied scores trec_eval orders by document id (ties="trec")
REAL_MEASURES = {
    "map": "map",
    "P_10": "p@10",
    "ndcg": "ndcg",
    "ndcg_cut_10": "ndcg@10",
    "recip_rank": "rr",
    "Rprec": "rprec",
    "recall_100": "r@100",
    "bpref": "bpref",
    "num_ret": "num_ret",
    "num_rel_ret": "num_rel_ret",
}


def test_judged_only_on_trec_eval_test_files(realdata: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels_path = realdata / "trec_eval_test" / "qrels.rel_level"
    run_path = realdata / "trec_eval_test" / "results.test"
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_path.read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    run: dict[str, dict[str, float]] = {}
    for line in run_path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()[:6]
        run.setdefault(q, {})[d] = float(s)
    want = pytrec_eval.RelevanceEvaluator(qrels, set(REAL_MEASURES), judged_docs_only_flag=True).evaluate(run)
    got = rankmeter.evaluate(str(qrels_path), str(run_path), list(REAL_MEASURES.values()), judged_only=True)
    assert got.metadata["unjudged_dropped"] > 0
    for key, name in REAL_MEASURES.items():
        assert got.by_query(name) == pytest.approx({q: v[key] for q, v in want.items()}, abs=1e-12), key
    # rankmeter trec_eval -J prints the same numbers (4 decimals)
    assert main(["trec_eval", "-J", "-q", "-m", "map", "-m", "bpref", str(qrels_path), str(run_path)]) == 0
    printed = {(m, q): float(v) for m, q, v in (line.split() for line in capsys.readouterr().out.splitlines())}
    for key, name in (("map", "map"), ("bpref", "bpref")):
        for q, value in got.by_query(name).items():
            assert printed[(key, q)] == pytest.approx(value, abs=5e-5), (key, q)


def test_depth_cuts_before_judged_only_drops() -> None:
    # trec_eval -M3 -J: the top 3 (x, a, b) first, then x (not judged) and a (grade -1) go: b alone remains
    qrels = {"1": {"a": -1, "b": 1, "c": 0, "d": 1}}
    run = {"1": {"x": 9.0, "a": 8.0, "b": 7.0, "c": 6.0, "d": 5.0}}
    res = rankmeter.evaluate(qrels, run, ["num_ret", "rr", "p@3"], depth=3, judged_only=True)
    assert (res["num_ret"], res["rr"], res["p@3"]) == (1.0, 1.0, 1 / 3)
    assert res.metadata["unjudged_dropped"] == 2
    alone = rankmeter.evaluate(qrels, run, ["num_ret"], judged_only=True)
    assert alone["num_ret"] == 3.0  # b, c, d without a depth


def test_depth_and_judged_only_equal_the_trec_eval_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    qrels_lines, run_lines = [], []
    for q in range(30):
        docs = [f"d{i}" for i in range(int(rng.integers(1, 25)))]
        for d in docs:
            if rng.random() < 0.6:
                qrels_lines.append(f"{q} 0 {d} {rng.choice([-1, 0, 1, 2])}")
        qrels_lines.append(f"{q} 0 extra 1")
        scores = rng.integers(0, 8, len(docs))  # tied scores: trec_eval orders them by document id
        run_lines += [f"{q} Q0 {d} 0 {s} r" for d, s in zip(docs, scores, strict=True)]
    qrels, run = _write(tmp_path / "qrels", qrels_lines), _write(tmp_path / "run", run_lines)
    measures = {"map": "map", "P_5": "p@5", "num_ret": "num_ret", "recip_rank": "rr", "ndcg": "ndcg"}
    options = ("-m", "map", "-m", "P.5", "-m", "num_ret", "-m", "recip_rank", "-m", "ndcg")
    for depth in (1, 4, 10):
        args = ["trec_eval", "-q", "-J", f"-M{depth}", *options, qrels, run]
        assert main(args) == 0
        printed = {(m, q): float(v) for m, q, v in (line.split() for line in capsys.readouterr().out.splitlines())}
        res = rankmeter.evaluate(qrels, run, list(measures.values()), depth=depth, judged_only=True)
        for key, name in measures.items():
            for q, value in res.by_query(name).items():
                assert printed[(key, q)] == pytest.approx(value, abs=5e-5), (depth, key, q)
