"""RBO against the paper's formulas written out and brute force over tie orderings (the rbo package: tests_recsys_oracles)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from tests.agreement.plain import groups_of, orderings, random_lists, rbo_equal_plain, rbo_plain, scores_of


def test_every_form_equals_the_formulas_written_out() -> None:
    a, b = random_lists(np.random.default_rng(3), 30)
    names = ["rbo(p=0.9)", "rbo_min(p=0.9)", "rbo_max(p=0.9)", "rbo_res(p=0.9)"]
    res = rankmeter.similarity(scores_of(a), scores_of(b), names)
    for q in a:
        plain = rbo_plain(a[q], b[q], 0.9)
        for name, form in zip(names, ("ext", "min", "max", "res"), strict=True):
            assert res.by_query(name)[q] == pytest.approx(plain[form], abs=1e-12)
        assert plain["min"] - 1e-12 <= res.by_query("rbo(p=0.9)")[q] <= plain["max"] + 1e-12


def test_a_worked_example() -> None:
    # S = a b c d, T = b a e: X = 0, 2, 2 (depth 3); s = 3, l = 4
    p = 0.9
    ext = (1 - p) / p * (0 * p + 2 / 2 * p**2 + 2 / 3 * p**3 + 2 / 4 * p**4 + 2 * 1 / (3 * 4) * p**4) + (
        (2 - 2) / 4 + 2 / 3
    ) * p**4
    res = rankmeter.similarity({"q": {"a": 4, "b": 3, "c": 2, "d": 1}}, {"q": {"b": 3, "a": 2, "e": 1}}, "rbo(p=0.9)")
    assert res["rbo(p=0.9)"] == pytest.approx(ext, abs=1e-15)


TIED_A = {"a": 3.0, "b": 2.0, "c": 2.0, "d": 2.0, "e": 1.0}
TIED_B = {"c": 5.0, "a": 4.0, "x": 4.0, "b": 1.0, "d": 1.0}


@pytest.mark.parametrize("name", ["rbo(p=0.9)", "rbo_min(p=0.8)", "rbo_prefix(p=0.7)@3", "rbo(p=0.9)@4"])
def test_expected_is_the_mean_over_every_ordering_of_the_tied_items(name: str) -> None:
    got = rankmeter.similarity({"q": TIED_A}, {"q": TIED_B}, name)[name]
    m = rankmeter.similarity({"q": {"x": 1.0}}, {"q": {"x": 1.0}}, name).metadata  # the same parse
    assert m["ties"] == "expected"
    values = []
    for la in orderings(groups_of(TIED_A)):
        for lb in orderings(groups_of(TIED_B)):
            values.append(rankmeter.similarity(scores_of({"q": la}), scores_of({"q": lb}), name, ties="stable")[name])
    assert got == pytest.approx(sum(values) / len(values), abs=1e-12)


def test_max_and_res_of_expected_are_the_means_when_no_group_straddles_the_depth() -> None:
    got = rankmeter.similarity({"q": TIED_A}, {"q": TIED_B}, ["rbo_max(p=0.9)", "rbo_res(p=0.9)"])
    for name in ("rbo_max(p=0.9)", "rbo_res(p=0.9)"):
        values = [
            rankmeter.similarity(scores_of({"q": la}), scores_of({"q": lb}), name, ties="stable")[name]
            for la in orderings(groups_of(TIED_A))
            for lb in orderings(groups_of(TIED_B))
        ]
        assert got[name] == pytest.approx(sum(values) / len(values), abs=1e-12)


def test_a_tie_group_straddling_the_depth_has_no_exact_mean_upper_bound() -> None:
    with pytest.raises(rankmeter.PolicyError, match="query 'q': a tie group straddles the evaluation depth"):
        rankmeter.similarity({"q": TIED_A}, {"q": TIED_B}, "rbo_max(p=0.9)@3")


def test_equal_ties_follow_the_papers_section_4_3() -> None:
    # S = a (b c) d, T = (a b) e: the groups enter whole at their first rank
    s = {"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0}
    t = {"a": 2.0, "b": 2.0, "e": 1.0}
    p = 0.9
    # depth 1: S={a}, T={a,b}: A=2*1/3; depth 2: S={a,b,c}, T={a,b}: A=2*2/5; depth 3: S={a,b,c}, T={a,b,e}: 2*2/6
    # s = 3 (T is the shorter list), l = 4; depth 4: S has 4 items, T counts d=4: A = 2*2/(4+4)
    a = [2 / 3, 4 / 5, 4 / 6, 4 / 8]
    low = (
        (1 - p)
        / p
        * (sum(v * p**d for d, v in enumerate(a, 1)) + 2 * (math.log(1 / (1 - p)) - sum(p**d / d for d in range(1, 5))))
    )
    got = rankmeter.similarity({"q": s}, {"q": t}, "rbo_min(p=0.9)", ties="equal")
    assert got["rbo_min(p=0.9)"] == pytest.approx(low, abs=1e-15)
    assert got.metadata["ties"] == "equal"


@pytest.mark.parametrize("seed", range(10))
def test_equal_ties_on_random_tied_lists_against_the_sets_written_out(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = {f"d{i}": float(rng.integers(0, 4)) for i in rng.permutation(12)[: rng.integers(2, 10)]}
    b = {f"d{i}": float(rng.integers(0, 4)) for i in rng.permutation(12)[: rng.integers(2, 10)]}
    names = ["rbo(p=0.8)", "rbo_min(p=0.8)", "rbo_max(p=0.8)"]
    got = rankmeter.similarity({"q": a}, {"q": b}, names, ties="equal")
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    plain = rbo_equal_plain(groups_of(short), groups_of(long), 0.8)
    for name, form in zip(names, ("ext", "min", "max"), strict=True):
        assert got[name] == pytest.approx(plain[form], abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.sampled_from("abcdefgh"), st.integers(0, 3), min_size=1),
    st.dictionaries(st.sampled_from("abcdefgh"), st.integers(0, 3), min_size=1),
    st.randoms(use_true_random=False),
    st.sampled_from(["expected", "equal", "trec"]),
)
def test_no_value_depends_on_the_input_order_of_tied_items(
    a: dict[str, int], b: dict[str, int], rnd: object, ties: str
) -> None:
    names = ["rbo(p=0.9)", "rbo_min(p=0.8)", "rbo_prefix(p=0.9)@3", "kendall_tau", "rbo(p=0.9)@2"]
    first = rankmeter.similarity({"q": {k: float(v) for k, v in a.items()}}, {"q": b}, names, ties=ties)
    items_a, items_b = list(a.items()), list(b.items())
    rnd.shuffle(items_a)  # type: ignore[attr-defined]
    rnd.shuffle(items_b)  # type: ignore[attr-defined]
    again = rankmeter.similarity({"q": dict(items_a)}, {"q": dict(items_b)}, names, ties=ties)
    np.testing.assert_array_equal(first.values, again.values)


@pytest.mark.parametrize("ties", ["expected", "equal", "trec"])
def test_many_queries_at_once_equal_each_query_alone(ties: str) -> None:
    rng = np.random.default_rng(21)
    a = {
        f"q{q}": {f"d{i}": float(rng.integers(0, 3)) for i in rng.permutation(15)[: rng.integers(1, 12)]}
        for q in range(20)
    }
    b = {
        f"q{q}": {f"d{i}": float(rng.integers(0, 3)) for i in rng.permutation(15)[: rng.integers(1, 12)]}
        for q in range(20)
    }
    names = ["rbo(p=0.9)", "rbo_min(p=0.9)", "rbo_max(p=0.9)", "rbo_res(p=0.9)", "rbo_prefix(p=0.8)@6", "rbo(p=0.8)@6"]
    together = rankmeter.similarity(a, b, names, ties=ties)
    for q in a:
        alone = rankmeter.similarity({q: a[q]}, {q: b[q]}, names, ties=ties)
        for name in names:
            assert together.by_query(name)[q] == pytest.approx(alone[name], abs=1e-14)
