"""Other tools' measure spellings parse to rankmeter's canonical measures."""

import pytest

import rankmeter
from rankmeter import MeasureSyntaxError, parse


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("AP(rel=2)@100", "ap(min_rel=2)@100"),
        ("P(rel=2)@[5,10]", "p(min_rel=2)@[5,10]"),
        ("nDCG@10", "ndcg@10"),
        ("R@1000", "r@1000"),
        ("RR(rel=2)@10", "rr(min_rel=2)@10"),
        ("Success@5", "success@5"),
        ("Judged@10", "judged@10"),
    ],
)
def test_ir_measures_spellings(text: str, canonical: str) -> None:
    assert str(parse(text)) == canonical
    assert parse(canonical) == parse(text)


def test_rel_alias_values_equal_min_rel() -> None:
    qrels = {"q": {"a": 1, "b": 2, "c": 2}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "x": 0.5}}
    res = rankmeter.evaluate(qrels, run, ["AP(rel=2)", "ap(min_rel=2)"])
    assert res.measure_names == ["ap(min_rel=2)"]
    assert res["ap(min_rel=2)"] == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_rel_and_min_rel_together_are_refused() -> None:
    with pytest.raises(MeasureSyntaxError, match="parameter 'min_rel' given twice"):
        parse("p(rel=2,min_rel=2)@5")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("ndcg_burges@10", "ndcg(gain=exp)@10"),  # ranx
        ("dcg_burges@[5,10]", "dcg(gain=exp)@[5,10]"),
        ("hits@5", "hits@5"),
        ("hit_rate@5", "success@5"),
        ("nDCG(dcg='exp-log2')@10", "ndcg(gain=exp)@10"),  # ir_measures
        ('nDCG(dcg="log2")@10', "ndcg@10"),
        ("nDCG(gains={0:0,1:1,2:3})@5", "ndcg(gain={0:0,1:1,2:3})@5"),
        ("IPrec@0.5", "iprec_at_recall(offset=0.9,recall=0.5)"),
        ("NumRet", "num_ret"),
        ("NumRet(rel=2)", "num_rel_ret(min_rel=2)"),
        ("NumRelRet", "num_rel_ret"),
        ("NumQ", "num_q"),
        ("NumRel", "num_rel"),
        ("SetP", "set_p"),
        ("SetR", "set_recall"),
        ("SetF", "set_f"),
        ("SetAP", "set_map"),
        ("Bpref", "bpref"),
        ("infAP", "infap"),
        ("ERR@20", "err@20"),
        ("Rprec", "rprec"),
        ("retrieval_fall_out@5", "fall_out(all_relevant=1)@5"),  # torchmetrics
        ("retrieval_auroc", "auroc(all_relevant=0)"),
        ("label_ranking_average_precision_score", "lrap"),  # scikit-learn
        ("top_k_accuracy@3", "success@3"),
    ],
)
def test_peer_names(text: str, canonical: str) -> None:
    assert str(parse(text)) == canonical
    assert parse(canonical) == parse(text)


def test_presets_through_measure() -> None:
    assert str(rankmeter.measures.measure("ndcg_burges", [5, 10])) == "ndcg(gain=exp)@[5,10]"
    with pytest.raises(MeasureSyntaxError, match=r"measure 'ndcg_burges': parameter 'gain' is set by the name \(exp\)"):
        rankmeter.measures.measure("ndcg_burges", 5, gain="linear")


def test_preset_parameters_cannot_be_given_again() -> None:
    with pytest.raises(MeasureSyntaxError, match=r"measure 'ndcg_burges\(gain=linear\)@5': parameter 'gain' is set"):
        parse("ndcg_burges(gain=linear)@5")


def test_recall_level_given_twice() -> None:
    with pytest.raises(MeasureSyntaxError, match=r"measure 'IPrec\(recall=0.2\)@0.5': parameter 'recall' given twice"):
        parse("IPrec(recall=0.2)@0.5")


def test_divisor_values() -> None:
    with pytest.raises(MeasureSyntaxError, match=r"measure 'p\(divisor=n\)@5': divisor must be 'k' or 'min', got 'n'"):
        parse("p(divisor=n)@5")
    # 1 relevant among 2 items: p@5 = 1/5 (trec_eval), p(divisor=min)@5 = 1/2 (keras-rs)
    res = rankmeter.evaluate_lists([[1.0, 0.0]], [[2.0, 1.0]], ["p@5", "p(divisor=min)@5", "judged(divisor=min)@5"])
    assert (res["p@5"], res["p(divisor=min)@5"], res["judged(divisor=min)@5"]) == (0.2, 0.5, 1.0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ndgc@10", "unknown measure 'ndgc'; did you mean 'ndcg'?; known measures: "),
        ("presicion@5", "unknown measure 'presicion'; did you mean 'precision'?; known measures: "),
        ("ndcg_burgess@5", "unknown measure 'ndcg_burgess'; did you mean 'ndcg_burges'?; known measures: "),
        ("qqqqqq", "unknown measure 'qqqqqq'; known measures: "),
    ],
)
def test_unknown_names_suggest_the_closest(text: str, message: str) -> None:
    with pytest.raises(MeasureSyntaxError) as info:
        parse(text)
    assert str(info.value).startswith(message)


def test_hits_counts_relevant_documents() -> None:
    qrels = {"q": {"a": 1, "b": 2, "c": 0, "d": 1}}
    run = {"q": {"a": 4.0, "c": 3.0, "b": 2.0, "x": 1.0}}
    res = rankmeter.evaluate(qrels, run, ["hits@[1,2,3]", "hits", "hits(min_rel=2)@3", "success@3"])
    assert [res["hits@1"], res["hits@2"], res["hits@3"], res["hits"]] == [1.0, 1.0, 2.0, 2.0]
    assert (res["hits(min_rel=2)@3"], res["success@3"]) == (1.0, 1.0)
