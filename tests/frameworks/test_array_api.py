"""The array-API path: torch tensors and JAX arrays evaluated on their own device (rankmeter.xp).

With ``RANKMETER_ARRAY_API=device`` CPU arrays take the array-API kernels
(by default NumPy views them and runs its tuned kernels). Every entry point
must then give the NumPy result -- values, inclusion, means and tie
diagnostics -- to 1e-12 in float64 and 1e-6 in float32, on tie-heavy inputs
(scores rounded to 1 decimal) made ragged by masks, without converting any
input array to NumPy: only per-query vectors come back. CuPy is not
installed in the tests (they run without a GPU); its path is the same code.
"""

from __future__ import annotations

import contextlib
import os

os.environ.setdefault("KERAS_BACKEND", "jax")

import array_api_compat  # noqa: F401
import jax
import jax.numpy as jnp
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch

import rankmeter  # noqa: E402
from rankmeter.errors import InputFormatError, InvalidScoreError  # noqa: E402
from rankmeter.measures import measure  # noqa: E402

MEASURES = [
    "ndcg@[1,3,5]", "ndcg", "ndcg(gain=exp)@10", "ndcg(discount=jarvelin(2))@5", "ndcg(gain={0:1,1:3})@4",
    "dcg@5", "idcg@3", "cg@4", "map", "map@10", "wap", "p@5", "p(min_rel=2)@3", "p(divisor=min)@40", "r@10",
    "r(min_rel=0)@5", "f1@5", "hits@5", "rprec", "rr", "rr@3", "success@[1,3]", "judged@5", "acg@5",
    "fall_out@5", "fall_out(all_relevant=1)@3", "num_rel", "num_ret", "num_rel_ret", "num_q",
]  # fmt: skip
TIES = ["expected", "stable", "trec", "optimistic", "pessimistic"]
# JAX compiles each (shape, measures, policy) once, seconds on a busy CI core: the namespace's own traits
# (float32 without x64, int32 indices, -0.0 sorted apart from 0.0) on fewer measures; torch runs them all
JAX_MEASURES = ["ndcg@[1,5]", "ndcg(gain={0:1,1:3})@4", "map", "rr@3", "p(min_rel=2)@3", "r(min_rel=0)@5", "rprec"]


@pytest.fixture
def on_device(monkeypatch):
    monkeypatch.setenv("RANKMETER_ARRAY_API", "device")


def dense_case(seed, n=30, m=24):
    rng = np.random.default_rng(seed)
    y = rng.integers(-1, 4, (n, m)).astype(np.float64)
    s = np.round(rng.normal(size=(n, m)), 1)  # tie-heavy, and holds -0.0 and 0.0 (equal scores)
    mask = rng.random((n, m)) < 0.75
    mask[2] = False  # a list with no items
    mask[5, 3:] = False  # a short one
    return y, s, mask


@contextlib.contextmanager
def library(name, dtype):
    """Converter of NumPy arrays to the library's arrays in ``dtype`` (JAX: float64 inside enable_x64)."""
    if name == "torch":
        yield lambda a: torch.tensor(a.astype(dtype) if a.dtype.kind == "f" else a)
        return
    context = jax.enable_x64(True) if dtype == np.float64 else contextlib.nullcontext()
    with context:
        yield lambda a: jnp.asarray(a.astype(dtype) if a.dtype.kind == "f" else a)


def tolerance(dtype):
    return 1e-12 if dtype == np.float64 else 1e-6


def assert_same_result(got, want, tol):
    assert got.measure_names == want.measure_names
    np.testing.assert_array_equal(got.included, want.included)
    np.testing.assert_allclose(got.values, want.values, rtol=tol, atol=tol)
    for name, value in want.aggregate.items():
        np.testing.assert_allclose(got.aggregate[name], value, rtol=tol, atol=tol, err_msg=name)
    for key in ("queries_evaluated", "queries_empty", "queries_with_ties", "queries_with_ties_at_cutoff", "weighted"):
        assert got.metadata[key] == want.metadata[key], key
    assert got.metadata["array_api"]["path"] == "device"


DENSE_CASES = [("torch", dtype, ties) for dtype in (np.float64, np.float32) for ties in TIES] + [
    ("jax", np.float64, "expected"),
    ("jax", np.float32, "optimistic"),
]


@pytest.mark.parametrize(("name", "dtype", "ties"), DENSE_CASES)
def test_dense_rows_on_device_equal_numpy(on_device, name, dtype, ties):
    y, s, mask = dense_case(len(ties))
    y, s = y.astype(dtype), s.astype(dtype)  # the NumPy reference ranks the same float32 scores
    measures = MEASURES if name == "torch" else JAX_MEASURES
    with library(name, dtype) as conv:
        for empty in ("zero", "skip"):
            want = rankmeter.evaluate_arrays(y, s, measures, mask=mask, ties=ties, empty=empty)
            got = rankmeter.evaluate_arrays(conv(y), conv(s), measures, mask=conv(mask), ties=ties, empty=empty)
            assert_same_result(got, want, tolerance(dtype))
        want = rankmeter.evaluate_arrays(y, s, measures, ties=ties)  # complete rows: NumPy's fastest paths
        assert_same_result(rankmeter.evaluate_arrays(conv(y), conv(s), measures, ties=ties), want, tolerance(dtype))
    assert got.metadata["array_api"]["namespace"] == name
    assert got.metadata["array_api"]["device"] == ("cpu" if name == "torch" else "cpu:0")


@pytest.mark.parametrize("name", ["torch", "jax"])
def test_ragged_lists_on_device_equal_numpy(on_device, name):
    y, s, _ = dense_case(7)
    lengths = [24 - (5 * i) % 24 for i in range(len(y))]  # 1 to 24 items
    ys, ss = [y[i, :k] for i, k in enumerate(lengths)], [s[i, :k] for i, k in enumerate(lengths)]
    measures = MEASURES if name == "torch" else JAX_MEASURES
    with library(name, np.float64) as conv:
        for ties in ("expected", "trec") if name == "torch" else ("expected",):
            want = rankmeter.evaluate_lists(ys, ss, measures, ties=ties)
            got = rankmeter.evaluate_lists([conv(a) for a in ys], [conv(a) for a in ss], measures, ties=ties)
            assert_same_result(got, want, 1e-12)
            assert got.metadata["input"] == "ragged"
        want = rankmeter.evaluate_lists(y, s, measures)
        assert_same_result(rankmeter.evaluate_lists(conv(y), conv(s), measures), want, 1e-12)


def features(rng, n, dim):
    """Rows of four +-1 entries: norm 2, so cosine scores are exact and equal in any summation order (ties)."""
    x = np.zeros((n, dim))
    for i in range(n):
        x[i, rng.choice(dim, 4, replace=False)] = rng.choice([-1.0, 1.0], 4)
    return x


VECTOR_MEASURES = ["ndcg@[5,10]", "ndcg", "map", "map@10", "p@5", "r@10", "rr", "acg@5", "wap@10", "ndcg(gain=exp)@5"]


@pytest.mark.parametrize(
    ("name", "ties"),
    [("torch", t) for t in ("expected", "stable", "optimistic", "pessimistic")] + [("jax", "expected")],
)
def test_vectors_on_device_equal_numpy(on_device, name, ties):
    rng = np.random.default_rng(3)
    q, d = features(rng, 10, 8), features(rng, 36, 8)
    codes_q, codes_d = rng.choice([-1, 1], (10, 6)), rng.choice([-1, 1], (36, 6))
    labels = {"shared_labels": (rng.integers(0, 2, (10, 3)), rng.integers(0, 2, (36, 3)))}
    labels["any_shared"] = labels["shared_labels"]
    labels["same_class"] = (rng.integers(0, 3, 10), rng.integers(0, 3, 36))
    inputs = {
        "cosine": (q, d), "inner": (q, d), "euclidean": (q, d),
        "hamming": (codes_q, codes_d), "hamming01": ((codes_q > 0).astype(np.uint8), (codes_d > 0).astype(np.uint8)),
    }  # fmt: skip
    with library(name, np.float64) as conv:
        pairs = list(zip(inputs.items(), list(labels.items()) * 2, strict=False))
        for (metric, (a, b)), (rule, (ql, dl)) in pairs if name == "torch" else pairs[::3]:
            for exclude_self in (False, True):
                options = {
                    "metric": metric.removesuffix("01"),
                    "relevance": rule,
                    "ties": ties,
                    "exclude_self": exclude_self,
                }
                want = rankmeter.evaluate_vectors(a, b, VECTOR_MEASURES, query_labels=ql, database_labels=dl, **options)
                got = rankmeter.evaluate_vectors(
                    conv(a), conv(b), VECTOR_MEASURES, query_labels=conv(ql), database_labels=conv(dl), **options
                )
                assert_same_result(got, want, 1e-12)
                assert got.metadata["metric"] == options["metric"] and got.metadata["relevance"] == rule


class Conversions:
    """Records every array of a library converted to NumPy (or a list): its id and shape.

    torch: its conversion methods (``__array__``, ``numpy``, ``tolist``) are
    wrapped. JAX arrays hand NumPy their buffer at the C level, so for them
    NumPy's converting functions are wrapped instead.
    """

    def __init__(self, monkeypatch, name):
        self.seen: list[tuple[int, tuple[int, ...]]] = []
        if name == "torch":
            owner, methods, wanted = torch.Tensor, ["__array__", "numpy", "tolist"], torch.Tensor
        else:
            owner, methods, wanted = np, ["asarray", "array", "asanyarray", "ascontiguousarray"], jax.Array
        for method in methods:
            original = getattr(owner, method)

            def spy(x, *args, _original=original, **kwargs):
                if isinstance(x, wanted):
                    self.seen.append((id(x), tuple(x.shape)))
                return _original(x, *args, **kwargs)

            monkeypatch.setattr(owner, method, spy)

    def check(self, inputs, most_items):
        """No input was converted, and nothing bigger than ``most_items`` values came back."""
        ids = {id(x) for x in inputs}
        assert not [shape for i, shape in self.seen if i in ids], "an input array was copied to the host"
        assert all(int(np.prod(shape)) <= most_items for _, shape in self.seen), self.seen
        assert self.seen  # the per-query values did come back


@pytest.mark.parametrize("name", ["torch", "jax"])
def test_no_input_is_copied_to_the_host(on_device, monkeypatch, name):
    y, s, mask = dense_case(11, n=20, m=64)
    rng = np.random.default_rng(4)
    q, d = features(rng, 20, 8), features(rng, 64, 8)  # blocks of the dense shape: JAX compiles them once
    ql, dl = rng.integers(0, 2, (20, 3)), rng.integers(0, 2, (64, 3))
    with library(name, np.float64) as conv:
        arrays = [conv(a) for a in (y, s, mask, q, d, ql, dl)]
        ty, ts, tm, tq, td, tql, tdl = arrays
        lists_y, lists_s = [ty[i, : 64 - i] for i in range(20)], [ts[i, : 64 - i] for i in range(20)]
        watch = Conversions(monkeypatch, name)
        measures = ["ndcg@[5,10]", "map", "rr"]  # 4 columns: at most 4 x 20 values per conversion
        rankmeter.evaluate_arrays(ty, ts, measures, mask=tm)
        rankmeter.evaluate_lists(lists_y, lists_s, measures)
        watch.check([ty, ts, tm, *lists_y, *lists_s], 4 * 20)
        res = rankmeter.evaluate_vectors(tq, td, measures, query_labels=tql, database_labels=tdl, metric="cosine")
        watch.check(arrays + lists_y + lists_s, 4 * 20)
    assert res.metadata["array_api"]["path"] == "device"


@pytest.mark.parametrize("name", ["torch", "jax"])
def test_cpu_arrays_default_to_numpys_view(name):
    y, s, mask = dense_case(5)
    with library(name, np.float64) as conv:
        got = rankmeter.evaluate_arrays(conv(y), conv(s), MEASURES, mask=conv(mask))
    assert got.metadata["array_api"]["path"] == "numpy-view"
    want = rankmeter.evaluate_arrays(y, s, MEASURES, mask=mask)
    np.testing.assert_array_equal(got.values, want.values)


def test_calls_that_need_numpy_say_so(on_device):
    y, s, _ = dense_case(6)
    ty, ts = torch.tensor(y), torch.tensor(s)
    cases = {
        "ties='shuffle'": ({"ties": "shuffle", "seed": 3}, "ndcg@5"),
        "sample_weight": ({"sample_weight": torch.ones(len(y))}, "ndcg@5"),
        "callable gain": ({}, measure("ndcg", 5, gain=lambda g: g * 2.0)),
        "bpref": ({"ties": "stable"}, "bpref"),
    }
    for why, (options, requested) in cases.items():
        got = rankmeter.evaluate_arrays(ty, ts, requested, **options)
        numpy_options = {k: (v.numpy() if hasattr(v, "numpy") else v) for k, v in options.items()}
        want = rankmeter.evaluate_arrays(y, s, requested, **numpy_options)
        assert got.metadata["array_api"]["path"] == "numpy-view", why
        assert got.metadata["array_api"]["why"], why
        np.testing.assert_array_equal(got.values, want.values)


# --- bad input -----------------------------------------------------------------------------------------------
def test_device_mismatch_is_named(on_device):
    with pytest.raises(InputFormatError, match="y_true is on device cpu but y_score is on meta"):
        rankmeter.evaluate_arrays(torch.ones(2, 3), torch.ones(2, 3, device="meta"), "ndcg")


def test_two_libraries_are_refused(on_device):
    with pytest.raises(InputFormatError, match="y_true is a torch array but y_score is a jax array"):
        rankmeter.evaluate_arrays(torch.ones(2, 3), jnp.ones((2, 3)), "ndcg")


def test_nan_score_is_named(on_device):
    s = torch.tensor([[0.5, 0.1, 0.2], [0.3, float("nan"), 0.1]])
    with pytest.raises(InvalidScoreError, match=r"y_score\[1, 1\] is nan; values must be finite"):
        rankmeter.evaluate_arrays(torch.ones(2, 3), s, "ndcg")
    mask = torch.tensor([[True, True, True], [True, False, True]])  # a masked NaN is never read
    assert rankmeter.evaluate_arrays(torch.ones(2, 3), s, "ndcg", mask=mask)["ndcg"] == 1.0


def test_nan_grade_is_named(on_device):
    with pytest.raises(InvalidScoreError, match=r"y_true\[0, 2\] is inf"):
        rankmeter.evaluate_arrays(torch.tensor([[1.0, 0.0, float("inf")]]), torch.ones(1, 3), "ndcg")


def test_shape_mismatch_is_named(on_device):
    with pytest.raises(InputFormatError, match=r"y_true has shape \(2, 3\) but y_score has shape \(2, 4\)"):
        rankmeter.evaluate_arrays(torch.ones(2, 3), torch.ones(2, 4), "ndcg")


def test_three_dimensional_input_is_named(on_device):
    with pytest.raises(
        InputFormatError, match=r"y_score must have shape \(n_lists, list_size\), got shape \(2, 3, 1\)"
    ):
        rankmeter.evaluate_arrays(torch.ones(2, 3), torch.ones(2, 3, 1), "ndcg")


def test_mask_of_the_wrong_shape_is_named(on_device):
    with pytest.raises(InputFormatError, match=r"mask has shape \(2, 2\), expected \(2, 3\)"):
        rankmeter.evaluate_arrays(torch.ones(2, 3), torch.ones(2, 3), "ndcg", mask=torch.ones(2, 2, dtype=torch.bool))


def test_mask_that_is_not_boolean_is_named(on_device):
    with pytest.raises(InputFormatError, match="mask must be boolean, got dtype torch.float32"):
        rankmeter.evaluate_arrays(torch.ones(2, 3), torch.ones(2, 3), "ndcg", mask=torch.ones(2, 3))


def test_ragged_lengths_are_named(on_device):
    with pytest.raises(InputFormatError, match="list 1: y_true has 2 items but y_score has 3"):
        rankmeter.evaluate_lists([torch.ones(3), torch.ones(2)], [torch.ones(3), torch.ones(3)], "ndcg")
    with pytest.raises(InputFormatError, match="y_true has 2 lists but y_score has 1"):
        rankmeter.evaluate_lists([torch.ones(3), torch.ones(2)], [torch.ones(3)], "ndcg")


def test_nan_feature_is_named(on_device):
    q = torch.tensor([[1.0, float("nan")]])
    with pytest.raises(InvalidScoreError, match=r"queries\[0, 1\] is nan; features must be finite"):
        rankmeter.evaluate_vectors(
            q, torch.ones(3, 2), "map", query_labels=torch.ones(1, 2), database_labels=torch.ones(3, 2), metric="cosine"
        )


def test_empty_database_is_named(on_device):
    with pytest.raises(InputFormatError, match="database is empty"):
        rankmeter.evaluate_vectors(
            torch.ones(1, 2),
            torch.ones(0, 2),
            "map",
            query_labels=torch.ones(1),
            database_labels=torch.ones(0),
            metric="inner",
        )
