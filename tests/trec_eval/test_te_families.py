"""The trec_eval measure families as rankmeter measures: names, values, tie policies, vectorisation."""

from __future__ import annotations

import io
import itertools
import math

import numpy as np
import pytest

import rankmeter
from rankmeter.cli.main import main as rankmeter_main
from rankmeter.errors import MeasureSyntaxError, PolicyError
from rankmeter.measures.kernels.trec._common import segment_suffix_max
from rankmeter.trec_eval.app import run_trec_eval

QRELS = {"q": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 1, "f": -1}, "z": {"u": 0}}
RUN = {"q": {"b": 5.0, "a": 4.0, "x": 3.0, "d": 2.0, "c": 1.0, "f": 0.5}, "z": {"u": 1.0, "v": 0.5}}

LINEAR = [
    "gm_map",
    "rprec_mult(mult=0.5)",
    "rprec_mult(mult=1.5)",
    "utility(a=2,c=-1,d=0.1,collection=50)",
    "relative_p@[1,2,4,9]",
    "set_p",
    "set_recall",
    "set_relative_p",
    "set_map",
    "set_f(beta=0.5)",
    "num_nonrel_judged_ret",
    "rbp",
    "rbp(p=0.5,gain={0:1,1:3})",
    "rbp_resid(p=0.8)",
    "unj@[1,3,10]",
]
NONLINEAR = [
    "bpref",
    "gm_bpref",
    "infap",
    "iprec_at_recall(recall=0.5)",
    "iprec_avg",
    "bing",
    "g",
    "ndcg_rel",
    "rndcg",
    "yaap",
]


def test_canonical_names_round_trip() -> None:
    for text in LINEAR + NONLINEAR + ["iprec_avg(levels=[0.2,0.5],offset=0.9)", "rndcg(gain=exp,min_rel=2)"]:
        m = rankmeter.parse(text)
        assert rankmeter.parse(str(m)) == m
    assert str(rankmeter.parse("infAP")) == "infap" and str(rankmeter.parse("binG")) == "bing"
    assert str(rankmeter.parse("Rprec_mult(mult=1.0)")) == "rprec_mult"  # default parameter omitted
    assert str(rankmeter.parse("ideal_dcg")) == "idcg" and str(rankmeter.parse("set_F")) == "set_f"
    for bad in ["unj", "relative_p", "bpref@10", "rbp(p=2)", "iprec_avg(levels=[])", "utility(a=x)"]:
        with pytest.raises(MeasureSyntaxError):
            rankmeter.parse(bad)


def test_iprec_at_recall_needs_its_recall_level() -> None:
    with pytest.raises(MeasureSyntaxError, match="needs a recall level"):
        rankmeter.evaluate(QRELS, RUN, "iprec_at_recall")


def test_hand_computed_values() -> None:
    """Topic q: ranking b(0) a(1) x(unjudged) d(0) c(1) f(-1); R = 3, judged non-relevant N = 2."""
    names = [
        "bpref",
        "infap",
        "relative_p@2",
        "unj@[3,4,10]",
        "set_p",
        "set_map",
        "utility",
        "rbp(p=0.5)",
        "rbp_resid(p=0.5)",
        "yaap",
        "bing",
        "num_nonrel_judged_ret",
        "rprec_mult(mult=0.5)",
    ]
    res = rankmeter.evaluate(QRELS, RUN, names, missing="skip")
    v = {n: res.by_query(n)["q"] for n in res.measure_names}
    assert v["bpref"] == pytest.approx((1 - 1 / 2 + 1 - 2 / 2) / 3)
    eps = 1e-5
    assert v["infap"] == pytest.approx(
        (1 / 2 + 1 / 2 * eps / (1 + 2 * eps) + 1 / 5 + 3 / 5 * (1 + eps) / (3 + 2 * eps)) / 3
    )
    assert v["relative_p@2"] == 0.5
    assert (v["unj@3"], v["unj@4"], v["unj@10"]) == (pytest.approx(1 / 3), 0.25, 0.2)
    assert v["set_p"] == pytest.approx(2 / 6) and v["set_map"] == pytest.approx(4 / 18)
    assert v["utility"] == 2 - 4
    assert v["rbp(p=0.5)"] == pytest.approx(0.5 * (0.5 + 0.5**4))
    assert v["rbp_resid(p=0.5)"] == pytest.approx(0.5**6 + 0.5 * (0.5**2 + 0.5**5))
    s = 1 / 2 + 2 / 5
    assert v["yaap"] == pytest.approx(math.log((1 + s) / (1 + 3 - s)))
    assert v["bing"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(2 + 3)) / 3)
    assert v["num_nonrel_judged_ret"] == 2
    assert v["rprec_mult(mult=0.5)"] == 0.5  # floor(0.5 * 3 + 0.9) = 2 documents: b, a
    z = {n: res.by_query(n)["z"] for n in res.measure_names}
    assert z["utility"] == -2 and z["unj@10"] == 0.1 and z["rbp_resid(p=0.5)"] == pytest.approx(0.25 + 0.5 * 0.5)


def test_expected_ties_are_exact_for_linear_families() -> None:
    """Mean over every ordering of the tied groups (ties="stable" on permuted input) = ties="expected"."""
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "d": 1, "e": -1, "g": 0}, "r": {"a": 0, "k": 1}}
    scores = {"a": 2.0, "b": 2.0, "c": 2.0, "x": 1.0, "d": 1.0, "e": 1.0, "g": 0.0}
    groups = [["a", "b", "c"], ["x", "d", "e"], ["g"]]
    measures = LINEAR
    expected = rankmeter.evaluate(qrels, {"q": scores, "r": {"k": 1.0, "a": 1.0}}, measures, ties="expected")
    total = None
    count = 0
    for p1 in itertools.permutations(groups[0]):
        for p2 in itertools.permutations(groups[1]):
            for p3 in itertools.permutations(["k", "a"]):
                run = {"q": {d: scores[d] for d in (*p1, *p2, "g")}, "r": {d: 1.0 for d in p3}}
                v = rankmeter.evaluate(qrels, run, measures, ties="stable").values
                total = v if total is None else total + v
                count += 1
    assert total is not None
    np.testing.assert_allclose(expected.values, total / count, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", NONLINEAR)
def test_nonlinear_families_refuse_expected_ties(name: str) -> None:
    with pytest.raises(PolicyError, match="no exact expectation"):
        rankmeter.evaluate(QRELS, RUN, name, ties="expected")
    rankmeter.evaluate(QRELS, RUN, name, ties="optimistic")  # every deterministic order works


def test_vectorised_over_queries_and_robust_to_empty_rankings() -> None:
    rng = np.random.default_rng(3)
    qrels, run = {}, {}
    for i in range(40):
        docs = [f"d{j}" for j in range(int(rng.integers(1, 12)))]
        qrels[f"q{i}"] = {d: int(rng.integers(-1, 4)) for d in docs}
        if i % 7:
            run[f"q{i}"] = {f"d{j}": float(rng.integers(0, 3)) for j in range(int(rng.integers(1, 15)))}
    names = LINEAR + NONLINEAR + ["iprec_avg(levels=[0,0.33,1])", "g(gain=exp)", "ndcg_rel(gain={1:5})"]
    together = rankmeter.evaluate(qrels, run, names)  # missing queries are empty rankings
    assert together.values.shape == (40, len(together.measure_names))
    assert np.isfinite(together.values).all()
    for q in ["q0", "q3", "q5", "q7"]:
        alone = rankmeter.evaluate(
            {q: qrels[q]}, {q: run.get(q, {"zz": 0.0})} if q in run else {"other": {"a": 1}}, names
        )
        i = together.query_ids.tolist().index(q)
        np.testing.assert_allclose(alone.values[0], together.values[i], rtol=1e-12, atol=1e-12, err_msg=q)


def test_reachable_from_rankmeter_evaluate_command(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 2 s\n1 Q0 a 2 1 s\n")
    status = rankmeter_main(
        [
            "evaluate",
            str(tmp_path / "q"),
            str(tmp_path / "r"),
            "-m",
            "bpref",
            "-m",
            "iprec_at_recall(recall=0.5)",
            "-m",
            "unj@2",
            "--format",
            "csv",
        ]
    )
    assert status == 0
    out = capsys.readouterr().out
    assert "all,bpref,0.0" in out and "all,iprec_at_recall(recall=0.5),0.5" in out and "all,unj@2,0.0" in out


def test_gm_map_aggregate_is_a_geometric_mean() -> None:
    res = rankmeter.evaluate({"1": {"a": 1}, "2": {"b": 1}}, {"1": {"a": 1.0}, "2": {"x": 1.0, "b": 0.5}}, "gm_map")
    assert res["gm_map"] == pytest.approx(math.sqrt(1.0 * 0.5))


def test_helpers() -> None:
    off = np.array([0, 3, 3, 6])
    v = np.array([0.2, 0.9, 0.1, 0.5, 0.4, 0.6])
    assert segment_suffix_max(v, off).tolist() == [0.9, 0.9, 0.1, 0.6, 0.6, 0.6]


def test_11pt_avg_adds_the_levels_as_trec_eval_does(tmp_path) -> None:
    """11 equal precisions of 1/160 sum, highest level first, to 0.0687499...; / 11 prints 0.0062 (a mean: 0.0063)."""
    (tmp_path / "qrels").write_text("q 0 d159 1\n")
    (tmp_path / "run").write_text("".join(f"q Q0 d{i} {i + 1} {1000 - i} r\n" for i in range(160)))
    out_stream = io.StringIO()
    status = run_trec_eval(["-m", "11pt_avg", str(tmp_path / "qrels"), str(tmp_path / "run")], stdout=out_stream)
    out = out_stream.getvalue()
    total = 0.0
    for _ in range(11):
        total += 1 / 160
    assert status == 0 and f"{total / 11:.4f}" == "0.0062"
    assert out == "11pt_avg              \tall\t0.0062\n"
