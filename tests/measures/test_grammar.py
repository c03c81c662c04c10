"""The measure-name grammar: canonical names, aliases, defaults, parameter order, gain tables,
discounts, cutoff lists, the ``measure()`` builder, and ``rankmeter measures``.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter
from rankmeter import Measure, MeasureSyntaxError, parse
from rankmeter.cli.main import main
from rankmeter.measures import FAMILIES, GainTable, Jarvelin, measure
from tests.core.families import CORE_FAMILIES


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("ndcg@10", "ndcg@10"),
        ("nDCG@10", "ndcg@10"),
        ("NDCG@10", "ndcg@10"),
        ("P@5", "p@5"),
        ("precision@5", "p@5"),
        ("MRR", "rr"),
        ("mrr@10", "rr@10"),
        ("recip_rank", "rr"),
        ("hit_rate@5", "success@5"),
        ("hits@3", "hits@3"),  # ranx: the number of relevant documents in the top 3
        ("hit@3", "success@3"),
        ("R-prec", "rprec"),
        ("r-precision", "rprec"),
        ("R_prec", "rprec"),
        ("recall@100", "r@100"),
        ("f1_score@3", "f1@3"),
        ("MAP", "map"),
        ("map@1000", "map@1000"),
        ("mean_average_precision", "map"),
        ("average_precision@10", "ap@10"),
        ("num_rel_ret", "num_rel_ret"),
        (" ndcg @5", "ndcg@5"),
    ],
)
def test_aliases_and_canonical_names(text, canonical) -> None:
    m = parse(text)
    assert str(m) == canonical
    assert parse(canonical) == m


def test_default_parameters_are_omitted() -> None:
    full = parse("ndcg(ideal=judged,gain=linear,discount=log2)@5")
    assert str(full) == "ndcg@5"
    assert full == parse("ndcg@5") == measure("ndcg", 5, gain="linear", discount="log2", ideal="judged")
    assert full.params == ()
    assert str(parse("p(min_rel=2.0)@5")) == "p(min_rel=2)@5"


def test_parameters_are_sorted_by_name() -> None:
    a = parse("ndcg(ideal=retrieved,gain=exp,discount=jarvelin(2))@5")
    b = parse("ndcg(discount=jarvelin(2),gain=exp,ideal=retrieved)@5")
    assert a == b
    assert str(a) == "ndcg(discount=jarvelin(2),gain=exp,ideal=retrieved)@5"
    assert [k for k, _ in a.params] == ["discount", "gain", "ideal"]
    assert a.param("gain") == "exp" and a.param("min_rel", "none") == "none"


def test_gain_tables() -> None:
    m = parse("ndcg(gain={2:3,1:1,0:0})@5")
    assert str(m) == "ndcg(gain={0:0,1:1,2:3})@5"
    assert m.param("gain") == GainTable.of({0: 0, 1: 1, 2: 3})
    assert str(parse("ndcg(gain={1:0.5, 2 : 0.25})")) == "ndcg(gain={1:0.5,2:0.25})"
    assert str(parse("dcg(gain={-1:-2,3:7.5})")) == "dcg(gain={-1:-2,3:7.5})"
    # builder: a dict becomes the same table
    assert measure("ndcg", 5, gain={2: 3, 1: 1, 0: 0}) == m
    # values: a grade missing from the table gains its own value if positive
    res = rankmeter.evaluate_arrays([[2, 1, 3]], [[3, 2, 1]], ["dcg(gain={1:10,2:20})"])
    assert res["dcg(gain={1:10,2:20})"] == pytest.approx(20 / np.log2(2) + 10 / np.log2(3) + 3 / np.log2(4))


def test_jarvelin_discount() -> None:
    assert str(parse("ndcg(discount=jarvelin)@5")) == "ndcg(discount=jarvelin(2))@5"
    assert parse("ndcg(discount=jarvelin(2))") == measure("ndcg", discount=Jarvelin(2))
    assert str(parse("dcg(discount=jarvelin(3.5))")) == "dcg(discount=jarvelin(3.5))"
    assert str(measure("dcg", discount="jarvelin(10)")) == "dcg(discount=jarvelin(10))"
    # jarvelin(3): no discount for ranks 1 and 2, then 1/log3(i)
    res = rankmeter.evaluate_arrays([[1, 1, 1, 1]], [[4, 3, 2, 1]], "dcg(discount=jarvelin(3))")
    assert res["dcg(discount=jarvelin(3))"] == pytest.approx(
        1 + 1 + 1 / (np.log(3) / np.log(3)) + np.log(3) / np.log(4)
    )


def test_cutoff_lists() -> None:
    m = parse("ndcg@[1,5,10]")
    assert m.cutoffs == (1, 5, 10) and str(m) == "ndcg@[1,5,10]"
    assert [str(x) for x in m.expand()] == ["ndcg@1", "ndcg@5", "ndcg@10"]
    assert str(parse("p@[ 5 , 10 ]")) == "p@[5,10]"
    single = parse("ndcg@[5]")
    assert str(single) == "ndcg@[5]" and [str(x) for x in single.expand()] == ["ndcg@5"]
    assert str(parse("ndcg(gain=exp)@[10,5]")) == "ndcg(gain=exp)@[10,5]"  # order kept as written
    res = rankmeter.evaluate_arrays([[1, 0, 1]], [[3, 2, 1]], ["p@[1,2,3]", "p@2"])
    assert res.measure_names == ["p@1", "p@2", "p@3"]  # a repeated single measure is reported once


def test_measure_builder() -> None:
    assert str(measure("ndcg", [5, 10], gain="exp")) == "ndcg(gain=exp)@[5,10]"
    assert str(measure("P", 5, min_rel=2)) == "p(min_rel=2)@5"
    assert str(measure("map")) == "map"
    assert str(measure("rr", 10)) == "rr@10"
    assert str(measure("hit_rate", (1, 3))) == "success@[1,3]"
    assert measure("ndcg", 10, gain="exp") == parse("ndcg(gain=exp)@10")
    assert isinstance(measure("ndcg", 10), Measure)
    # measures are values: hashable, usable as keys, equal by content
    assert len({measure("ndcg", 10), parse("nDCG@10"), parse("ndcg@10")}) == 1
    # parse passes Measure objects through
    m = measure("ndcg", 3)
    assert parse(m) is m


def test_callable_parameters() -> None:
    def half(g):
        return g / 2

    m = measure("dcg", 2, gain=half)
    assert str(m) == "dcg(gain=<half>)@2"
    res = rankmeter.evaluate_arrays([[2, 4]], [[2, 1]], [m])
    assert res[str(m)] == pytest.approx(1 / np.log2(2) + 2 / np.log2(3))
    with pytest.raises(MeasureSyntaxError):
        parse(str(m))  # a callable cannot be named back


def test_two_callables_with_the_same_name_are_refused() -> None:
    m1 = measure("dcg", 2, gain=lambda g: g)
    m2 = measure("dcg", 2, gain=lambda g: 10 * g)
    assert m1 != m2
    with pytest.raises(MeasureSyntaxError, match=r"two different measures are both named 'dcg\(gain=<<lambda>>\)@2'"):
        rankmeter.evaluate_arrays([[1, 2]], [[2, 1]], [m1, m2])


def test_every_core_family_parses_and_has_a_kernel() -> None:
    for name in CORE_FAMILIES:
        fam = FAMILIES[name]
        text = name if fam.cutoff != "required" else f"{name}@5"
        m = parse(text)
        assert m.family == name and str(m) == text
        res = rankmeter.evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 2.0, "b": 1.0, "c": 0.5}}, [m])
        assert res.measure_names == [text]
        assert np.isfinite(res.values).all()


def test_core_families_are_registered() -> None:
    assert set(CORE_FAMILIES) <= set(FAMILIES)


def test_rankmeter_measures_lists_every_family(capsys) -> None:
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    heads = [line.split()[0] for line in out.splitlines() if line and not line.startswith(" ")]
    judgment_free = ["rbo", "rbo_min", "rbo_max", "rbo_res", "rbo_prefix", "kendall_tau", "tau_ap"]
    assert heads == [*FAMILIES, "judgment-free", *judgment_free]
    assert "aliases: rbo_ext" in out and "p=0.9: RBO's persistence" in out
    for name, fam in FAMILIES.items():
        assert fam.description in out, name
    assert "aliases: mrr, recip_rank" in out
    assert "gain=linear" in out and "min_rel=none" in out
