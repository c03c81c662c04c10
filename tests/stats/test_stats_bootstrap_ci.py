"""Bootstrap confidence intervals of a mean against scipy.stats.bootstrap."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.stats

from rankmeter.errors import PolicyError
from rankmeter.stats.bootstrap import canonical_ci_method, mean_ci


def scipy_ci(x: np.ndarray, method: str, level: float, m: int, seed: int) -> tuple[float, float]:
    res = scipy.stats.bootstrap(
        (x,),
        np.mean,
        n_resamples=m,
        confidence_level=level,
        method=method,
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


@pytest.mark.parametrize("method", ["BCa", "percentile", "basic"])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_equals_scipy_bootstrap(method: str, seed: int, level: float) -> None:
    x = np.random.default_rng(seed + 100).beta(0.5, 2, 80)  # skewed, like per-query scores
    ci = mean_ci(x, level=level, method=method, n_resamples=2000, seed=seed)
    low, high = scipy_ci(x, method, level, 2000, seed)
    assert (ci.low, ci.high) == (pytest.approx(low, rel=1e-12), pytest.approx(high, rel=1e-12))
    assert ci.method == method and ci.level == level and ci.note is None
    assert ci.estimate == pytest.approx(x.mean())
    assert ci.low < ci.estimate < ci.high


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
