"""Bootstrap means read exactly where an interval needs them: the counts and order statistics of the
gathered means, value for value.

:class:`rankmeter.stats.resampled_means.ResampledMeans` decides each comparison from approximate means
(``counts @ values / n``) and gathers the exact mean (NumPy's mean of ``values[indices]`` along the row,
SciPy's statistic) only within its slack of a threshold. The reference here is the whole exact
distribution, computed the way :func:`scipy.stats.bootstrap` does; and approximations pushed to the
edge of the slack still give the exact answers.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankmeter.stats import bootstrap
from rankmeter.stats.resampled_means import ResampledMeans, counts_of

RNG = np.random.default_rng(29)
SAMPLES = {
    "skewed": RNG.random(200) ** 3,
    "binary": RNG.integers(0, 2, 57).astype(float),  # many tied means: k / 57
    "ties": np.repeat([0.0, 0.25, 1.0], [30, 5, 2]),
    "signed": RNG.normal(0.0, 1.0, 90),
    "huge": RNG.random(40) * 1e300,
    "tiny": RNG.random(30) * 1e-310,  # subnormal values
    "two": np.array([0.1, 0.9]),
}


def _drawn(n: int, m: int, seed: int, batch: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return tuple(rng.integers(0, n, size=(min(batch, m - k), n)) for k in range(0, m, batch))


def _exact(values: np.ndarray, drawn: tuple[np.ndarray, ...]) -> np.ndarray:
    return np.concatenate([np.mean(values[i], axis=-1) for i in drawn])


def test_counts_are_how_often_each_value_is_drawn() -> None:
    drawn = _drawn(6, 50, 1, batch=16)
    counts = counts_of(drawn, 6)
    expected = np.stack([np.bincount(row, minlength=6) for i in drawn for row in i]).astype(float)
    assert np.array_equal(counts, expected)


@pytest.mark.parametrize("name", SAMPLES)
def test_approximate_means_are_within_the_slack(name: str) -> None:
    values = SAMPLES[name]
    drawn = _drawn(values.size, 3000, 2, batch=700)
    means = ResampledMeans(values, drawn, counts_of(drawn, values.size) @ values / values.size)
    n = values.size
    assert means.slack == 4 * (n + 2) * (np.finfo(float).eps * np.max(np.abs(values)) + 5e-324)
    assert np.max(np.abs(means.approx - _exact(values, drawn))) <= means.slack


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("push", [0.0, 1.0, -1.0, 0.5])
def test_counts_and_order_statistics_are_the_exact_ones(name: str, push: float) -> None:
    values = SAMPLES[name]
    drawn = _drawn(values.size, 999, 3, batch=250)
    exact = _exact(values, drawn)
    means = ResampledMeans(values, drawn, counts_of(drawn, values.size) @ values / values.size)
    # approximations anywhere within the slack (to its edge, both ways, alternating): the same answers
    sway = push * means.slack * np.where(np.arange(exact.size) % 2 == 0, 1.0, -1.0)
    pushed = ResampledMeans(values, drawn, exact + sway, slack=means.slack)
    ordered = np.sort(exact)
    for found in (means, pushed):
        assert found.order_statistics(np.arange(exact.size)).tolist() == ordered.tolist()
        assert found.order_statistics(np.array([998, 0, 500, 500])).tolist() == ordered[[998, 0, 500, 500]].tolist()
        for threshold in (float(np.mean(values)), *ordered[[0, 17, 500, 998]].tolist(), ordered[0] - 1.0):
            assert found.count_below(threshold) == (
                int(np.count_nonzero(exact < threshold)),
                int(np.count_nonzero(exact <= threshold)),
            )


def test_an_array_is_its_own_distribution() -> None:
    means = ResampledMeans.of_array(np.array([0.5, 0.25, 0.5, 1.0]))
    assert means.slack == 0.0 and means.size == 4
    assert means.count_below(0.5) == (1, 3)
    assert means.order_statistics(np.array([3, 0, 1, 2])).tolist() == [1.0, 0.25, 0.5, 0.5]
    assert means.order_statistics(np.array([], dtype=np.int64)).size == 0


@pytest.mark.parametrize("method", ["BCa", "percentile", "basic"])
def test_intervals_from_approximate_means_are_those_from_every_gathered_mean(method: str) -> None:
    n = 57
    columns = [
        SAMPLES["binary"],
        RNG.integers(0, 4, n) / 3,  # few distinct values: many tied means
        RNG.random(n) ** 4,
        RNG.random(n) * 1e6,
        np.r_[np.zeros(n - 1), 1.0],  # BCa undefined: the percentile interval
        np.full(n, 0.5),
    ]
    bootstrap._resample_indices.cache_clear()
    together = bootstrap.mean_cis(columns, method=method, level=0.9, n_resamples=4999, seed=8, threads=2)
    assert together == [bootstrap.mean_ci(x, method=method, level=0.9, n_resamples=4999, seed=8) for x in columns]


def test_many_columns_go_in_groups_of_bounded_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    columns = [np.round(RNG.random(5), 2) for _ in range(12)]
    monkeypatch.setattr(bootstrap, "BATCH_CELLS", 1000)  # 200 resamples: 5 columns at a time
    approximated: list[int] = []
    real = bootstrap._approximate_means
    monkeypatch.setattr(bootstrap, "_approximate_means", lambda c, m, s: approximated.append(len(c)) or real(c, m, s))
    together = bootstrap.mean_cis(columns, n_resamples=200, seed=4, threads=2)
    assert approximated == [5, 5, 2]
    assert together == [bootstrap.mean_ci(x, n_resamples=200, seed=4) for x in columns]
