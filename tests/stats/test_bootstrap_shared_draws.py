"""Bootstrap intervals from resample indices shared across calls: SciPy's own intervals, value for value.

:func:`rankmeter.stats.bootstrap.mean_ci` with an integer seed computes the resampled means from the
indices :func:`scipy.stats.bootstrap` draws (drawn once for every call with the same number of values,
resamples and seed) and hands them to SciPy. The reference here is SciPy drawing them itself, as
``mean_ci`` called it before.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from rankmeter.stats import bootstrap
from rankmeter.stats._arrays import batch_size
from rankmeter.stats.bootstrap import mean_ci

RNG = np.random.default_rng(2026)
SAMPLES = {
    "skewed": np.round(RNG.random(200) ** 3, 4),
    "binary": RNG.integers(0, 2, 57).astype(float),
    "ties": np.repeat([0.0, 0.25, 1.0], [30, 5, 2]),
    "one_apart": np.r_[np.zeros(39), 1.0],  # BCa undefined: the percentile interval
    "two": np.array([0.1, 0.9]),
}


def _scipy_drawing(values: np.ndarray, level: float, method: str, m: int, seed: int) -> tuple[float, float]:
    """SciPy's interval with its own draws from ``default_rng(seed)``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.bootstrap(
            (values,), np.mean, n_resamples=m, batch=batch_size(values.size, m), vectorized=True,
            confidence_level=level, method=method, rng=np.random.default_rng(seed),
        )  # fmt: skip
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize(("method", "level", "m", "seed"), [("BCa", 0.95, 10_000, 0), ("percentile", 0.9, 999, 7),
                                                            ("basic", 0.99, 2000, 3), ("BCa", 0.8, 50_001, 1)])  # fmt: skip
def test_shared_draws_give_scipys_interval(name: str, method: str, level: float, m: int, seed: int) -> None:
    values = SAMPLES[name]
    found = mean_ci(values, level=level, method=method, n_resamples=m, seed=seed)
    expected = _scipy_drawing(values, level, method, m, seed)
    if method == "BCa" and not all(map(math.isfinite, expected)):
        assert found.method == "percentile"
        expected = _scipy_drawing(values, level, "percentile", m, seed)
    assert (found.low, found.high) == expected


def test_many_systems_draw_the_indices_once() -> None:
    bootstrap._resample_indices.cache_clear()
    for shift in range(5):
        mean_ci(SAMPLES["skewed"] + shift / 10, n_resamples=3000, seed=11)
    info = bootstrap._resample_indices.cache_info()
    assert (info.misses, info.hits) == (1, 4)


def test_intervals_side_by_side_are_those_one_by_one() -> None:
    columns = [SAMPLES["skewed"] + shift / 10 for shift in range(6)]
    bootstrap._resample_indices.cache_clear()
    together = bootstrap.mean_cis(columns, level=0.9, n_resamples=2000, seed=5, threads=3)
    assert bootstrap._resample_indices.cache_info().misses == 1  # drawn by the first, before the threads start
    assert together == [mean_ci(x, level=0.9, n_resamples=2000, seed=5) for x in columns]
    mixed = [SAMPLES["skewed"], SAMPLES["skewed"][:7], SAMPLES["one_apart"], SAMPLES["ties"]]
    found = bootstrap.mean_cis(mixed, method="basic", n_resamples=999, seed=2, threads=2)
    assert found == [mean_ci(x, method="basic", n_resamples=999, seed=2) for x in mixed]


def test_intervals_with_a_generator_seed_run_one_by_one() -> None:
    columns = [SAMPLES["skewed"], SAMPLES["binary"]]
    found = bootstrap.mean_cis(columns, n_resamples=999, seed=np.random.default_rng(3), threads=4)
    rng = np.random.default_rng(3)
    assert found == [mean_ci(x, n_resamples=999, seed=rng) for x in columns]
