"""Intervals of list-set values: the delete-d jackknife covers the value of n users' lists at its level.

A population of users whose top-10 lists are weighted draws without replacement from a Zipf-like
catalogue of 200 items; theta_n, the expected value of the lists of n = 50 users, is the mean over 3,000
samples of the formulas written out in tests/beyond/interval_coverage.py (checked against rankmeter
below). Over 150 seeded samples the 95% intervals must cover theta_n at 0.95 within three binomial
standard errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter
from rankmeter.beyond import list_set_intervals
from tests.beyond.interval_coverage import Setting

POPULATION = Setting()
"""Top-10 lists of 50 users from a Zipf-like catalogue of 200 items (tests/beyond/interval_coverage.py)."""
CATALOG, N_USERS, NAMES = POPULATION.catalog, POPULATION.n, POPULATION.names()
population_sample, written_out, evaluated = POPULATION.sample, POPULATION.written_out, POPULATION.evaluated


def test_the_formulas_are_rankmeters() -> None:
    lists = population_sample(np.random.default_rng(3), N_USERS)
    res = evaluated(lists)
    assert np.allclose([res[name] for name in NAMES], written_out(lists), rtol=0, atol=1e-12)


def test_jackknife_covers_the_value_of_n_lists_at_its_level() -> None:
    rng = np.random.default_rng(11)
    theta = np.mean([written_out(population_sample(rng, N_USERS)) for _ in range(3000)], axis=0)
    reps = 150
    covered = np.zeros(len(NAMES))
    for r in range(reps):
        rows = list_set_intervals(evaluated(population_sample(rng, N_USERS)), n_resamples=60, seed=r)
        covered += [row["ci_low"] <= t <= row["ci_high"] for row, t in zip(rows, theta, strict=True)]
    rate = covered / reps
    tolerance = 3 * np.sqrt(0.95 * 0.05 / reps)
    assert np.all(np.abs(rate - 0.95) <= tolerance), dict(zip(NAMES, rate.tolist(), strict=True))


def test_the_interval_is_bounded_to_the_measures_range() -> None:
    # dropping one of 4 users leaves coverage 3/4 (u1 or u3 dropped) or 2/4 (u2 or u4): a spread whose normal
    # interval passes 1; coverage is a share of the catalogue, so the interval stops at 1
    lists = {"u1": ["a"], "u2": ["b"], "u3": ["a"], "u4": ["c"]}
    res = rankmeter.evaluate(None, lists, ["catalog_coverage@1", "entropy@1"], items=rankmeter.Items(catalog="abcd"))
    coverage, entropy = list_set_intervals(res, n_resamples=200)
    half = coverage["value"] - coverage["ci_low"]
    assert coverage["value"] == 0.75 and coverage["value"] + half > 1 and coverage["ci_high"] == 1.0
    # entropy (bits of the counts 2, 1, 1: 1.5) is only bounded below: a symmetric interval above 0
    assert entropy["value"] == 1.5 and entropy["ci_low"] > 0
    assert entropy["ci_high"] - entropy["value"] == pytest.approx(entropy["value"] - entropy["ci_low"], abs=1e-12)


def test_every_declared_range_holds_on_the_kernels() -> None:
    from rankmeter.measures import FAMILIES

    declared = {name: f.traits.value_range for name, f in FAMILIES.items() if f.traits.value_range is not None}
    assert {"catalog_coverage", "gini", "personalization", "entropy"} <= declared.keys()
    items = rankmeter.Items(
        catalog=np.arange(CATALOG), interactions={"t": [0, 1, 1]}, groups=[f"g{i % 3}" for i in range(CATALOG)]
    )
    rng = np.random.default_rng(4)
    for n in (2, 7, 30):  # personalization needs two lists
        res = rankmeter.evaluate(None, rankmeter.ranked_lists(population_sample(rng, n)), [f"{x}@3" for x in declared],
                                 items=items)  # fmt: skip
        for name, (low, high) in declared.items():
            assert low <= res[f"{name}@3"] <= high, name
