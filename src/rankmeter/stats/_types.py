"""Result records shared by the statistics modules (plain frozen dataclasses)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Anything :func:`numpy.random.default_rng` accepts as a seed.
Seed = int | np.random.SeedSequence | np.random.Generator | None


@dataclass(frozen=True)
class TestResult:
    """Outcome of one paired significance test.

    Attributes
    ----------
    test : str
        Canonical test name (``"t"``, ``"wilcoxon"``, ``"randomization"``, ``"bootstrap"``).
    statistic : float
        The test statistic (t, Wilcoxon's W, or the observed mean difference
        ``mean(b - a)`` for the resampling tests).
    p_value : float
        Two-sided p-value in [0, 1]; ``nan`` when the test is undefined (see ``note``).
    n : int
        Number of paired observations (queries).
    n_resamples : int or None
        Resamples drawn (resampling tests only; ``2**n`` for an exact enumeration).
    mc_error : float or None
        Monte Carlo standard error of ``p_value``, ``sqrt(p (1 - p) / m)``;
        ``0.0`` for an exact enumeration, ``None`` for the analytic tests.
    note : str or None
        Why a degenerate case was answered the way it was.
    """

    __test__ = False  # not a pytest test class

    test: str
    statistic: float
    p_value: float
    n: int
    n_resamples: int | None = None
    mc_error: float | None = None
    note: str | None = None


@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval of a mean.

    Attributes
    ----------
    estimate : float
        The sample mean.
    low, high : float
        Interval bounds.
    level : float
        Confidence level, e.g. 0.95.
    method : str
        The method actually used (``"BCa"``, ``"percentile"``, ``"basic"``, or
        ``"degenerate"`` for a constant sample, whose interval is the value itself).
    note : str or None
        Set when the requested method could not be used.
    """

    estimate: float
    low: float
    high: float
    level: float
    method: str
    note: str | None = None


def monte_carlo_error(p_value: float, n_resamples: int) -> float:
    """Monte Carlo standard error of a resampled p-value.

    .. math:: \\mathrm{SE}(\\hat p) = \\sqrt{\\hat p (1 - \\hat p) / m}

    Parameters
    ----------
    p_value : float
        The estimated p-value.
    n_resamples : int
        Number of resamples ``m``.

    Returns
    -------
    float
        The standard error (``nan`` when ``p_value`` is ``nan``).

    Examples
    --------
    >>> round(monte_carlo_error(0.05, 10_000), 5)
    0.00218
    """
    if math.isnan(p_value) or n_resamples <= 0:
        return math.nan
    return math.sqrt(p_value * (1.0 - p_value) / n_resamples)
