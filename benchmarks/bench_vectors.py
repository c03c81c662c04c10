"""Benchmark: tie-aware evaluation of Hamming retrieval, rankmeter vs scikit-learn vs a NumPy argsort script.

Workload (deterministic, no downloads): 2,000 queries x 50,000 database codes of
64 bits, 20 labels, every item holding 1-3 of them; codes are the signs of the
labels' random prototypes plus noise, so the rankings mean something and the
distance groups are realistic (thousands of items tie at the same distance).
Relevance is the number of shared labels, the gain 2^r - 1 (the seed's nDCG).

Measures: nDCG over the whole database, nDCG@10, nDCG@100, mAP@1000, mAP.

Contenders, each in its own subprocess (peak memory per process):

- ``rankmeter expected``: ``evaluate_vectors`` (ties="expected"): exact tie-aware
  values from distance-bucket counts, no sort;
- ``rankmeter stable``: the same call with ties="stable" (the sorting path);
- ``numpy argsort``: a vectorised, batched version of the seed's script
  (docs/reference-values.md, R7): float32 matmul distances, ``np.argsort(kind="stable")``,
  cumulative sums; its values are the stable-tie values, not tie-aware;
- ``scikit-learn``: ``ndcg_score(ignore_ties=False)`` (tie-averaged nDCG, the same
  semantics) query by query on a subset, time extrapolated linearly to all
  queries; it has no tie-aware AP.

Values are checked first (on a slice, in this process, then on the full run's
outputs): rankmeter expected = scikit-learn and rankmeter stable = the argsort
script, to 1e-9. Then the table: median wall time, ratio to rankmeter expected,
peak traced memory (tracemalloc: NumPy's allocations) and the worker process's peak RSS
(VmHWM; it includes the interpreter and imports, about 100 MB).

Usage: ``python benchmarks/bench_vectors.py [--quick]``. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np

MEASURES = ["ndcg(gain=exp)", "ndcg(gain=exp)@10", "ndcg(gain=exp)@100", "map@1000", "map"]
SHORT = ["ndcg", "ndcg@10", "ndcg@100", "map@1000", "map"]


# --- data -------------------------------------------------------------------------------------------
def make_data(n_queries: int, n_database: int, bits: int, n_labels: int, seed: int) -> dict[str, np.ndarray]:
    """Deterministic codes and labels: each item has 1-3 distinct labels; codes = sign(prototypes + noise)."""
    rng = np.random.default_rng(seed)

    def labels(n: int) -> np.ndarray:
        k = rng.integers(1, 4, size=n)
        ranks = np.argsort(rng.random((n, n_labels)), axis=1)  # a random permutation per row
        return (ranks < k[:, None]).astype(np.uint8)  # its first k labels

    prototypes = rng.standard_normal((n_labels, bits))

    def codes(lab: np.ndarray) -> np.ndarray:
        signal = lab @ prototypes / np.sqrt(lab.sum(axis=1, keepdims=True))
        return np.where(signal + 1.2 * rng.standard_normal((len(lab), bits)) > 0, 1, -1).astype(np.int8)

    dl, ql = labels(n_database), labels(n_queries)
    return {"queries": codes(ql), "database": codes(dl), "query_labels": ql, "database_labels": dl}


def load(data_dir: Path) -> dict[str, np.ndarray]:
    return {
        name: np.load(data_dir / f"{name}.npy") for name in ("queries", "database", "query_labels", "database_labels")
    }


# --- contenders: each returns per-query values, shape (n_queries, 5) (NaN where not computed) ----------
def run_rankmeter(d: dict[str, np.ndarray], ties: str, batch_size: int | None = None) -> np.ndarray:
    from rankmeter.vectors import evaluate_vectors

    res = evaluate_vectors(
        d["queries"],
        d["database"],
        MEASURES,
        query_labels=d["query_labels"],
        database_labels=d["database_labels"],
        ties=ties,
        batch_size=batch_size,
    )
    return res.values


def run_argsort_script(d: dict[str, np.ndarray], batch_size: int = 100) -> np.ndarray:
    """The seed's nDCG / mAP, vectorised per batch of queries, with a stable argsort."""
    qc, dc, ql, dl = d["queries"], d["database"], d["query_labels"], d["database_labels"]
    bits, n = qc.shape[1], len(dc)
    dct = dc.astype(np.float32).T.copy()
    dlt = dl.astype(np.float32).T.copy()
    disc = 1.0 / np.log2(np.arange(2, n + 2))
    ranks = np.arange(1, n + 1)
    out = []
    for s in range(0, len(qc), batch_size):
        dist = (bits - qc[s : s + batch_size].astype(np.float32) @ dct) / 2  # the seed's hamming()
        rel = ql[s : s + batch_size].astype(np.float32) @ dlt
        gains = np.exp2(rel) - 1.0
        order = np.argsort(dist, axis=1, kind="stable")
        dcg = np.cumsum(np.take_along_axis(gains, order, axis=1) * disc, axis=1)
        idcg = np.cumsum(-np.sort(-gains, axis=1) * disc, axis=1)
        hit = np.take_along_axis(rel > 0, order, axis=1)
        ap = np.cumsum(np.cumsum(hit, axis=1) / ranks * hit, axis=1)
        n_rel = hit.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            cols = [
                dcg[:, -1] / idcg[:, -1],
                dcg[:, 9] / idcg[:, 9],
                dcg[:, 99] / idcg[:, 99],
                ap[:, 999] / n_rel,
                ap[:, -1] / n_rel,
            ]
        out.append(np.nan_to_num(np.stack(cols, axis=1)))  # no relevant item: 0, as empty="zero"
    return np.vstack(out)


def run_sklearn(d: dict[str, np.ndarray], n_subset: int) -> np.ndarray:
    """scikit-learn's tie-averaged ndcg_score, one query at a time (per-query values) on the first n_subset."""
    from sklearn.metrics import ndcg_score

    qc, dc, ql, dl = d["queries"][:n_subset], d["database"], d["query_labels"][:n_subset], d["database_labels"]
    bits = qc.shape[1]
    out = np.full((len(qc), 5), np.nan)
    dist = (bits - qc.astype(np.float32) @ dc.astype(np.float32).T) / 2
    gains = np.exp2(ql.astype(np.float32) @ dl.astype(np.float32).T) - 1.0
    for i in range(len(qc)):
        y_true, y_score = gains[i : i + 1], -dist[i : i + 1]
        for c, k in enumerate((None, 10, 100)):
            out[i, c] = ndcg_score(y_true, y_score, k=k, ignore_ties=False)
    return out


CONTENDERS = {
    "rankmeter expected": lambda d, a: run_rankmeter(d, "expected", a.get("batch_size")),
    "rankmeter stable": lambda d, a: run_rankmeter(d, "stable", a.get("batch_size")),
    "numpy argsort": lambda d, a: run_argsort_script(d),
    "scikit-learn": lambda d, a: run_sklearn(d, a["sklearn_queries"]),
}


def worker(name: str, data_dir: Path, out_dir: Path, args: dict[str, Any]) -> None:
    """One contender in this process: repeated timings, then one traced run for the peak memory."""
    d = load(data_dir)
    fn = CONTENDERS[name]
    times = []
    values = None
    for _ in range(args["repeat"]):
        t0 = time.perf_counter()
        values = fn(d, args)
        times.append(time.perf_counter() - t0)
        if times[-1] > args["slow"]:  # one run is enough for a slow contender
            break
    tracemalloc.start()
    fn(d, args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    tag = args["tag"]
    np.save(out_dir / f"{tag}.npy", values)
    result = {"times": times, "peak_traced": peak, "max_rss": max_rss()}
    (out_dir / f"{tag}.json").write_text(json.dumps(result))


def max_rss() -> int:
    """Peak resident memory of this process in bytes.

    Linux's VmHWM belongs to the address space, which ``exec`` replaces, so it is
    this worker's own peak; ``ru_maxrss`` survives ``exec`` and would report the
    parent's peak when that is higher (the fallback elsewhere).
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def spawn(name: str, tag: str, data_dir: Path, out_dir: Path, extra: dict[str, Any]) -> dict[str, Any]:
    payload = json.dumps({**extra, "tag": tag})
    subprocess.run(
        [
            sys.executable,
            __file__,
            "--worker",
            name,
            "--data",
            str(data_dir),
            "--out",
            str(out_dir),
            "--worker-args",
            payload,
        ],
        check=True,
    )
    info = json.loads((out_dir / f"{tag}.json").read_text())
    info["values"] = np.load(out_dir / f"{tag}.npy")
    return info


# --- checks and report ---------------------------------------------------------------------------
def check_values(d: dict[str, np.ndarray], n: int, sklearn_n: int) -> None:
    """Agreement on a slice of the queries, before any timing."""
    part = {k: (v[:n] if k.startswith("quer") else v) for k, v in d.items()}
    expected = run_rankmeter(part, "expected")
    stable = run_rankmeter(part, "stable")
    script = run_argsort_script(part)
    skl = run_sklearn(part, min(sklearn_n, n))
    m = min(sklearn_n, n)
    diff_skl = np.abs(expected[:m, :3] - skl[:m, :3]).max()
    diff_script = np.abs(stable - script).max()
    print(
        f"check on {n} queries: |rankmeter expected - scikit-learn| = {diff_skl:.1e} (nDCG, {m} queries); "
        f"|rankmeter stable - argsort script| = {diff_script:.1e} (all five measures)"
    )
    if diff_skl > 1e-9 or diff_script > 1e-9:
        raise SystemExit("values disagree: not timing")


def fmt_mb(x: float) -> str:
    return f"{x / 2**20:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="300 queries x 10,000 codes, one repetition")
    parser.add_argument("--queries", type=int, default=None)
    parser.add_argument("--database", type=int, default=None)
    parser.add_argument("--bits", type=int, default=64)
    parser.add_argument("--labels", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=None, help="timed repetitions (median)")
    parser.add_argument("--sklearn-queries", type=int, default=None, help="queries scikit-learn runs on")
    parser.add_argument("--seed", type=int, default=2018)
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--data", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--worker-args", default="{}", help=argparse.SUPPRESS)
    a = parser.parse_args()
    if a.worker:
        worker(a.worker, Path(a.data), Path(a.out), json.loads(a.worker_args))
        return
    n_q = a.queries or (300 if a.quick else 2000)
    n_d = a.database or (10_000 if a.quick else 50_000)
    repeat = a.repeat or (1 if a.quick else 5)
    sk_n = a.sklearn_queries or (50 if a.quick else 100)
    print(
        f"workload: {n_q:,} queries x {n_d:,} database codes of {a.bits} bits, {a.labels} labels (1-3 each), "
        f"seed {a.seed}"
    )
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"NumPy {np.__version__}"
    )
    data = make_data(n_q, n_d, a.bits, a.labels, a.seed)
    check_values(data, min(n_q, 100), min(sk_n, 20))
    with tempfile.TemporaryDirectory() as tmp:
        data_dir, out_dir = Path(tmp) / "data", Path(tmp) / "out"
        data_dir.mkdir()
        out_dir.mkdir()
        for name, arr in data.items():
            np.save(data_dir / f"{name}.npy", arr)
        common = {"repeat": repeat, "slow": 10.0, "sklearn_queries": min(sk_n, n_q)}
        runs = {name: spawn(name, f"c{i}", data_dir, out_dir, common) for i, name in enumerate(CONTENDERS)}
        from rankmeter.vectors.retrieval import _BUCKET_ELEMENTS

        default_batch = max(1, _BUCKET_ELEMENTS // n_d)
        batches = sorted({max(1, default_batch // 4), default_batch, default_batch * 4})
        mem = {b: spawn("rankmeter expected", f"b{b}", data_dir, out_dir, {**common, "batch_size": b}) for b in batches}
    # full-run value checks
    exp_v, st_v = runs["rankmeter expected"]["values"], runs["rankmeter stable"]["values"]
    script_v, sk_v = runs["numpy argsort"]["values"], runs["scikit-learn"]["values"]
    m = len(sk_v)
    print(
        f"full run: |expected - scikit-learn| = {np.abs(exp_v[:m, :3] - sk_v[:, :3]).max():.1e}; "
        f"|stable - argsort script| = {np.abs(st_v - script_v).max():.1e}; "
        f"batch sizes {batches} give identical values: "
        f"{all(np.array_equal(mem[b]['values'], exp_v) for b in batches)}"
    )
    base = float(np.median(runs["rankmeter expected"]["times"]))
    print()
    header = (
        "| method | " + " | ".join(SHORT) + " | median time (s) | time / rankmeter expected "
        "| peak traced MB | peak RSS MB |"
    )
    print(header)
    print("|" + "---|" * (len(SHORT) + 5))
    for name, info in runs.items():
        t = float(np.median(info["times"]))
        note = ""
        if name == "scikit-learn":
            t = t * n_q / m
            note = f" (nDCG only; values: mean of its {m} queries; time x{n_q / m:g} extrapolated)"
        with np.errstate(all="ignore"):
            vals = [float(np.mean(col)) if not np.isnan(col).all() else np.nan for col in info["values"].T]
        cells = ["n/a" if np.isnan(v) else f"{v:.4f}" for v in vals]
        runs_note = f" [{len(info['times'])} run{'s' if len(info['times']) > 1 else ''}]"
        print(
            f"| {name}{note} | " + " | ".join(cells) + f" | {t:.2f}{runs_note} | {t / base:.1f}x | "
            f"{fmt_mb(info['peak_traced'])} | {fmt_mb(info['max_rss'])} |"
        )
    print()
    print("| rankmeter expected, batch_size | median time (s) | peak traced MB | peak RSS MB |")
    print("|---|---|---|---|")
    for b, info in mem.items():
        label = f"{b} (default)" if b == default_batch else str(b)
        print(
            f"| {label} | {float(np.median(info['times'])):.2f} | {fmt_mb(info['peak_traced'])} | "
            f"{fmt_mb(info['max_rss'])} |"
        )


if __name__ == "__main__":
    main()
