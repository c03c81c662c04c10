"""Kendall's tau against scipy, tau_AP against the paper's formula in plain Python, system orderings."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import rankmeter
from tests.agreement.plain import groups_of, orderings, tau_ap_plain


def _run(lists: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    return {q: {doc: float(len(docs) - i) for i, doc in enumerate(docs)} for q, docs in lists.items()}


def test_kendall_tau_is_scipys_tau_b_over_the_shared_documents_with_ties() -> None:
    rng = np.random.default_rng(5)
    a = {f"q{q}": {f"d{i}": float(rng.integers(0, 4)) for i in rng.permutation(20)[:15]} for q in range(30)}
    b = {f"q{q}": {f"d{i}": float(rng.integers(0, 4)) for i in rng.permutation(20)[:15]} for q in range(30)}
    res = rankmeter.similarity(a, b, "kendall_tau", ties="equal")
    for q in a:
        shared = sorted(set(a[q]) & set(b[q]))
        want = stats.kendalltau([a[q][d] for d in shared], [b[q][d] for d in shared]).statistic
        got = res.by_query("kendall_tau").get(q, float("nan"))
        assert got == pytest.approx(want, abs=1e-12, nan_ok=True)


def test_kendall_tau_at_k_uses_the_documents_both_top_k_lists_hold() -> None:
    a = {"q": ["a", "b", "c", "d", "e"]}
    b = {"q": ["c", "a", "x", "b", "e"]}
    res = rankmeter.similarity(_run(a), _run(b), "kendall_tau@3")
    # top 3: {a, b, c} and {c, a, x}: shared a, c in orders (a, c) and (c, a)
    assert res["kendall_tau@3"] == -1.0
    assert rankmeter.similarity(_run(a), _run(b), "kendall_tau")["kendall_tau"] == pytest.approx(
        stats.kendalltau([5, 4, 3, 1], [4, 2, 5, 1]).statistic, abs=1e-15
    )


def test_expected_kendall_tau_is_the_mean_over_every_ordering_of_the_tied_items() -> None:
    sa = {"a": 3.0, "b": 2.0, "c": 2.0, "d": 2.0, "e": 1.0}
    sb = {"c": 5.0, "a": 4.0, "e": 4.0, "b": 1.0, "d": 1.0}
    got = rankmeter.similarity({"q": sa}, {"q": sb}, "kendall_tau")["kendall_tau"]
    taus = [
        stats.kendalltau([la.index(d) for d in "abcde"], [lb.index(d) for d in "abcde"]).statistic
        for la in orderings(groups_of(sa))
        for lb in orderings(groups_of(sb))
    ]
    assert got == pytest.approx(float(np.mean(taus)), abs=1e-12)


def test_tau_ap_equals_the_papers_formula() -> None:
    rng = np.random.default_rng(6)
    for _ in range(30):
        items = [f"d{i}" for i in range(int(rng.integers(2, 12)))]
        ref, other = list(rng.permutation(items)), list(rng.permutation(items))
        res = rankmeter.similarity(_run({"q": ref}), _run({"q": other}), "tau_ap")
        assert res["tau_ap"] == pytest.approx(tau_ap_plain(ref, other), abs=1e-12)


def test_tau_ap_is_not_scipys_weightedtau() -> None:
    ref, other = list("abcdef"), list("badcfe")
    ours = rankmeter.similarity(_run({"q": ref}), _run({"q": other}), "tau_ap")["tau_ap"]
    assert ours == pytest.approx(tau_ap_plain(ref, other), abs=1e-15)
    x = [6 - ref.index(d) for d in ref]
    y = [6 - other.index(d) for d in ref]
    assert abs(stats.weightedtau(x, y).statistic - ours) > 0.05


def test_tau_ap_of_a_list_with_itself_and_reversed() -> None:
    items = list("abcdef")
    assert rankmeter.similarity(_run({"q": items}), _run({"q": items}), "tau_ap")["tau_ap"] == 1.0
    assert rankmeter.similarity(_run({"q": items}), _run({"q": items[::-1]}), "tau_ap")["tau_ap"] == -1.0


def test_tau_ap_with_tied_documents_is_a_located_error() -> None:
    with pytest.raises(rankmeter.PolicyError, match="query 'q': tau_ap needs strict orderings and the second"):
        rankmeter.similarity({"q": {"a": 2.0, "b": 1.0}}, {"q": {"a": 1.0, "b": 1.0}}, "tau_ap")


def test_fewer_than_two_shared_documents_is_undefined_and_counted() -> None:
    res = rankmeter.similarity(
        {"q1": {"a": 1.0}, "q2": {"a": 2, "b": 1}},
        {"q1": {"a": 1.0}, "q2": {"b": 2, "a": 1}},
        ["kendall_tau", "rbo(p=0.9)"],
    )
    assert res.by_query("kendall_tau") == {"q2": -1.0}
    assert res.by_query("rbo(p=0.9)").keys() == {"q1", "q2"}  # defined for both: not listed below
    assert res.metadata["queries_undefined"] == {"kendall_tau": 1}  # the key every entry point uses


def _systems(values: dict[str, float]) -> rankmeter.SystemResults:
    qrels = {"q": {"rel": 1}}
    runs = {name: {"q": {"rel": v, "other": 0.5}} for name, v in values.items()}
    return rankmeter.evaluate(qrels, runs, "rr")


def test_system_correlation_reads_system_results() -> None:
    a = _systems({"s1": 1.0, "s2": 0.1, "s3": 0.2, "s4": 0.9})  # rr: 1, 0.5, 0.5, 1
    b = {"s1": {"map": 0.4}, "s2": {"map": 0.1}, "s3": {"map": 0.3}, "s4": {"map": 0.2}}
    ra = [1.0, 0.5, 0.5, 1.0]
    rb = [0.4, 0.1, 0.3, 0.2]
    assert rankmeter.system_correlation(a, b) == pytest.approx(stats.kendalltau(ra, rb).statistic, abs=1e-15)


def test_system_tau_ap_against_the_formula() -> None:
    a = {"s1": {"m": 0.5}, "s2": {"m": 0.4}, "s3": {"m": 0.3}, "s4": {"m": 0.2}}
    b = {"s1": {"m": 0.1}, "s2": {"m": 0.4}, "s3": {"m": 0.35}, "s4": {"m": 0.2}}
    want = tau_ap_plain(["s1", "s2", "s3", "s4"], ["s2", "s3", "s4", "s1"])
    assert rankmeter.system_correlation(a, b, "tau_ap") == pytest.approx(want, abs=1e-15)


def test_system_correlation_errors() -> None:
    a = {"s1": {"m": 0.5, "n": 0.1}, "s2": {"m": 0.4, "n": 0.2}}
    b = {"s1": {"m": 0.5}, "s3": {"m": 0.4}}
    with pytest.raises(rankmeter.RankmeterError, match="results_a holds 2 measures"):
        rankmeter.system_correlation(a, b)
    with pytest.raises(rankmeter.RankmeterError, match="system 's2' is in only one of"):
        rankmeter.system_correlation(a, b, measure_a="m")
    with pytest.raises(rankmeter.PolicyError, match="unknown correlation policy 'rho'"):
        rankmeter.system_correlation(a, b, "rho")
    with pytest.raises(rankmeter.RankmeterError, match="results_b: system 's1' has no value for measure 'n'"):
        rankmeter.system_correlation(a, b, measure_a="m", measure_b="n")
    with pytest.raises(rankmeter.RankmeterError, match="results_b: system 'y' has m = nan; it cannot be ranked"):
        rankmeter.system_correlation({"x": {"m": 1.0}, "y": {"m": 2.0}}, {"x": {"m": 1.0}, "y": {"m": float("nan")}})
    with pytest.raises(rankmeter.PolicyError, match="systems: tau_ap needs strict orderings and the first"):
        rankmeter.system_correlation({"x": {"m": 1.0}, "y": {"m": 1.0}}, {"x": {"m": 1.0}, "y": {"m": 2.0}}, "tau_ap")


@pytest.mark.parametrize("n", [2, 7, 256, 257, 1500])
def test_kendall_tau_by_sorting_and_by_every_pair_equal_scipy_with_ties(
    n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ways of counting (every pair; sorting, above tau.PAIRS_MAX items) give scipy's tau_b, heavy ties included."""
    from rankmeter.agreement import tau

    rng = np.random.default_rng(n)
    for levels in (2, 5, 10 * n):
        x = rng.integers(0, levels, n).astype(float)
        y = (x + rng.integers(0, 3, n)).astype(float)
        want = stats.kendalltau(x, y).statistic
        by_default = np.array([tau.kendall_tau(x, y), tau.kendall_tau(x, y, ties="expected")])
        for pairs_max in (0, 10**6):  # always by sorting; always every pair
            monkeypatch.setattr(tau, "PAIRS_MAX", pairs_max)
            both = np.array([tau.kendall_tau(x, y), tau.kendall_tau(x, y, ties="expected")])
            assert np.array_equal(both, by_default, equal_nan=True)
        monkeypatch.undo()
        assert by_default[0] == pytest.approx(want, abs=1e-12, nan_ok=True)


def test_greater_before_counts_the_earlier_greater_values() -> None:
    from rankmeter.agreement.tau import greater_before

    rng = np.random.default_rng(9)
    for n in (0, 1, 300, 700):
        v = rng.integers(0, 40, n).astype(float)
        want = [sum(v[i] > v[j] for i in range(j)) for j in range(n)]
        assert greater_before(v).tolist() == want


def test_tau_ap_on_long_lists_equals_the_papers_formula() -> None:
    rng = np.random.default_rng(10)
    items = [f"d{i}" for i in range(400)]  # above tau.PAIRS_MAX: counted by sorting
    ref, other = list(rng.permutation(items)), list(rng.permutation(items))
    res = rankmeter.similarity(_run({"q": ref}), _run({"q": other}), "tau_ap")
    assert res["tau_ap"] == pytest.approx(tau_ap_plain(ref, other), abs=1e-12)


def test_kendall_tau_of_nan_is_nan_and_equal_infinities_are_tied() -> None:
    from rankmeter.agreement.tau import kendall_tau

    assert np.isnan(kendall_tau(np.array([1.0, np.nan, 2.0]), np.array([1.0, 2.0, 3.0])))
    for n in (4, 400):
        x = np.arange(n, dtype=float)
        x[:2] = np.inf
        y = np.arange(n, dtype=float)[::-1].copy()
        assert kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
