"""Paired significance tests on aligned per-query vectors (baseline ``a``, system ``b``).

Every test is two-sided and signed so that a positive statistic means the
system ``b`` scores higher than the baseline ``a``. The analytic tests call
SciPy (:func:`scipy.stats.ttest_rel`'s arithmetic, :func:`scipy.stats.wilcoxon`); the
resampling tests live in :mod:`rankmeter.stats.resampling` and are dispatched
from :func:`paired_test`.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from rankmeter.errors import PolicyError
from rankmeter.stats._arrays import is_zero_spread, paired
from rankmeter.stats._types import Seed, TestResult
from rankmeter.stats.resampling import bootstrap_test, randomization_test

#: Names accepted by :func:`paired_test`.
PAIRED_TESTS = ("t", "wilcoxon", "randomization", "bootstrap")

_ALIASES = {
    "t": "t",
    "ttest": "t",
    "t-test": "t",
    "student": "t",
    "wilcoxon": "wilcoxon",
    "signed-rank": "wilcoxon",
    "randomization": "randomization",
    "permutation": "randomization",
    "sign-flip": "randomization",
    "bootstrap": "bootstrap",
}


def canonical_test(name: str) -> str:
    """Canonical name of a paired test.

    Examples
    --------
    >>> canonical_test("permutation")
    'randomization'
    """
    key = str(name).strip().lower()
    if key not in _ALIASES:
        raise PolicyError(f"unknown paired test {name!r}; choose one of {', '.join(PAIRED_TESTS)}")
    return _ALIASES[key]


def t_test(a: Any, b: Any) -> TestResult:
    """Paired Student's t test (:func:`scipy.stats.ttest_rel` of ``b`` against ``a``).

    .. math:: t = \\frac{\\bar d}{s_d / \\sqrt n}, \\quad d_q = b_q - a_q,
              \\quad p = 2\\, P(T_{n-1} \\ge |t|)

    Degenerate cases are answered without calling SciPy (which would return
    NaN with a warning): when every difference is 0, ``t = 0`` and ``p = 1``;
    when every difference is the same non-zero value, ``t = ±inf`` and ``p = 0``;
    with fewer than two queries ``t`` and ``p`` are NaN. ``note`` says which.

    Parameters
    ----------
    a, b : array_like
        Aligned per-query values of the baseline and of the system.

    Returns
    -------
    TestResult

    Examples
    --------
    >>> res = t_test([0.2, 0.4, 0.5, 0.3], [0.3, 0.5, 0.5, 0.5])
    >>> round(res.statistic, 4), round(res.p_value, 4)
    (2.4495, 0.0917)
    >>> t_test([0.2, 0.4], [0.2, 0.4]).p_value
    1.0
    """
    x, y = paired(a, b)
    n = x.size
    d = y - x
    if n < 2:
        return TestResult("t", math.nan, math.nan, n, note="fewer than 2 queries: t test undefined")
    if is_zero_spread(d):
        mean = float(np.mean(d))
        if mean == 0.0:
            return TestResult("t", 0.0, 1.0, n, note="all differences are zero")
        return TestResult(
            "t",
            math.copysign(math.inf, mean),
            0.0,
            n,
            note="all differences are equal and non-zero: zero variance, t is infinite",
        )
    return TestResult("t", *_t_and_p(d), n)


def _t_and_p(d: np.ndarray) -> tuple[float, float]:
    """The t statistic of the differences ``d`` and its two-sided p-value, as :func:`scipy.stats.ttest_rel` has them.

    The same operations in the same order (mean, mean squared deviation scaled by :math:`n/(n-1)`,
    ``stdtr`` of :mod:`scipy.special` for Student's t distribution), so the values are SciPy's
    without importing :mod:`scipy.stats`.

    >>> [round(v, 6) for v in _t_and_p(np.array([1.0, 2.0, 3.0, 6.0]))]
    [2.77746, 0.069137]
    """
    from scipy.special import stdtr

    n = float(d.size)
    mean = np.mean(d)
    variance = np.mean((d - mean) ** 2) * (n / (n - 1))
    t = mean / np.sqrt(variance / n)
    return float(t), float(2 * stdtr(n - 1, -np.abs(t)))


def wilcoxon_test(a: Any, b: Any, *, zero_method: str = "wilcox") -> TestResult:
    """Wilcoxon signed-rank test (:func:`scipy.stats.wilcoxon` on ``b - a``).

    With SciPy's defaults (``zero_method="wilcox"``: zero differences are
    dropped; ``method="auto"``: exact distribution for small samples without
    ties, normal approximation otherwise), the statistic is
    :math:`W = \\min(R^+, R^-)`, the smaller rank sum of positive and negative
    differences.

    When every difference is 0 (or there are no queries) SciPy's statistic
    is undefined; this returns ``statistic = 0``, ``p = 1`` and a ``note``
    instead of raising or warning.

    Parameters
    ----------
    a, b : array_like
        Aligned per-query values of the baseline and of the system.
    zero_method : {"wilcox", "pratt", "zsplit"}, default "wilcox"
        Passed to SciPy.

    Returns
    -------
    TestResult

    Examples
    --------
    >>> res = wilcoxon_test([0.2, 0.4, 0.5, 0.3, 0.1], [0.3, 0.6, 0.45, 0.6, 0.5])
    >>> res.statistic, res.p_value
    (1.0, 0.125)
    >>> wilcoxon_test([0.2, 0.4], [0.2, 0.4]).note
    'all differences are zero'
    """
    from scipy import stats

    x, y = paired(a, b)
    n = x.size
    if n == 0 or np.all(y == x):
        return TestResult("wilcoxon", 0.0, 1.0, n, note="all differences are zero" if n else "no queries")
    with warnings.catch_warnings():
        # Older SciPy versions warn when they switch from the exact to the normal
        # method (ties, zeros); the choice is documented above, so that is noise here.
        warnings.simplefilter("ignore", UserWarning)
        res = stats.wilcoxon(y, x, zero_method=zero_method)
    return TestResult("wilcoxon", float(res.statistic), float(res.pvalue), n)


def paired_test(
    a: Any,
    b: Any,
    test: str = "t",
    *,
    n_resamples: int = 10_000,
    seed: Seed = 0,
) -> TestResult:
    """Run one of the paired tests by name.

    Parameters
    ----------
    a, b : array_like
        Aligned per-query values of the baseline and of the system.
    test : {"t", "wilcoxon", "randomization", "bootstrap"}, default "t"
        The test (aliases: ``"permutation"`` for ``"randomization"``).
    n_resamples : int, default 10_000
        Resamples of the randomization and bootstrap tests (ignored otherwise).
    seed : int, Generator, SeedSequence or None, default 0
        Seed of the resampling tests (ignored otherwise).

    Returns
    -------
    TestResult

    Examples
    --------
    >>> paired_test([0.2, 0.4, 0.5], [0.3, 0.5, 0.7], "randomization", n_resamples=99).n_resamples
    99
    """
    name = canonical_test(test)
    if name == "t":
        return t_test(a, b)
    if name == "wilcoxon":
        return wilcoxon_test(a, b)
    if name == "randomization":
        return randomization_test(a, b, n_resamples=n_resamples, seed=seed)
    return bootstrap_test(a, b, n_resamples=n_resamples, seed=seed)
