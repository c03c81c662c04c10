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
