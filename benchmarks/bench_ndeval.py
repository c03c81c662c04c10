"""``rankmeter ndeval`` against NIST's ndeval program and pyndeval on a 1M-row run: times, peak RSS, values.

Usage::

    pip install -e ".[bench]"
    python benchmarks/bench_ndeval.py            # 3 rounds
    python benchmarks/bench_ndeval.py --quick    # 1 round

NIST's ndeval program (not in CI: its rows are skipped when it is absent). Build it from the C source that
pyndeval's source distribution carries (``src/ndeval.c``, ndeval 4.5 as NIST released it for the TREC Web
track; pyndeval's own ``pyndeval.c`` only includes it)::

    mkdir -p /tmp/ndeval_build && cd /tmp/ndeval_build
    pip download --no-binary :all: --no-deps pyndeval==0.0.8 -d .
    tar xzf pyndeval-0.0.8.tar.gz
    gcc -O2 -o ndeval pyndeval-0.0.8/src/ndeval.c -lm

The benchmark runs ``/tmp/ndeval_build/ndeval`` when it exists, or the program that the ``NDEVAL``
environment variable names.

Workload WD (written once under benchmarks/data, or ``RANKMETER_BENCH_DATA``): 2,000 topics x 500 documents
= 1M run rows, 3 intents per topic, 120 judged documents per intent (``--judged``; a third of them never
retrieved, about 35 % relevant): 720,000 judgments.

Contenders, round-robin (a drift of the machine's load touches each alike):

* ``rankmeter ndeval`` and the ndeval program, each a whole process (start-up, imports and file reading
  count); the program's output must equal rankmeter's byte for byte;
* pyndeval (ndeval.c per topic, as ir_measures uses it) in this process: reading both files in Python and
  the call (its import excluded); the mean of every column is checked against rankmeter's ``amean``.

CPU time (user + system) is reported beside wall time: on a shared machine wall time measures the
neighbours as much as the tools. Python may keep its bytecode (an installed package has it; some shells set
``PYTHONDONTWRITEBYTECODE``, which would time the compilation of rankmeter's modules at each start): the
children write it under a temporary ``PYTHONPYCACHEPREFIX``, and one untimed run of each tool comes first.
"""

from __future__ import annotations

import argparse
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

NDEVAL_BUILD = Path("/tmp/ndeval_build/ndeval")


def ndeval_program() -> str | None:
    """The ndeval program: ``NDEVAL`` or the build path of the docstring, None when neither exists."""
    path = os.environ.get("NDEVAL") or (str(NDEVAL_BUILD) if NDEVAL_BUILD.exists() else None)
    return path if path and os.access(path, os.X_OK) else None


def pyndeval_in_process(qrels_path: Path, run_path: Path) -> tuple[dict[str, float], float, float]:
    """pyndeval on the files, read in Python as ir_measures feeds it: (column means, wall s, CPU s)."""
    import pyndeval

    wall, cpu = time.perf_counter(), time.process_time()
    qrels = []
    with open(qrels_path) as fh:
        for line in fh:
            t, s, d, j = line.split()
            qrels.append((t, s, d, int(j)))
    run = []
    with open(run_path) as fh:
        for line in fh:
            t, _, d, rank, _, _ = line.split()
            run.append((t, d, -float(rank)))  # ndeval orders by the rank column
    per_topic = pyndeval.ndeval(qrels, run, COLUMNS)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {n: sum(v[n] for v in per_topic.values()) / len(per_topic) for n in COLUMNS}, wall, cpu


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


def run(argv: list[str], env: dict[str, str] | None = None) -> tuple[str, float, float, float]:
    """Run a command; return (its standard output, wall seconds, CPU seconds (user + system), peak RSS in MB).

    CPU time is reported too because the machines this runs on are often shared: wall time then
    measures the neighbours as much as the tools.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if status != 0:
            raise RuntimeError(f"{argv[0]} failed ({status}):\n{err.read().decode()[-2000:]}")
        return out.read().decode(), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


FLOOR_READ = """
import numpy, pyarrow as pa, pyarrow.csv as c
def read(path, n, kinds):
    types = {"d": pa.dictionary(pa.int32(), pa.string()), "s": pa.string(), "i": pa.int64()}
    names = [f"c{i}" for i in range(n)]
    return c.read_csv(
        path, read_options=c.ReadOptions(column_names=names, block_size=1 << 22),
        parse_options=c.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
        convert_options=c.ConvertOptions(column_types={f"c{i}": types[k] for i, k in kinds.items()},
                                         include_columns=[f"c{i}" for i in kinds]))
read(QRELS, 4, {0: "d", 1: "d", 2: "s", 3: "i"})
read(RUN, 6, {0: "d", 2: "s", 3: "i"})
"""


def floors(qrels: Path, run_file: Path, rounds: int) -> None:
    """What any Python tool pays before joining anything: start-up, imports, and pyarrow reading both files."""
    read = FLOOR_READ.replace("QRELS", repr(str(qrels))).replace("RUN", repr(str(run_file)))
    variants = {
        "`python -c pass`": [sys.executable, "-c", "pass"],
        "`import numpy, pyarrow, pyarrow.csv`": [sys.executable, "-c", "import numpy, pyarrow, pyarrow.csv"],
        "the imports, then pyarrow reads both files (ndeval's columns, two threads)": [sys.executable, "-c", read],
        "rankmeter ndeval": [sys.executable, "-m", "rankmeter.cli.main", "ndeval", str(qrels), str(run_file)],
    }
    program = ndeval_program()
    if program:
        variants["ndeval (NIST's C program)"] = [program, str(qrels), str(run_file)]
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label in variants}
    for argv in variants.values():
        run(argv)
    for _ in range(rounds):
        for label, argv in variants.items():
            samples[label].append(run(argv)[1:3])
    base = statistics.median(w for w, _ in samples["ndeval (NIST's C program)"]) if program else None
    print(f"\n## Floors: whole processes, medians of {rounds} (load average {os.getloadavg()[0]:.1f})\n")
    print("| process | wall s | CPU s | / ndeval's wall |")
    print("|---|---:|---:|---:|")
    for label, got in samples.items():
        wall, cpu = statistics.median(w for w, _ in got), statistics.median(c for _, c in got)
        print(f"| {label} | {wall:.3f} | {cpu:.3f} | {f'{wall / base:.2f}' if base else '-'} |")
    if base:
        print(f"\n3x faster than ndeval: {base / 3:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one round")
    parser.add_argument("--judged", type=int, default=120, help="judged documents per intent (default 120)")
    parser.add_argument("--floors", action="store_true", help="start-up and reading floors instead (7 rounds)")
    args = parser.parse_args()
    rounds = 1 if args.quick else 3
    qrels, run_file = workload(judged=args.judged)
    if args.floors:
        floors(qrels, run_file, 1 if args.quick else 7)
        return
    tools = {"rankmeter ndeval": [sys.executable, "-m", "rankmeter.cli.main", "ndeval", str(qrels), str(run_file)]}
    program = ndeval_program()
    if program:
        tools["ndeval (NIST's C program)"] = [program, str(qrels), str(run_file)]
    pyndeval_label = "pyndeval (in-process)"
    samples: dict[str, list[tuple[float, float, float]]] = {label: [] for label in [*tools, pyndeval_label]}
    outputs: dict[str, str] = {}
    values: dict[str, dict[str, float]] = {}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "rankmeter_bench_pycache")
    for argv in tools.values():  # warm-up: bytecode written, files in the page cache
        run(argv, env)
    for _ in range(rounds):  # round-robin: a drift of the machine's load touches every tool alike
        for label, argv in tools.items():
            out, wall, cpu, rss = run(argv, env)
            outputs[label] = out
            samples[label].append((wall, cpu, rss))
        values[pyndeval_label], wall, cpu = pyndeval_in_process(qrels, run_file)
        samples[pyndeval_label].append((wall, cpu, 0.0))
    reference = amean(outputs["rankmeter ndeval"])
    base_wall = statistics.median(w for w, _, _ in samples["rankmeter ndeval"])
    base_cpu = statistics.median(c for _, c, _ in samples["rankmeter ndeval"])
    n_judged = sum(1 for _ in open(qrels))
    print(
        f"\n## WD: ndeval's 21 columns, {sum(1 for _ in open(run_file)):,} run rows, {n_judged:,} judgments, "
        f"{rounds} round(s)\n"
    )
    print("| tool | median wall s | peer / rankmeter | median CPU s | peer / rankmeter | peak RSS MB | values |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for label, got in samples.items():
        wall = statistics.median(w for w, _, _ in got)
        cpu = statistics.median(c for _, c, _ in got)
        # a child's peak RSS on Linux starts from this process's at the fork: only the first round's children
        # ran before pyndeval filled this process
        rss = got[0][2]
        if label == "rankmeter ndeval":
            note = "reference"
        elif label in outputs:
            same = outputs[label] == outputs["rankmeter ndeval"]
            note = "identical output" if same else f"OUTPUT DIFFERS ({agree(reference, amean(outputs[label]))})"
        else:
            note = agree(reference, values[label])
        print(
            f"| {label} | {wall:.2f} | {wall / base_wall:.1f}x | {cpu:.2f} | {cpu / base_cpu:.1f}x "
            f"| {f'{rss:.0f}' if rss else '(in-process)'} | {note} |"
        )
    if program:
        wall = statistics.median(w for w, _, _ in samples["ndeval (NIST's C program)"]) / base_wall
        cpu = statistics.median(c for _, c, _ in samples["ndeval (NIST's C program)"]) / base_cpu
        print(f"\nrankmeter ndeval vs the ndeval program: {wall:.2f}x faster (wall), {cpu:.2f}x (CPU); goal 3x")
    else:
        print(f"\n(ndeval program not found: build it as the docstring says, at {NDEVAL_BUILD}, or set NDEVAL)")


if __name__ == "__main__":
    main()
