"""Benchmark: size and render time of the HTML report for 20 systems x 5 measures x 1,000 queries.

Targets: the file weighs under 5 MB and renders in headless Chromium in under
2 s. Per-query values are synthetic (deterministic, no downloads): each
system is a noisy copy of a query difficulty, clipped to [0, 1], with full
17-digit floats (the worst case for the JSON's size) and a share of exact ties
at 0 and 1, as real measures have.

Printed: time to compute the comparison (not part of the goal), time to render
the page in Python, the file's size and the share of it taken by Vega, and in
Chromium the time from navigation to the report's "ready" mark (tables, the
means plot and both per-query plots drawn), the median of ``--repeats`` fresh
page loads, then the time to redraw after choosing another system.

Needs the report and test extras and Debian's chromium (``.ci/run`` installs them).
Usage: ``python benchmarks/bench_report.py [--queries 1000] [--systems 20] [--repeats 5]``.
The machine is shared: the render time varies with the load.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.report.browser import browser, open_report  # noqa: E402

import rankmeter  # noqa: E402
from rankmeter.report.page import render_html  # noqa: E402

MEASURES = ["ndcg@10", "ndcg", "map", "p@10", "r@100"]
SIZE_GOAL = 5_000_000
RENDER_GOAL_MS = 2_000.0


def per_query(n_systems: int, n_queries: int, seed: int = 0) -> dict:
    """``{system: (query_ids, measures, values)}`` of synthetic, correlated per-query values."""
    rng = np.random.default_rng(seed)
    queries = [f"q{i:05d}" for i in range(n_queries)]
    difficulty = rng.beta(2.0, 3.0, size=(n_queries, 1))
    out = {}
    for s in range(n_systems):
        noise = rng.normal(0.01 * s, 0.12, size=(n_queries, len(MEASURES)))
        values = np.clip(difficulty + noise, 0.0, 1.0)
        out[f"system-{s:02d}"] = (queries, MEASURES, values)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n-resamples", type=int, default=1000)
    parser.add_argument("--keep", metavar="HTML", help="also write the report here")
    args = parser.parse_args()

    t0 = time.perf_counter()
    cmp = rankmeter.compare_per_query(per_query(args.systems, args.queries), n_resamples=args.n_resamples)
    t1 = time.perf_counter()
    page = render_html(cmp, title="benchmark report", command="python benchmarks/bench_report.py")
    t2 = time.perf_counter()
    size = len(page.encode("utf-8"))
    import vl_convert

    vega = len(vl_convert.javascript_bundle().encode("utf-8"))
    print(f"{args.systems} systems x {len(MEASURES)} measures x {args.queries} queries")
    print(f"compare_per_query ({args.n_resamples} resamples): {t1 - t0:.2f} s; render_html: {t2 - t1:.2f} s")
    print(f"size: {size / 1e6:.2f} MB (goal < {SIZE_GOAL / 1e6:.0f} MB), of which Vega {vega / 1e6:.2f} MB")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.keep) if args.keep else Path(tmp) / "report.html"
        path.write_text(page, encoding="utf-8")
        times, switches = [], []
        with browser() as context:
            for _ in range(args.repeats):
                loaded = open_report(context, path)
                problems = loaded.problems()
                if problems:
                    print("problems:", problems)
                    return 1
                times.append(float(loaded.page.evaluate("window.rankmeterRenderMs")))
                rows = loaded.page.locator("#per-query-table tbody tr").count()
                start = time.perf_counter()
                loaded.page.select_option("#plot-system", f"system-{args.systems - 1:02d}")
                loaded.page.wait_for_function(
                    "(s) => document.documentElement.dataset.plotted === s",
                    arg=f"system-{args.systems - 1:02d} on {MEASURES[0]}",
                )
                switches.append(1000 * (time.perf_counter() - start))
                loaded.page.close()
    render = statistics.median(times)
    print(f"per-query table rows: {rows}")
    print(
        f"render (navigation -> ready), median of {args.repeats}: {render:.0f} ms (goal < {RENDER_GOAL_MS:.0f} ms); "
        f"all: {', '.join(f'{t:.0f}' for t in times)}"
    )
    print(f"switch system (table + 2 plots redrawn), median: {statistics.median(switches):.0f} ms")
    ok = size < SIZE_GOAL and render < RENDER_GOAL_MS
    print("goals met" if ok else "GOALS NOT MET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
