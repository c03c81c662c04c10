"""Multiple-testing corrections against statsmodels, NaN handling, and properties."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.stats.multitest as multitest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.errors import PolicyError
from rankmeter.stats.corrections import adjust, benjamini_hochberg, bonferroni, canonical_correction, holm

STATSMODELS_NAMES = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}


def random_pvalues(seed: int, k: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, k) ** 3  # many small p-values
    p[rng.random(k) < 0.2] = p[0]  # ties
    return p


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh"])
@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("k", [1, 2, 7, 50])
def test_equals_statsmodels_multipletests(method: str, seed: int, k: int) -> None:
    p = random_pvalues(seed, k)
    ours = adjust(p, method)
    reject, theirs, _, _ = multitest.multipletests(p, alpha=0.05, method=STATSMODELS_NAMES[method])
    np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=0)
    assert ((ours <= 0.05) == reject).all()


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh"])
def test_nan_pvalues_are_excluded_not_propagated(method: str) -> None:
    p = random_pvalues(3, 12)
    p_nan = p.copy()
    holes = [0, 5, 11]
    p_nan[holes] = np.nan
    ours = adjust(p_nan, method)
    keep = np.setdiff1d(np.arange(12), holes)
    _, theirs, _, _ = multitest.multipletests(p[keep], method=STATSMODELS_NAMES[method])
    assert np.isnan(ours[holes]).all()
    np.testing.assert_allclose(ours[keep], theirs, rtol=1e-15)
    # the family size is the number of non-NaN p-values
    if method == "bonferroni":
        np.testing.assert_allclose(ours[keep], np.minimum(1, p[keep] * 9))


def test_hand_computed_examples() -> None:
    p = [0.01, 0.04, 0.03, 0.005]
    assert bonferroni(p).tolist() == pytest.approx([0.04, 0.16, 0.12, 0.02])
    # sorted 0.005, 0.01, 0.03, 0.04 -> 4*0.005, 3*0.01, 2*0.03, 1*0.04 -> running max
    assert holm(p).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # 0.04*4/4, 0.03*4/3, 0.01*4/2, 0.005*4/1 -> running min from the top
    assert benjamini_hochberg(p).tolist() == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert adjust(p, "none").tolist() == p
    assert adjust([], "holm").size == 0
    assert np.isnan(adjust([np.nan, np.nan], "bh")).all()


def test_names_and_validation() -> None:
    assert canonical_correction("FDR_BH") == "bh"
    assert canonical_correction(None) == "none"
    with pytest.raises(PolicyError, match="unknown correction 'sidak'"):
        adjust([0.1], "sidak")
    with pytest.raises(PolicyError, match=r"\[0, 1\]"):
        holm([0.5, 1.5])


pvals = st.lists(st.floats(0, 1) | st.just(float("nan")), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(pvals)
def test_properties_corrected_at_least_raw_and_ordering(p: list[float]) -> None:
    raw = np.array(p)
    ok = ~np.isnan(raw)
    h, b, f = holm(raw), bonferroni(raw), benjamini_hochberg(raw)
    for adj in (h, b, f):
        assert (np.isnan(adj) == ~ok).all()
        assert (adj[ok] >= raw[ok]).all()
        assert (adj[ok] <= 1).all()
    assert (h[ok] <= b[ok]).all()  # Holm is uniformly more powerful than Bonferroni
    assert (f[ok] <= h[ok] + 1e-15).all()  # BH controls FDR only, never stricter than Holm


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_property_monotone_in_raw_order(p: list[float]) -> None:
    raw = np.array(p)
    order = np.argsort(raw, kind="stable")
    for adj in (holm(raw), benjamini_hochberg(raw), bonferroni(raw)):
        assert (np.diff(adj[order]) >= 0).all()
