"""The parsing and joining engine, chosen by measurement: pyarrow, polars and DuckDB on W1's files.

Usage::

    pip install -e ".[bench]"
    python benchmarks/engines.py        # or: python benchmarks/run.py --only ENGINES

Each engine runs in fresh processes (medians of ``--repeats``) and does the
work rankmeter needs before any measure: import itself, parse the run's
query, document and score columns into columnar memory (Arrow buffers, which
rankmeter's NumPy core reads without a copy), and join the run with the qrels
on (query, document). Every engine must find the same number of judged run
rows before its times are shown. rankmeter's own join (hash keys of the
document ids, a bitmap prefilter and an exact byte comparison, on pyarrow's
columns) is timed beside the engines' own joins.
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

# every child prints {"import", "parse", "arrow", "join", "matched"}: parse into the engine's memory, hand the
# run's columns over as Arrow buffers (what the NumPy core reads), join the parsed tables on (query, document)
CHILD_PYARROW = """
import json, sys, time
t = time.perf_counter(); import pyarrow as pa, pyarrow.csv as pc; imp = time.perf_counter() - t
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
t = time.perf_counter(); run = read(sys.argv[2], 6, {0: query, 2: pa.string(), 4: pa.float64()})
parse = time.perf_counter() - t
t = time.perf_counter()
if sys.argv[3] == 'rankmeter':  # rankmeter's join on pyarrow's columns
    from rankmeter.core.ids import intern, match_pairs
    from rankmeter.io.arrow import combined
    _, (qq, rq) = intern(combined(qrels['c0']), combined(run['c0']))
    matched = int((match_pairs(rq, combined(run['c2']), qq, combined(qrels['c2'])) >= 0).sum())
else:  # Acero's hash join
    matched = run.join(qrels, keys=['c0', 'c2'], join_type='inner').num_rows
join = time.perf_counter() - t
print(json.dumps({'import': imp, 'parse': parse, 'arrow': 0.0, 'join': join, 'matched': matched}))
"""

CHILD_POLARS = """
import json, sys, time
t = time.perf_counter(); import polars as pl; imp = time.perf_counter() - t
def read(path, value):
    cols = ['column_0', 'column_2', f'column_{value}']
    frame = pl.read_csv(path, separator=' ', has_header=False, quote_char=None, columns=[0, 2, value],
                        schema_overrides=dict(zip(cols, [pl.String, pl.String, pl.Float64])))
    return frame.rename(dict(zip(cols, ['q', 'd', 'v'])))
qrels = read(sys.argv[1], 3)
t = time.perf_counter(); run = read(sys.argv[2], 4); parse = time.perf_counter() - t
t = time.perf_counter(); run.to_arrow(); arrow = time.perf_counter() - t
t = time.perf_counter(); matched = run.join(qrels, on=['q', 'd'], how='inner').height; join = time.perf_counter() - t
print(json.dumps({'import': imp, 'parse': parse, 'arrow': arrow, 'join': join, 'matched': matched}))
"""

CHILD_DUCKDB = """
import json, sys, time
t = time.perf_counter(); import duckdb; imp = time.perf_counter() - t
con = duckdb.connect()
def read(path, names, keep):
    cols = ', '.join(f"'{n}': '{'DOUBLE' if n in ('s', 'g') else 'VARCHAR'}'" for n in names)
    return (f"select {', '.join(keep)} from read_csv('{path}', delim=' ', header=false, quote='', "
            f"columns={{{cols}}})")
run_sql = read(sys.argv[2], ['q', 'q0', 'd', 'r', 's', 't'], ['q', 'd', 's'])
con.sql(f"create table qrels as {read(sys.argv[1], ['q', 'i', 'd', 'g'], ['q', 'd', 'g'])}")
t = time.perf_counter(); con.sql(f"create table run as {run_sql}"); parse = time.perf_counter() - t
t = time.perf_counter(); con.sql("select * from run").fetch_arrow_table(); arrow = time.perf_counter() - t
t = time.perf_counter()
matched = con.sql("select count(*) from run join qrels using (q, d)").fetchall()[0][0]
join = time.perf_counter() - t
print(json.dumps({'import': imp, 'parse': parse, 'arrow': arrow, 'join': join, 'matched': matched}))
"""

ENGINES = (
    ("pyarrow CSV reader + rankmeter's join (the choice)", "pyarrow", CHILD_PYARROW, "rankmeter"),
    ("pyarrow CSV reader + Acero hash join", "pyarrow", CHILD_PYARROW, "acero"),
    ("polars read_csv + join", "polars", CHILD_POLARS, ""),
    ("DuckDB read_csv + SQL join", "duckdb", CHILD_DUCKDB, ""),
)


def engines_benchmark(repeats: int) -> None:
    """Print the engines' import, parse and join times on W1 (medians of ``repeats`` fresh processes)."""
    qrels, run = (str(p) for p in workloads.w1())
    print(f"\n## Engines: parsing W1's run ({Path(run).stat().st_size / 1e6:.0f} MB, 7M lines) and joining its qrels\n")
    print("| engine | import s | parse s | to Arrow s | join s | all four s | peak RSS MB | judged run rows |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    expected = None
    for label, module, code, mode in ENGINES:
        if not have(module):
            print(f"| {label} | – | – | – | – | – | – | not installed (pip install -e .[bench]) |")
            continue
        results = [run_child(code, qrels, run, mode) for _ in range(repeats)]
        med = {k: statistics.median(r[0][k] for r in results) for k in ("import", "parse", "arrow", "join")}
        matched = results[0][0]["matched"]
        expected = matched if expected is None else expected
        note = f"{matched:,}" + ("" if matched == expected else f" DIFFER from {expected:,}")
        rss = max(r[2] for r in results)
        times = " | ".join(f"{med[k]:.3f}" for k in ("import", "parse", "arrow", "join"))
        print(f"| {label} | {times} | {sum(med.values()):.3f} | {rss:.0f} | {note} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per engine (median)")
    engines_benchmark(parser.parse_args().repeats)


if __name__ == "__main__":
    main()
