"""Effect sizes of a paired comparison: mean difference, Cohen's d_z, wins/ties/losses."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from rankmeter.stats._arrays import is_zero_spread, paired


class WinsTiesLosses(NamedTuple):
    """Per-query outcome counts of system ``b`` against baseline ``a``."""

    wins: int
    ties: int
    losses: int


def mean_difference(a: Any, b: Any) -> float:
    """Mean per-query difference of system ``b`` over baseline ``a``.

    .. math:: \\bar d = \\frac{1}{n} \\sum_{q=1}^{n} (b_q - a_q)

    Parameters
    ----------
    a, b : array_like
        Aligned per-query values of the baseline and of the system.

    Returns
    -------
    float
        ``mean(b - a)``; ``nan`` for empty input.

    Examples
    --------
    >>> round(mean_difference([0.2, 0.4, 0.6], [0.3, 0.4, 0.8]), 12)
    0.1
    """
    x, y = paired(a, b)
    if x.size == 0:
        return math.nan
    return float(np.mean(y - x))


def cohens_dz(a: Any, b: Any) -> float:
    """Standardized effect size of paired data, Cohen's :math:`d_z`.

    .. math:: d_z = \\frac{\\bar d}{s_d}, \\qquad
              s_d = \\sqrt{\\frac{1}{n-1} \\sum_q (d_q - \\bar d)^2}, \\quad d_q = b_q - a_q

    When every difference is the same (``s_d = 0`` up to rounding noise, see
    :func:`rankmeter.stats._arrays.is_zero_spread`) the ratio is defined as ``0``
    when ``mean(d) = 0`` and as ``+inf`` / ``-inf`` otherwise; no warning is emitted.

    Parameters
    ----------
    a, b : array_like
        Aligned per-query values of the baseline and of the system.

    Returns
    -------
    float
        :math:`d_z`, or ``nan`` with fewer than two queries.

    Examples
    --------
    >>> round(cohens_dz([0.1, 0.2, 0.3, 0.4], [0.2, 0.2, 0.5, 0.5]), 4)
    1.2247
    >>> cohens_dz([0.1, 0.2], [0.1, 0.2])
    0.0
    """
    x, y = paired(a, b)
    if x.size < 2:
        return math.nan
    d = y - x
    mean = float(np.mean(d))
    if is_zero_spread(d):
        return 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
    return mean / float(np.std(d, ddof=1))


def wins_ties_losses(a: Any, b: Any) -> WinsTiesLosses:
    """Count queries where system ``b`` beats, ties or loses to baseline ``a``.

    A tie is exact floating-point equality ``b_q == a_q``; no tolerance is applied.

    Parameters
    ----------
    a, b : array_like
        Aligned per-query values of the baseline and of the system.

    Returns
    -------
    WinsTiesLosses
        ``(wins, ties, losses)`` with ``wins + ties + losses == n``.

    Examples
    --------
    >>> wins_ties_losses([0.5, 0.2, 0.3, 0.0], [0.6, 0.2, 0.1, 0.0])
    WinsTiesLosses(wins=1, ties=2, losses=1)
    """
    x, y = paired(a, b)
    return WinsTiesLosses(int(np.count_nonzero(y > x)), int(np.count_nonzero(y == x)), int(np.count_nonzero(y < x)))
