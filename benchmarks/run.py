"""Side-by-side benchmarks: rankmeter and its peers on the same workloads, in one invocation.

Usage::

    pip install -e ".[bench]"
    python benchmarks/run.py            # all workloads, 3 repeats
    python benchmarks/run.py --quick    # 1 repeat, smaller W3

Every tool runs in a fresh Python process (so import time and peak RSS count),
values are checked to agree before anything is timed, and the table prints
medians, the ratio peer / rankmeter (> 1 means rankmeter is faster), peak RSS
and the floors (reading the file, parsing it with Arrow, sorting per query, and
a Python process that only imports NumPy and pyarrow). ENGINES (engines.py)
measures the parsing and joining engines the core could use.
Peers that are not installed are skipped with a note.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads  # noqa: E402
from harness import agree, compared, have, print_table, rounds, run_child, run_command, timed  # noqa: E402

TREC_MEASURES = {
    "ndcg@10": "ndcg_cut_10",
    "ndcg": "ndcg",
    "map": "map",
    "p@10": "P_10",
    "r@100": "recall_100",
}

CHILD_RANKMETER_FILES = """
import json, sys, rankmeter
res = rankmeter.evaluate(sys.argv[1], sys.argv[2], sys.argv[3].split(';'))
print(json.dumps(res.aggregate))
"""

CHILD_PYTREC = """
import json, sys, pytrec_eval
names = dict(x.split('=') for x in sys.argv[3].split(';'))
with open(sys.argv[1]) as f: qrel = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
ev = pytrec_eval.RelevanceEvaluator(qrel, {'ndcg_cut', 'ndcg', 'map', 'P', 'recall'})
res = ev.evaluate(run)
out = {}
for ours, theirs in names.items():
    vals = [m[theirs] for m in res.values()]
    out[ours] = sum(vals) / len(vals)
print(json.dumps(out))
"""

CHILD_RANX = """
import json, sys
from ranx import Qrels, Run, evaluate
names = dict(x.split('=') for x in sys.argv[3].split(';'))
q = Qrels.from_file(sys.argv[1], kind='trec'); r = Run.from_file(sys.argv[2], kind='trec')
m = {'ndcg@10': 'ndcg@10', 'ndcg': 'ndcg', 'map': 'map', 'p@10': 'precision@10', 'r@100': 'recall@100'}
res = evaluate(q, r, [m[k] for k in names], make_comparable=True)
res = res if isinstance(res, dict) else {m[list(names)[0]]: res}
print(json.dumps({k: float(res[m[k]]) for k in names}))
"""

CHILD_IRM = """
import json, sys, ir_measures
from ir_measures import nDCG, AP, P, R
m = {'ndcg@10': nDCG@10, 'ndcg': nDCG, 'map': AP, 'p@10': P@10, 'r@100': R@100}
names = [x.split('=')[0] for x in sys.argv[3].split(';')]
qrels = list(ir_measures.read_trec_qrels(sys.argv[1])); run = list(ir_measures.read_trec_run(sys.argv[2]))
agg = ir_measures.calc_aggregate([m[k] for k in names], qrels, run)
print(json.dumps({k: float(agg[m[k]]) for k in names}))
"""

# argv[4]: the table form -- files (the TREC-file path timed in the same way), pandas (object ids: pandas 2.x's
# default), pandas-str (Arrow-backed str ids: pandas 3.x's default), pandas-category (categorical query ids),
# polars, arrow, pandas-floor (object ids: only reading them is timed)
CHILD_RANKMETER_FRAME = """
import json, sys, time, pyarrow.csv as pc, rankmeter
form = sys.argv[4]
opts = pc.ParseOptions(delimiter=' ')
q = pc.read_csv(sys.argv[1], read_options=pc.ReadOptions(column_names=['query_id','it','doc_id','relevance']), parse_options=opts,
                convert_options=pc.ConvertOptions(column_types={'query_id':'string','doc_id':'string'}))
r = pc.read_csv(sys.argv[2], read_options=pc.ReadOptions(column_names=['query_id','q0','doc_id','rank','score','tag']), parse_options=opts,
                convert_options=pc.ConvertOptions(column_types={'query_id':'string','doc_id':'string'}))
if form == 'files':
    q, r = sys.argv[1], sys.argv[2]
elif form == 'polars':
    import polars as pl
    q, r = pl.from_arrow(q), pl.from_arrow(r)
elif form.startswith('pandas'):
    ids = {'query_id': 'str', 'doc_id': 'str'} if form == 'pandas-str' else {'query_id': object, 'doc_id': object}
    q, r = q.to_pandas().astype(ids), r.to_pandas().astype(ids)
    if form == 'pandas-category':
        q, r = q.astype({'query_id': 'category'}), r.astype({'query_id': 'category'})
t = time.perf_counter()
if form == 'pandas-floor':  # the floor of object ids: document ids to Arrow strings, query ids hashed, alone
    import pandas as pd, pyarrow as pa
    for frame in (q, r):
        pd.factorize(frame['query_id'].to_numpy()), pa.Array.from_pandas(frame['doc_id'])
    seconds = time.perf_counter() - t
    print(json.dumps({'seconds': seconds, **rankmeter.evaluate(q, r, sys.argv[3].split(';')).aggregate}))
    sys.exit()
res = rankmeter.evaluate(q, r, sys.argv[3].split(';'))
print(json.dumps({'seconds': time.perf_counter() - t, **res.aggregate}))
"""

CHILD_RANX_FRAME = """
import json, sys, time, pyarrow.csv as pc
from ranx import Qrels, Run, evaluate
opts = pc.ParseOptions(delimiter=' ')
q = pc.read_csv(sys.argv[1], read_options=pc.ReadOptions(column_names=['q_id','it','doc_id','score']), parse_options=opts,
                convert_options=pc.ConvertOptions(column_types={'q_id':'string','doc_id':'string'})).to_pandas()
r = pc.read_csv(sys.argv[2], read_options=pc.ReadOptions(column_names=['q_id','q0','doc_id','rank','score','tag']), parse_options=opts,
                convert_options=pc.ConvertOptions(column_types={'q_id':'string','doc_id':'string'})).to_pandas()
for frame in (q, r):
    for col in ('q_id', 'doc_id'):
        frame[col] = frame[col].astype(object)  # ranx requires object (str) columns
evaluate(Qrels({'a': {'x': 1}}), Run({'a': {'x': 1.0}}), ['ndcg@10'])  # JIT warm-up excluded from the timing
t = time.perf_counter()
qr = Qrels.from_df(q, q_id_col='q_id', doc_id_col='doc_id', score_col='score')
ru = Run.from_df(r, q_id_col='q_id', doc_id_col='doc_id', score_col='score')
res = evaluate(qr, ru, ['ndcg@10', 'ndcg', 'map'], make_comparable=True)
print(json.dumps({'seconds': time.perf_counter() - t, 'ndcg@10': float(res['ndcg@10']), 'ndcg': float(res['ndcg']), 'map': float(res['map'])}))
"""

CHILD_DENSE_RANKMETER = """
import json, sys, time
sys.path.insert(0, sys.argv[1]); import workloads, rankmeter
y, s = workloads.w3(int(sys.argv[2]))
t = time.perf_counter()
res = rankmeter.evaluate_arrays(y, s, sys.argv[3].split(';'), ties='expected')
print(json.dumps({'seconds': time.perf_counter() - t, **res.aggregate}))
"""

# argv[3]: "ndcg@10" (ndcg_score, k=10), "ndcg" (ndcg_score) or "map" (label_ranking_average_precision_score
# on y > 0: LRAP ranks every item tied with a relevant one above it, AP's pessimistic value when one relevant
# item is in the group; on W3 it agrees with map(ties=expected) to 1e-7 and with map(ties=pessimistic) exactly)
CHILD_DENSE_SKLEARN = """
import json, sys, time
sys.path.insert(0, sys.argv[1]); import workloads
from sklearn.metrics import label_ranking_average_precision_score, ndcg_score
y, s = workloads.w3(int(sys.argv[2]))
t = time.perf_counter()
if sys.argv[3] == 'map':
    out = {'map': float(label_ranking_average_precision_score(y > 0, s))}
else:
    out = {sys.argv[3]: float(ndcg_score(y, s, k=10 if sys.argv[3] == 'ndcg@10' else None))}
print(json.dumps({'seconds': time.perf_counter() - t, **out}))
"""

# the floor of a full-list measure: one sort of every row of the score matrix (NumPy, one thread)
CHILD_DENSE_SORT = """
import json, sys, time
sys.path.insert(0, sys.argv[1]); import workloads, numpy as np
y, s = workloads.w3(int(sys.argv[2]))
t = time.perf_counter()
np.sort(s, axis=1)
print(json.dumps({'seconds': time.perf_counter() - t}))
"""

CHILD_TINY = """
import json, time
t0 = time.perf_counter()
import rankmeter
t1 = time.perf_counter()
qrels = {"q1": {f"d{i}": i % 3 for i in range(10)}, "q2": {f"d{i}": (i + 1) % 2 for i in range(10)}}
run = {q: {f"d{i}": float(10 - i) for i in range(10)} for q in ("q1", "q2")}
res = rankmeter.evaluate(qrels, run, ['ndcg@10', 'ndcg', 'map'])
t2 = time.perf_counter()
print(json.dumps({'import': t1 - t0, 'first_call': t2 - t1, **res.aggregate}))
"""

# 1,000 tiny jobs (W4's two queries, each job with its own run) in one process, after one warm-up call;
# argv[1] picks the tool and whether each job is its own call or all jobs go in one call (ids prefixed)
CHILD_TINY_MANY = """
import json, sys, time
tool, how = sys.argv[1].split('/')
qrels = {"q1": {f"d{i}": i % 3 for i in range(10)}, "q2": {f"d{i}": (i + 1) % 2 for i in range(10)}}
jobs = [{q: {f"d{i}": float((7 * i + j + len(q)) % 10) for i in range(10)} for q in ("q1", "q2")} for j in range(1000)]
if tool == 'rankmeter':
    import rankmeter
    def one(qr, ru):
        res = rankmeter.evaluate(qr, ru, ['ndcg@10', 'ndcg', 'map'])
        by = {m: {r['query_id']: r['value'] for r in res.to_dict()['per_query'] if r['measure'] == m} for m in res.measure_names}
        return [by[m][q] for q in sorted(by['ndcg']) for m in ('ndcg@10', 'ndcg', 'map')]
else:
    import pytrec_eval
    def one(qr, ru):
        res = pytrec_eval.RelevanceEvaluator(qr, {'ndcg_cut', 'ndcg', 'map'}).evaluate(ru)
        return [res[q][m] for q in sorted(res) for m in ('ndcg_cut_10', 'ndcg', 'map')]
one(qrels, jobs[0])  # warm-up: imports, first call
t = time.perf_counter()
if how == 'each':
    values = [v for run in jobs for v in one(qrels, run)]
else:
    values = one({f"{j:04d}/{q}": d for j in range(len(jobs)) for q, d in qrels.items()},
                 {f"{j:04d}/{q}": d for j, run in enumerate(jobs) for q, d in run.items()})
seconds = time.perf_counter() - t
print(json.dumps({'seconds': seconds, 'mean': sum(values) / len(values), 'n': len(values)}))
"""


def trec_eval_row(
    label: str, argv: list[str], names: dict[str, str], repeats: int, rows: list, ref: dict | None
) -> None:
    """Time a trec_eval-compatible program (whole process) and read its ``measure all value`` lines."""
    walls, rss, out = [], 0.0, ""
    for _ in range(repeats):
        try:
            out, wall, peak = run_command(argv)
        except (RuntimeError, OSError) as exc:
            rows.append((label, None, None, f"failed: {str(exc).splitlines()[0][:80]}"))
            return
        walls.append(wall)
        rss = max(rss, peak)
    printed = {f[0]: float(f[2]) for f in (line.split() for line in out.splitlines()) if len(f) == 3 and f[1] == "all"}
    values = {ours: printed[theirs] for ours, theirs in names.items() if theirs in printed}
    note = agree(ref, values, tol=5e-5) if ref is not None else "reference"  # trec_eval prints 4 decimals
    rows.append((label, statistics.median(walls), rss, note))


CHILD_FLOORS = """
import json, sys, time
import numpy as np, pyarrow as pa, pyarrow.csv as pacsv
t = time.perf_counter(); data = open(sys.argv[1], 'rb').read(); read = time.perf_counter() - t
t = time.perf_counter()
table = pacsv.read_csv(pa.py_buffer(data), read_options=pacsv.ReadOptions(column_names=[f'c{i}' for i in range(6)]),
                       parse_options=pacsv.ParseOptions(delimiter=' '),
                       convert_options=pacsv.ConvertOptions(include_columns=['c0', 'c2', 'c4']))
parse = time.perf_counter() - t
scores = table.column('c4').to_numpy()
qids = table.column('c0').to_numpy()
starts = np.concatenate(([0], np.flatnonzero(qids[1:] != qids[:-1]) + 1, [len(qids)]))
width = int(np.diff(starts).max())  # per-query sort: one row per query (padded), sorted row-wise
padded = np.full((len(starts) - 1, width), np.inf)
lengths = np.diff(starts)
padded[np.repeat(np.arange(len(lengths)), lengths), np.arange(len(qids)) - np.repeat(starts[:-1], lengths)] = -scores
t = time.perf_counter(); np.argsort(padded, axis=1, kind='stable'); sort = time.perf_counter() - t
print(json.dumps({'read': read, 'parse': parse, 'sort': sort}))
"""


CHILD_STARTUP = "import numpy, pyarrow.csv; print('{}')"


def floors(run_path: Path, repeats: int = 3) -> dict:
    """Reading the file, parsing it with Arrow and sorting per query, and a Python process that only imports
    NumPy and pyarrow's CSV reader, each the median of ``repeats`` child processes."""
    runs = [run_child(CHILD_FLOORS, str(run_path))[0] for _ in range(repeats)]
    found = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    found["startup"] = statistics.median(run_child(CHILD_STARTUP)[1] for _ in range(repeats))
    return found


def trec_benchmark(name: str, paths: tuple[Path, Path], measures: list[str], repeats: int) -> None:
    qrels, run = (str(p) for p in paths)
    spec = ";".join(f"{m}={TREC_MEASURES[m]}" for m in measures)
    rows: list = []
    # the fast rows take 5 repeats: a second of work is more exposed to the machine's noise than a peer's 5 s
    fast = 1 if repeats == 1 else 5
    ref = timed(
        "rankmeter (process, from files)", CHILD_RANKMETER_FILES, [qrels, run, ";".join(measures)], fast, rows, None
    )
    if have("pytrec_eval"):
        timed("pytrec_eval", CHILD_PYTREC, [qrels, run, spec], repeats, rows, ref)
    else:
        rows.append(("pytrec_eval", None, None, "not installed"))
    te_args = ["-c"] + [
        a
        for m in measures
        for a in ("-m", TREC_MEASURES[m].replace("_cut_", "_cut.").replace("P_", "P.").replace("recall_", "recall."))
    ]
    names = {m: TREC_MEASURES[m] for m in measures}
    dropin = shutil.which("rankmeter-trec-eval") or str(Path(sys.executable).with_name("rankmeter-trec-eval"))
    trec_eval_row("rankmeter trec_eval (drop-in CLI)", [dropin, *te_args, qrels, run], names, fast, rows, ref)
    if shutil.which("trec_eval"):
        trec_eval_row("trec_eval (C)", ["trec_eval", *te_args, qrels, run], names, repeats, rows, ref)
    else:
        rows.append(("trec_eval (C)", None, None, "not on PATH"))
    for label, module, code in (("ranx", "ranx", CHILD_RANX), ("ir_measures", "ir_measures", CHILD_IRM)):
        if have(module):
            timed(label, code, [qrels, run, spec], max(1, repeats // 3), rows, ref)
        else:
            rows.append((label, None, None, "not installed (pip install -e .[bench])"))
    print_table(f"{name}: end to end from TREC files, whole process ({', '.join(measures)})", rows)
    f = floors(paths[1])
    print(
        f"\nfloors: read file {f['read']:.3f} s, Arrow CSV parse {f['parse']:.3f} s, per-query sort {f['sort']:.3f} s; "
        f"floor = {f['read'] + f['parse'] + f['sort']:.3f} s; a Python process importing NumPy and pyarrow.csv "
        f"{f['startup']:.3f} s"
    )


CHILD_RANKMETER_STREAM = """
import json, sys, rankmeter
qrels, run, measures, mode = sys.argv[1], sys.argv[2], sys.argv[3].split(';'), sys.argv[4]
if mode == 'whole':  # the run read at once into memory, then evaluated
    res = rankmeter.evaluate(qrels, rankmeter.read_run(run), measures)
elif mode == 'file':  # what evaluate does with a run file by default
    res = rankmeter.evaluate(qrels, run, measures)
else:
    res = rankmeter.evaluate_stream(qrels, run, measures, block_bytes=int(mode) << 20)
print(json.dumps({**res.aggregate, 'queries': res.metadata['queries_evaluated']}))
"""


def stream_benchmark(copies: int, in_memory: bool, repeats: int) -> None:
    """A run of ``copies`` x W1 (several GB) streamed in blocks, against the in-memory evaluation and W1.

    The reading modes run round-robin, ``repeats`` rounds (:func:`harness.rounds`).
    """
    measures = "ndcg@10;ndcg;map;p@10;r@100"
    qrels, run = (str(p) for p in workloads.w1_copies(copies))
    size = Path(run).stat().st_size
    w1_values = run_child(CHILD_RANKMETER_STREAM, *(str(p) for p in workloads.w1()), measures, "whole")[0]
    modes = [
        ("file", "rankmeter evaluate(qrels, run file) (blocks of 8 MiB, the default)"),
        ("8", "rankmeter evaluate_stream (8 MiB blocks)"),
        ("64", "rankmeter evaluate_stream (64 MiB blocks)"),
    ]
    if in_memory:
        modes.append(("whole", "rankmeter evaluate(qrels, read_run(run file)) (whole run in memory)"))
    results = rounds([(CHILD_RANKMETER_STREAM, [qrels, run, measures, mode]) for mode, _ in modes], repeats)
    rows: list = []
    first: dict = {}
    for (_, label), (values, wall, rss) in zip(modes, results, strict=True):
        note = f"queries {values.pop('queries')}; vs W1: {agree(w1_values, values, tol=1e-12)}"
        if first:
            note += f"; vs first row, exactly: {agree(first, values, tol=0.0)}"
        first = first or values
        rows.append((label, wall, rss, note))
    print_table(
        f"Streaming: {copies} x W1 ({size / 2**30:.2f} GiB, {copies * 6980} q x 1,000 docs), whole process", rows
    )


CHILD_BLOCKS = """
import json, sys, rankmeter
res = rankmeter.evaluate_stream(sys.argv[1], sys.argv[2], sys.argv[3].split(';'), block_bytes=int(sys.argv[4]) << 20)
print(json.dumps(res.aggregate))
"""

CHILD_POOL = """
import json, sys
import pyarrow as pa
from rankmeter.io import arrow, trec
if sys.argv[4] == 'default':  # pyarrow's default pool instead of the readers' choice
    arrow.memory_pool = trec.memory_pool = pa.default_memory_pool
import rankmeter
run = rankmeter.read_run(sys.argv[2]) if sys.argv[5] == 'whole' else sys.argv[2]
res = rankmeter.evaluate(sys.argv[1], run, sys.argv[3].split(';'))
print(json.dumps(res.aggregate))
"""


# glibc malloc keeps freed memory instead of handing it back and faulting it in again (environment only)
GLIBC_RETAIN = {
    "MALLOC_MMAP_THRESHOLD_": str(64 << 20),
    "MALLOC_TRIM_THRESHOLD_": str(512 << 20),
    "MALLOC_TOP_PAD_": str(64 << 20),
}


def choices_benchmark(repeats: int) -> None:
    """The measurements behind the block size of run files, the readers' memory pool and the allocator tip.

    The variants of each choice run round-robin (:func:`harness.rounds`).
    """
    qrels, run = (str(p) for p in workloads.w1())
    measures = "ndcg@10;ndcg;map;p@10;r@100"
    sizes = (8, 2, 4, 16, 32)  # 8 MiB: rankmeter.io.load.BLOCK_BYTES
    results = rounds([(CHILD_BLOCKS, [qrels, run, measures, str(mb)]) for mb in sizes], repeats)
    labels = [f"W1 in blocks of {mb} MiB" + (" (the default)" if mb == 8 else "") for mb in sizes]
    print_table("Choices: block size of run files (whole process, W1)", compared(labels, results))
    for read in ("whole", "file"):
        pools = ("jemalloc", "default")
        results = rounds([(CHILD_POOL, [qrels, run, measures, pool, read]) for pool in pools], repeats)
        labels = [
            f"W1, pyarrow's {pool} pool" + (" (the readers' choice)" if pool == "jemalloc" else "") for pool in pools
        ]
        how = "read_run, then evaluate (the run read whole)" if read == "whole" else "evaluate(run file), in blocks"
        print_table(f"Choices: memory pool of the readers, {how} (whole process)", compared(labels, results))
    # glibc's malloc settings are the process's, not rankmeter's to change: measured here for docs/performance.md
    settings = {"": None, " with glibc's MALLOC_* settings (docs/performance.md)": GLIBC_RETAIN}
    results = rounds(
        [(CHILD_POOL, [qrels, run, measures, "jemalloc", "file"], env) for env in settings.values()], repeats
    )
    labels = [f"W1, evaluate(run file){label}" for label in settings]
    print_table("Choices: the process's allocator settings (whole process)", compared(labels, results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1 repeat, smaller dense workload")
    parser.add_argument(
        "--only", default="W1,W2,W3,W4,MANY,CLI,CUTOFFS,STREAM,CHOICES,ENGINES", help="comma-separated workloads"
    )
    parser.add_argument("--stream-copies", type=int, default=10, help="copies of W1 in the STREAM run (255 MB each)")
    parser.add_argument(
        "--no-in-memory", action="store_true", help="STREAM: skip the in-memory run (about 1 GB per copy)"
    )
    args = parser.parse_args()
    repeats = 1 if args.quick else 3
    only = set(args.only.upper().split(","))
    import compileall
    import platform

    import rankmeter

    # byte-compile rankmeter as pip does for the peers' installed modules (an editable install, or
    # PYTHONDONTWRITEBYTECODE, would otherwise make every child compile rankmeter's sources again)
    compileall.compile_dir(str(Path(rankmeter.__file__).parent), quiet=1)

    print(
        f"# rankmeter benchmarks\n\nmachine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    if "W1" in only:
        paths = workloads.w1()
        trec_benchmark(
            "W1 MS MARCO dev-like (6,980 q x 1,000 docs)", paths, ["ndcg@10", "ndcg", "map", "p@10", "r@100"], repeats
        )
        rows: list = []
        frame_args = [str(paths[0]), str(paths[1]), "ndcg@10;ndcg;map"]
        ref = timed(
            "rankmeter (pandas, object ids)", CHILD_RANKMETER_FRAME, [*frame_args, "pandas"], repeats, rows, None
        )
        for label, form in (
            ("rankmeter (pandas, Arrow-backed str ids)", "pandas-str"),
            ("rankmeter (pandas, categorical query ids)", "pandas-category"),
            ("rankmeter (polars)", "polars"),
            ("rankmeter (pyarrow Table)", "arrow"),
            ("rankmeter (TREC files, same timing)", "files"),
            ("object ids to Arrow strings alone (the floor; no evaluation timed)", "pandas-floor"),
        ):
            timed(label, CHILD_RANKMETER_FRAME, [*frame_args, form], repeats, rows, ref)
        if have("ranx"):
            timed("ranx (from_df + evaluate, JIT warm)", CHILD_RANX_FRAME, [str(paths[0]), str(paths[1])], 1, rows, ref)
        else:
            rows.append(("ranx", None, None, "not installed (pip install -e .[bench])"))
        print_table("W1 from in-memory tables (convert + compute, in-process timing)", rows)
    if "W2" in only:
        trec_benchmark(
            "W2 TREC DL-like (200 q x 1,000 docs, graded)", workloads.w2(), ["ndcg@10", "ndcg", "map"], repeats
        )
    if "W3" in only:
        users = "4000" if args.quick else "20000"
        here = str(HERE)
        peers = {"ndcg@10": "ndcg_score(k=10)", "ndcg": "ndcg_score", "map": "label_ranking_average_precision_score"}
        for measures in ("ndcg@10", "ndcg", "map", "ndcg@10;ndcg;map"):
            rows = []
            ref = timed(
                f"rankmeter evaluate_arrays (ties=expected; {measures.replace(';', ', ')})",
                CHILD_DENSE_RANKMETER,
                [here, users, measures],
                repeats,
                rows,
                None,
            )
            if measures in peers and have("sklearn"):
                timed(f"scikit-learn {peers[measures]}", CHILD_DENSE_SKLEARN, [here, users, measures], 1, rows, ref)
            if measures != "ndcg@10":
                timed("floor: np.sort of every row (one thread)", CHILD_DENSE_SORT, [here, users], repeats, rows, ref)
            print_table(f"W3 dense recommender ({users} users x 2,000 items, in-process timing)", rows)
    if "W4" in only:
        runs = [run_child(CHILD_TINY) for _ in range(5)]
        imp = statistics.median(r[0]["import"] for r in runs)
        first = statistics.median(r[0]["first_call"] for r in runs)
        print(
            f"\n## W4 tiny (2 q x 10 docs, fresh process)\n\nimport rankmeter: {imp * 1000:.0f} ms (goal <= 150 ms); "
            f"first call: {first * 1000:.1f} ms (goal <= 20 ms)"
        )
        rows = []
        ref = timed("rankmeter, one call per job", CHILD_TINY_MANY, ["rankmeter/each"], repeats, rows, None)
        timed("rankmeter, all jobs in one call", CHILD_TINY_MANY, ["rankmeter/all"], repeats, rows, ref)
        if have("pytrec_eval"):
            timed("pytrec_eval, one evaluator per job", CHILD_TINY_MANY, ["pytrec_eval/each"], repeats, rows, ref)
            timed("pytrec_eval, all jobs in one evaluator", CHILD_TINY_MANY, ["pytrec_eval/all"], repeats, rows, ref)
        print_table("W4 x 1,000: a thousand tiny jobs in one process (ndcg@10, ndcg, map; in-process timing)", rows)
    if "MANY" in only:
        from many_runs import many_benchmark

        many_benchmark(100, max(1, repeats // 2))
    if "CLI" in only:
        from cli_startup import cli_benchmark

        cli_benchmark(21 if repeats > 1 else 1)
    if "ENGINES" in only:
        from engines import engines_benchmark

        engines_benchmark(repeats)
    if "CHOICES" in only:
        choices_benchmark(1 if args.quick else 5)
    if "STREAM" in only:
        stream_benchmark(2 if args.quick else args.stream_copies, not args.no_in_memory, repeats)
    if "CUTOFFS" in only:
        import rankmeter
        from rankmeter.core.join import align
        from rankmeter.io import read_qrels, read_run
        from rankmeter.pipeline import evaluate_ranked

        paths = workloads.w1()
        ranked, _ = align(read_qrels(paths[0]), read_run(paths[1]))
        times = {}
        for m in ("ndcg@10", "ndcg@[1,3,5,10,20,100,1000]"):
            samples = []
            for _ in range(repeats):
                t = time.perf_counter()
                evaluate_ranked(ranked, m)
                samples.append(time.perf_counter() - t)
            times[m] = statistics.median(samples)
        print(
            f"\n## Many cutoffs in one pass (W1, kernels only)\n\nndcg@10: {times['ndcg@10']:.3f} s; "
            f"ndcg@[1,3,5,10,20,100,1000]: {times['ndcg@[1,3,5,10,20,100,1000]']:.3f} s "
            f"(ratio {times['ndcg@[1,3,5,10,20,100,1000]'] / times['ndcg@10']:.2f}, goal < 1.5)"
        )


if __name__ == "__main__":
    main()
