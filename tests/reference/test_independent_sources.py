"""Every registered measure family has a value source independent of rankmeter's kernels.

Either a plain-Python definition (tests/reference/definitions.py, checked here on worked examples and, by
the tie brute force, on every ordering of hundreds of random tied lists) or a test where a peer runs, or
where the formula or a worked example is written out (``OTHER_SOURCES``). A family registered without one
fails :func:`test_every_family_has_an_independent_source`.
"""

from __future__ import annotations

import ast
import math
import random
from collections.abc import Callable
from pathlib import Path

import pytest

import rankmeter
from rankmeter.measures import FAMILIES
from tests.reference.definitions import (
    DEFINITIONS,
    OTHER_SOURCES,
    Query,
    value,
    values,
    weighted_average_precision,
    weighted_ndcg,
)

REPO = Path(__file__).resolve().parents[2]


def test_every_family_has_an_independent_source() -> None:
    missing = sorted(set(FAMILIES) - set(DEFINITIONS) - set(OTHER_SOURCES))
    assert not missing, f"families with neither a definition nor another independent source: {missing}"
    assert not set(DEFINITIONS) & set(OTHER_SOURCES), "a family is listed in both tables"
    assert not (set(DEFINITIONS) | set(OTHER_SOURCES)) - set(FAMILIES), "a listed family is not registered"


@pytest.mark.parametrize("family", sorted(OTHER_SOURCES))
def test_other_source_exists(family: str) -> None:
    source = OTHER_SOURCES[family]
    path = REPO / source.path
    text = path.read_text()
    tests = {n.name for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef)}
    assert source.test in tests, f"{source.path} has no {source.test}"
    assert source.kind in ("peer", "formula", "worked example")
    assert source.evidence in text, f"{source.path}: {source.evidence!r} not found"
    assert (source.spelled or family) in text, f"{source.path} never names {source.spelled or family!r}"


# --- the definitions on hand-computed examples ----------------------------------------------------------
# ranking a b c d e, grades 3, 0, unjudged, 2, 1; judged but not retrieved: f (grade 2) and g (-1)
Q = Query(("a", "b", "c", "d", "e"), (5.0, 4.0, 3.0, 3.0, 1.0), {"a": 3, "b": 0, "d": 2, "e": 1, "f": 2, "g": -1})
L2, L3, L4, L5 = (math.log2(i) for i in (3, 4, 5, 6))


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("dcg@3", 3.0),
        ("dcg", 3 + 2 / L4 + 1 / L5),
        ("cg@4", 5.0),
        ("idcg@3", 3 + 2 / L2 + 2 / L3),
        ("ndcg@2", 3 / (3 + 2 / L2)),
        ("ndcg(ideal=retrieved)@2", 3 / (3 + 2 / L2)),
        ("ndcg(gain=exp)@1", 1.0),
        ("dcg(discount=jarvelin(2))@4", 3 + 2 / 2),  # rank 4: 1/log2(4)
        ("map", (1 + 2 / 4 + 3 / 5) / 4),  # R = 4 (a, d, e, f)
        ("map@4", (1 + 2 / 4) / 4),
        ("map(divisor=min)@2", 1 / 2),
        ("map(divisor=k)@4", (1 + 2 / 4) / 4),
        ("ap(min_rel=2)", (1 + 2 / 4) / 3),  # R = 3 (a, d, f)
        ("p@4", 2 / 4),
        ("p@10", 3 / 10),
        ("p(divisor=min)@10", 3 / 5),
        ("r@4", 2 / 4),
        ("f1@4", 2 * 2 / (4 + 4)),
        ("f1@10", 2 * 3 / (10 + 4)),
        ("rr", 1.0),
        ("rr(min_rel=2)@3", 1.0),
        ("rprec", 2 / 4),
        ("success(min_rel=2)@3", 1.0),
        ("judged@3", 2 / 3),
        ("judged(divisor=min)@10", 4 / 5),
        ("acg@3", 3 / 3),
        ("acg@10", 6 / 10),
        ("wap", (3 + 5 / 4 + 6 / 5) / 4),
        ("num_ret", 5.0),
        ("num_rel", 4.0),
        ("num_rel_ret", 3.0),
        ("err@2", 7 / 16),  # R(3) = 7/16 at rank 1, R(0) = 0
        ("hits@4", 2.0),
        ("fall_out@2", 1 / 2),  # non-relevant: b, c
        ("auroc", 2 / (3 * 2)),  # of the (relevant, non-relevant) pairs only (a, b) and (a, c) are in order
        ("coverage_error", 5.0),
        ("label_ranking_loss", (0 + 2 + 2) / 6),  # b and c score >= d (c ties it at 3.0) and >= e
        ("lrap", (1 / 1 + 2 / 4 + 3 / 5) / 3),
    ],
)
def test_definitions_on_worked_examples(name: str, want: float) -> None:
    assert value(name, Q) == pytest.approx(want, abs=1e-12)


def test_definitions_agree_with_rankmeter_on_the_worked_example() -> None:
    names = ["ndcg@[2,5]", "map", "f1@[4,10]", "acg@[3,10]", "wap", "auroc", "lrap", "err@[1,3]", "nerr"]
    run = {"q": dict(zip(Q.ranking, Q.scores, strict=True))}
    res = rankmeter.evaluate({"q": Q.qrels}, run, names, ties="stable")
    assert res.values[0].tolist() == pytest.approx(values(names, Q), abs=1e-12)


def test_undefined_values_are_none() -> None:
    nothing = Query(("a", "b"), (2.0, 1.0), {"a": 0})
    assert value("ndcg", nothing) is None and value("map", nothing) is None and value("f1@2", nothing) is None
    assert values(["ndcg", "p@2"], nothing) == [0.0, 0.0]


# --- edge cases: empty lists, lists without a non-relevant item, without a relevant or a judged one -------
EDGES = {
    "empty list": Query((), (), {"a": 1, "b": 0}),
    "all relevant": Query(("a", "b"), (2.0, 1.0), {"a": 2, "b": 1}),
    "none relevant": Query(("a", "b", "c"), (3.0, 2.0, 1.0), {"a": 0, "b": -1, "z": 2}),
    "one item": Query(("a",), (1.0,), {"a": 3}),
    "nothing judged retrieved": Query(("x", "y"), (2.0, 2.0), {"a": 1}),
}


# the value of a list without a non-relevant item, set away from its default
ALL_RELEVANT = ["fall_out(all_relevant=1)@[1,2]", "auroc(all_relevant=0)"]


@pytest.mark.parametrize("edge", sorted(EDGES))
def test_definitions_agree_with_rankmeter_on_edge_cases(edge: str) -> None:
    from tests.reference.test_ties_bruteforce import IR_MEASURES, MEASURES

    q = EDGES[edge]
    names = [*MEASURES, *IR_MEASURES, *ALL_RELEVANT]
    run = {"q": dict(zip(q.ranking, q.scores, strict=True))}
    # "nan" shows the values the formulas leave undefined, where the query has relevant documents at every
    # min_rel of the measures (otherwise the empty-query policy gives NaN for every measure of the query)
    for empty in ("zero", "nan") if edge == "one item" else ("zero",):
        res = rankmeter.evaluate({"q": q.qrels}, run, names, ties="stable", empty=empty)
        want = values(names, q, empty=0.0 if empty == "zero" else math.nan)
        got = res.values[0].tolist()
        bad = [
            (n, g, w)
            for n, g, w in zip(res.measure_names, got, want, strict=True)
            if not (abs(g - w) <= 1e-12 or (math.isnan(g) and math.isnan(w)))
        ]
        assert not bad, (empty, bad)


def test_definitions_agree_with_rankmeter_on_equal_length_dense_rows() -> None:
    # rows of one length take the dense paths (the ideal's top k by partial selection, row-wise sums)
    from tests.reference.test_ties_bruteforce import MEASURES

    rng = random.Random(29)
    y_true = [[float(rng.choice([0, 0, 1, 2, 3])) for _ in range(7)] for _ in range(16)]
    y_score = [[float(rng.randint(0, 4)) for _ in range(7)] for _ in range(16)]
    res = rankmeter.evaluate_arrays(y_true, y_score, MEASURES, ties="stable", empty="zero")
    for row, (grades, scores) in enumerate(zip(y_true, y_score, strict=True)):
        order = sorted(range(7), key=lambda i: -scores[i])  # stable: input order inside a tie
        q = Query(
            tuple(f"i{i}" for i in order), tuple(scores[i] for i in order), {f"i{i}": g for i, g in enumerate(grades)}
        )
        want = values(MEASURES, q)
        bad = [
            (n, g, w)
            for n, g, w in zip(res.measure_names, res.values[row], want, strict=True)
            if not abs(g - w) <= 1e-12
        ]
        assert not bad, (row, bad)


def test_definitions_agree_with_rankmeter_on_a_list_emptied_by_judged_only() -> None:
    # every retrieved document is unjudged: judged_only leaves an empty list for a query with relevant documents
    from tests.reference.test_ties_bruteforce import MEASURES

    qrels = {"a": 1, "b": 0, "c": 2, "d": 3}  # relevant documents at every min_rel of MEASURES: no empty query
    names = [*MEASURES, *ALL_RELEVANT]
    for empty in ("zero", "nan"):  # "nan": a value the formula leaves undefined shows as NaN, not as 0
        res = rankmeter.evaluate({"q": qrels}, {"q": {"u": 2.0, "v": 1.0}}, names, judged_only=True, empty=empty)
        assert res.metadata["unjudged_dropped"] == 2
        want = values(names, Query((), (), qrels), empty=0.0 if empty == "zero" else math.nan)
        got = res.values[0].tolist()
        bad = [
            (n, g, w)
            for n, g, w in zip(res.measure_names, got, want, strict=True)
            if not (abs(g - w) <= 1e-12 or (math.isnan(g) and math.isnan(w)))
        ]
        assert not bad, (empty, bad)


@pytest.mark.parametrize(
    ("name", "formula"),
    [
        ("map", lambda g, w: weighted_average_precision(g, w, None)),
        ("map@3", lambda g, w: weighted_average_precision(g, w, 3)),
        ("map(min_rel=2)", lambda g, w: weighted_average_precision(g, w, None, 2.0)),
        ("ndcg", lambda g, w: weighted_ndcg(g, w, None)),
        ("ndcg@3", lambda g, w: weighted_ndcg(g, w, 3)),
        ("ndcg(gain=exp)@4", lambda g, w: weighted_ndcg(g, w, 4, "exp")),
    ],
)
def test_item_weights_against_their_definitions(name: str, formula: Callable) -> None:
    rng = random.Random(31)
    y_true = [[float(rng.choice([0, 0, 1, 2, 3])) for _ in range(6)] for _ in range(12)]
    y_score = [[float(rng.randint(0, 3)) for _ in range(6)] for _ in range(12)]
    weights = [[rng.choice([0.5, 1.0, 2.0, 3.0]) for _ in range(6)] for _ in range(12)]
    res = rankmeter.evaluate_arrays(y_true, y_score, name, sample_weight=weights, ties="stable", empty="nan")
    for row in range(12):
        order = sorted(range(6), key=lambda i: -y_score[row][i])  # stable: input order inside a tie
        want = formula([y_true[row][i] for i in order], [weights[row][i] for i in order])
        got = float(res.values[row, 0])
        assert (math.isnan(got) and want is None) or got == pytest.approx(want, abs=1e-12), (row, got, want)


def test_definitions_agree_with_rankmeter_on_fractional_grades() -> None:
    # a grade between 0 and 1: exp gains 2^g - 1 and ERR's 2^(g - gmax) - 2^-gmax with 0 < g < 1
    from tests.reference.test_ties_bruteforce import MEASURES

    q = Query(("a", "b", "c", "d"), (4.0, 3.0, 2.0, 1.0), {"a": 0.5, "b": 3.0, "c": 0.0, "e": 2.0})
    run = {"q": dict(zip(q.ranking, q.scores, strict=True))}
    res = rankmeter.evaluate({"q": q.qrels}, run, MEASURES, ties="stable", empty="zero")
    want = values(MEASURES, q)
    bad = [(n, g, w) for n, g, w in zip(res.measure_names, res.values[0], want, strict=True) if not abs(g - w) <= 1e-12]
    assert not bad, bad


def test_a_stopping_probability_table_is_read_for_judged_grades_only() -> None:
    # grade 1 would stop with probability 2, but no judged document has grade 1: the unjudged "u" stops nobody
    q = Query(("u", "a"), (2.0, 1.0), {"a": 2})
    res = rankmeter.evaluate({"q": q.qrels}, {"q": {"u": 2.0, "a": 1.0}}, "err(gain={1:2,2:0.5})", ties="stable")
    assert res["err(gain={1:2,2:0.5})"] == pytest.approx(value("err(gain={1:2,2:0.5})", q), abs=1e-15) == 0.25
