"""Bootstrap confidence intervals of a mean against the exact bootstrap distribution.

For a sample of n = 6 values, the bootstrap distribution of the mean is known exactly: the means of all
6^6 = 46,656 equally likely resamples. The percentile, basic and BCa intervals (Efron & Tibshirani, An
Introduction to the Bootstrap, 1993, chapters 13-14) are written out on it; the Monte Carlo interval of
``mean_ci`` must fall between the exact distribution's quantiles a little below and above each end.
"""

from __future__ import annotations

import itertools
import math
import warnings
from statistics import NormalDist

import numpy as np
import pytest

from rankmeter.errors import PolicyError
from rankmeter.stats.bootstrap import canonical_ci_method, mean_ci

SAMPLE = [0.02, 0.05, 0.11, 0.2, 0.43, 0.9]  # skewed, like per-query scores
EXACT = sorted(sum(r) / len(r) for r in itertools.product(SAMPLE, repeat=len(SAMPLE)))
PHI = NormalDist()


def quantile(p: float) -> float:
    """The smallest mean of the exact bootstrap distribution whose CDF is >= p."""
    return EXACT[min(len(EXACT) - 1, max(0, math.ceil(p * len(EXACT)) - 1))]


def exact_levels(method: str, level: float) -> tuple[float, float]:
    """The CDF levels of the interval's ends: alpha/2 and 1 - alpha/2, moved by BCa's z0 and acceleration."""
    lo, hi = (1 - level) / 2, (1 + level) / 2
    if method != "BCa":
        return lo, hi
    estimate = sum(SAMPLE) / len(SAMPLE)
    z0 = PHI.inv_cdf(sum(m < estimate for m in EXACT) / len(EXACT))
    jack = [(sum(SAMPLE) - x) / (len(SAMPLE) - 1) for x in SAMPLE]
    centre = sum(jack) / len(jack)
    a = sum((centre - j) ** 3 for j in jack) / (6 * sum((centre - j) ** 2 for j in jack) ** 1.5)

    def moved(p: float) -> float:
        z = PHI.inv_cdf(p)
        return PHI.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))

    return moved(lo), moved(hi)


@pytest.mark.parametrize("method", ["BCa", "percentile", "basic"])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_matches_the_exact_bootstrap_distribution(method: str, seed: int, level: float) -> None:
    ci = mean_ci(SAMPLE, level=level, method=method, n_resamples=20_000, seed=seed)
    estimate = sum(SAMPLE) / len(SAMPLE)
    delta = 0.01  # Monte Carlo error of a 20,000-resample quantile near 0.025: about 0.0011 in the CDF
    lo, hi = exact_levels(method, level)
    if method == "basic":  # the percentile interval reflected about the estimate
        want_low = (2 * estimate - quantile(hi + delta), 2 * estimate - quantile(hi - delta))
        want_high = (2 * estimate - quantile(lo + delta), 2 * estimate - quantile(lo - delta))
    else:
        want_low = (quantile(lo - delta), quantile(lo + delta))
        want_high = (quantile(hi - delta), quantile(hi + delta))
    assert want_low[0] - 1e-12 <= ci.low <= want_low[1] + 1e-12, (ci.low, want_low)
    assert want_high[0] - 1e-12 <= ci.high <= want_high[1] + 1e-12, (ci.high, want_high)
    assert ci.method == method and ci.level == level and ci.note is None
    assert ci.estimate == pytest.approx(estimate)
    assert ci.low < ci.estimate < ci.high


def test_the_bca_correction_moves_the_interval() -> None:
    # the sample is skewed: BCa's levels differ from the percentile interval's, and so do its ends
    lo, hi = exact_levels("BCa", 0.9)
    assert abs(lo - 0.05) > 0.02 and abs(hi - 0.95) > 0.005
    bca = mean_ci(SAMPLE, level=0.9, method="BCa", n_resamples=20_000, seed=0)
    percentile = mean_ci(SAMPLE, level=0.9, method="percentile", n_resamples=20_000, seed=0)
    assert bca.low > percentile.low


def test_seeded_reproducible() -> None:
    x = np.random.default_rng(0).random(40)
    assert mean_ci(x, seed=3) == mean_ci(x, seed=3)
    assert mean_ci(x, seed=3) != mean_ci(x, seed=4)


@pytest.mark.parametrize("values", [[0.4] * 25, [0.0] * 3, [0.7]])
def test_constant_sample_is_its_value_without_warnings(values: list[float]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ci = mean_ci(values)
    assert ci.low == ci.high == ci.estimate == values[0]
    assert ci.method == "degenerate"


def test_nearly_constant_sample_does_not_warn() -> None:
    x = np.zeros(30)
    x[0] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ci = mean_ci(x, n_resamples=999)
    assert ci.low <= ci.estimate <= ci.high


def test_method_names_and_validation() -> None:
    assert canonical_ci_method("bca") == "BCa"
    assert canonical_ci_method("PERCENTILE") == "percentile"
    with pytest.raises(PolicyError, match="unknown CI method 'studentized'"):
        mean_ci([0.1, 0.2], method="studentized")
    with pytest.raises(PolicyError, match=r"\(0, 1\)"):
        mean_ci([0.1, 0.2], level=95)
