"""The intervals of a mean from its bootstrap distribution: type 7 quantiles, the jackknife, BCa.

Written-out formulas (the standard normal from :class:`statistics.NormalDist`), R's ``quantile()``
on a published example, and SciPy's own :func:`scipy.stats.bootstrap` handed the same bootstrap
distribution, value for value.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from statistics import NormalDist
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from rankmeter.stats.bootstrap_interval import bca_levels, interval, jackknife_means, quantiles

RNG = np.random.default_rng(29)


def test_type_7_quantiles_written_out() -> None:
    # R: quantile(c(1, 2, 3, 4, 10), c(0, 0.3, 0.5, 0.9, 1)) gives 1.0 2.2 3.0 7.6 10.0 (type 7, the default)
    found = quantiles(np.array([10.0, 3.0, 1.0, 4.0, 2.0]), np.array([0.0, 0.3, 0.5, 0.9, 1.0]))
    assert found.tolist() == pytest.approx([1.0, 2.2, 3.0, 7.6, 10.0], rel=1e-15)


def test_quantiles_outside_zero_one_are_nan() -> None:
    found = quantiles(np.array([1.0, 2.0]), np.array([-0.1, 1.5, np.nan, 0.5]))
    assert np.isnan(found[:3]).all() and found[3] == 1.5


@pytest.mark.parametrize("size", [1, 2, 7, 1000, 10_001])
def test_quantiles_equal_numpys_linear_method(size: int) -> None:
    values = RNG.random(size)
    p = np.array([0.0, 0.025, 0.3, 0.5, 0.975, 1.0])
    assert quantiles(values, p) == pytest.approx(np.quantile(values, p, method="linear"), rel=1e-15, abs=0)


@pytest.mark.parametrize("batch", [1, 3, 50])
def test_jackknife_means_are_the_means_without_each_value(batch: int) -> None:
    values = RNG.random(50)
    expected = [(values.sum() - v) / 49 for v in values]
    assert jackknife_means(values, batch) == pytest.approx(expected, rel=1e-14)


def test_bca_levels_written_out() -> None:
    values = np.array([0.1, 0.4, 0.2, 0.9, 0.3, 0.35])
    resampled = RNG.choice(values, size=(999, values.size)).mean(axis=1)
    mean, n = values.mean(), values.size
    share = (np.sum(resampled < mean) + np.sum(resampled <= mean)) / (2 * resampled.size)
    normal = NormalDist()
    z0 = normal.inv_cdf(share)
    left_out = [(values.sum() - v) / (n - 1) for v in values]
    u = [(n - 1) * (sum(left_out) / n - x) for x in left_out]
    accel = sum(x**3 for x in u) / n**3 / (6 * (sum(x**2 for x in u) / n**2) ** 1.5)
    z = normal.inv_cdf(0.05)
    expected = [normal.cdf(z0 + (z0 + s) / (1 - accel * (z0 + s))) for s in (z, -z)]
    assert bca_levels(values, resampled, 0.05, batch=4).tolist() == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("method", ["BCa", "percentile", "basic"])
@pytest.mark.parametrize(("size", "level"), [(3, 0.95), (40, 0.9), (200, 0.99)])
def test_interval_is_scipys_on_the_same_distribution(method: str, size: int, level: float) -> None:
    values = np.round(RNG.random(size) ** 2, 3)
    resampled = values[RNG.integers(0, size, (2000, size))].mean(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.bootstrap(
            (values,), np.mean, n_resamples=0, batch=7, vectorized=True, confidence_level=level, method=method,
            bootstrap_result=SimpleNamespace(bootstrap_distribution=resampled),
        )  # fmt: skip
    found = interval(values, resampled, level, method, batch=7)
    assert found == (float(res.confidence_interval.low), float(res.confidence_interval.high))


def test_bca_undefined_is_nan() -> None:
    values = np.r_[np.zeros(39), 1.0]
    resampled = np.zeros(100)  # every resampled mean below the estimate: z0 is -inf
    assert all(math.isnan(x) for x in interval(values, resampled, 0.95, "BCa", batch=40))


def test_compare_does_not_import_scipy_stats(tmp_path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{q} 0 d{d} {(q + d) % 3}\n" for q in range(6) for d in range(5)))
    for k in range(2):
        lines = [f"q{q} Q0 d{d} {d + 1} {10 - d - k * (q + d) % 2} r{k}\n" for q in range(6) for d in range(5)]
        (tmp_path / f"run{k}").write_text("".join(lines))
    code = (
        "import sys; from rankmeter.cli.main import main; "
        f"main(['compare', {str(qrels)!r}, {str(tmp_path / 'run0')!r}, {str(tmp_path / 'run1')!r}, '-m', 'map', "
        "'--format', 'json']); print('scipy.stats' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.split()[-1] == "False" and '"systems"' in done.stdout
