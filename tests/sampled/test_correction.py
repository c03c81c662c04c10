"""``rankmeter.sampled.correct``: Krichene & Rendle's corrected estimates from sampled ranks."""

from __future__ import annotations

from math import comb, log2

import numpy as np
import pytest

import rankmeter
from rankmeter.measures import parse
from rankmeter.sampled import correct, correction, sampled_rank_law


def test_the_sampled_rank_law_written_out() -> None:
    # full rank r among n = 6 items (5 negatives, r - 1 above it), m = 3 drawn
    law = sampled_rank_law(3, 6)
    for r in range(1, 7):
        for below in range(4):
            want = comb(r - 1, below) * comb(6 - r, 3 - below) / comb(5, 3)
            assert law[r - 1, below] == pytest.approx(want, abs=1e-14)
    with_replacement = sampled_rank_law(3, 6, replacement=True)
    for r in range(1, 7):
        p = (r - 1) / 5
        for below in range(4):
            assert with_replacement[r - 1, below] == pytest.approx(comb(3, below) * p**below * (1 - p) ** (3 - below))


def test_the_posterior_mean_at_gamma_one_written_out() -> None:
    n, m = 7, 2
    law = sampled_rank_law(m, n)
    ndcg = np.array([1 / log2(r + 1) if r <= 3 else 0.0 for r in range(1, n + 1)])
    want = (law * ndcg[:, None]).sum(axis=0) / law.sum(axis=0)
    np.testing.assert_allclose(correction("ndcg@3", m, n, gamma=1.0), want, rtol=1e-12)


@pytest.mark.parametrize("gamma", [0.0, 0.3, 1.0])
def test_with_every_negative_sampled_the_correction_is_the_measure_itself(gamma: float) -> None:
    n = 12
    want = [1 / r for r in range(1, n + 1)]
    np.testing.assert_allclose(correction("rr", n - 1, n, gamma=gamma), want, rtol=1e-9, atol=1e-12)


def test_minimal_bias_is_the_weighted_least_squares_solution() -> None:
    n, m = 40, 5
    law = sampled_rank_law(m, n)
    target = np.array([1.0 if r <= 10 else 0.0 for r in range(1, n + 1)])
    x = correction("r@10", m, n, gamma=0.0)
    # the normal equations of min ||A x - M||^2 (uniform weights)
    np.testing.assert_allclose(law.T @ law @ x, law.T @ target, rtol=1e-6, atol=1e-9)


def _two_models(rng: np.random.Generator, n_users: int, n_items: int) -> dict[str, np.ndarray]:
    """A "sharp" model (40% of held-out items at ranks 1-3, the rest deep) and a "broad" one (ranks 15-59)."""
    sharp = np.where(rng.random(n_users) < 0.4, rng.integers(1, 4, n_users), rng.integers(500, n_items + 1, n_users))
    return {"sharp": sharp, "broad": rng.integers(15, 60, n_users)}


@pytest.mark.parametrize("gamma", [0.01, 0.1, 1.0])
def test_sampled_ndcg_reverses_two_models_and_the_correction_restores_their_order(gamma: float) -> None:
    rng = np.random.default_rng(7)
    n_users, n_items, m = 600, 2000, 100
    full, expected_sampled, corrected, sampled, errors = {}, {}, {}, {}, {}
    scores = np.tile(-np.arange(n_items, dtype=float), (n_users, 1))  # column j is at full rank j + 1
    for name, ranks in _two_models(rng, n_users, n_items).items():
        y = np.zeros((n_users, n_items))
        y[np.arange(n_users), ranks - 1] = 1.0
        res = rankmeter.evaluate_arrays(y, scores, "ndcg@10", sampled_negatives=m)
        full[name], expected_sampled[name] = res.metadata["full_catalogue"]["ndcg@10"], res["ndcg@10"]
        drawn = 1 + rng.hypergeometric(ranks - 1, n_items - ranks, m)  # one draw of m negatives per user
        est = correct(drawn, m, n_items, "ndcg@10", gamma=gamma, n_resamples=999, seed=1)
        corrected[name], sampled[name] = est.corrected, est.sampled
        errors[name] = (abs(est.corrected - full[name]), abs(est.sampled - full[name]))
    assert full["sharp"] > full["broad"]  # the full catalogue prefers the sharp model
    assert expected_sampled["sharp"] < expected_sampled["broad"]  # sampled NDCG@10 prefers the broad one ...
    assert sampled["sharp"] < sampled["broad"]  # ... in expectation and in the draw
    assert corrected["sharp"] > corrected["broad"]  # the correction restores the order
    if gamma <= 0.01:  # nearly unbiased: closer to the full-catalogue value for both models
        assert all(c < s for c, s in errors.values())
    else:  # a larger gamma trades bias for variance: still closer for the model that sampling flatters most
        assert errors["broad"][0] < errors["broad"][1]


def test_the_interval_is_the_bootstrap_of_the_per_user_corrected_values() -> None:
    ranks = np.array([1, 3, 2, 1, 7, 1, 2, 50, 4, 1])
    users = np.array(["a", "a", "b", "c", "c", "d", "e", "e", "f", "f"])
    est = correct(ranks, 50, 500, "ndcg@5", users=users, n_resamples=2000, seed=3)
    vector = correction("ndcg@5", 50, 500)
    per_user = [np.mean(vector[ranks[users == u] - 1]) for u in "abcdef"]
    np.testing.assert_allclose(est.per_user_corrected, per_user, rtol=1e-12)
    assert est.users.tolist() == list("abcdef")
    want = rankmeter.stats.mean_ci(per_user, n_resamples=2000, seed=3)
    assert (est.interval.low, est.interval.high) == (want.low, want.high)
    assert est.corrected == pytest.approx(np.mean(per_user))
    sampled = [np.mean([1 / log2(r + 1) if r <= 5 else 0.0 for r in ranks[users == u]]) for u in "abcdef"]
    assert est.sampled == pytest.approx(np.mean(sampled))


def test_a_rank_outside_the_sampled_list() -> None:
    with pytest.raises(rankmeter.InputFormatError, match=r"sampled_ranks\[1\] is 12: .* lies in 1\.\.11"):
        correct([1, 12], 10, 100, "ndcg@10")


def test_more_negatives_than_the_catalogue_holds() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"catalog_size=50 leaves 49 negatives .* n_negatives=100"):
        correct([1], 100, 50, "ndcg@10")


def test_n_negatives_below_one() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"n_negatives must be a positive integer, got 0"):
        correct([1], 0, 50, "ndcg@10")


def test_gamma_outside_zero_one() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"gamma must lie in \[0, 1\] .* got 1.5"):
        correct([1], 5, 50, "ndcg@10", gamma=1.5)


def test_an_unsupported_measure() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"rbp: sampled_negatives= gives .* rbp is not one of them"):
        correct([1], 5, 50, "rbp")


def test_ranks_that_are_not_whole_numbers() -> None:
    with pytest.raises(rankmeter.InputFormatError, match=r"sampled_ranks must be whole numbers"):
        correct([1.5], 5, 50, "ndcg@10")


def test_users_of_another_length() -> None:
    with pytest.raises(rankmeter.InputFormatError, match=r"users has 1 entries but sampled_ranks has 2"):
        correct([1, 2], 5, 50, "ndcg@10", users=["a"])


def test_weights_of_another_length() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"weights must be 50 non-negative numbers"):
        correction(parse("ndcg@10"), 5, 50, weights=[1.0, 2.0])
    with pytest.raises(rankmeter.PolicyError, match=r"weights must be 50 non-negative numbers .*, not all 0"):
        correction(parse("ndcg@10"), 5, 50, weights=[0.0] * 50)


@pytest.mark.parametrize("gamma", [0.01, 0.5])
@pytest.mark.parametrize("replacement", [False, True])
def test_the_bias_variance_normal_equations_hold(gamma: float, replacement: bool) -> None:
    # d/dx of sum_r w_r [(A x - M)_r^2 + gamma (sum_j A_rj x_j^2 - (A x)_r^2)] = 0, w uniform
    n, m = 60, 8
    law = sampled_rank_law(m, n, replacement=replacement)
    w = np.full(n, 1 / n)
    target = np.array([1 / log2(r + 1) if r <= 10 else 0.0 for r in range(1, n + 1)])
    x = correction("ndcg@10", m, n, gamma=gamma, replacement=replacement)
    lhs = (1 - gamma) * law.T @ np.diag(w) @ law @ x + gamma * (law.T @ w) * x
    np.testing.assert_allclose(lhs, law.T @ np.diag(w) @ target, rtol=1e-9, atol=1e-12)
