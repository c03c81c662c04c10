"""Training-loop metrics side by side: per-batch NDCG@10 update of rankmeter.keras and keras-rs, and dense input
from torch tensors against NumPy.

Usage: python benchmarks/bench_frameworks.py [--backends jax,torch] [--batch 1024] [--list 100] [--repeats 20]
                                             [--dense 20000x2000]

Each Keras backend runs in its own child process (Keras fixes its backend at import); inside it every metric
updates the same (batch, list) batch of tie-free float32 scores (and a tie-heavy variant: one decimal), eager
and -- on JAX -- compiled with jax.jit over ``stateless_update_state``. The median of ``--repeats`` updates is
reported, after one warm-up update (compilation). CPU only: no GPU is lent to this project's benchmarks.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from harness import run_child

CHILD = r"""
import json, os, statistics, sys, time
import numpy as np
import keras, keras_rs
import rankmeter.keras as rk

batch, size, repeats = (int(a) for a in sys.argv[1:4])
rng = np.random.default_rng(0)
y = rng.integers(0, 4, (batch, size)).astype(np.float32)
distinct = rng.permuted(np.tile(np.arange(size, dtype=np.float32), (batch, 1)), axis=1)
tied = np.round(rng.normal(size=(batch, size)), 1).astype(np.float32)
backend = keras.backend.backend()
metrics = {
    "keras-rs NDCG(k=10) shuffle_ties=True": lambda: keras_rs.metrics.NDCG(k=10, seed=1),
    "keras-rs NDCG(k=10) shuffle_ties=False": lambda: keras_rs.metrics.NDCG(k=10, shuffle_ties=False),
    "rankmeter.keras NDCG(k=10) ties=expected": lambda: rk.NDCG(k=10),
    "rankmeter.keras NDCG(k=10) ties=shuffle": lambda: rk.NDCG(k=10, ties="shuffle", seed=1),
    "rankmeter.keras NDCG(k=10) ties=stable": lambda: rk.NDCG(k=10, ties="stable"),
}

def eager(make, scores):
    m = make()
    m.update_state(y, scores)
    times = []
    for _ in range(repeats):
        start = time.perf_counter(); m.update_state(y, scores); float(m.result()); times.append(time.perf_counter() - start)
    return statistics.median(times)

def jitted(make, scores):
    import jax
    m = make()
    step = jax.jit(lambda v, yy, ss: m.stateless_update_state(v, yy, ss))
    v = [x.value for x in m.variables]
    jax.block_until_ready(step(v, y, scores))
    times = []
    for _ in range(repeats):
        start = time.perf_counter(); jax.block_until_ready(step(v, y, scores)); times.append(time.perf_counter() - start)
    return statistics.median(times)

rows = []
for label, make in metrics.items():
    for scores_name, scores in (("tie-free", distinct), ("ties", tied)):
        rows.append({"metric": label, "scores": scores_name, "mode": "eager", "seconds": eager(make, scores)})
        if backend == "jax":
            rows.append({"metric": label, "scores": scores_name, "mode": "jit", "seconds": jitted(make, scores)})
print(json.dumps({"backend": backend, "rows": rows}))
"""


def keras_table(backends: list[str], batch: int, size: int, repeats: int) -> None:
    print(f"Per-batch update of NDCG@10 on a {batch} x {size} batch (median of {repeats}; shared, busy 2-core CPU)\n")
    print("| backend | mode | scores | metric | ms per update | / keras-rs shuffle |")
    print("|---|---|---|---|---:|---:|")
    for backend in backends:
        out, _, _ = run_child(CHILD, str(batch), str(size), str(repeats), env={"KERAS_BACKEND": backend})
        base = {
            (r["mode"], r["scores"]): r["seconds"]
            for r in out["rows"]
            if r["metric"] == "keras-rs NDCG(k=10) shuffle_ties=True"
        }
        for r in out["rows"]:
            ratio = r["seconds"] / base[(r["mode"], r["scores"])]
            print(
                f"| {backend} | {r['mode']} | {r['scores']} | {r['metric']} | {1000 * r['seconds']:.2f} | {ratio:.2f} |"
            )
    print()


def dense_torch(shape: tuple[int, int], repeats: int) -> None:
    import torch

    import rankmeter

    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, shape).astype(np.float64)
    s = rng.random(shape)
    ty, ts = torch.from_numpy(y.copy()), torch.from_numpy(s.copy())
    measures = ["ndcg@10", "map@100"]
    times: dict[str, list[float]] = {"numpy": [], "torch": []}
    values = {}
    for _ in range(repeats):
        for name, args in (("numpy", (y, s)), ("torch", (ty, ts))):
            start = time.perf_counter()
            values[name] = rankmeter.evaluate_arrays(*args, measures).aggregate
            times[name].append(time.perf_counter() - start)
    assert values["numpy"] == values["torch"]
    best = {k: min(v) for k, v in times.items()}
    print(f"evaluate_arrays on {shape[0]} x {shape[1]} ({', '.join(measures)}), best of {repeats}, CPU")
    print(
        f"numpy {best['numpy']:.3f} s, torch tensors {best['torch']:.3f} s, ratio {best['torch'] / best['numpy']:.2f}"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backends", default="jax,torch")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--list", type=int, default=100)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--dense", default="20000x2000", help="shape of the torch-vs-NumPy dense workload ('' to skip)")
    args = p.parse_args(argv)
    keras_table([b for b in args.backends.split(",") if b], args.batch, args.list, args.repeats)
    if args.dense:
        n, m = (int(x) for x in args.dense.split("x"))
        dense_torch((n, m), 3)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
