"""RBO against the ``rbo`` package (Changyao Chen's implementation of Webber, Moffat & Zobel 2010).

The package pins NumPy < 2 in its metadata, so it runs here, in the oracle environment of pinned
libraries (``requirements.txt``), not in the main suite.
"""

from __future__ import annotations

import numpy as np
import pytest
import rbo
from tests.agreement.plain import prefix_plain, random_lists, scores_of

import rankmeter


def test_rbo_ext_equals_the_rbo_package_on_uneven_tie_free_lists() -> None:
    a, b = random_lists(np.random.default_rng(1), 40)
    for p in (0.5, 0.9, 0.98):
        res = rankmeter.similarity(scores_of(a), scores_of(b), f"rbo(p={p})")
        for q, value in res.by_query(f"rbo(p={p})").items():
            assert value == pytest.approx(rbo.RankingSimilarity(a[q], b[q]).rbo_ext(p=p), abs=1e-12)


def test_prefix_and_even_extrapolation_equal_the_rbo_package_at_a_depth() -> None:
    a, b = random_lists(np.random.default_rng(2), 40)
    res = rankmeter.similarity(scores_of(a), scores_of(b), ["rbo_prefix(p=0.8)@5", "rbo(p=0.8)@5"])
    for q in a:
        k = min(5, len(a[q]), len(b[q]))
        if k < 5:  # the package stops at the shorter list; the prefix form goes on to depth 5
            assert res.by_query("rbo_prefix(p=0.8)@5")[q] == pytest.approx(prefix_plain(a[q], b[q], 0.8, 5), abs=1e-12)
            continue
        package = rbo.RankingSimilarity(a[q], b[q])
        assert res.by_query("rbo_prefix(p=0.8)@5")[q] == pytest.approx(package.rbo(k=5, p=0.8), abs=1e-12)
        assert res.by_query("rbo(p=0.8)@5")[q] == pytest.approx(package.rbo(k=5, p=0.8, ext=True), abs=1e-12)
