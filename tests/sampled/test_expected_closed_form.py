"""``sampled_negatives=``: the closed form against every draw of the negatives and against sampling.

The reference values never use the closed form: each sampled list is built
and measured by ``evaluate_arrays`` itself (the ordinary full-list path), over
every subset of negatives (small catalogues) or over 10^5 random draws.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import rankmeter

MEASURES = ["ndcg@3", "ndcg", "dcg@2", "cg@3", "map", "map@3", "map(divisor=min)@2", "ap(divisor=k)@3",
            "p@3", "p(divisor=min)@4", "r@2", "f1@3", "rr", "rr@2", "success@1", "success@3", "rprec",
            "ndcg(gain=exp,discount=jarvelin(3))@4", "ndcg(ideal=retrieved)@3", "f1", "ap(divisor=k)", "dcg", "cg"]  # fmt: skip


def _sublists(y: np.ndarray, keep: np.ndarray, n: int, sampling: str) -> list[list[list[int]]]:
    """For each row, the groups of sampled lists (columns in their original order) whose mean is the value."""
    out = []
    for row in range(y.shape[0]):
        pos = [c for c in range(y.shape[1]) if keep[row, c] and y[row, c] > 0]
        neg = [c for c in range(y.shape[1]) if keep[row, c] and y[row, c] <= 0]
        draws = [list(d) for d in itertools.combinations(neg, n)]
        heads = [[p] for p in pos] if sampling == "per_positive" else [pos]
        out.append([[sorted(h + d) for d in draws] for h in heads])
    return out


def brute_force(y: np.ndarray, s: np.ndarray, keep: np.ndarray, measures: list[str], n: int, sampling: str,
                ties: str) -> np.ndarray:  # fmt: skip
    """Each row's value: the mean, over its relevant items (per_positive) of the mean over every draw."""
    values = np.zeros((y.shape[0], len(rankmeter.evaluate_arrays([[1]], [[1.0]], measures).measure_names)))
    for row, groups in enumerate(_sublists(y, keep, n, sampling)):
        if not groups or not groups[0]:
            continue
        per_head = []
        for lists in groups:
            cols = np.array(lists)
            res = rankmeter.evaluate_arrays(y[row, cols], s[row, cols], measures, ties=ties)
            per_head.append(res.values.mean(axis=0))
        heads = np.array(per_head)  # a head whose own nDCG is undefined (gain 0) is left out of its row's mean
        defined = (~np.isnan(heads)).sum(axis=0)
        values[row] = np.where(defined > 0, np.nansum(heads, axis=0) / np.maximum(defined, 1), np.nan)
    return values


def _case(seed: int, rows: int, cols: int, levels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.choice([0.0, 0.0, 0.0, 1.0, 2.0, -1.0], size=(rows, cols))
    s = rng.integers(0, levels, size=(rows, cols)).astype(np.float64)  # few levels: ties everywhere
    keep = rng.random((rows, cols)) > 0.15
    return y, s, keep


@pytest.mark.parametrize("ties", ["expected", "stable", "trec", "optimistic", "pessimistic"])
@pytest.mark.parametrize("sampling", ["per_positive", "shared"])
def test_closed_form_equals_the_mean_over_every_subset_of_negatives(ties: str, sampling: str) -> None:
    y, s, keep = _case(7, 5, 9, 3)
    for n in (1, 2, 3):
        available = ((y <= 0) & keep).sum(axis=1)
        rows = available >= n
        got = rankmeter.evaluate_arrays(y[rows], s[rows], MEASURES, mask=keep[rows], sampled_negatives=n,
                                        sampling=sampling, ties=ties)  # fmt: skip
        want = brute_force(y[rows], s[rows], keep[rows], MEASURES, n, sampling, ties)
        np.testing.assert_allclose(got.values, want, rtol=0, atol=1e-12)


def test_closed_form_without_ties_and_with_exclude_against_every_subset() -> None:
    import scipy.sparse

    rng = np.random.default_rng(3)
    y = (rng.random((4, 10)) < 0.3).astype(np.float64) * rng.integers(1, 4, (4, 10))
    s = rng.standard_normal((4, 10))
    seen = rng.random((4, 10)) < 0.2
    got = rankmeter.evaluate_arrays(y, s, MEASURES, exclude=scipy.sparse.csr_array(seen.astype(float)),
                                    sampled_negatives=3, sampling="shared")  # fmt: skip
    want = brute_force(y, s, ~seen, MEASURES, 3, "shared", "expected")
    np.testing.assert_allclose(got.values, want, rtol=0, atol=1e-12)
    assert got.metadata["semantics"]["candidates"] == "exclude"


@pytest.mark.parametrize("sampling", ["per_positive", "shared"])
@pytest.mark.parametrize("tied", [False, True])
def test_closed_form_against_monte_carlo_with_1e5_draws(sampling: str, tied: bool) -> None:
    rng = np.random.default_rng(11)
    m, n, draws = 120, 15, 100_000
    y = np.zeros(m)
    y[rng.choice(m, 4, replace=False)] = [1.0, 1.0, 2.0, 3.0]
    s = np.round(rng.standard_normal(m), 1 if tied else 12)
    measures = ["ndcg@10", "map", "rr", "r@5"]
    exact = rankmeter.evaluate_arrays(y[None], s[None], measures, sampled_negatives=n, sampling=sampling).values[0]
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y <= 0)
    # every draw: n negatives without replacement (the first n of a random permutation of the negatives)
    picks = np.argsort(rng.random((draws, len(neg))), axis=1)[:, :n]
    heads = [pos[i : i + 1] for i in range(len(pos))] if sampling == "per_positive" else [pos]
    per_draw = np.zeros((draws, len(measures)))
    for head in heads:  # per_positive: an independent draw for each relevant item
        order = rng.permutation(draws)
        cols = np.concatenate([np.broadcast_to(head, (draws, len(head))), neg[picks[order]]], axis=1)
        per_draw += rankmeter.evaluate_arrays(y[cols], s[cols], measures).values / len(heads)
    mean, se = per_draw.mean(axis=0), per_draw.std(axis=0, ddof=1) / np.sqrt(draws)
    assert np.all(np.abs(mean - exact) <= 3 * se), (mean, exact, se)
    assert np.all(se > 0)


def test_every_negative_gives_the_full_catalogue_value_and_it_is_reported_beside() -> None:
    y, s, keep = _case(5, 6, 12, 4)
    n_all = int(((y <= 0) & keep).sum(axis=1).min())
    rows = ((y <= 0) & keep).sum(axis=1) == n_all
    res = rankmeter.evaluate_arrays(y[rows], s[rows], MEASURES, mask=keep[rows], sampled_negatives=n_all,
                                    sampling="shared")  # fmt: skip
    full = rankmeter.evaluate_arrays(y[rows], s[rows], MEASURES, mask=keep[rows])
    np.testing.assert_allclose(res.values, full.values, rtol=0, atol=1e-12)
    assert res.metadata["full_catalogue"] == full.aggregate
    assert res.metadata["sampled"]["negatives"] == n_all


def test_a_worked_value_written_as_a_formula() -> None:
    # one relevant item below 3 of 5 negatives; 2 sampled: ranks 1, 2, 3 with probabilities 0.1, 0.6, 0.3
    y = np.array([[0.0, 0, 0, 1, 0, 0]])
    s = np.array([[0.9, 0.8, 0.7, 0.5, 0.2, 0.1]])
    res = rankmeter.evaluate_arrays(y, s, ["rr", "ndcg@2", "success@1"], sampled_negatives=2)
    assert res["rr"] == pytest.approx(0.1 + 0.6 / 2 + 0.3 / 3, abs=1e-15)
    assert res["ndcg@2"] == pytest.approx(0.1 + 0.6 / np.log2(3), abs=1e-15)
    assert res["success@1"] == pytest.approx(0.1, abs=1e-15)
    assert res.metadata["full_catalogue"]["rr"] == 0.25
    assert res.metadata["semantics"]["sampling"] == "per_positive"


@pytest.mark.parametrize("sampling", ["per_positive", "shared"])
def test_a_fractional_grade_is_normalised_by_its_own_ideal(sampling: str) -> None:
    # the same list with grade 0.5: DCG and IDCG both halve, nDCG is the value of grade 1 (0.1 + 0.6 / log2 3)
    y = np.array([[0.0, 0, 0, 0.5, 0, 0]])
    s = np.array([[0.9, 0.8, 0.7, 0.5, 0.2, 0.1]])
    res = rankmeter.evaluate_arrays(y, s, ["ndcg@2", "dcg@2"], sampled_negatives=2, sampling=sampling)
    assert res["ndcg@2"] == pytest.approx(0.1 + 0.6 / np.log2(3), abs=1e-15)
    assert res["dcg@2"] == pytest.approx(0.5 * (0.1 + 0.6 / np.log2(3)), abs=1e-15)


@pytest.mark.parametrize("sampling", ["per_positive", "shared"])
def test_a_relevant_item_tied_with_many_negatives_against_every_subset(sampling: str) -> None:
    # 18 negatives tied with the relevant items of row 0 (the O(n) form for many tied negatives), and
    # row 1 with two relevant items tied with each other and with 17 negatives
    y = np.zeros((2, 24))
    y[0, 5] = 1.0
    y[1, [3, 9]] = [1.0, 2.0]
    s = np.full((2, 24), 0.5)
    s[:, :3] = [0.9, 0.8, 0.7]
    s[:, 21:] = 0.1
    for n in (2, 3):
        got = rankmeter.evaluate_arrays(y, s, MEASURES, sampled_negatives=n, sampling=sampling)
        want = brute_force(y, s, np.ones(y.shape, dtype=bool), MEASURES, n, sampling, "expected")
        np.testing.assert_allclose(got.values, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("sampling", ["per_positive", "shared"])
def test_ndcg_is_undefined_where_the_ideal_dcg_is_zero_as_on_the_full_catalogue(sampling: str) -> None:
    """Grade 1 gains 0: a list whose relevant items are all of grade 1 has no nDCG (NaN, counted undefined);
    under per_positive a grade-1 positive is left out of its list's mean."""
    rng = np.random.default_rng(11)
    y = rng.choice([0.0, 0.0, 0.0, 1.0, 2.0], size=(8, 8))
    y[0] = [1, 0, 0, 0, 0, 0, 0, 1]  # only gain-0 positives
    y[1] = [2, 1, 0, 0, 0, 0, 0, 0]  # one of each
    s = rng.integers(0, 3, size=(8, 8)).astype(np.float64)
    keep = np.ones_like(y, dtype=bool)
    measures = ["ndcg(gain={1:0,2:1})", "ndcg(gain={1:0,2:1})@3"]
    got = rankmeter.evaluate_arrays(y, s, measures, sampled_negatives=2, sampling=sampling)
    want = brute_force(y, s, keep, measures, 2, sampling, "expected")
    np.testing.assert_allclose(got.values, want, rtol=0, atol=1e-12)
    assert np.isnan(got.values[0]).all() and not np.isnan(got.values[1]).any()
    full = rankmeter.evaluate_arrays(y, s, measures)
    assert np.isnan(full.values[0]).all()
    undefined = int(np.isnan(got.values[:, 0]).sum())
    assert got.metadata["queries_undefined"][measures[0]] == undefined >= 1
