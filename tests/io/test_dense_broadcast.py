"""A broadcast ``y_score`` (one row of scores for every list) is read in blocks, never written out whole."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse

import rankmeter

MEASURES = ["ndcg@10", "r@20", "map", "auroc", "rr"]


def _data(n: int, m: int, tied: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    y = (rng.random((n, m)) < 0.05).astype(np.int8)
    y[:, 0] = 1  # every row has a relevant item
    pop = rng.integers(0, 5, m).astype(np.float64) if tied else rng.random(m)
    return y, np.broadcast_to(pop, (n, m))


@pytest.mark.parametrize("ties", ["expected", "trec", "stable", "optimistic", "pessimistic"])
@pytest.mark.parametrize("tied", [False, True])
def test_a_broadcast_gives_the_values_of_the_whole_matrix(ties: str, tied: bool) -> None:
    y, s = _data(60, 40, tied)
    assert s.strides[0] == 0
    got = rankmeter.evaluate_arrays(y, s, MEASURES, ties=ties)
    want = rankmeter.evaluate_arrays(y, np.array(s), MEASURES, ties=ties)
    assert got.aggregate == want.aggregate
    np.testing.assert_array_equal(got.values, want.values)
    seen = scipy.sparse.random(60, 40, density=0.1, random_state=1, format="csr")
    removed = rankmeter.evaluate_arrays(y, s, MEASURES, ties=ties, exclude=seen)
    assert removed.aggregate == rankmeter.evaluate_arrays(y, np.array(s), MEASURES, ties=ties, exclude=seen).aggregate


def test_a_broadcast_is_not_copied_whole() -> None:
    y, s = _data(2000, 5000, tied=False)  # the scores written out: 2000 x 5000 x 8 bytes = 80 MB
    tracemalloc.start()
    try:
        rankmeter.evaluate_arrays(y, s, ["ndcg@10", "r@20"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < s.size * s.itemsize / 2  # blocks of rows at a time (13 MB measured)
