"""W1 from pandas tables against the same data's TREC files: object-dtype ids, Arrow-backed ``str`` ids, files.

Each form runs in a fresh child process, the forms in turns (``--rounds`` rounds), and the child times
``rankmeter.evaluate`` alone (the tables are built before the clock starts): wall time and CPU time (user +
system, all threads; on a shared machine the steadier figure). With ``--base SRC`` the same forms run for a
second source tree (another checkout's ``src``) in the same turns, so the two compare in one invocation.
Values are checked equal across every form and tree.

    python benchmarks/bench_table_ids.py [--rounds 3] [--base /path/to/other/src] [--qrels Q --run R]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads  # noqa: E402

FORMS = ("files", "object", "str")

CHILD = r"""
import json, sys, time, pyarrow.csv as pc, rankmeter
qrels_path, run_path, form = sys.argv[1], sys.argv[2], sys.argv[3]
opts = pc.ParseOptions(delimiter=' ')
if form == "files":
    q, r = qrels_path, run_path
else:
    ids = pc.ConvertOptions(column_types={'query_id': 'string', 'doc_id': 'string'})
    q = pc.read_csv(qrels_path, read_options=pc.ReadOptions(column_names=['query_id', 'it', 'doc_id', 'relevance']),
                    parse_options=opts, convert_options=ids)
    r = pc.read_csv(run_path, read_options=pc.ReadOptions(column_names=['query_id', 'q0', 'doc_id', 'rank', 'score',
                    'tag']), parse_options=opts, convert_options=ids)
    kind = {'query_id': 'str', 'doc_id': 'str'} if form == 'str' else {'query_id': object, 'doc_id': object}
    q, r = q.to_pandas().astype(kind), r.to_pandas().astype(kind)
t, c = time.perf_counter(), time.process_time()
res = rankmeter.evaluate(q, r, ["ndcg@10", "ndcg", "map"])
print(json.dumps({"wall": time.perf_counter() - t, "cpu": time.process_time() - c, **res.aggregate}))
"""


def child(src: str, qrels: str, run: str, form: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", CHILD, qrels, run, form], capture_output=True, text=True, env=env)
    if out.returncode:
        raise RuntimeError(out.stderr[-500:])
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--base", help="a second source tree (a folder holding the rankmeter package)")
    parser.add_argument("--qrels", help="default: W1 (benchmarks/workloads.py)")
    parser.add_argument("--run")
    args = parser.parse_args()
    qrels, run = (args.qrels, args.run) if args.qrels else map(str, workloads.w1())
    trees = {"this tree": str(HERE.parent / "src")} | ({"base": args.base} if args.base else {})
    times: dict[tuple[str, str], list[tuple[float, float]]] = {(t, f): [] for t in trees for f in FORMS}
    values: dict[tuple[str, str], dict[str, float]] = {}
    for _ in range(args.rounds):
        for tree, src in trees.items():
            for form in FORMS:
                result = child(src, qrels, run, form)
                times[(tree, form)].append((result.pop("wall"), result.pop("cpu")))
                values[(tree, form)] = result
    reference = next(iter(values.values()))
    assert all(v == reference for v in values.values()), values
    print(f"| tree | form | wall s | / files | CPU s | / files |  ({args.rounds} rounds, medians)")
    print("|---|---|---:|---:|---:|---:|")
    for tree in trees:
        wall0 = statistics.median(w for w, _ in times[(tree, "files")])
        cpu0 = statistics.median(c for _, c in times[(tree, "files")])
        for form in FORMS:
            wall = statistics.median(w for w, _ in times[(tree, form)])
            cpu = statistics.median(c for _, c in times[(tree, form)])
            print(f"| {tree} | {form} | {wall:.2f} | {wall / wall0:.2f}x | {cpu:.2f} | {cpu / cpu0:.2f}x |")
    print("\nvalues:", reference)


if __name__ == "__main__":
    main()
