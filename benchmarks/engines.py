"""The parsing and joining engine, chosen by measurement: pyarrow, polars and DuckDB on W1's files.

Usage::

    pip install -e ".[bench]"
    python benchmarks/engines.py        # or: python benchmarks/run.py --only ENGINES

Each engine runs in fresh processes (medians of ``--repeats``) and does the
work rankmeter needs before any measure: import itself, parse the run's
query, document and score columns into columnar memory (Arrow buffers, which
rankmeter's NumPy core reads without a copy), and join the run with the qrels
on (query, document), then count the run rows that repeat a (query, document)
pair. Every engine must find the same number of judged run rows and of
repeated rows (none in W1) before its times are shown. rankmeter's own join
(hash keys of the document ids, a bitmap prefilter and an exact byte
comparison, on pyarrow's columns) and its duplicate check on those keys are
timed beside the engines' own.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads  # noqa: E402
from harness import have, run_child  # noqa: E402

# Every child prints {"import", "parse", "arrow", "join", "dups"} as [wall s, CPU s], "matched" and "repeated":
# import the engine and its join, parse into the engine's memory, hand the run's columns over as Arrow buffers
# (what the NumPy core reads), join the parsed tables on (query, document), and count the run's rows that
# repeat a (query, document) pair. CPU seconds count every thread of the process.
CLOCK = """
import json, sys, time
def clock():
    return time.perf_counter(), time.process_time()
def since(start):
    return [time.perf_counter() - start[0], time.process_time() - start[1]]
"""

CHILD_PYARROW = (
    CLOCK
    + """
t = clock()
import pyarrow as pa, pyarrow.csv as pc
if sys.argv[3] == 'rankmeter':
    from rankmeter.ids.convert import as_ids
    from rankmeter.ids.duplicates import duplicate_rows
    from rankmeter.ids.hashing import document_keys, pair_halves
    from rankmeter.ids.intern import intern
    from rankmeter.ids.match import match_pairs
else:  # Acero's own module: Table.join would import pyarrow.dataset and pandas (0.16 s) to reach it
    from pyarrow._acero import (AggregateNodeOptions, Declaration, HashJoinNodeOptions,
                                TableSourceNodeOptions)
imp = since(t)
def read(path, n, keep):
    names = [f'c{i}' for i in range(n)]
    with pa.memory_map(path) as src:
        return pc.read_csv(src, read_options=pc.ReadOptions(column_names=names),
                           parse_options=pc.ParseOptions(delimiter=' ', quote_char=False),
                           convert_options=pc.ConvertOptions(include_columns=[names[i] for i in keep],
                                                             column_types={names[i]: t for i, t in keep.items()}))
# rankmeter's reader parses query ids as dictionary codes; Acero joins plain strings
query = pa.dictionary(pa.int32(), pa.string()) if sys.argv[3] == 'rankmeter' else pa.string()
qrels = read(sys.argv[1], 4, {0: query, 2: pa.string(), 3: pa.float64()})
t = clock(); run = read(sys.argv[2], 6, {0: query, 2: pa.string(), 4: pa.float64()}); parse = since(t)
t = clock()
if sys.argv[3] == 'rankmeter':  # interns the query ids, keys the documents (the duplicate check reuses the keys)
    _, (qq, rq) = intern(as_ids(qrels['c0'], coded=True), as_ids(run['c0'], coded=True))
    docs = as_ids(run['c2'])
    keys = document_keys(docs)
    halves = pair_halves(rq, keys)
    match = match_pairs(rq, docs, qq, as_ids(qrels['c2']), keys, run_halves=halves)
    matched = int((match >= 0).sum())
    join = since(t)
    t = clock(); repeated = len(duplicate_rows(rq, docs, keys, halves)); dups = since(t)
else:
    sources = [Declaration('table_source', TableSourceNodeOptions(table)) for table in (run, qrels)]
    options = HashJoinNodeOptions('inner', left_keys=['c0', 'c2'], right_keys=['c0', 'c2'])
    matched = Declaration('hashjoin', options, inputs=sources).to_table(use_threads=True).num_rows
    join = since(t)
    t = clock()  # one group per distinct (query, document): fewer groups than rows means a repeat
    count = AggregateNodeOptions([([], 'hash_count_all', None, 'n')], keys=['c0', 'c2'])
    source = Declaration('table_source', TableSourceNodeOptions(run))
    repeated = run.num_rows - Declaration('aggregate', count, inputs=[source]).to_table(use_threads=True).num_rows
    dups = since(t)
print(json.dumps({'import': imp, 'parse': parse, 'arrow': [0.0, 0.0], 'join': join, 'dups': dups,
                  'matched': matched, 'repeated': repeated}))
"""
)

CHILD_POLARS = (
    CLOCK
    + """
t = clock(); import polars as pl; imp = since(t)
def read(path, value):
    cols = ['column_0', 'column_2', f'column_{value}']
    frame = pl.read_csv(path, separator=' ', has_header=False, quote_char=None, columns=[0, 2, value],
                        schema_overrides=dict(zip(cols, [pl.String, pl.String, pl.Float64])))
    return frame.rename(dict(zip(cols, ['q', 'd', 'v'])))
qrels = read(sys.argv[1], 3)
t = clock(); run = read(sys.argv[2], 4); parse = since(t)
t = clock(); run.to_arrow(); arrow = since(t)
t = clock(); matched = run.join(qrels, on=['q', 'd'], how='inner').height; join = since(t)
t = clock(); repeated = run.height - run.unique(subset=['q', 'd']).height; dups = since(t)
print(json.dumps({'import': imp, 'parse': parse, 'arrow': arrow, 'join': join, 'dups': dups,
                  'matched': matched, 'repeated': repeated}))
"""
)

CHILD_DUCKDB = (
    CLOCK
    + """
t = clock(); import duckdb; imp = since(t)
con = duckdb.connect()
def read(path, names, keep):
    cols = ', '.join(f"'{n}': '{'DOUBLE' if n in ('s', 'g') else 'VARCHAR'}'" for n in names)
    return (f"select {', '.join(keep)} from read_csv('{path}', delim=' ', header=false, quote='', "
            f"columns={{{cols}}})")
run_sql = read(sys.argv[2], ['q', 'q0', 'd', 'r', 's', 't'], ['q', 'd', 's'])
con.sql(f"create table qrels as {read(sys.argv[1], ['q', 'i', 'd', 'g'], ['q', 'd', 'g'])}")
t = clock(); con.sql(f"create table run as {run_sql}"); parse = since(t)
t = clock(); con.sql("select * from run").fetch_arrow_table(); arrow = since(t)
t = clock(); matched = con.sql("select count(*) from run join qrels using (q, d)").fetchall()[0][0]; join = since(t)
t = clock()
repeated = con.sql("select count(*) - count(distinct (q, d)) from run").fetchall()[0][0]
dups = since(t)
print(json.dumps({'import': imp, 'parse': parse, 'arrow': arrow, 'join': join, 'dups': dups,
                  'matched': matched, 'repeated': repeated}))
"""
)

ENGINES = (
    ("pyarrow CSV reader + rankmeter's join (the choice)", "pyarrow", CHILD_PYARROW, "rankmeter"),
    ("pyarrow CSV reader + Acero hash join (pyarrow._acero)", "pyarrow", CHILD_PYARROW, "acero"),
    ("polars read_csv + join", "polars", CHILD_POLARS, ""),
    ("DuckDB read_csv + SQL join", "duckdb", CHILD_DUCKDB, ""),
)


def engines_benchmark(repeats: int) -> None:
    """Print the engines' import, parse and join times on W1 (medians of ``repeats`` fresh processes)."""
    qrels, run = (str(p) for p in workloads.w1())
    steps = ("import", "parse", "arrow", "join", "dups")
    print(f"\n## Engines: parsing W1's run ({Path(run).stat().st_size / 1e6:.0f} MB, 7M lines) and joining its qrels\n")
    print("wall seconds (CPU seconds of all threads); medians of fresh processes\n")
    print(
        "| engine | import | parse | to Arrow | join | duplicate check | all five | peak RSS MB | judged; repeated rows |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    expected = None
    for label, module, code, mode in ENGINES:
        if not have(module):
            print(f"| {label} | – | – | – | – | – | – | – | not installed (pip install -e .[bench]) |")
            continue
        results = [run_child(code, qrels, run, mode) for _ in range(repeats)]
        med = {k: [statistics.median(r[0][k][i] for r in results) for i in (0, 1)] for k in steps}
        found = (results[0][0]["matched"], results[0][0]["repeated"])
        expected = expected or found
        note = f"{found[0]:,}; {found[1]:,}" + ("" if found == expected else f" DIFFER from {expected}")
        rss = max(r[2] for r in results)
        total = [sum(med[k][i] for k in steps) for i in (0, 1)]
        cells = " | ".join(f"{w:.3f} ({c:.2f})" for w, c in [*(med[k] for k in steps), total])
        print(f"| {label} | {cells} | {rss:.0f} | {note} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per engine (median)")
    engines_benchmark(parser.parse_args().repeats)


if __name__ == "__main__":
    main()
