"""Tukey HSD against published critical values of the studentized range, and the randomized Tukey HSD."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from rankmeter.errors import InputFormatError
from rankmeter.stats.resampling import randomization_test
from rankmeter.stats.tukey import randomized_tukey_hsd, tukey_hsd


def scores(seed: int, n: int = 40, k: int = 4) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.beta(2, 3, (n, 1))
    return np.clip(base + rng.normal(0, 0.08, (n, k)) + np.linspace(0, 0.08, k), 0, 1)


# Upper 5% points q(0.05; k, df) of the studentized range, as printed to three decimals in the tables of
# Harter, "Tables of range and studentized range" (Ann. Math. Statist. 31, 1960), reproduced in most
# textbooks (e.g. Montgomery, Design and Analysis of Experiments, Table VII)
Q_05 = [(2, 10, 3.151), (3, 12, 3.773), (4, 20, 3.958), (5, 30, 4.102)]


@pytest.mark.parametrize(("k", "df", "q"), Q_05)
def test_tukey_p_value_is_five_percent_at_the_published_critical_value(k: int, df: int, q: float) -> None:
    # k systems of n = df / k + 1 queries each, the same spread in every column (MSE = sum(e^2) / (n - 1)),
    # the first and last means q * sqrt(MSE / n) apart, the others between them: the studentized range of
    # that pair is q, so its p-value is 0.05 up to the table's rounding
    n = df // k + 1
    e = np.arange(n) - (n - 1) / 2
    mse = float(np.sum(e**2)) / (n - 1)
    gap = q * np.sqrt(mse / n)
    means = np.linspace(0.0, gap, k)
    res = tukey_hsd(e[:, None] + means[None, :])
    assert abs(res.statistic[k - 1, 0]) == pytest.approx(gap, rel=1e-12)
    assert abs(res.p_value[0, k - 1] - 0.05) < 1e-4
    assert res.p_value[0, k - 1] == res.p_value[k - 1, 0]
    assert (np.diag(res.p_value) == 1).all()
    if k > 2:  # a closer pair has a larger p-value
        assert res.p_value[0, 1] > 0.05


def test_tukey_constant_groups() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = tukey_hsd(np.ones((5, 3)))
    assert (res.p_value == 1).all()


def test_randomized_tukey_two_systems_is_the_randomization_test() -> None:
    # with two systems, permuting labels within a query is a sign flip and the range of
    # the two means is |mean difference|: same null hypothesis and statistic
    x = scores(1, n=12, k=2)
    exact = randomization_test(x[:, 0], x[:, 1], exact=True).p_value
    res = randomized_tukey_hsd(x, n_resamples=20_000, seed=0)
    assert res.p_value[0, 1] == res.p_value[1, 0]
    assert abs(res.p_value[0, 1] - exact) < 5 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-4


def test_randomized_tukey_properties() -> None:
    x = scores(2, n=30, k=5)
    res = randomized_tukey_hsd(x, n_resamples=2000, seed=4)
    again = randomized_tukey_hsd(x, n_resamples=2000, seed=4)
    np.testing.assert_array_equal(res.p_value, again.p_value)
    other = randomized_tukey_hsd(x, n_resamples=2000, seed=5)
    assert not np.array_equal(res.p_value, other.p_value)
    off = ~np.eye(5, dtype=bool)
    assert (res.p_value[off] > 0).all() and (res.p_value <= 1).all()
    assert (res.p_value[off] >= 1 / 2001).all()
    means = x.mean(axis=0)
    np.testing.assert_allclose(res.statistic, means[:, None] - means[None, :])
    assert res.mc_error is not None
    np.testing.assert_allclose(res.mc_error[off], np.sqrt(res.p_value[off] * (1 - res.p_value[off]) / 2000))
    # a larger observed gap can only have a smaller (or equal) p-value: same max-statistic null
    gaps = np.abs(res.statistic[off])
    order = np.argsort(gaps)
    assert (np.diff(res.p_value[off][order]) <= 0).all()


def test_randomized_tukey_is_less_conservative_than_tukey_hsd_on_paired_data() -> None:
    # query difficulty dominates the variance: the paired (within-query) test sees through it
    x = scores(3, n=50, k=3)
    r = randomized_tukey_hsd(x, n_resamples=2000).p_value[0, 2]
    s = tukey_hsd(x).p_value[0, 2]
    assert r < s


def test_validation() -> None:
    with pytest.raises(InputFormatError, match="2 systems"):
        tukey_hsd(np.ones((4, 1)))
    with pytest.raises(InputFormatError, match="2-D"):
        randomized_tukey_hsd(np.ones(4))
