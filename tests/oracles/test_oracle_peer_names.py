"""Oracle: other tools' measure names (rankmeter.measures.peer_names) give those tools' numbers.

* ir_measures (its pytrec_eval, gdeval and judged providers) on every ir_measures name rankmeter reads;
* ranx on ``ndcg_burges``, ``dcg_burges``, ``hits`` and ``hit_rate`` (tie-free scores: ranx's tie order is
  its own);
* scikit-learn on ``lrap``, ``coverage_error``, ``label_ranking_loss`` (tie-heavy scores: they are
  defined on the scores), ``top_k_accuracy`` (tie-free) and, for ``auroc``, ``roc_auc_score`` per list
  (ties count 1/2 in both);
* torchmetrics' documented examples for ``fall_out`` and ``auroc`` (torchmetrics itself, on random
  inputs, in test_oracle_torchmetrics.py).

keras-rs' ``PrecisionAtK`` (``p(divisor=min)``) is checked in test_oracle_keras_rs.py.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import rankmeter

# ---------------------------------------------------------------------------------------------
# ir_measures
IR_MEASURES_NAMES = [
    "nDCG@10",
    "nDCG",
    "AP",
    "AP@100",
    "R@100",
    "RR",
    "P@5",
    "P(rel=2)@10",
    "Success@5",
    "Bpref",
    "infAP",
    "NumRet",
    "NumRet(rel=1)",
    "NumRel",
    "NumQ",
    "IPrec@0.5",
    "IPrec@0.1",
    "SetP",
    "SetR",
    "SetF",
    "SetAP",
    "Rprec",
    "ERR@20",
    "ERR@5",
    "nDCG(dcg='exp-log2')@10",
    "nDCG(gains={0:0,1:1,2:3,3:7,4:15})@10",
]
GDEVAL = ("ERR@", "nDCG(dcg='exp-log2')")  # gdeval prints 5 decimals


def _collection(seed: int) -> tuple[list, list]:
    import ir_measures

    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(101, 141):
        docs = list(dict.fromkeys(f"D{rng.randint(0, 300)}" for _ in range(rng.randint(12, 60))))
        graded = [d for d in docs if rng.random() < 0.6] + [f"U{q}_{i}" for i in range(rng.randint(0, 4))]
        grades = {d: rng.choice([0, 0, 1, 2, 3, 4]) for d in graded}
        grades[graded[0] if graded else docs[0]] = rng.randint(1, 4)  # at least one relevant document
        qrels += [ir_measures.Qrel(str(q), d, g) for d, g in grades.items()]
        scores = rng.sample(range(1000), len(docs))  # tie-free (ir_measures' Judged breaks ties its own way)
        run += [ir_measures.ScoredDoc(str(q), d, float(s)) for d, s in zip(docs, scores, strict=True)]
    return qrels, run


IR_MEASURES_CHILD = """
import json, sys, ir_measures
names, qrels, run = json.load(sys.stdin)
qrels = [ir_measures.Qrel(*r) for r in qrels]
run = [ir_measures.ScoredDoc(*r) for r in run]
out = {}
for m in ir_measures.iter_calc([ir_measures.parse_measure(n) for n in names], qrels, run):
    out.setdefault(str(m.measure), {})[m.query_id] = m.value
json.dump(out, sys.stdout)
"""


def _ir_measures_values(names: list[str], qrels: list, run: list) -> dict[str, dict[str, float]]:
    """ir_measures' per-query values, computed in a fresh interpreter.

    pytrec_eval keeps measure parameters (an nDCG gain table, cutoff lists) in the C library's global
    tables, so in one process nDCG@10 can come out with the gains of an earlier nDCG(gains=...)@10,
    depending on the order ir_measures happens to run its groups (a set: it varies with the hash seed).
    """
    import json
    import subprocess
    import sys

    payload = json.dumps([names, [tuple(r) for r in qrels], [tuple(r) for r in run]])
    done = subprocess.run(
        [sys.executable, "-c", IR_MEASURES_CHILD], input=payload, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_ir_measures_names_give_ir_measures_values() -> None:
    import ir_measures

    qrels, run = _collection(11)
    # the measures with a gain table get an interpreter of their own (see _ir_measures_values)
    with_gains = [n for n in IR_MEASURES_NAMES if "gains=" in n]
    theirs = _ir_measures_values([n for n in IR_MEASURES_NAMES if n not in with_gains], qrels, run)
    theirs.update(_ir_measures_values(with_gains, qrels, run))
    parsed = [ir_measures.parse_measure(n) for n in IR_MEASURES_NAMES]
    qd: dict = {}
    for r in qrels:
        qd.setdefault(r.query_id, {})[r.doc_id] = r.relevance
    rd: dict = {}
    for r in run:
        rd.setdefault(r.query_id, {})[r.doc_id] = r.score
    ours = rankmeter.evaluate(qd, rd, IR_MEASURES_NAMES)
    for name, m in zip(IR_MEASURES_NAMES, parsed, strict=True):
        per_query = ours.by_query(str(rankmeter.parse(name)))
        got = theirs[str(m)]
        assert set(got) == set(per_query), name
        tol = 5.01e-6 if name.startswith(GDEVAL) else 1e-9
        for q, v in got.items():
            assert per_query[q] == pytest.approx(v, abs=tol), (name, q)


def test_ir_measures_judged_divides_by_the_retrieved_count_below_k() -> None:
    # ir_measures' Judged@k divides by min(k, retrieved): rankmeter's judged(divisor=min); judged@k divides by k
    import ir_measures

    qrels = [ir_measures.Qrel("1", "a", 1), ir_measures.Qrel("1", "b", 0), ir_measures.Qrel("2", "c", 1)]
    run = [ir_measures.ScoredDoc("1", d, s) for d, s in (("a", 3.0), ("x", 2.0), ("b", 1.0))]
    run += [ir_measures.ScoredDoc("2", d, float(s)) for s, d in enumerate("cdefghijklmn")]
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.Judged @ 10], qrels, run)}
    qd = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    rd = {"1": {"a": 3.0, "x": 2.0, "b": 1.0}, "2": {d: float(s) for s, d in enumerate("cdefghijklmn")}}
    res = rankmeter.evaluate(qd, rd, ["judged(divisor=min)@10", "Judged@10"])
    assert res.by_query("judged(divisor=min)@10") == pytest.approx(theirs)
    assert theirs == pytest.approx({"1": 2 / 3, "2": 0.0})
    assert res.by_query("judged@10") == pytest.approx({"1": 2 / 10, "2": 0.0})


# ---------------------------------------------------------------------------------------------
# ranx
def test_ranx_names_give_ranx_values() -> None:
    import ranx

    rng = random.Random(5)
    qd, rd = {}, {}
    for q in range(30):
        docs = [f"d{i}" for i in range(rng.randint(3, 25))]
        qd[f"q{q}"] = {d: rng.randint(0, 3) for d in docs if rng.random() < 0.5} | {f"u{q}": rng.randint(1, 3)}
        rd[f"q{q}"] = dict(zip(docs, (float(s) for s in rng.sample(range(100), len(docs))), strict=True))
    names = ["ndcg_burges@10", "dcg_burges@5", "hits@5", "hit_rate@3", "ndcg_burges"]
    theirs = ranx.evaluate(ranx.Qrels(qd), ranx.Run(rd), names, return_mean=False, make_comparable=True)
    ours = rankmeter.evaluate(qd, rd, names, empty="zero")
    qids = sorted(qd)  # ranx returns queries in the qrels' sorted order
    for name in names:
        want = dict(zip(qids, np.asarray(theirs[name]).tolist(), strict=True))
        assert ours.by_query(str(rankmeter.parse(name))) == pytest.approx(want, abs=1e-12), name


# ---------------------------------------------------------------------------------------------
# scikit-learn (dense input)
@pytest.mark.parametrize("seed", range(3))
def test_sklearn_label_ranking_measures(seed: int) -> None:
    from sklearn import metrics

    rng = np.random.default_rng(seed)
    y = (rng.random((40, 9)) < rng.uniform(0.05, 0.6, (40, 1))).astype(float)
    y[0] = 0.0  # no relevant label
    y[1] = 1.0  # every label relevant
    s = rng.integers(0, 4, (40, 9)).astype(float)  # many ties
    w = rng.uniform(0.5, 2.0, 40)
    for ties in ("expected", "trec", "pessimistic"):
        res = rankmeter.evaluate_arrays(y, s, ["lrap", "coverage_error", "label_ranking_loss"], ties=ties)
        assert res["lrap"] == pytest.approx(metrics.label_ranking_average_precision_score(y, s), abs=1e-12)
        assert res["coverage_error"] == pytest.approx(metrics.coverage_error(y, s), abs=1e-12)
        assert res["label_ranking_loss"] == pytest.approx(metrics.label_ranking_loss(y, s), abs=1e-12)
    # a list without relevant labels takes the mean weight of the others (keras-rs' rule, which rankmeter
    # applies to every measure) where scikit-learn keeps its own weight: weighted means compared without one
    y[:, 0] = 1.0
    weighted = rankmeter.evaluate_arrays(y, s, ["lrap", "coverage_error", "label_ranking_loss"], sample_weight=w)
    assert weighted["lrap"] == pytest.approx(
        metrics.label_ranking_average_precision_score(y, s, sample_weight=w), abs=1e-12
    )
    assert weighted["coverage_error"] == pytest.approx(metrics.coverage_error(y, s, sample_weight=w), abs=1e-12)
    assert weighted["label_ranking_loss"] == pytest.approx(metrics.label_ranking_loss(y, s, sample_weight=w), abs=1e-12)


def test_sklearn_top_k_accuracy() -> None:
    from sklearn.metrics import top_k_accuracy_score

    rng = np.random.default_rng(9)
    labels = rng.integers(0, 7, 200)
    s = rng.random((200, 7))  # tie-free
    y = np.eye(7)[labels]
    res = rankmeter.evaluate_arrays(y, s, "top_k_accuracy@[1,2,3]")
    for k in (1, 2, 3):
        assert res[f"success@{k}"] == pytest.approx(top_k_accuracy_score(labels, s, k=k, labels=range(7)), abs=1e-12)


def test_auroc_is_roc_auc_per_list() -> None:
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(4)
    y = (rng.random((30, 10)) < 0.4).astype(float)
    y[:, 0], y[:, 1] = 1.0, 0.0  # both classes in every list
    s = rng.integers(0, 5, (30, 10)).astype(float)  # ties count 1/2 in both
    res = rankmeter.evaluate_arrays(y, s, "auroc", ties="expected")
    want = [roc_auc_score(y[i], s[i]) for i in range(30)]
    np.testing.assert_allclose(res.values[:, 0], want, rtol=0, atol=1e-12)
    lo = rankmeter.evaluate_arrays(y, s, "auroc", ties="pessimistic").values[:, 0]
    hi = rankmeter.evaluate_arrays(y, s, "auroc", ties="optimistic").values[:, 0]
    assert np.all(lo <= res.values[:, 0] + 1e-12) and np.all(res.values[:, 0] <= hi + 1e-12) and np.any(lo < hi)


def test_torchmetrics_documented_examples() -> None:
    # torchmetrics.functional.retrieval docstrings: preds [0.2, 0.3, 0.5], target [True, False, True]
    res = rankmeter.evaluate_arrays([[1.0, 0.0, 1.0]], [[0.2, 0.3, 0.5]], ["fall_out@2", "auroc", "fall_out@1"])
    assert res["fall_out@2"] == 1.0  # the one non-relevant item is at rank 2
    assert res["fall_out@1"] == 0.0
    assert res["auroc"] == 0.5
    # no non-relevant item: fall-out 0 (torchmetrics returns 0 there too)
    assert rankmeter.evaluate_arrays([[1.0, 1.0]], [[0.2, 0.3]], "fall_out@1")["fall_out@1"] == 0.0


def test_fall_out_formula_and_expected_ties() -> None:
    # tied group [rel, non, non] at ranks 1-3, then non: expected non-relevant in the top 2 = 2 * 2/3
    res = rankmeter.evaluate_lists([[1.0, 0.0, 0.0, 0.0]], [[1.0, 1.0, 1.0, 0.5]], ["fall_out@[2,3,4]"])
    assert res["fall_out@2"] == pytest.approx((4 / 3) / 3, abs=1e-15)
    assert res["fall_out@3"] == pytest.approx(2 / 3, abs=1e-15)
    assert res["fall_out@4"] == 1.0
    assert not math.isnan(res["fall_out@4"])
