"""Training-loop metrics side by side: per-batch NDCG@10 update of rankmeter.keras and keras-rs, and dense input
from torch tensors against NumPy.

Usage: python benchmarks/bench_frameworks.py [--backends jax,torch,tensorflow] [--batch 1024] [--list 100]
                                             [--repeats 20] [--threads 1] [--no-torch] [--dense 20000x2000]

Each Keras backend runs in its own child process (Keras fixes its backend at import; a backend that is not
installed is skipped); inside it every metric updates the same (batch, list) batch of float32 scores, tie-free
(a permutation per row) and tie-heavy (normal scores rounded to one decimal), eager and compiled (``jax.jit``
on JAX, ``tf.function`` on TensorFlow, over ``stateless_update_state``; Keras runs PyTorch eagerly). Every
cell is warmed up once (compilation), then the cells take turns, one update each, ``--repeats`` rounds, so
that a change in the machine's load touches them alike; the median wall and CPU time per update are
reported, with the ratio to keras-rs's default (``shuffle_ties=True``) in the same mode on the same scores.
``--threads`` (default 1) caps every backend's intra-op threads: on a shared machine, thread pools that
wait for busy cores make single ops many times slower, whatever the library. Then rankmeter.torch against
torchmetrics's RetrievalNormalizedDCG with ``indexes`` (100 updates; 10 updates and a compute; at most 5
rounds), and evaluate_arrays from NumPy and from torch tensors. CPU only.
"""

from __future__ import annotations

import argparse
import sys
import time

from harness import have, run_child

CHILD = r"""
import json, os, statistics, sys, time
import numpy as np
batch, size, repeats, threads = (int(a) for a in sys.argv[1:5])
import keras, keras_rs
import rankmeter.keras as rk
from keras import ops

backend = keras.backend.backend()
if backend == "torch" and threads:
    import torch
    torch.set_num_threads(threads)
rng = np.random.default_rng(0)
y = ops.convert_to_tensor(rng.integers(0, 4, (batch, size)).astype(np.float32))
distinct = ops.convert_to_tensor(rng.permuted(np.tile(np.arange(size, dtype=np.float32), (batch, 1)), axis=1))
tied = ops.convert_to_tensor(np.round(rng.normal(size=(batch, size)), 1).astype(np.float32))
metrics = {
    "keras-rs NDCG(k=10) shuffle_ties=True": lambda: keras_rs.metrics.NDCG(k=10, seed=1),
    "keras-rs NDCG(k=10) shuffle_ties=False": lambda: keras_rs.metrics.NDCG(k=10, shuffle_ties=False),
    "rankmeter.keras NDCG(k=10) ties=expected": lambda: rk.NDCG(k=10),
    "rankmeter.keras NDCG(k=10) ties=shuffle": lambda: rk.NDCG(k=10, ties="shuffle", seed=1),
    "rankmeter.keras NDCG(k=10) ties=stable": lambda: rk.NDCG(k=10, ties="stable"),
}

def eager(make, scores):
    m = make()
    def once():
        m.update_state(y, scores)
        float(m.result())
    return once

def compiled(make, scores):
    m = make()
    v = [x.value for x in m.variables]
    if backend == "jax":
        import jax
        step = jax.jit(lambda v, yy, ss: m.stateless_update_state(v, yy, ss))
        return lambda: jax.block_until_ready(step(v, y, scores))
    import tensorflow as tf
    step = tf.function(lambda v, yy, ss: m.stateless_update_state(v, yy, ss))
    return lambda: [x.numpy() for x in step(v, y, scores)]

modes = {"eager": eager}
if backend in ("jax", "tensorflow"):
    modes["jit"] = compiled
cells = []
for label, make in metrics.items():
    for scores_name, scores in (("tie-free", distinct), ("ties", tied)):
        for mode, build in modes.items():
            run = build(make, scores)
            run()  # warm-up: compilation
            cells.append(({"metric": label, "scores": scores_name, "mode": mode}, run, [], []))
"""
ROUNDS = r"""
for _ in range(repeats):  # the cells take turns: a change in the machine's load touches them alike
    for _, run, wall, cpu in cells:
        w, c = time.perf_counter(), time.process_time()
        run()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
rows = [{**key, "seconds": statistics.median(wall), "cpu": statistics.median(cpu)} for key, _, wall, cpu in cells]
"""
CHILD += ROUNDS + 'print(json.dumps({"backend": backend, "rows": rows}))\n'


BASE = "keras-rs NDCG(k=10) shuffle_ties=True"
SHUFFLE = "rankmeter.keras NDCG(k=10) ties=shuffle"
TORCHMETRICS = "torchmetrics RetrievalNormalizedDCG(top_k=10)"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS")


def thread_env(threads: int) -> dict[str, str]:
    """Environment capping the backends' thread pools at ``threads`` (0: their defaults)."""
    if not threads:
        return {}
    env = {name: str(threads) for name in THREAD_VARIABLES}
    env["XLA_FLAGS"] = f"--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads={threads}"
    return env


def keras_table(backends: list[str], batch: int, size: int, repeats: int, threads: int) -> None:
    if not backends:
        return
    print(
        f"Per-batch update of NDCG@10 on a {batch} x {size} float32 batch: median of {repeats} rounds, "
        f"{threads or 'default'} thread(s); ratios to keras-rs shuffle_ties=True in the same mode on the same scores\n"
    )
    print(
        "| backend | mode | scores | metric | ms per update | CPU ms | / keras-rs | CPU / keras-rs | CPU expected / shuffle |"
    )
    print("|---|---|---|---|---:|---:|---:|---:|---:|")
    for backend in backends:
        if not have(backend):
            print(f"| {backend} | – | – | not installed | – | – | – | – | – |")
            continue
        env = {"KERAS_BACKEND": backend, **thread_env(threads)}
        out, _, _ = run_child(CHILD, str(batch), str(size), str(repeats), str(threads), env=env)
        cells = {(r["metric"], r["mode"], r["scores"]): r for r in out["rows"]}
        for r in out["rows"]:
            base = cells[(BASE, r["mode"], r["scores"])]
            own = ""
            if r["metric"].endswith("ties=expected"):
                own = f"{r['cpu'] / cells[(SHUFFLE, r['mode'], r['scores'])]['cpu']:.2f}"
            print(
                f"| {backend} | {r['mode']} | {r['scores']} | {r['metric']} | {1000 * r['seconds']:.2f} "
                f"| {1000 * r['cpu']:.2f} | {r['seconds'] / base['seconds']:.2f} | {r['cpu'] / base['cpu']:.2f} | {own} |"
            )
    print()


TORCH_CHILD = r"""
import json, statistics, sys, time
import numpy as np
batch, size, repeats, threads, updates = (int(a) for a in sys.argv[1:6])
import torch
if threads:
    torch.set_num_threads(threads)
import torchmetrics.retrieval as tm
import rankmeter.torch as rt

rng = np.random.default_rng(0)
target = torch.from_numpy(rng.integers(0, 4, (batch, size)))
preds = {
    "tie-free": torch.from_numpy(rng.permuted(np.tile(np.arange(size, dtype=np.float32), (batch, 1)), axis=1)),
    "ties": torch.from_numpy(np.round(rng.normal(size=(batch, size)), 1).astype(np.float32)),
}
indexes = torch.arange(batch)[:, None].expand(batch, size).reshape(-1)
metrics = {
    "torchmetrics RetrievalNormalizedDCG(top_k=10)": lambda: tm.RetrievalNormalizedDCG(top_k=10),
    "rankmeter.torch RetrievalNormalizedDCG(top_k=10)": lambda: rt.RetrievalNormalizedDCG(top_k=10),
}

def cell(make, p):
    kept = make()

    def update():  # into one metric, as in an epoch (per-call times are microseconds: 100 calls a round)
        for _ in range(100):
            kept.update(p.reshape(-1), target.reshape(-1), indexes=indexes)
    def epoch():
        m = make()
        for u in range(updates):
            m.update(p.reshape(-1), target.reshape(-1), indexes=indexes + u * batch)
        return float(m.compute())
    return {"100 updates": update, f"{updates} updates + compute": epoch}

cells, values = [], {}
for label, make in metrics.items():
    for scores, p in preds.items():
        for what, run in cell(make, p).items():
            out = run()
            if out is not None:
                values[(label, scores)] = out
            cells.append(({"metric": label, "scores": scores, "what": what}, run, [], []))
"""
TORCH_CHILD += ROUNDS + 'print(json.dumps({"rows": rows, "values": [[*k, v] for k, v in values.items()]}))\n'


def torch_table(batch: int, size: int, repeats: int, threads: int, updates: int = 10) -> None:
    """rankmeter.torch against torchmetrics's RetrievalNormalizedDCG with ``indexes``: one update, and an epoch."""
    if not (have("torch") and have("torchmetrics")):
        print("rankmeter.torch vs torchmetrics: torch or torchmetrics not installed\n")
        return
    out, _, _ = run_child(TORCH_CHILD, str(batch), str(size), str(repeats), str(threads), str(updates),
                          env=thread_env(threads))  # fmt: skip
    print(
        f"rankmeter.torch vs torchmetrics 'RetrievalNormalizedDCG(top_k=10)', flat input with indexes, {batch} queries "
        f"x {size} items per update: median of {repeats} rounds, {threads or 'default'} thread(s)\n"
    )
    print("| work | scores | metric | ms | CPU ms | CPU / torchmetrics |")
    print("|---|---|---|---:|---:|---:|")
    cells = {(r["metric"], r["what"], r["scores"]): r for r in out["rows"]}
    for r in out["rows"]:
        base = cells[(TORCHMETRICS, r["what"], r["scores"])]
        print(
            f"| {r['what']} | {r['scores']} | {r['metric']} | {1000 * r['seconds']:.2f} | {1000 * r['cpu']:.2f} "
            f"| {r['cpu'] / base['cpu']:.2f} |"
        )
    for label, scores, value in out["values"]:
        print(f"\n{label} on {scores} scores: {value:.6f}", end="")
    print("\n")


def dense_torch(shape: tuple[int, int], repeats: int) -> None:
    """W3 (benchmarks/workloads.w3: float32 scores, graded labels) from NumPy and from torch CPU tensors.

    Three contenders, alternated: NumPy arrays; torch tensors by default (NumPy views CPU tensors without a
    copy: ``metadata['array_api']['path'] == 'numpy-view'``); torch tensors through the array-API kernels
    (``RANKMETER_ARRAY_API=device``, the path GPU tensors take). Best CPU time (user + sys) of ``repeats``.
    """
    import os

    import torch
    from workloads import w3

    import rankmeter

    y, s = w3(shape[0], shape[1])
    ty, ts = torch.from_numpy(y.copy()), torch.from_numpy(s.copy())
    for measures in (["ndcg@10"], ["ndcg@10", "ndcg", "map"]):
        times: dict[str, list[float]] = {"numpy": [], "torch": [], "torch array-API": []}
        values = {}
        for _ in range(repeats):
            for name, args in (("numpy", (y, s)), ("torch", (ty, ts)), ("torch array-API", (ty, ts))):
                if name == "torch array-API":
                    os.environ["RANKMETER_ARRAY_API"] = "device"
                start = time.process_time()
                values[name] = rankmeter.evaluate_arrays(*args, measures).aggregate
                times[name].append(time.process_time() - start)
                os.environ.pop("RANKMETER_ARRAY_API", None)
        for name in values:
            assert all(abs(values[name][k] - values["numpy"][k]) < 1e-12 for k in values["numpy"]), values
        best = {k: min(v) for k, v in times.items()}
        print(f"evaluate_arrays on {shape[0]} x {shape[1]} ({', '.join(measures)}), CPU seconds, best of {repeats}")
        for name, t in best.items():
            print(f"  {name:16s} {t:7.3f} s  ratio to NumPy {t / best['numpy']:.2f}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backends", default="jax,torch,tensorflow")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--list", type=int, default=100)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--threads", type=int, default=1, help="intra-op threads of every backend (0: their defaults)")
    p.add_argument("--torch", action=argparse.BooleanOptionalAction, default=True, help="rankmeter.torch rows")
    p.add_argument("--dense", default="20000x2000", help="shape of the torch-vs-NumPy dense workload ('' to skip)")
    args = p.parse_args(argv)
    keras_table([b for b in args.backends.split(",") if b], args.batch, args.list, args.repeats, args.threads)
    if args.torch:  # torchmetrics's compute takes seconds per round: fewer rounds
        torch_table(args.batch, args.list, min(args.repeats, 5), args.threads)
    if args.dense:
        n, m = (int(x) for x in args.dense.split("x"))
        dense_torch((n, m), 3)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
