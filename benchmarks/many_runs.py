"""Many runs and the command line's start-up, whole processes side by side.

MANY: 100 W2-sized runs (200 queries x 1,000 documents, each run scored with its own seed) against W2's
qrels, with ndcg@10, ndcg and map:

- one ``rankmeter evaluate QRELS DIR`` process (qrels read once, runs evaluated on a worker process per
  CPU), and the same with ``--workers 1`` (the runs one after the other in that process);
- a shell-style loop of one ``rankmeter evaluate QRELS RUN`` process per run;
- a loop of NIST ``trec_eval -c`` processes per run (``$TREC_EVAL``, else ``trec_eval`` on PATH, else
  /tmp/trec_eval_build/trec_eval; the rows are left out without it).

Wall seconds and CPU seconds (user + system, of each process and its workers). Every per-run value of
the one process must equal the loop's (exactly for rankmeter, to trec_eval's four printed decimals for
trec_eval).

CLI: ``rankmeter evaluate`` on W2 against a bare API script and trec_eval (benchmarks/cli_startup.py).

Usage::

    python benchmarks/many_runs.py [--runs 100] [--repeats 7]    # or: python benchmarks/run.py --only MANY,CLI
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads  # noqa: E402

MEASURES = ["ndcg@10", "ndcg", "map"]
TREC_NAMES = {"ndcg@10": "ndcg_cut_10", "ndcg": "ndcg", "map": "map"}
TREC_ARGS = ["-c", "-m", "ndcg_cut.10", "-m", "ndcg", "-m", "map"]


def many_w2_runs(n_runs: int) -> tuple[Path, list[Path]]:
    """W2's qrels and ``n_runs`` runs over W2's documents, run k scored with seed k (written once)."""
    qrels, base = workloads.w2()
    folder = workloads.DATA / f"w2_runs_{n_runs}"
    paths = [folder / f"run{k:03d}.txt" for k in range(n_runs)]
    if all(p.exists() for p in paths):
        return qrels, paths
    folder.mkdir(parents=True, exist_ok=True)
    fields = np.loadtxt(base, dtype=str, usecols=(0, 2))
    qids, docs = fields[:, 0], fields[:, 1]
    n_queries = len(np.unique(qids))
    depth = len(qids) // n_queries
    ranks = np.tile(np.arange(1, depth + 1), n_queries).astype(str)
    for k, path in enumerate(paths):
        rng = np.random.default_rng(1000 + k)
        scores = np.round(rng.gamma(2.0, 2.0, size=(n_queries, depth)), 3)
        order = np.argsort(-scores, axis=1, kind="stable")  # each list written best first, as systems do
        rows = (order + (np.arange(n_queries) * depth)[:, None]).reshape(-1)
        text = np.char.add(np.char.add(qids[rows], " Q0 "), docs[rows])
        text = np.char.add(np.char.add(text, " "), ranks)
        text = np.char.add(np.char.add(text, " "), np.take_along_axis(scores, order, axis=1).reshape(-1).astype(str))
        path.write_text("\n".join(np.char.add(text, f" run{k:03d}").tolist()) + "\n")
    return qrels, paths


def _trec_eval() -> str | None:
    """NIST trec_eval: ``$TREC_EVAL``, else on PATH, else /tmp/trec_eval_build/trec_eval (None: absent)."""
    found = os.environ.get("TREC_EVAL") or shutil.which("trec_eval") or "/tmp/trec_eval_build/trec_eval"
    return found if os.access(found, os.X_OK) else None


def _rankmeter() -> str:
    return shutil.which("rankmeter") or str(Path(sys.executable).with_name("rankmeter"))


def _trec_values(out: str) -> dict[str, float]:
    printed = {f[0]: float(f[2]) for f in (line.split() for line in out.splitlines()) if len(f) == 3 and f[1] == "all"}
    return {ours: printed[theirs] for ours, theirs in TREC_NAMES.items()}


def _differ(reference: dict[str, dict[str, float]], other: dict[str, dict[str, float]], tol: float) -> str:
    worst = max(abs(reference[run][m] - other[run][m]) for run in other for m in other[run])
    return "agree" if worst <= tol else f"DIFFER by {worst:.2e}"


def _timed(argv: list[str]) -> tuple[str, float, float]:
    """Run a command; return (its standard output, wall seconds, CPU seconds of it and its worker processes)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # the usage counts the children it waited for (the pool's)
        wall = time.perf_counter() - start
        if status != 0:
            err.seek(0)
            raise RuntimeError(f"{argv[0]} failed ({status}):\n{err.read().decode()[-2000:]}")
        out.seek(0)
        return out.read().decode(), wall, usage.ru_utime + usage.ru_stime


def _loop(argvs: list[list[str]], paths: list[Path], read: Any) -> tuple[dict[str, dict[str, float]], float, float]:
    """One process per run, one after the other: (values by run name, wall seconds, CPU seconds)."""
    start, cpu, values = time.perf_counter(), 0.0, {}
    for argv, path in zip(argvs, paths, strict=True):
        out, _, used = _timed(argv)
        cpu += used
        values[path.stem] = read(out)
    return values, time.perf_counter() - start, cpu


def many_benchmark(n_runs: int, repeats: int) -> None:
    """The MANY table: one process over every run (its workers, then one run after the other) against loops."""
    qrels, paths = many_w2_runs(n_runs)
    flags = [a for m in MEASURES for a in ("-m", m)]
    one_process = [_rankmeter(), "evaluate", str(qrels), str(paths[0].parent), *flags, "--format", "json"]
    rankmeter_loop = [[_rankmeter(), "evaluate", str(qrels), str(p), *flags, "--format", "json"] for p in paths]
    trec_eval = _trec_eval()
    trec_loop = [[trec_eval, *TREC_ARGS, str(qrels), str(p)] for p in paths] if trec_eval else []
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    variants = {
        f"`rankmeter evaluate QRELS DIR` (one process, {cores} workers, table output)": ("table", one_process[:-2]),
        f"`rankmeter evaluate QRELS DIR --format json` (one process, {cores} workers)": ("one", one_process),
        "`rankmeter evaluate QRELS DIR --format json --workers 1` (one process, runs one after the other)": (
            "one",
            [*one_process, "--workers", "1"],
        ),
        f"loop of {n_runs} `rankmeter evaluate QRELS RUN`": ("loop", rankmeter_loop),
    }
    if trec_eval:
        variants[f"loop of {n_runs} `trec_eval -c` (C)"] = ("trec", trec_loop)
    walls: dict[str, list[float]] = {label: [] for label in variants}
    cpus: dict[str, list[float]] = {label: [] for label in variants}
    values: dict[str, dict[str, dict[str, float]]] = {}
    for _ in range(repeats):  # the variants in turns, so the machine's drift touches each alike
        for label, (kind, argv) in variants.items():
            if kind in ("one", "table"):
                out, wall, cpu = _timed(argv)
                if kind == "one":
                    values[label] = json.loads(out)["aggregate"]
            else:
                read = (lambda out: json.loads(out)["aggregate"]) if kind == "loop" else _trec_values
                values[label], wall, cpu = _loop(argv, paths, read)
            walls[label].append(wall)
            cpus[label].append(cpu)
    first = next(iter(variants))
    reference = next(label for label, (kind, _) in variants.items() if kind == "one")  # the values checked
    base_wall, base_cpu = statistics.median(walls[first]), statistics.median(cpus[first])
    print(f"\n## MANY: {n_runs} W2-sized runs ({', '.join(MEASURES)}; whole processes, medians of {repeats})\n")
    print("| variant | wall s | / one process | CPU s | / one process | values |")
    print("|---|---:|---:|---:|---:|---|")
    for label, (kind, _) in variants.items():
        wall, cpu = statistics.median(walls[label]), statistics.median(cpus[label])
        tol = 5e-5 if kind == "trec" else 0.0  # trec_eval prints four decimals
        if kind == "table":
            note = "values in the JSON rows"
        else:
            note = "reference" if label == reference else _differ(values[reference], values[label], tol)
        print(f"| {label} | {wall:.2f} | {wall / base_wall:.1f}x | {cpu:.2f} | {cpu / base_cpu:.1f}x | {note} |")
    if not trec_eval:
        print(f"| loop of {n_runs} trec_eval | – | – | – | – | trec_eval not found ($TREC_EVAL, PATH) |")
    print(f"\nload average after: {os.getloadavg()[0]:.1f} ({cores} CPUs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100, help="runs in MANY (default: 100)")
    parser.add_argument("--repeats", type=int, default=5, help="rounds of each variant (default: 5)")
    parser.add_argument("--only", default="MANY,CLI", help="MANY, CLI or both")
    args = parser.parse_args()
    only = set(args.only.upper().split(","))
    if "MANY" in only:
        many_benchmark(args.runs, max(1, args.repeats // 2))
    if "CLI" in only:
        from cli_startup import cli_benchmark

        cli_benchmark(args.repeats)


if __name__ == "__main__":
    main()
