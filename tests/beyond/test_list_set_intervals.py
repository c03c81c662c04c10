"""Intervals of list-set values: the delete-d jackknife covers the value of n users' lists at its level.

A population of users whose top-10 lists are weighted draws without replacement from a Zipf-like
catalogue of 200 items; theta_n, the expected value of the lists of n = 50 users, is the mean over 3,000
samples of the formulas written out below (each checked against rankmeter on a sample). Over 150 seeded
samples the 95% intervals must cover theta_n at 0.95 within three binomial standard errors.
"""

from __future__ import annotations

import numpy as np

import rankmeter
from rankmeter.beyond import list_set_intervals

CATALOG, K, N_USERS = 200, 10, 50
NAMES = ["catalog_coverage@10", "entropy@10", "gini@10", "personalization@10"]
POP = 1 / np.arange(1, CATALOG + 1)
POP /= POP.sum()


def population_sample(rng: np.random.Generator, n: int) -> np.ndarray:
    """n users' lists: K items each, drawn without replacement with probability in proportion to POP."""
    keys = np.log(POP)[None, :] - np.log(-np.log(rng.random((n, CATALOG))))  # Gumbel top-k
    return np.argsort(-keys, axis=1)[:, :K]


def written_out(lists: np.ndarray) -> np.ndarray:
    """Coverage, entropy in bits, Gini over the catalogue and 1 - mean pairwise cosine similarity."""
    counts = np.bincount(lists.ravel(), minlength=CATALOG)
    share = counts[counts > 0] / counts.sum()
    ordered = np.sort(counts)
    i = np.arange(1, CATALOG + 1)
    gini = ((2 * i - CATALOG - 1) * ordered).sum() / (CATALOG * ordered.sum())
    n = len(lists)
    onehot = np.zeros((n, CATALOG))
    onehot[np.arange(n)[:, None], lists] = 1
    similarity = onehot @ onehot.T / K  # |A & B| / sqrt(|A| |B|) with |A| = |B| = K
    personalization = 1 - (similarity.sum() - np.trace(similarity)) / (n * (n - 1))
    return np.array([(counts > 0).mean(), -(share * np.log2(share)).sum(), gini, personalization])


def evaluated(lists: np.ndarray) -> rankmeter.EvaluationResult:
    items = rankmeter.Items(catalog=np.arange(CATALOG))
    return rankmeter.evaluate(None, rankmeter.ranked_lists(lists), NAMES, items=items)


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
