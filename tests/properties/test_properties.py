"""Layer 3: properties (Hypothesis) that hold for every input.

* the order of input rows and of queries does not change any value;
* normalised measures lie in [0, 1];
* the ideal ranking (scores = grades) gives nDCG = 1 (and AP = R-prec = RR = 1);
* recall@k (and the other cumulative measures) never decrease with k;
* pessimistic <= expected <= optimistic;
* parse(str(m)) == m for generated measures;
* the same call twice gives the same result (ties="shuffle" with a seed too);
* ties="expected" equals ties="stable" when no score is tied;
* a measure with many cutoffs equals the separate measures.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import parse
from rankmeter.measures import FAMILIES, GainTable, Jarvelin, measure
from tests.core.families import CORE_FAMILIES

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

TIES = ["trec", "stable", "expected", "shuffle", "optimistic", "pessimistic"]

NORMALISED = [
    "ndcg",
    "ndcg@[1,3,5]",
    "ndcg(gain=exp)@[2,4]",
    "ndcg(discount=jarvelin(2))@3",
    "ndcg(ideal=retrieved)@[1,4]",
    "ndcg(gain={1:5,2:1,3:2})@3",
    "map",
    "map@[2,5]",
    "ap(min_rel=2)",
    "p@[1,3,8]",
    "p(min_rel=2)@2",
    "r@[1,4]",
    "r(min_rel=3)",
    "f1@[2,5]",
    "rr",
    "rr@2",
    "rr(min_rel=2)",
    "rprec",
    "rprec(min_rel=2)",
    "success@[1,3]",
    "judged@[1,5]",
    "err@[1,3]",
    "nerr",
    "nerr@[2,5]",
    "nerr(gain=linear,gmax=5)@3",
]
# Bounds hold where "highest grade first" is the best order: not for judged@k when grades can be
# negative (test_ties_bruteforce checks only pessimistic <= expected <= optimistic there) nor for
# non-monotone gain tables (the ideal is sorted by gain, tied documents by grade).
BOUNDED = [m for m in NORMALISED if not m.startswith(("judged", "ndcg(gain={"))] + [
    "dcg@[1,3]",
    "cg@[2,5]",
    "acg@[1,4]",
    "wap",
    "wap@3",
]
EVERYTHING = NORMALISED + [
    "dcg@[1,3]",
    "dcg(gain=exp)",
    "idcg@3",
    "cg@[2,5]",
    "acg@[1,4]",
    "wap",
    "wap(min_rel=2)@3",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_rel_ret(min_rel=2)",
]

SCORES = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5, -1.0])
GRADES = st.sampled_from([None, -1, 0, 0, 1, 1, 2, 3])  # None = unjudged


@st.composite
def collections_(draw, max_queries: int = 4, max_docs: int = 7, distinct_scores: bool = False):
    """(qrels rows, run rows): lists of (query, doc, grade) and (query, doc, score)."""
    n_queries = draw(st.integers(1, max_queries))
    qrels_rows, run_rows = [], []
    for qi in range(n_queries):
        qid = draw(st.sampled_from(["q", "Q", "10", "9", "a-b", "ü"])) + str(qi)
        n = draw(st.integers(0, max_docs))
        if distinct_scores:
            scores = draw(st.lists(st.floats(-5, 5, allow_nan=False, width=64), min_size=n, max_size=n, unique=True))
        else:
            scores = draw(st.lists(SCORES, min_size=n, max_size=n))
        grades = draw(st.lists(GRADES, min_size=n, max_size=n))
        for j, (s, g) in enumerate(zip(scores, grades, strict=True)):
            doc = f"d{j}"
            run_rows.append((qid, doc, float(s)))
            if g is not None:
                qrels_rows.append((qid, doc, float(g)))
        for j, g in enumerate(draw(st.lists(st.sampled_from([0, 1, 2, 3]), max_size=2))):
            qrels_rows.append((qid, f"x{j}", float(g)))  # judged, never retrieved
        if not any(r[0] == qid for r in qrels_rows):
            qrels_rows.append((qid, "x-none", 0.0))
    return qrels_rows, run_rows


def _frames(qrels_rows, run_rows):
    q = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    return q, r


def _by_query(res) -> dict[str, np.ndarray]:
    return {qid: res.values[i] for i, qid in enumerate(res.query_ids.tolist())}


def _same(a: np.ndarray, b: np.ndarray, tol: float = 1e-12) -> bool:
    return bool(np.allclose(a, b, rtol=0, atol=tol, equal_nan=True))


@SETTINGS
@given(
    data=collections_(),
    perm_seed=st.integers(0, 2**32 - 1),
    ties=st.sampled_from(["trec", "expected", "optimistic", "pessimistic", "shuffle"]),
)
def test_row_and_query_order_do_not_matter(data, perm_seed, ties) -> None:
    qrels_rows, run_rows = data
    rng = np.random.default_rng(perm_seed)
    # Under optimistic/pessimistic, an unjudged and a judged grade-0 document tie on grade too and
    # keep input order; only judged@k can tell them apart, so it is left out for those policies.
    measures = (
        EVERYTHING if ties in ("trec", "expected", "shuffle") else [m for m in EVERYTHING if not m.startswith("judged")]
    )
    q1, r1 = _frames(qrels_rows, run_rows)
    q2, r2 = _frames(
        [qrels_rows[i] for i in rng.permutation(len(qrels_rows))],
        [run_rows[i] for i in rng.permutation(len(run_rows))] if run_rows else [],
    )
    if not run_rows:
        r1 = r2 = pd.DataFrame(
            {
                "query_id": pd.Series([], dtype=str),
                "doc_id": pd.Series([], dtype=str),
                "score": pd.Series([], dtype=float),
            }
        )
    seed = perm_seed if ties == "shuffle" else None  # shuffle keys come from the seed and the ids, not the rows
    a = rankmeter.evaluate(q1, r1, measures, ties=ties, seed=seed)
    b = rankmeter.evaluate(q2, r2, measures, ties=ties, seed=seed)
    assert a.query_ids.tolist() == b.query_ids.tolist() == sorted({r[0] for r in qrels_rows})
    assert _same(a.values, b.values)
    for name in a.measure_names:
        assert a.aggregate[name] == pytest.approx(b.aggregate[name], abs=1e-12, nan_ok=True)


@SETTINGS
@given(data=collections_(), ties=st.sampled_from(TIES), empty=st.sampled_from(["zero", "one", "nan", "skip"]))
def test_normalised_measures_lie_in_unit_interval(data, ties, empty) -> None:
    q, r = _frames(*data)
    res = rankmeter.evaluate(q, r, NORMALISED, ties=ties, empty=empty, seed=3)
    v = res.values[res.included & ~np.isnan(res.values)]
    assert np.all((v >= 0) & (v <= 1))
    for name, value in res.aggregate.items():
        assert math.isnan(value) or 0 <= value <= 1, name


@settings(max_examples=300, deadline=None, database=None)
@given(
    lists=st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=9), min_size=1),
    ties=st.sampled_from(["expected", "stable"]),
)
def test_tied_rankings_never_pass_one(lists, ties) -> None:
    """DCG and IDCG (and a tie group's expected count) are summed in different orders: no value above 1."""
    grades = [[g for g, _ in row] for row in lists]
    scores = [[float(s) for _, s in row] for row in lists]
    names = ["ndcg", "ndcg@[1,3,4]", "ndcg(ideal=retrieved)@[2,4]", "r", "r@[2,5]", "p@[1,3]", "rprec", "f1@4"]
    res = rankmeter.evaluate_lists(grades, scores, names, ties=ties)
    v = res.values[~np.isnan(res.values)]
    assert np.all((v >= 0) & (v <= 1))


@pytest.mark.parametrize(
    ("grades", "scores", "name", "ties"),
    [
        # DCG@4 6.754142376861159, IDCG@4 6.754142376861158: the same gains summed in other orders
        ([3, 2, 2, 0, 3, 1], [2, 1, 1, 0, 2, 0], "ndcg(ideal=retrieved)@4", "stable"),
        ([3, 2, 2, 0, 3, 1], [2, 1, 1, 0, 2, 0], "ndcg(ideal=retrieved)@4", "expected"),
        # six tied items with one relevant: 1/6 six times adds up to 1.0000000000000002
        ([1, 0, 0, 0, 0, 1, 0, 1], [0, 0, 0, 0, 0, 1, 0, 1], "r", "expected"),
    ],
)
def test_a_ranking_as_good_as_the_ideal_scores_exactly_one(grades, scores, name, ties) -> None:
    assert rankmeter.evaluate_lists([grades], [scores], name, ties=ties)[name] == 1.0


@SETTINGS
@given(
    grades=st.lists(st.lists(st.integers(-1, 4), min_size=1, max_size=8), min_size=1, max_size=5),
    ties=st.sampled_from(["expected", "stable", "optimistic", "pessimistic", "shuffle"]),
)
def test_normalised_measures_lie_in_unit_interval_ragged(grades, ties) -> None:
    scores = [[float((7 * i + 3 * j) % 4) for j in range(len(g))] for i, g in enumerate(grades)]
    res = rankmeter.evaluate_lists(grades, scores, NORMALISED, ties=ties, seed=0)
    assert np.all((res.values >= 0) & (res.values <= 1))


@SETTINGS
@given(
    grades=st.lists(st.lists(st.integers(-1, 4), min_size=1, max_size=8), min_size=1, max_size=5),
    ties=st.sampled_from(["expected", "stable", "optimistic", "pessimistic", "shuffle", "trec"]),
)
def test_ideal_ranking_gives_one_ragged(grades, ties) -> None:
    scores = [[float(x) for x in g] for g in grades]
    measures = [
        "ndcg",
        "ndcg@[1,2,5]",
        "ndcg(ideal=retrieved)@[1,3]",
        "ndcg(gain=exp)@2",
        "ndcg(discount=jarvelin(2))@3",
        "map",
        "rprec",
        "rr",
        "nerr",
        "nerr@[1,3]",
    ]
    res = rankmeter.evaluate_lists(grades, scores, measures, ties=ties, empty="nan", seed=1)
    has_relevant = np.array([any(x > 0 for x in g) for g in grades])
    assert np.allclose(res.values[has_relevant], 1.0, rtol=0, atol=1e-12)
    assert np.isnan(res.values[~has_relevant]).all()


@SETTINGS
@given(data=collections_(), ties=st.sampled_from(["trec", "stable", "expected", "optimistic", "pessimistic"]))
def test_ideal_ranking_gives_one_with_judged_ideal(data, ties) -> None:
    # every judged document retrieved with score = grade, unjudged documents below everything
    qrels_rows, run_rows = data
    judged = {(qq, d): g for qq, d, g in qrels_rows}
    retrieved = {(qq, d) for qq, d, _ in run_rows}
    run = [(qq, d, g) for (qq, d), g in judged.items()]
    run += [(qq, d, -10.0) for qq, d in retrieved if (qq, d) not in judged]
    q, r = _frames(qrels_rows, run)
    measures = ["ndcg", "ndcg@[1,2,5,20]", "ndcg(gain=exp)@3", "map", "map@20", "rprec", "rr", "r@20", "nerr@[1,5]"]
    res = rankmeter.evaluate(q, r, measures, ties=ties, empty="skip")
    for qi, qid in enumerate(res.query_ids.tolist()):
        has_relevant = any(g > 0 for (qq, _), g in judged.items() if qq == qid)
        if has_relevant:
            assert np.allclose(res.values[qi], 1.0, rtol=0, atol=1e-12), qid
            assert res.included[qi].all()
        else:
            assert not res.included[qi].any()


CUMULATIVE = ["r", "success", "cg", "dcg", "num_rel_ret", "rr"]


@SETTINGS
@given(data=collections_(max_docs=8), ties=st.sampled_from(TIES))
def test_cumulative_measures_do_not_decrease_with_k(data, ties) -> None:
    q, r = _frames(*data)
    ks = list(range(1, 11))
    measures = [f"{fam}@[{','.join(map(str, ks))}]" for fam in ("r", "success", "cg", "dcg", "rr")]
    measures += [f"r(min_rel=2)@[{','.join(map(str, ks))}]", f"p@[{','.join(map(str, ks))}]"]
    res = rankmeter.evaluate(q, r, measures, ties=ties, seed=11)
    for fam in ("r", "success", "cg", "dcg", "r(min_rel=2)"):
        cols = [res.measure_names.index(f"{fam}@{k}") for k in ks]
        block = res.values[:, cols]
        assert np.all(np.diff(block, axis=1) >= -1e-12), fam
    # k * p@k is the number of relevant documents in the top k: non-decreasing as well
    cols = [res.measure_names.index(f"p@{k}") for k in ks]
    counts = res.values[:, cols] * np.array(ks)
    assert np.all(np.diff(counts, axis=1) >= -1e-9)
    # rr@k is non-decreasing in k and reaches rr
    rr_cols = [res.measure_names.index(f"rr@{k}") for k in ks]
    assert np.all(np.diff(res.values[:, rr_cols], axis=1) >= -1e-12)


@SETTINGS
@given(data=collections_(max_docs=8))
def test_pessimistic_expected_optimistic_order(data) -> None:
    q, r = _frames(*data)
    got = {t: rankmeter.evaluate(q, r, BOUNDED, ties=t).values for t in ("pessimistic", "expected", "optimistic")}
    assert np.all(got["pessimistic"] <= got["expected"] + 1e-12)
    assert np.all(got["expected"] <= got["optimistic"] + 1e-12)
    # every deterministic order lies between the bounds as well
    for t in ("trec", "stable", "shuffle"):
        v = rankmeter.evaluate(q, r, BOUNDED, ties=t, seed=5).values
        assert np.all(got["pessimistic"] <= v + 1e-12) and np.all(v <= got["optimistic"] + 1e-12), t


# --- measures -------------------------------------------------------------------------------------
NUMBER = st.one_of(st.integers(-3, 10), st.floats(-5, 10, allow_nan=False, allow_infinity=False, width=64))
PARAM_VALUES = {
    "gain": st.one_of(
        st.sampled_from(["linear", "exp"]), st.dictionaries(NUMBER, NUMBER, min_size=1, max_size=4).map(GainTable.of)
    ),
    "discount": st.one_of(
        st.just("log2"),
        st.floats(1.01, 20, allow_nan=False).map(Jarvelin),
        st.integers(2, 10).map(lambda b: Jarvelin(float(b))),
    ),
    "ideal": st.sampled_from(["judged", "retrieved"]),
    "min_rel": NUMBER,
    "divisor": st.sampled_from(["k", "min"]),
    "gmax": st.one_of(st.integers(1, 10), st.floats(0.5, 12, allow_nan=False)),
}


@st.composite
def measures_(draw):
    family = FAMILIES[draw(st.sampled_from(CORE_FAMILIES))]
    params = {}
    for name in family.params:
        if name in PARAM_VALUES and draw(st.booleans()):
            params[name] = draw(PARAM_VALUES[name])
    cutoffs = None
    if family.cutoff == "required" or (family.cutoff == "optional" and draw(st.booleans())):
        if draw(st.booleans()):
            cutoffs = draw(st.integers(1, 1000))
        else:
            cutoffs = draw(st.lists(st.integers(1, 1000), min_size=1, max_size=5))
    return measure(family.name, cutoffs, **params)


@settings(max_examples=200, deadline=None, database=None)
@given(m=measures_())
def test_parse_str_round_trip(m) -> None:
    text = str(m)
    again = parse(text)
    assert again == m
    assert str(again) == text
    # family names are case-insensitive
    head = len(m.family)
    assert parse(text[:head].upper() + text[head:]) == m
    # every expanded single-cutoff measure round-trips as well
    for single in m.expand():
        assert parse(str(single)) == single


@SETTINGS
@given(data=collections_(), ties=st.sampled_from(TIES), seed=st.integers(0, 1000))
def test_same_call_twice_same_result(data, ties, seed) -> None:
    q, r = _frames(*data)
    a = rankmeter.evaluate(q, r, EVERYTHING, ties=ties, seed=seed)
    b = rankmeter.evaluate(q, r, EVERYTHING, ties=ties, seed=seed)
    assert np.array_equal(a.values, b.values, equal_nan=True)
    assert np.array_equal(a.included, b.included)
    assert a.to_json() == b.to_json()
    grades = [[max(g, 0) for _, _, g in data[0]] or [0.0]]
    scores = [[float(i % 3) for i in range(len(grades[0]))]]
    c = rankmeter.evaluate_arrays(grades, scores, EVERYTHING, ties=ties if ties != "trec" else "expected", seed=seed)
    d = rankmeter.evaluate_arrays(grades, scores, EVERYTHING, ties=ties if ties != "trec" else "expected", seed=seed)
    assert np.array_equal(c.values, d.values, equal_nan=True)


@SETTINGS
@given(data=collections_(distinct_scores=True))
def test_expected_equals_stable_without_ties(data) -> None:
    q, r = _frames(*data)
    res = {t: rankmeter.evaluate(q, r, EVERYTHING, ties=t) for t in ("expected", "stable", "trec", "optimistic")}
    assert res["expected"].metadata["queries_with_ties"] == 0
    for t in ("stable", "trec", "optimistic"):
        assert _same(res["expected"].values, res[t].values, 1e-12), t


@SETTINGS
@given(grades=st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=8), min_size=1, max_size=4), data=st.data())
def test_expected_equals_stable_without_ties_ragged(grades, data) -> None:
    scores = [
        data.draw(st.lists(st.floats(-100, 100, allow_nan=False), min_size=len(g), max_size=len(g), unique=True))
        for g in grades
    ]
    a = rankmeter.evaluate_lists(grades, scores, EVERYTHING, ties="expected")
    b = rankmeter.evaluate_lists(grades, scores, EVERYTHING, ties="stable")
    assert _same(a.values, b.values, 1e-12)


SPLIT = [
    "ndcg",
    "ndcg(gain=exp)",
    "dcg",
    "cg",
    "idcg",
    "map",
    "p",
    "r",
    "f1",
    "rr",
    "success",
    "judged",
    "acg",
    "wap",
    "p(min_rel=2)",
]


@SETTINGS
@given(
    data=collections_(),
    ks=st.lists(st.integers(1, 12), min_size=1, max_size=5, unique=True),
    ties=st.sampled_from(TIES),
)
def test_many_cutoffs_equal_separate_measures(data, ks, ties) -> None:
    q, r = _frames(*data)
    together = [f"{fam}@[{','.join(map(str, ks))}]" for fam in SPLIT]
    separate = [f"{fam}@{k}" for fam in SPLIT for k in ks]
    a = rankmeter.evaluate(q, r, together, ties=ties, seed=2)
    b = rankmeter.evaluate(q, r, separate, ties=ties, seed=2)
    assert a.measure_names == b.measure_names == separate
    assert np.array_equal(a.values, b.values, equal_nan=True)
    assert a.aggregate == pytest.approx(b.aggregate, nan_ok=True)


def test_success_under_expected_ties_never_rounds_above_one() -> None:
    # found by Hypothesis: a tied group of five holding all three relevant documents; the first-hit
    # probabilities within the top 3 (0.6 + 0.3 + 0.1) summed to 1 + 2e-16
    qrels = {"q0": {"d3": 1, "d4": 1, "d5": 1}}
    run = {"q0": {"d0": 0.0, "d1": 1.0, "d2": 1.0, "d3": 1.0, "d4": 1.0, "d5": 1.0}}
    res = rankmeter.evaluate(qrels, run, ["success@3", "success@1"], ties="expected")
    assert res["success@3"] == 1.0
    assert abs(res["success@1"] - 3 / 5) < 1e-12
