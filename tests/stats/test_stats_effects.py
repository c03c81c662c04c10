"""Effect sizes: mean difference, Cohen's d_z, wins/ties/losses."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from rankmeter.stats.effects import WinsTiesLosses, cohens_dz, mean_difference, wins_ties_losses


def test_wins_ties_losses_hand_computed() -> None:
    a = [0.50, 0.20, 0.30, 0.00, 0.75, 1.00, 0.10]
    b = [0.60, 0.20, 0.10, 0.00, 0.80, 0.90, 0.10 + 1e-12]
    # q1 win, q2 tie, q3 loss, q4 tie, q5 win, q6 loss, q7 win (exact comparison, no tolerance)
    assert wins_ties_losses(a, b) == WinsTiesLosses(wins=3, ties=2, losses=2)
    assert wins_ties_losses(b, a) == WinsTiesLosses(wins=2, ties=2, losses=3)


@pytest.mark.parametrize("seed", range(5))
def test_cohens_dz_matches_formula(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.random(30)
    b = a + rng.normal(0.05, 0.1, 30)
    d = b - a
    expected = d.mean() / np.sqrt(((d - d.mean()) ** 2).sum() / (d.size - 1))
    assert cohens_dz(a, b) == pytest.approx(expected, rel=1e-12)
    assert cohens_dz(b, a) == pytest.approx(-expected, rel=1e-12)
    assert mean_difference(a, b) == pytest.approx(d.mean(), rel=1e-12)


def test_cohens_dz_hand_computed() -> None:
    # d = (0.1, 0.0, 0.2, 0.1): mean 0.1, sd = sqrt(0.02 / 3)
    assert cohens_dz([0.1, 0.2, 0.3, 0.4], [0.2, 0.2, 0.5, 0.5]) == pytest.approx(0.1 / math.sqrt(0.02 / 3))


def test_cohens_dz_zero_spread_is_inf_safe() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cohens_dz([0.1, 0.2, 0.3], [0.1, 0.2, 0.3]) == 0.0
        assert cohens_dz([0.2, 0.4, 0.7], [0.3, 0.5, 0.8]) == math.inf  # +0.1 up to rounding
        assert cohens_dz([0.3, 0.5, 0.8], [0.2, 0.4, 0.7]) == -math.inf
        assert math.isnan(cohens_dz([0.1], [0.2]))
        assert math.isnan(mean_difference([], []))
