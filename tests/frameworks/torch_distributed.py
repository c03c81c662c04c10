"""Two gloo processes each update a metric with half the queries; rank 0 prints what ``compute`` gives.

Run as ``python torch_distributed.py OUT.json [--plain]``: ``--plain`` hides
torchmetrics, so that rankmeter.torch falls back to its own state handling.
Also prints the single-process value of the same data, computed before the
processes start.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

MEASURES = ["ndcg@3", "map", "rr@2", "r@5"]


def data():
    rng = np.random.default_rng(5)
    n = 600
    indexes = rng.integers(0, 40, n)
    preds = np.round(rng.random(n), 1)  # ties
    target = (rng.random(n) < 0.3).astype(np.int64)
    target[indexes < 3] = 0  # empty queries
    return torch.tensor(preds), torch.tensor(target), torch.tensor(indexes)


def compute(metric_cls, parts):
    metric = metric_cls(MEASURES, empty_target_action="pos")
    for p, t, i in parts:
        metric.update(p, t, indexes=i)
    return {k: float(v) for k, v in metric.compute().items()}


def worker(rank, init_file, out, plain):
    if plain:
        sys.modules["torchmetrics"] = None  # type: ignore[assignment]
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=2)
    import rankmeter.torch as rt

    preds, target, indexes = data()
    mine = np.arange(len(preds)) % 2 == rank  # each query's items split over both processes
    parts = [(preds[mine][s], target[mine][s], indexes[mine][s]) for s in (slice(0, 100), slice(100, None))]
    dense = rt.Metric("ndcg@3")
    dense.update(preds[:20].reshape(4, 5) + rank, target[:20].reshape(4, 5))
    values = compute(rt.Metric, parts)
    dense_value = float(dense.compute())
    if rank == 0:
        is_tm = any(c.__module__.startswith("torchmetrics") for c in rt.Metric.__mro__)
        with open(out, "w") as f:
            json.dump({"values": values, "dense": dense_value, "torchmetrics": is_tm}, f)
    dist.destroy_process_group()


def main():
    out, plain = sys.argv[1], "--plain" in sys.argv
    if plain:
        sys.modules["torchmetrics"] = None  # type: ignore[assignment]
    import rankmeter.torch as rt

    preds, target, indexes = data()
    single = compute(rt.Metric, [(preds, target, indexes)])
    dense = rt.Metric("ndcg@3")
    dense.update(
        torch.cat([preds[:20].reshape(4, 5), preds[:20].reshape(4, 5) + 1]), target[:20].reshape(4, 5).repeat(2, 1)
    )
    with tempfile.TemporaryDirectory() as tmp:
        # fork: the children inherit the imported modules (no second torch import); gloo starts after the fork
        mp.start_processes(worker, args=(os.path.join(tmp, "init"), out, plain), nprocs=2, start_method="fork")
    with open(out) as f:
        got = json.load(f)
    got["single"] = single
    got["single_dense"] = float(dense.compute())
    with open(out, "w") as f:
        json.dump(got, f)


if __name__ == "__main__":
    main()
