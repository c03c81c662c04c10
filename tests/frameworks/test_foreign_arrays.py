"""evaluate_arrays / evaluate_lists / evaluate_vectors take torch tensors and JAX arrays (CPU: NumPy's view).

By default CPU arrays are viewed by NumPy without a copy and take NumPy's
kernels (test_array_api.py checks the array-API kernels against them).

The result must be the NumPy input's, exactly, for tensors that track
gradients too. (CuPy is not installed in the tests, which run without a GPU.)
"""

from __future__ import annotations

import os

os.environ.setdefault("KERAS_BACKEND", "jax")

import jax.numpy as jnp
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch

import rankmeter  # noqa: E402

MEASURES = ["ndcg@[3,5]", "map", "rr@4", "p@2"]


def case(seed=0, n=15, m=9):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, (n, m)).astype(np.float64)
    s = np.round(rng.normal(size=(n, m)), 1)
    mask = rng.random((n, m)) < 0.8
    w = rng.uniform(0.5, 2.0, n)
    # float32: JAX (without x64) keeps float32 values only, so the NumPy reference gets the same numbers
    return y.astype(np.float32), s.astype(np.float32), mask, w.astype(np.float32)


def converters():
    return {
        "torch": lambda a: torch.tensor(a),
        "torch-grad": lambda a: torch.tensor(a, requires_grad=a.dtype.kind == "f"),
        "jax": lambda a: jnp.asarray(a),
    }


@pytest.mark.parametrize("kind", ["torch", "torch-grad", "jax"])
def test_foreign_arrays_give_the_numpy_result(kind):
    conv = converters()[kind]
    y, s, mask, w = case()
    want = rankmeter.evaluate_arrays(y, s, MEASURES)
    got = rankmeter.evaluate_arrays(conv(y), conv(s), MEASURES)
    assert got.aggregate == want.aggregate
    want = rankmeter.evaluate_arrays(y, s, MEASURES, mask=mask, sample_weight=w, ties="optimistic")
    got = rankmeter.evaluate_arrays(
        conv(y), conv(s), MEASURES, mask=conv(mask), sample_weight=conv(w), ties="optimistic"
    )
    assert got.aggregate == want.aggregate
    lists_y = [y[i, : 3 + i % 5] for i in range(len(y))]
    lists_s = [s[i, : 3 + i % 5] for i in range(len(s))]
    want = rankmeter.evaluate_lists(lists_y, lists_s, MEASURES)
    got = rankmeter.evaluate_lists([conv(a) for a in lists_y], [conv(a) for a in lists_s], MEASURES)
    assert got.aggregate == want.aggregate
    assert (
        rankmeter.evaluate_lists(conv(y), conv(s), MEASURES).aggregate
        == rankmeter.evaluate_lists(y, s, MEASURES).aggregate
    )


@pytest.mark.parametrize("kind", ["torch", "jax"])
def test_foreign_vectors_give_the_numpy_result(kind):
    conv = converters()[kind]
    rng = np.random.default_rng(1)
    q, d = rng.normal(size=(6, 4)).astype(np.float32), rng.normal(size=(30, 4)).astype(np.float32)
    ql, dl = rng.integers(0, 2, (6, 3)), rng.integers(0, 2, (30, 3))
    options = {"query_labels": ql, "database_labels": dl, "metric": "cosine"}
    want = rankmeter.evaluate_vectors(q, d, ["map", "p@5"], **options)
    got = rankmeter.evaluate_vectors(
        conv(q), conv(d), ["map", "p@5"], query_labels=conv(ql), database_labels=conv(dl), metric="cosine"
    )
    assert got.aggregate == want.aggregate
    codes_q, codes_d = rng.integers(0, 2, (6, 16)).astype(np.uint8), rng.integers(0, 2, (30, 16)).astype(np.uint8)
    want = rankmeter.evaluate_vectors(codes_q, codes_d, "map", query_labels=ql, database_labels=dl)
    got = rankmeter.evaluate_vectors(
        conv(codes_q), conv(codes_d), "map", query_labels=conv(ql), database_labels=conv(dl)
    )
    assert got.aggregate == want.aggregate
