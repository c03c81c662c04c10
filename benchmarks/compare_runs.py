"""``rankmeter compare`` against ``rankmeter evaluate`` on the same runs, whole processes in turns.

N W2-sized runs (200 queries x 1,000 documents each, :func:`many_runs.many_w2_runs`, default 30) with
ndcg@10, ndcg and map:

- ``rankmeter evaluate QRELS DIR --format json``: the qrels read once, the runs evaluated on a worker
  process per CPU;
- ``rankmeter compare QRELS DIR --format json``: the same evaluation (the same worker path), then the
  paired t-tests against the first run, Holm-corrected, with BCa intervals (the defaults);
- ``rankmeter compare ... --workers 1``: the same, the runs one after the other in the process (what
  compare did before the runs went to the workers).

Both commands run in turns (evaluate, compare, evaluate, compare, ...) so that the drift of a loaded
machine touches both alike; each round gives one paired ratio compare / evaluate of the wall time. The
table gives each variant's median and the median ratio with a distribution-free 90% interval
(:func:`guard.median_interval`). Goal: compare <= 1.3x evaluate. Every system's means in compare's
JSON must equal evaluate's (to 1e-12: the
statistics take the mean of the per-query values again).

Usage::

    python benchmarks/compare_runs.py [--runs 30] [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from guard import median_interval  # noqa: E402
from many_runs import MEASURES, _rankmeter, _timed, many_w2_runs  # noqa: E402


def _compare_means(out: str) -> dict[str, dict[str, float]]:
    """Each system's mean of each measure, from ``rankmeter compare --format json``."""
    means: dict[str, dict[str, float]] = {}
    for row in json.loads(out)["systems"]:
        means.setdefault(row["name"], {})[row["measure"]] = row["mean"]
    return means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30, help="W2-sized runs (default: 30)")
    parser.add_argument("--repeats", type=int, default=7, help="rounds of the variants (default: 7)")
    args = parser.parse_args()
    qrels, paths = many_w2_runs(args.runs)
    flags = [a for m in MEASURES for a in ("-m", m)]
    common = [str(qrels), str(paths[0].parent), *flags, "--format", "json"]
    variants = {
        "rankmeter evaluate QRELS DIR": [_rankmeter(), "evaluate", *common],
        "rankmeter compare QRELS DIR": [_rankmeter(), "compare", *common],
        "rankmeter compare QRELS DIR --workers 1": [_rankmeter(), "compare", *common, "--workers", "1"],
    }
    walls: dict[str, list[float]] = {label: [] for label in variants}
    outputs: dict[str, str] = {}
    for _ in range(args.repeats):
        for label, argv in variants.items():
            outputs[label], wall, _ = _timed(argv)
            walls[label].append(wall)
    evaluated = json.loads(outputs["rankmeter evaluate QRELS DIR"])["aggregate"]
    for label in list(variants)[1:]:
        found = _compare_means(outputs[label])
        if max(abs(found[run][m] - evaluated[run][m]) for run in evaluated for m in MEASURES) > 1e-12:
            raise AssertionError(f"{label}: the means differ from rankmeter evaluate's")
    base = walls["rankmeter evaluate QRELS DIR"]
    print(
        f"\n## compare against evaluate: {args.runs} W2-sized runs, whole processes in turns, {args.repeats} rounds\n"
    )
    print("| variant | median wall s | / evaluate, median of pairs | 90% interval | means |")
    print("|---|---:|---:|---|---|")
    for label, wall in walls.items():
        ratios = [w / b for w, b in zip(wall, base, strict=True)]
        low, high = median_interval(ratios)
        note = "reference" if wall is base else "agree"
        print(
            f"| {label} | {statistics.median(wall):.2f} | {statistics.median(ratios):.2f}x | {low:.2f}-{high:.2f} | {note} |"
        )


if __name__ == "__main__":
    main()
