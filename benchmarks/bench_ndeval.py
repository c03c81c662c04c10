"""``rankmeter ndeval`` against ndeval's C code on a 1M-row run: wall time, peak RSS and the values.

Usage::

    pip install -e ".[bench]"
    python benchmarks/bench_ndeval.py            # 3 rounds
    python benchmarks/bench_ndeval.py --quick    # 1 round
    NDEVAL=/path/to/ndeval python benchmarks/bench_ndeval.py   # also NIST's command-line program

Workload WD (written once under benchmarks/data): 2,000 topics x 500 documents = 1M run rows, 3 intents
per topic, 120 judged documents per intent (``--judged``; a third of them never retrieved, about 35 %
relevant): 720,000 judgments.
Peers: pyndeval (ndeval.c per topic, through its Python reader, as ir_measures uses it) and, when the
``NDEVAL`` variable names it, the ndeval program itself (build it from pyndeval's source distribution:
``gcc -O2 ndeval.c -lm``). Each tool runs in a fresh process (import and file reading count), round-robin;
the amean of every column is checked against rankmeter's before the times are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import agree  # noqa: E402
from workloads import DATA  # noqa: E402

COLUMNS = [
    *(f"{m}@{k}" for m in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in (5, 10, 20)),
    "NRBP", "nNRBP", "MAP-IA",
    *(f"{m}@{k}" for m in ("P-IA", "strec") for k in (5, 10, 20)),
]  # fmt: skip

CHILD_PYNDEVAL = """
import json, sys, time, pyndeval
start = time.perf_counter()
qrels = []
with open(sys.argv[1]) as fh:
    for line in fh:
        t, s, d, j = line.split()
        qrels.append((t, s, d, int(j)))
run = []
with open(sys.argv[2]) as fh:
    for line in fh:
        t, _, d, rank, score, _ = line.split()
        run.append((t, d, -float(rank)))  # ndeval orders by the rank column
names = sys.argv[3].split(';')
per_topic = pyndeval.ndeval(qrels, run, names)
mean = {n: sum(v[n] for v in per_topic.values()) / len(per_topic) for n in names}
print(json.dumps(mean))
"""


def workload(n_topics: int = 2000, depth: int = 500, intents: int = 3, judged: int = 120) -> tuple[Path, Path]:
    """Write the intent qrels and the run once; return their paths."""
    DATA.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = DATA / f"wd_{judged}.qrels", DATA / "wd.run"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(16)
    if not run_path.exists():
        with open(run_path, "w") as fh:
            for t in range(1, n_topics + 1):
                fh.writelines(f"{t} Q0 D{t}_{r} {r + 1} {depth - r} bench\n" for r in range(depth))
    with open(qrels_path, "w") as fh:
        for t in range(1, n_topics + 1):
            for s in range(1, intents + 1):
                docs = rng.choice(int(depth * 1.5), size=judged, replace=False)  # >= depth: never retrieved
                grades = (rng.random(judged) < 0.35).astype(int)
                fh.writelines(f"{t} {s} D{t}_{d} {g}\n" for d, g in zip(docs, grades, strict=True))
    return qrels_path, run_path


def amean(csv: str) -> dict[str, float]:
    header, *_, last = csv.strip().splitlines()
    return dict(zip(header.split(",")[2:], map(float, last.split(",")[2:]), strict=True))


def run(argv: list[str]) -> tuple[str, float, float, float]:
    """Run a command; return (its standard output, wall seconds, CPU seconds (user + system), peak RSS in MB).

    CPU time is reported too because the machines this runs on are often shared: wall time then
    measures the neighbours as much as the tools.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if status != 0:
            raise RuntimeError(f"{argv[0]} failed ({status}):\n{err.read().decode()[-2000:]}")
        return out.read().decode(), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one round")
    parser.add_argument("--judged", type=int, default=120, help="judged documents per intent (default 120)")
    args = parser.parse_args()
    rounds = 1 if args.quick else 3
    qrels, run_file = workload(judged=args.judged)
    tools = {
        "rankmeter ndeval": [sys.executable, "-m", "rankmeter.cli.main", "ndeval", str(qrels), str(run_file)],
        "pyndeval (ndeval.c)": [sys.executable, "-c", CHILD_PYNDEVAL, str(qrels), str(run_file), ";".join(COLUMNS)],
    }
    if os.environ.get("NDEVAL"):
        tools["ndeval (C program)"] = [os.environ["NDEVAL"], str(qrels), str(run_file)]
    samples: dict[str, list[tuple[float, float, float]]] = {label: [] for label in tools}
    values: dict[str, dict[str, float]] = {}
    for _ in range(rounds):  # round-robin: a drift of the machine's load touches every tool alike
        for label, argv in tools.items():
            out, wall, cpu, rss = run(argv)
            values[label] = json.loads(out) if label.startswith("pyndeval") else amean(out)
            samples[label].append((wall, cpu, rss))
    reference = values["rankmeter ndeval"]
    base_wall = statistics.median(w for w, _, _ in samples["rankmeter ndeval"])
    base_cpu = statistics.median(c for _, c, _ in samples["rankmeter ndeval"])
    n_judged = sum(1 for _ in open(qrels))
    print(
        f"\n## WD: ndeval's 21 columns, {sum(1 for _ in open(run_file)):,} run rows, {n_judged:,} judgments, {rounds} round(s)\n"
    )
    print("| tool | median wall s | peer / rankmeter | median CPU s | peer / rankmeter | peak RSS MB | values |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for label, got in samples.items():
        wall = statistics.median(w for w, _, _ in got)
        cpu = statistics.median(c for _, c, _ in got)
        note = "reference" if label == "rankmeter ndeval" else agree(reference, values[label])
        print(
            f"| {label} | {wall:.2f} | {wall / base_wall:.1f}x | {cpu:.2f} | {cpu / base_cpu:.1f}x "
            f"| {max(r for _, _, r in got):.0f} | {note} |"
        )
    if "ndeval (C program)" not in samples:
        print("\n(set NDEVAL to the path of the ndeval program to time it too)")


if __name__ == "__main__":
    main()
