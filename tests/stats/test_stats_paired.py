"""Paired t and Wilcoxon tests against SciPy, and their degenerate cases."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats

from rankmeter.errors import InputFormatError, PolicyError, RankmeterError
from rankmeter.stats.paired import canonical_test, paired_test, t_test, wilcoxon_test


def vectors(seed: int, n: int, shift: float = 0.03) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.beta(2, 3, n)
    b = np.clip(a + rng.normal(shift, 0.1, n), 0, 1)
    return a, b


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n", [5, 30, 250])
def test_t_test_equals_scipy_ttest_rel(seed: int, n: int) -> None:
    a, b = vectors(seed, n)
    res = t_test(a, b)
    ref = scipy.stats.ttest_rel(b, a)
    assert res.test == "t" and res.n == n
    assert res.statistic == pytest.approx(float(ref.statistic), rel=1e-12)
    assert res.p_value == pytest.approx(float(ref.pvalue), rel=1e-12)
    # orientation: positive statistic means the system b is better
    assert math.copysign(1, res.statistic) == math.copysign(1, float(np.mean(b - a)))


def test_t_test_hand_computed() -> None:
    a = [0.2, 0.4, 0.5, 0.3]
    b = [0.3, 0.5, 0.5, 0.5]
    d = np.array([0.1, 0.1, 0.0, 0.2])
    t = d.mean() / (d.std(ddof=1) / 2)
    res = t_test(a, b)
    assert res.statistic == pytest.approx(t)
    assert res.p_value == pytest.approx(2 * scipy.stats.t.sf(t, df=3))


def test_t_test_degenerate_cases_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zero = t_test([0.2, 0.4, 0.6], [0.2, 0.4, 0.6])
        shift = t_test([0.2, 0.4, 0.7], [0.3, 0.5, 0.8])  # every difference is 0.1 up to rounding
        single = t_test([0.2], [0.3])
    assert (zero.statistic, zero.p_value) == (0.0, 1.0) and zero.note == "all differences are zero"
    assert shift.statistic == math.inf and shift.p_value == 0.0 and "zero variance" in (shift.note or "")
    assert math.isnan(single.p_value) and "fewer than 2" in (single.note or "")


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n", [8, 40, 300])
def test_wilcoxon_equals_scipy(seed: int, n: int) -> None:
    a, b = vectors(seed, n)
    b[: n // 4] = a[: n // 4]  # some zero differences, dropped by zero_method="wilcox"
    res = wilcoxon_test(a, b)
    ref = scipy.stats.wilcoxon(b, a)
    assert res.statistic == float(ref.statistic)
    assert res.p_value == pytest.approx(float(ref.pvalue), rel=1e-12)


def test_wilcoxon_hand_computed_exact() -> None:
    # differences 0.1, 0.2, -0.05, 0.3, 0.4 -> ranks 2, 3, 1, 4, 5; R- = 1, W = min(R+, R-) = 1
    res = wilcoxon_test([0.2, 0.4, 0.5, 0.3, 0.1], [0.3, 0.6, 0.45, 0.6, 0.5])
    assert res.statistic == 1.0
    assert res.p_value == 4 / 32  # exact: P(W <= 1) two-sided = 2 * 2 / 2**5


def test_wilcoxon_all_zero_differences_gives_p_one_with_note() -> None:
    a = np.array([0.1, 0.5, 0.9, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = wilcoxon_test(a, a.copy())
    assert res.p_value == 1.0 and res.statistic == 0.0
    assert res.note == "all differences are zero"


def test_paired_test_dispatch_and_aliases() -> None:
    a, b = vectors(0, 20)
    assert paired_test(a, b, "t") == t_test(a, b)
    assert paired_test(a, b, "wilcoxon") == wilcoxon_test(a, b)
    assert paired_test(a, b, "permutation", n_resamples=99).test == "randomization"
    assert paired_test(a, b, "bootstrap", n_resamples=99).test == "bootstrap"
    assert canonical_test(" T-Test ") == "t"
    with pytest.raises(PolicyError, match="unknown paired test 'z'"):
        paired_test(a, b, "z")


def test_input_validation() -> None:
    with pytest.raises(InputFormatError, match="same length"):
        t_test([1.0, 2.0], [1.0])
    with pytest.raises(InputFormatError, match="non-finite"):
        t_test([1.0, float("nan")], [1.0, 2.0])
    with pytest.raises(RankmeterError, match="1-D"):
        t_test([[1.0]], [[2.0]])
