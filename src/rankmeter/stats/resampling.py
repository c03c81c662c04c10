"""Seeded resampling tests of a paired mean difference: randomization (sign flip) and bootstrap.

Both tests are two-sided and estimate their p-value from ``m`` resamples as

.. math:: p = \\frac{b + 1}{m + 1}

where ``b`` counts resampled statistics at least as extreme as the observed one,
:math:`|T^*| \\ge |T_{obs}|`. Counting the observed arrangement itself (the
``+ 1``) keeps the estimate a valid p-value and never 0; its smallest value is
``1 / (m + 1)``. The Monte Carlo standard error of the estimate is
:math:`\\sqrt{p (1 - p) / m}`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError
from rankmeter.stats._arrays import REL_TOL, batch_size, paired, positive_int
from rankmeter.stats._types import Seed, TestResult, monte_carlo_error

#: Largest number of queries for which ``exact=True`` enumerates every sign vector.
MAX_EXACT_QUERIES = 20


def count_extreme(null_abs: np.ndarray, observed: float) -> int:
    """Count resampled ``|T*|`` at least as extreme as ``|observed|``.

    Values within a relative ``100 * eps`` of ``|observed|`` count as equal, so
    that arrangements equal in exact arithmetic are not lost to rounding.

    Examples
    --------
    >>> count_extreme(np.array([0.1, 0.3, 0.30000000000000004, 0.5]), 0.3)
    3
    """
    threshold = abs(observed) * (1.0 - REL_TOL)
    return int(np.count_nonzero(null_abs >= threshold))


def resampled_pvalue(extreme: int, n_resamples: int) -> float:
    """The p-value ``(b + 1) / (m + 1)`` from ``b`` extreme resamples out of ``m``.

    Examples
    --------
    >>> resampled_pvalue(0, 9999)
    0.0001
    """
    return (extreme + 1) / (n_resamples + 1)


def _sign_flip_means(d: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Means of ``d`` under each row of ``signs`` (rows of 0/1: 1 flips the sign)."""
    flipped = np.where(signs.astype(bool), -d, d)
    return np.asarray(flipped.mean(axis=1))


def randomization_test(
    a: Any,
    b: Any,
    *,
    n_resamples: int = 10_000,
    seed: Seed = 0,
    exact: bool = False,
) -> TestResult:
    """Paired randomization (sign-flip permutation) test of the mean difference.

    Under the null hypothesis the labels "baseline" and "system" are
    exchangeable within each query, so each difference :math:`d_q = b_q - a_q`
    is equally likely to have either sign. The statistic is
    :math:`T = \\bar d`; each resample draws independent signs
    :math:`s_q \\in \\{-1, +1\\}` and computes :math:`T^* = \\frac1n \\sum_q s_q d_q`.
    The two-sided p-value is

    .. math:: p = \\frac{\\#\\{|T^*| \\ge |T|\\} + 1}{m + 1}

    It is never 0 (its smallest value is ``1 / (m + 1)``).

    Parameters
    ----------
    a, b : array_like
        Aligned per-query values of the baseline and of the system.
    n_resamples : int, default 10_000
        Number of random sign vectors ``m``.
    seed : int, Generator, SeedSequence or None, default 0
        Seed of the :class:`numpy.random.Generator`; the same seed gives the same p-value.
    exact : bool, default False
        Enumerate all ``2**n`` sign vectors instead (at most
        :data:`MAX_EXACT_QUERIES` queries). The p-value is then the exact
        fraction ``#{|T*| >= |T|} / 2**n`` (the observed arrangement is among
        them) and ``mc_error`` is 0.

    Returns
    -------
    TestResult
        ``statistic`` is the observed mean difference, ``mc_error`` the Monte
        Carlo standard error :math:`\\sqrt{p(1-p)/m}`.

    Notes
    -----
    Relation to ``scipy.stats.permutation_test(permutation_type="samples")`` on
    the differences: with ``exact=True`` both give the same p-value (SciPy
    enumerates exactly when ``n_resamples >= 2**n``, and on a sign-symmetric
    null distribution its ``2 * min(p_less, p_greater)`` equals our count of
    ``|T*| >= |T|``). In Monte Carlo mode they agree up to Monte Carlo error
    but differ in detail: SciPy doubles the smaller one-sided estimate
    ``(b_side + 1) / (m + 1)``, so its smallest two-sided p-value is
    ``2 / (m + 1)``, ours ``1 / (m + 1)``; and the random streams differ.

    Examples
    --------
    >>> a = [0.30, 0.42, 0.51, 0.22, 0.61, 0.45, 0.38, 0.29]
    >>> b = [0.35, 0.47, 0.50, 0.31, 0.66, 0.52, 0.40, 0.33]
    >>> res = randomization_test(a, b, n_resamples=999, seed=1)
    >>> round(res.statistic, 4), res.p_value > 0
    (0.045, True)
    >>> randomization_test(a, b, exact=True).p_value
    0.015625
    """
    x, y = paired(a, b)
    d = y - x
    n = d.size
    if n == 0:
        return TestResult("randomization", float("nan"), float("nan"), 0, note="no queries")
    observed = float(np.mean(d))
    if exact:
        if n > MAX_EXACT_QUERIES:
            raise InputFormatError(f"exact=True enumerates 2**n sign vectors; n={n} exceeds {MAX_EXACT_QUERIES}")
        total = 1 << n
        bits = np.arange(n, dtype=np.int64)
        extreme = 0
        step = batch_size(n, total)
        for start in range(0, total, step):
            codes = np.arange(start, min(total, start + step), dtype=np.int64)
            signs = (codes[:, None] >> bits) & 1
            extreme += count_extreme(np.abs(_sign_flip_means(d, signs)), observed)
        p = extreme / total
        return TestResult("randomization", observed, p, n, n_resamples=total, mc_error=0.0)
    m = positive_int(n_resamples, "n_resamples")
    rng = np.random.default_rng(seed)
    extreme = 0
    step = batch_size(n, m)
    for start in range(0, m, step):
        signs = rng.integers(0, 2, size=(min(step, m - start), n), dtype=np.int8)
        extreme += count_extreme(np.abs(_sign_flip_means(d, signs)), observed)
    p = resampled_pvalue(extreme, m)
    return TestResult("randomization", observed, p, n, n_resamples=m, mc_error=monte_carlo_error(p, m))


def bootstrap_test(
    a: Any,
    b: Any,
    *,
    n_resamples: int = 10_000,
    seed: Seed = 0,
) -> TestResult:
    """Paired bootstrap test of the mean difference (shift method).

    The differences :math:`d_q = b_q - a_q` are shifted to have mean zero,
    :math:`z_q = d_q - \\bar d`, which makes the null hypothesis
    :math:`E[d] = 0` true while keeping their spread. Each resample draws
    ``n`` values of ``z`` with replacement and computes their mean :math:`T^*`;

    .. math:: p = \\frac{\\#\\{|T^*| \\ge |\\bar d|\\} + 1}{m + 1}

    Parameters
    ----------
    a, b : array_like
        Aligned per-query values of the baseline and of the system.
    n_resamples : int, default 10_000
        Number of bootstrap resamples ``m``.
    seed : int, Generator, SeedSequence or None, default 0
        Seed of the :class:`numpy.random.Generator`.

    Returns
    -------
    TestResult
        ``statistic`` is the observed mean difference, ``mc_error`` the Monte
        Carlo standard error :math:`\\sqrt{p(1-p)/m}`.

    Notes
    -----
    SciPy has no bootstrap *test*; :func:`scipy.stats.bootstrap` gives
    intervals (see :func:`rankmeter.stats.bootstrap.mean_ci`). When every
    difference is equal the shifted sample is all zeros, so ``p = 1`` if the
    differences are 0 and ``p = 1 / (m + 1)`` otherwise.

    Examples
    --------
    >>> a = [0.30, 0.42, 0.51, 0.22, 0.61, 0.45, 0.38, 0.29]
    >>> b = [0.35, 0.47, 0.50, 0.31, 0.66, 0.52, 0.40, 0.33]
    >>> res = bootstrap_test(a, b, n_resamples=999, seed=1)
    >>> res.p_value < 0.01, res.n_resamples
    (True, 999)
    """
    x, y = paired(a, b)
    d = y - x
    n = d.size
    if n == 0:
        return TestResult("bootstrap", float("nan"), float("nan"), 0, note="no queries")
    m = positive_int(n_resamples, "n_resamples")
    observed = float(np.mean(d))
    z = d - observed
    rng = np.random.default_rng(seed)
    extreme = 0
    step = batch_size(n, m)
    for start in range(0, m, step):
        idx = rng.integers(0, n, size=(min(step, m - start), n))
        extreme += count_extreme(np.abs(z[idx].mean(axis=1)), observed)
    p = resampled_pvalue(extreme, m)
    return TestResult("bootstrap", observed, p, n, n_resamples=m, mc_error=monte_carlo_error(p, m))
