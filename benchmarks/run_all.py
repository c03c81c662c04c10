"""The tables of docs/performance.md, from one invocation: rankmeter against its peers on every workload.

Usage::

    pip install -e ".[bench]"
    nice -n 10 python benchmarks/run_all.py --recsys-python .venv-ci-recsys/bin/python > tables.md   # about 10 min on 2 idle cores

Prints the machine (CPU, cores, memory, load average before and after, versions), then one table per
workload, the contenders one after the other, values checked to agree before a row is shown:

* W1 (6,980 queries x 1,000 documents, binary) and W2 (200 queries x 1,000 documents, graded) from TREC
  files, whole processes: rankmeter, its trec_eval drop-in, NIST trec_eval (``trec_eval`` on PATH, built
  from source; the row says so when it is absent), pytrec_eval, ranx, ir_measures (:mod:`run`);
* W1 from in-memory tables (pandas, polars, Arrow) against ranx's ``from_df``;
* W3 (20,000 x 2,000 dense scores): ``evaluate_arrays`` against scikit-learn and one sort of every row;
* W4 (2 queries x 10 documents): a fresh process against pytrec_eval's, and 1,000 such jobs in one process;
* MANY (30 W2-sized runs in one process against a loop of trec_eval processes) and the CLI's start-up
  (:mod:`many_runs`, :mod:`cli_startup`);
* the scripts of the other worlds, each run as a child process: Hamming retrieval against scikit-learn
  and a NumPy script (:mod:`bench_vectors`, 200 queries), training-loop metrics against keras-rs and torchmetrics
  (:mod:`bench_frameworks`), ndeval's diversity measures against pyndeval (:mod:`bench_ndeval`), and W5
  against the recommender libraries (:mod:`bench_recsys`, in the environment of
  ``tests_recsys_oracles/requirements.txt`` given by ``--recsys-python``, 20,000 users; left out without it).

Last, a summary table: per workload, rankmeter's time and each peer's time over it (> 1: rankmeter is
faster). ``--only`` picks sections (W1,W1T,W2,W3,W4,MANY,CLI,VECTORS,FRAMEWORKS,NDEVAL,W5).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402
import workloads  # noqa: E402
from harness import TABLES, TINY_DICT_PYTREC, TINY_DICT_RANKMETER, have, print_table, timed  # noqa: E402

SECTIONS = "W1,W1T,W2,W3,W4,MANY,CLI,VECTORS,FRAMEWORKS,NDEVAL,W5"
PEERS = ("numpy", "pyarrow", "pytrec-eval-terrier", "ranx", "ir-measures", "scikit-learn", "pandas", "polars")
PEERS += ("keras", "keras-rs", "jax", "torch", "torchmetrics", "pyndeval")


def machine() -> str:
    """The machine and the software, in one paragraph."""
    cpuinfo, meminfo = (Path(f).read_text() if Path(f).exists() else "" for f in ("/proc/cpuinfo", "/proc/meminfo"))
    cpu = next(
        (line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name")),
        platform.processor() or platform.machine(),
    )
    mem = next((int(line.split()[1]) / 2**20 for line in meminfo.splitlines() if line.startswith("MemTotal")), 0.0)
    versions = []
    for name in PEERS:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    te = subprocess.run(["trec_eval", "-v"], capture_output=True, text=True) if have_trec_eval() else None
    te = (te.stdout + te.stderr).strip() if te else ""
    return (
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {cpu}, {os.cpu_count()} cores, "
        f"{mem:.0f} GiB, {platform.system()} {platform.machine()}; Python {platform.python_version()}; "
        f"rankmeter {metadata.version('rankmeter')}; {', '.join(versions)}"
        + (f"; {te or 'trec_eval'} (C, on PATH)" if have_trec_eval() else "; no trec_eval on PATH")
    )


def have_trec_eval() -> bool:
    import shutil

    return shutil.which("trec_eval") is not None


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} (1, 5, 15 min)"


def w1_tables(repeats: int) -> None:
    """W1 from pandas, polars and Arrow tables, against ranx's ``from_df`` (in-process timing)."""
    qrels, run_file = (str(p) for p in workloads.w1())
    args = [qrels, run_file, "ndcg@10;ndcg;map"]
    rows: list = []
    ref = timed("rankmeter (TREC files, same timing)", run.CHILD_RANKMETER_FRAME, [*args, "files"], repeats, rows, None)
    for label, form in (
        ("rankmeter (pandas, object ids)", "pandas"),
        ("rankmeter (pandas, Arrow-backed str ids)", "pandas-str"),
        ("rankmeter (polars)", "polars"),
        ("rankmeter (pyarrow Table)", "arrow"),
    ):
        timed(label, run.CHILD_RANKMETER_FRAME, [*args, form], repeats, rows, ref)
    if have("ranx"):
        timed("ranx (from_df + evaluate, JIT warm)", run.CHILD_RANX_FRAME, [qrels, run_file], 1, rows, ref)
    print_table("W1 from in-memory tables (ndcg@10, ndcg, map; convert + compute, in-process timing)", rows)


def w3(repeats: int) -> None:
    """W3: ``evaluate_arrays`` against scikit-learn, and the floor of one sort of every row."""
    here, users = str(HERE), "20000"
    peers = {"ndcg@10": "ndcg_score(k=10)", "ndcg": "ndcg_score", "map": "label_ranking_average_precision_score"}
    for measure, peer in peers.items():
        rows: list = []
        ref = timed(
            f"rankmeter evaluate_arrays (ties=expected; {measure})",
            run.CHILD_DENSE_RANKMETER,
            [here, users, measure],
            repeats,
            rows,
            None,
        )
        if have("sklearn"):
            timed(f"scikit-learn {peer}", run.CHILD_DENSE_SKLEARN, [here, users, measure], 1, rows, ref)
        if measure != "ndcg@10":
            timed("floor: np.sort of every row (one thread)", run.CHILD_DENSE_SORT, [here, users], repeats, rows, ref)
        print_table(f"W3 {measure} (20,000 x 2,000 dense scores, in-process timing)", rows)


def w4(repeats: int) -> None:
    """W4: one tiny job in a fresh process, and 1,000 of them in one process."""
    rows: list = []
    ref = timed("rankmeter (fresh process: import, evaluate, print)", TINY_DICT_RANKMETER, [], 7, rows, None)
    if have("pytrec_eval"):
        timed("pytrec_eval (fresh process)", TINY_DICT_PYTREC, [], 7, rows, ref)
    print_table("W4: 2 queries x 10 documents from dicts, whole process (ndcg@10, ndcg, map)", rows)
    rows = []
    ref = timed("rankmeter, all jobs in one call", run.CHILD_TINY_MANY, ["rankmeter/all"], repeats, rows, None)
    timed("rankmeter, one call per job", run.CHILD_TINY_MANY, ["rankmeter/each"], repeats, rows, ref)
    if have("pytrec_eval"):
        timed("pytrec_eval, one evaluator per job", run.CHILD_TINY_MANY, ["pytrec_eval/each"], repeats, rows, ref)
        timed("pytrec_eval, all jobs in one evaluator", run.CHILD_TINY_MANY, ["pytrec_eval/all"], repeats, rows, ref)
    print_table("W4 x 1,000: a thousand tiny jobs in one process (in-process timing)", rows)


def script(name: str, argv: list[str], python: str = sys.executable) -> None:
    """Run another benchmark script as a child process; its tables go to this output."""
    print(f"\n<!-- {Path(python).name} benchmarks/{name}.py {' '.join(argv)} -->", flush=True)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE.parent / "src"), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.run(
        [python, str(HERE / f"{name}.py"), *argv], env=env, stdout=sys.stdout, stderr=subprocess.PIPE, text=True
    )
    if proc.returncode:
        print(
            f"\n(benchmarks/{name}.py failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode})"
        )


def summary() -> None:
    """Per table: the first row (rankmeter) and every peer's time over it."""
    print("\n## Summary: time of each contender over rankmeter's (> 1: rankmeter is faster)\n")
    print("| workload | rankmeter s | contender | contender s | contender / rankmeter |")
    print("|---|---:|---|---:|---:|")
    for title, rows in TABLES:
        if not rows or rows[0][1] is None:
            continue
        base = rows[0][1]
        for label, secs, _, note in rows[1:]:
            peer = not label.startswith(("rankmeter", "floor"))
            if peer and secs is not None and not str(note).startswith("DIFFER"):
                print(
                    f"| {title.split(':')[0].split(' (')[0]} | {base:.3f} | {label} | {secs:.3f} | {secs / base:.1f}x |"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=SECTIONS, help=f"comma-separated sections (default: {SECTIONS})")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each peer; rankmeter's fast rows take 5")
    parser.add_argument("--recsys-python", default=None, help="Python of the recommender libraries' environment (W5)")
    args = parser.parse_args()
    only = set(args.only.upper().split(","))
    import compileall

    import rankmeter

    compileall.compile_dir(str(Path(rankmeter.__file__).parent), quiet=1)  # as pip does for the peers
    print(f"# rankmeter and its peers\n\nmachine: {machine()}\n\nbefore: {load()}", flush=True)
    if "W1" in only:
        run.trec_benchmark(
            "W1 (6,980 q x 1,000 docs, binary)",
            workloads.w1(),
            ["ndcg@10", "ndcg", "map", "p@10", "r@100"],
            args.repeats,
        )
    if "W1T" in only:
        w1_tables(args.repeats)
    if "W2" in only:
        run.trec_benchmark("W2 (200 q x 1,000 docs, graded)", workloads.w2(), ["ndcg@10", "ndcg", "map"], args.repeats)
    if "W3" in only:
        w3(args.repeats)
    if "W4" in only:
        w4(args.repeats)
    sys.stdout.flush()
    if "MANY" in only:
        from many_runs import many_benchmark

        many_benchmark(30, 1)
    if "CLI" in only:
        from cli_startup import cli_benchmark

        cli_benchmark(5)
    sys.stdout.flush()
    if "VECTORS" in only:
        script("bench_vectors", ["--queries", "200"])
    if "FRAMEWORKS" in only:
        script("bench_frameworks", ["--backends", "jax,torch", "--repeats", "5", "--dense", ""])
    if "NDEVAL" in only:
        script("bench_ndeval", ["--quick"])
    if "W5" in only and args.recsys_python:
        script("bench_recsys", ["--users", "20000", "--rounds", "1"], python=args.recsys_python)
    summary()
    print(f"\nafter: {load()}")


if __name__ == "__main__":
    main()
