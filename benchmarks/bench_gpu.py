"""Arrays on a GPU: rankmeter on torch CUDA tensors, CuPy arrays and JAX GPU arrays, checked and timed.

Usage (on a machine with a CUDA GPU and torch, CuPy and/or JAX)::

    python benchmarks/bench_gpu.py [--users 20000] [--items 2000] [--rounds 5]

1. Equality: ``rankmeter.evaluate_arrays`` / ``evaluate_lists`` / ``evaluate_vectors`` on the GPU
   arrays must give NumPy's result (values, inclusion, aggregates, tie diagnostics) on tie-heavy
   inputs made ragged by masks, to 1e-12 in float64 and 1e-6 in float32, every tie policy, and the
   metadata must say the array-API path ran on the GPU. A library that is missing is reported, not
   failed.
2. Time: W3 (``--users`` x ``--items`` grades and float32 scores, ``ties="expected"``) evaluated on
   the GPU (arrays already there, synchronised; the first call, which compiles or loads kernels, timed
   apart) against NumPy on the same machine's CPU.

Not part of the test suite: CI has no GPU. The figures go to docs/frameworks.md with the device named.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rankmeter  # noqa: E402

MEASURES = [
    "ndcg@[1,3,5]", "ndcg", "ndcg(gain=exp)@10", "dcg@5", "idcg@3", "map", "map@10", "wap", "p@5",
    "p(min_rel=2)@3", "r@10", "f1@5", "hits@5", "rprec", "rr", "rr@3", "success@[1,3]", "judged@5", "acg@5",
    "fall_out@5", "num_rel", "num_ret", "num_rel_ret",
]  # fmt: skip
TIES = ["expected", "stable", "trec", "optimistic", "pessimistic"]
VECTOR_MEASURES = ["ndcg@[5,10]", "ndcg", "map", "p@5", "r@10", "rr", "acg@5", "wap@10"]


def dense_case(seed: int, n: int = 200, m: int = 48) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(-1, 4, (n, m)).astype(np.float64)
    s = np.round(rng.normal(size=(n, m)), 1)  # tie-heavy, with -0.0 and 0.0
    mask = rng.random((n, m)) < 0.75
    mask[2] = False
    mask[5, 3:] = False
    return y, s, mask


def exact_features(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """Rows of four +-1 entries: distances are small integers, exact in any summation order (so ties agree)."""
    x = np.zeros((n, dim))
    for i in range(n):
        x[i, rng.choice(dim, 4, replace=False)] = rng.choice([-1.0, 1.0], 4)
    return x


def converters(on_cpu: bool = False) -> dict[str, tuple[object, object, str]]:
    """name -> (to the GPU in a dtype, synchronise, what the metadata must name), for each library present.

    ``on_cpu``: torch's CPU tensors through the same array-API kernels (a dry run of this script).
    """
    found: dict[str, tuple[object, object, str]] = {}
    try:
        import torch

        if torch.cuda.is_available() or on_cpu:
            where = "cpu" if on_cpu else "cuda"
            found["torch"] = (
                lambda a, dtype: torch.tensor(a.astype(dtype) if a.dtype.kind == "f" else a, device=where),
                (lambda: None) if on_cpu else torch.cuda.synchronize,
                where,
            )
            if on_cpu:
                return found
    except ImportError:
        pass
    try:
        import cupy

        found["cupy"] = (
            lambda a, dtype: cupy.asarray(a.astype(dtype) if a.dtype.kind == "f" else a),
            cupy.cuda.Device().synchronize,
            "cuda",
        )
    except Exception:  # noqa: BLE001 - CuPy absent or without a device
        pass
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        gpu = jax.devices("gpu")[0]
        found["jax"] = (
            lambda a, dtype: jax.device_put(a.astype(dtype) if a.dtype.kind == "f" else a, gpu),
            lambda: None,
            "cuda",
        )
    except Exception:  # noqa: BLE001 - JAX absent or without a GPU
        pass
    return found


def same(got: rankmeter.EvaluationResult, want: rankmeter.EvaluationResult, tol: float, device: str) -> None:
    assert got.measure_names == want.measure_names
    np.testing.assert_array_equal(got.included, want.included)
    np.testing.assert_allclose(got.values, want.values, rtol=tol, atol=tol)
    for name, value in want.aggregate.items():
        np.testing.assert_allclose(got.aggregate[name], value, rtol=tol, atol=tol, err_msg=name)
    for key in ("queries_evaluated", "queries_empty", "queries_with_ties", "queries_with_ties_at_cutoff"):
        assert got.metadata[key] == want.metadata[key], key
    info = got.metadata["array_api"]
    assert info["path"] == "device" and device in str(info["device"]).lower(), info


def check(name: str, conv: object, device: str) -> list[str]:
    """Every comparison for one library; the failures, as text."""
    failures, done = [], 0
    for dtype in (np.float64, np.float32):
        tol = 1e-12 if dtype == np.float64 else 1e-6
        for k, ties in enumerate(TIES):
            y, s, mask = dense_case(k)
            y, s = y.astype(dtype), s.astype(dtype)
            try:
                for kwargs in ({"mask": mask}, {}):
                    want = rankmeter.evaluate_arrays(y, s, MEASURES, ties=ties, **kwargs)
                    dev = {key: conv(v, dtype) for key, v in kwargs.items()}
                    got = rankmeter.evaluate_arrays(conv(y, dtype), conv(s, dtype), MEASURES, ties=ties, **dev)
                    same(got, want, tol, device)
                    done += 1
            except Exception:  # noqa: BLE001 - reported, the others go on
                failures.append(f"{name} dense {np.dtype(dtype).name} ties={ties}:\n{traceback.format_exc()[-1500:]}")
    y, s, _ = dense_case(7)
    lengths = [48 - (5 * i) % 48 for i in range(len(y))]
    try:
        ys, ss = [y[i, :k] for i, k in enumerate(lengths)], [s[i, :k] for i, k in enumerate(lengths)]
        want = rankmeter.evaluate_lists(ys, ss, MEASURES)
        got = rankmeter.evaluate_lists([conv(a, np.float64) for a in ys], [conv(a, np.float64) for a in ss], MEASURES)
        same(got, want, 1e-12, device)
        done += 1
    except Exception:  # noqa: BLE001
        failures.append(f"{name} ragged lists:\n{traceback.format_exc()[-1500:]}")
    rng = np.random.default_rng(3)
    codes_q, codes_d = rng.choice([-1, 1], (40, 16)), rng.choice([-1, 1], (500, 16))
    labels_q, labels_d = rng.integers(0, 2, (40, 4)), rng.integers(0, 2, (500, 4))
    feats_q, feats_d = exact_features(rng, 40, 8), exact_features(rng, 500, 8)
    for metric, (a, b) in (("hamming", (codes_q, codes_d)), ("euclidean", (feats_q, feats_d))):
        for ties in ("expected", "stable", "optimistic"):
            try:
                options = {"metric": metric, "relevance": "shared_labels", "ties": ties}
                want = rankmeter.evaluate_vectors(
                    a, b, VECTOR_MEASURES, query_labels=labels_q, database_labels=labels_d, **options
                )
                got = rankmeter.evaluate_vectors(
                    conv(a, np.float64), conv(b, np.float64), VECTOR_MEASURES,
                    query_labels=conv(labels_q, np.float64), database_labels=conv(labels_d, np.float64), **options,
                )  # fmt: skip
                same(got, want, 1e-12, device)
                done += 1
            except Exception:  # noqa: BLE001
                failures.append(f"{name} vectors {metric} ties={ties}:\n{traceback.format_exc()[-1500:]}")
    print(f"{name}: {done} comparisons equal to NumPy's, {len(failures)} failed", flush=True)
    return failures


def timing(name: str, conv: object, sync: object, users: int, items: int, rounds: int) -> list[tuple]:
    rng = np.random.default_rng(3)
    y = np.zeros((users, items))
    hot = rng.random((users, items)) < 0.02
    y[hot] = rng.integers(1, 6, int(hot.sum()))
    s = rng.random((users, items)).astype(np.float32)
    rows = []
    yd, sd = conv(y, np.float64), conv(s, np.float32)
    for measure in ("ndcg@10", "ndcg", "map"):
        sync()
        start = time.perf_counter()
        first = rankmeter.evaluate_arrays(yd, sd, [measure], ties="expected")
        sync()
        first_s = time.perf_counter() - start
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            got = rankmeter.evaluate_arrays(yd, sd, [measure], ties="expected")
            sync()
            times.append(time.perf_counter() - start)
        start = time.perf_counter()
        want = rankmeter.evaluate_arrays(y, s, [measure], ties="expected")
        cpu_s = time.perf_counter() - start
        diff = abs(got.aggregate[measure] - want.aggregate[measure])
        assert first.aggregate[measure] == got.aggregate[measure]
        rows.append((name, measure, first_s, float(np.median(times)), cpu_s, diff))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--cpu", action="store_true", help="a dry run: torch CPU tensors on the array-API kernels")
    args = parser.parse_args()
    if args.cpu:
        os.environ["RANKMETER_ARRAY_API"] = "device"
    found = converters(args.cpu)
    print(f"libraries with a GPU: {', '.join(found) or 'none'}; CPUs: {os.cpu_count()}", flush=True)
    failures = []
    for name, (conv, _, device) in found.items():
        failures += check(name, conv, device)
    for text in failures:
        print("FAILED", text, sep="\n")
    if not args.no_timing:
        print(f"\n## W3 on the GPU: {args.users:,} x {args.items:,}, float32 scores, ties='expected'\n")
        print(
            "| library | measure | first call s | later calls s (median) | NumPy on the CPU s | CPU / GPU | |value diff| |"
        )
        print("|---|---|---:|---:|---:|---:|---:|")
        for name, (conv, sync, _) in found.items():
            try:
                for lib, measure, first_s, gpu_s, cpu_s, diff in timing(
                    name, conv, sync, args.users, args.items, args.rounds
                ):
                    print(
                        f"| {lib} | {measure} | {first_s:.3f} | {gpu_s:.4f} | {cpu_s:.3f} | {cpu_s / gpu_s:.1f}x | {diff:.1e} |"
                    )
            except Exception:  # noqa: BLE001
                print(f"| {name} | timing failed | | | | | |\n{traceback.format_exc()[-1500:]}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
