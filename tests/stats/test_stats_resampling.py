"""Randomization and bootstrap tests: SciPy agreement, (b+1)/(m+1), seeding, Monte Carlo error."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rankmeter.errors import InputFormatError
from rankmeter.stats.resampling import (
    bootstrap_test,
    count_extreme,
    randomization_test,
    resampled_pvalue,
)


def vectors(seed: int, n: int, shift: float = 0.03) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.beta(2, 3, n)
    b = np.clip(a + rng.normal(shift, 0.1, n), 0, 1)
    return a, b


def scipy_sign_flip(d: np.ndarray, n_resamples: float, seed: int = 0) -> float:
    res = scipy.stats.permutation_test(
        (d,),
        np.mean,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        rng=np.random.default_rng(seed),
    )
    return float(res.pvalue)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [4, 9, 13])
def test_exact_randomization_equals_scipy_permutation_test(seed: int, n: int) -> None:
    # SciPy enumerates all 2**n sign vectors when n_resamples >= 2**n: the case where
    # both definitions of the two-sided p-value coincide exactly.
    a, b = vectors(seed, n)
    res = randomization_test(a, b, exact=True)
    assert res.p_value == scipy_sign_flip(b - a, np.inf)
    assert res.n_resamples == 2**n and res.mc_error == 0.0


def test_exact_randomization_hand_computed() -> None:
    # d = (1, 2, 3): |T*| >= |T| = 2 only for all-plus and all-minus: p = 2 / 8
    assert randomization_test([0, 0, 0], [1, 2, 3], exact=True).p_value == 0.25
    with pytest.raises(InputFormatError, match="exceeds"):
        randomization_test(np.zeros(21), np.ones(21), exact=True)


@pytest.mark.parametrize("seed", range(4))
def test_monte_carlo_randomization_agrees_with_scipy_within_mc_error(seed: int) -> None:
    a, b = vectors(seed, 60, shift=0.02)
    m = 20_000
    ours = randomization_test(a, b, n_resamples=m, seed=seed)
    theirs = scipy_sign_flip(b - a, m, seed)
    # SciPy doubles a one-sided (b+1)/(m+1): allow 5 standard errors of the difference + 2/(m+1)
    se = math.sqrt(2) * math.sqrt(max(ours.p_value * (1 - ours.p_value), 1e-4) / m)
    assert abs(ours.p_value - theirs) <= 5 * se + 2 / (m + 1)


def test_randomization_pvalue_formula_and_floor() -> None:
    # every difference positive and n = 60: no sign vector but the observed one is as extreme,
    # so b = 0 (up to a probability of 2**-59) and p = 1 / (m + 1), never 0
    a = np.zeros(60)
    b = np.linspace(0.1, 0.7, 60)
    res = randomization_test(a, b, n_resamples=999, seed=3)
    assert res.p_value == 1 / 1000
    assert res.p_value > 0
    assert res.mc_error == pytest.approx(math.sqrt(0.001 * 0.999 / 999))
    assert res.statistic == pytest.approx(0.4)


def test_randomization_seeding() -> None:
    a, b = vectors(7, 40, shift=0.02)
    first = randomization_test(a, b, n_resamples=2000, seed=11)
    again = randomization_test(a, b, n_resamples=2000, seed=11)
    other = randomization_test(a, b, n_resamples=2000, seed=12)
    assert first == again
    assert first.p_value != other.p_value
    gen = randomization_test(a, b, n_resamples=2000, seed=np.random.default_rng(11))
    assert gen.p_value == first.p_value


def test_randomization_all_zero_differences() -> None:
    a = np.array([0.3, 0.5, 0.1])
    res = randomization_test(a, a, n_resamples=500)
    assert res.p_value == 1.0 and res.statistic == 0.0


def test_count_extreme_tolerance_and_pvalue() -> None:
    null = np.array([0.1, 0.3, 0.1 + 0.2, 0.29999])
    assert count_extreme(null, 0.3) == 2  # 0.1 + 0.2 == 0.30000000000000004 counts as equal
    assert count_extreme(null, -0.3) == 2
    assert resampled_pvalue(0, 9) == 0.1
    assert resampled_pvalue(9, 9) == 1.0


def test_bootstrap_test_floor_seeding_and_degenerate() -> None:
    a = np.zeros(50)
    b = np.full(50, 0.1)
    const = bootstrap_test(a, b, n_resamples=999)
    assert const.p_value == 1 / 1000  # shifted sample is all zeros, observed is 0.1
    zero = bootstrap_test(a, a, n_resamples=999)
    assert zero.p_value == 1.0
    x, y = vectors(1, 40)
    assert bootstrap_test(x, y, seed=5) == bootstrap_test(x, y, seed=5)
    assert bootstrap_test(x, y, seed=5).p_value != bootstrap_test(x, y, seed=6).p_value


def test_bootstrap_test_matches_hand_loop() -> None:
    # same generator calls, written as a plain loop: mean of centred differences resampled
    a, b = vectors(2, 25)
    m = 300
    d = b - a
    z = d - d.mean()
    rng = np.random.default_rng(9)
    idx = rng.integers(0, d.size, size=(m, d.size))
    extreme = sum(abs(z[row].mean()) >= abs(d.mean()) * (1 - 1e-13) for row in idx)
    assert bootstrap_test(a, b, n_resamples=m, seed=9).p_value == (extreme + 1) / (m + 1)


@pytest.mark.parametrize("seed", range(3))
def test_bootstrap_test_close_to_t_test_for_normal_data(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.normal(0.5, 0.1, 400)
    b = a + rng.normal(0.01, 0.1, 400)
    t_p = float(scipy.stats.ttest_rel(b, a).pvalue)
    boot = bootstrap_test(a, b, n_resamples=20_000, seed=seed)
    assert abs(boot.p_value - t_p) < 0.03


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.integers(1, 30), elements=st.floats(0, 1)),
    st.floats(-0.3, 0.3),
    st.integers(0, 2**32 - 1),
)
def test_resampled_pvalues_are_in_open_closed_unit_interval(a: np.ndarray, shift: float, seed: int) -> None:
    b = np.clip(a + shift * np.cos(np.arange(a.size)), 0, 1)
    for res in (
        randomization_test(a, b, n_resamples=200, seed=seed),
        bootstrap_test(a, b, n_resamples=200, seed=seed),
    ):
        assert 0 < res.p_value <= 1
        assert res.p_value >= 1 / 201
        assert res.mc_error is not None and 0 <= res.mc_error <= 0.5 / math.sqrt(200)
