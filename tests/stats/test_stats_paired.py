"""Paired t and Wilcoxon tests against their formulas (tests/stats/plain.py) and a published example, and their
degenerate cases."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats

from rankmeter.errors import InputFormatError, PolicyError, RankmeterError
from rankmeter.stats.paired import canonical_test, paired_test, t_test, wilcoxon_test
from tests.stats import plain


def vectors(seed: int, n: int, shift: float = 0.03) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.beta(2, 3, n)
    b = np.clip(a + rng.normal(shift, 0.1, n), 0, 1)
    return a, b


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n", [5, 30, 250])
def test_t_test_equals_its_formula(seed: int, n: int) -> None:
    a, b = vectors(seed, n)
    res = t_test(a, b)
    t, p = plain.paired_t(a.tolist(), b.tolist())
    assert res.test == "t" and res.n == n
    assert res.statistic == pytest.approx(t, rel=1e-12)
    # the closed form loses digits to cancellation for tiny p (1 - A with A near 1): 1e-6 relative
    assert res.p_value == pytest.approx(p, rel=1e-6, abs=1e-14)
    # orientation: positive statistic means the system b is better
    assert math.copysign(1, res.statistic) == math.copysign(1, float(np.mean(b - a)))


@pytest.mark.parametrize("seed", range(40))
def test_t_test_is_scipys_ttest_rel_value_for_value(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = vectors(seed, int(rng.integers(2, 500)), shift=float(rng.normal(0, 0.05)))
    if seed % 2:
        a, b = np.round(a, 2), np.round(b, 2)
    expected = scipy.stats.ttest_rel(b, a)
    res = t_test(a, b)
    assert (res.statistic, res.p_value) == (float(expected.statistic), float(expected.pvalue))


def test_t_test_hand_computed() -> None:
    a = [0.2, 0.4, 0.5, 0.3]
    b = [0.3, 0.5, 0.5, 0.5]
    d = np.array([0.1, 0.1, 0.0, 0.2])
    t = d.mean() / (d.std(ddof=1) / 2)
    res = t_test(a, b)
    assert res.statistic == pytest.approx(t)
    assert res.p_value == pytest.approx(plain.t_two_sided_p(t, 3), rel=1e-12)


def test_t_test_on_students_sleep_data() -> None:
    # Cushny & Peebles's hours of extra sleep under two drugs, ten patients (Student, Biometrika 1908);
    # R's t.test(extra ~ group, data = sleep, paired = TRUE) prints t = -4.0621, df = 9, p-value = 0.002833
    drug1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
    drug2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    res = t_test(drug1, drug2)
    assert round(res.statistic, 4) == 4.0621 and res.n == 10
    assert round(res.p_value, 6) == 0.002833


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
def test_wilcoxon_equals_its_formula(seed: int, n: int) -> None:
    a, b = vectors(seed, n)
    b[: n // 4] = a[: n // 4]  # some zero differences, dropped by zero_method="wilcox"
    res = wilcoxon_test(a, b)
    w, p = plain.wilcoxon(a.tolist(), b.tolist())
    assert res.statistic == w
    assert res.p_value == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n", [6, 12, 20])
def test_wilcoxon_exact_distribution_without_ties_or_zeros(seed: int, n: int) -> None:
    a, b = vectors(seed, n)
    res = wilcoxon_test(a, b)
    w, p = plain.wilcoxon(a.tolist(), b.tolist())
    assert res.statistic == w and res.p_value == pytest.approx(p, rel=1e-12)


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
