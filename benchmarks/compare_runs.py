"""``rankmeter compare`` against ``rankmeter evaluate`` on the same runs, whole processes in turns.

N W2-sized runs (200 queries x 1,000 documents each, :func:`many_runs.many_w2_runs`, default 30) with
ndcg@10, ndcg and map:

- ``rankmeter evaluate QRELS DIR --format json``: the qrels read once, the runs evaluated on a worker
  process per CPU;
- ``rankmeter compare QRELS DIR --format json``: the same evaluation (the same worker path), then the
  paired t-tests against the first run, Holm-corrected, with BCa intervals (the defaults);
- ``rankmeter compare ... --workers 1``: the same, the runs one after the other in the process (what
  compare did before the runs went to the workers);
- ``rankmeter compare ... --n-resamples 1000``: a tenth of the default bootstrap resamples, which shows
  the share of the confidence intervals (one bootstrap per system and measure).

Both commands run in turns (evaluate, compare, evaluate, compare, ...) so that the drift of a loaded
machine touches both alike; each round gives one paired ratio compare / evaluate of the wall time and
one of the CPU time (user + system of the process and its workers). The table gives each variant's
medians and the median ratios with distribution-free 90% intervals (:func:`guard.median_interval`).
Goal: compare <= 1.3x evaluate. Every system's means in compare's JSON must equal evaluate's (to
1e-12: the statistics take the mean of the per-query values again).

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
        "rankmeter compare QRELS DIR --n-resamples 1000": [_rankmeter(), "compare", *common, "--n-resamples", "1000"],
    }
    walls: dict[str, list[float]] = {label: [] for label in variants}
    cpus: dict[str, list[float]] = {label: [] for label in variants}
    outputs: dict[str, str] = {}
    for _ in range(args.repeats):
        for label, argv in variants.items():
            outputs[label], wall, cpu = _timed(argv)
            walls[label].append(wall)
            cpus[label].append(cpu)
    reference = "rankmeter evaluate QRELS DIR"
    evaluated = json.loads(outputs[reference])["aggregate"]
    for label in list(variants)[1:]:
        found = _compare_means(outputs[label])
        if max(abs(found[run][m] - evaluated[run][m]) for run in evaluated for m in MEASURES) > 1e-12:
            raise AssertionError(f"{label}: the means differ from rankmeter evaluate's")
    print(
        f"\n## compare against evaluate: {args.runs} W2-sized runs, whole processes in turns, {args.repeats} rounds\n"
    )
    print("| variant | wall s | / evaluate (90% CI) | CPU s | / evaluate (90% CI) | means |")
    print("|---|---:|---|---:|---|---|")
    for label in variants:
        cells = []
        for samples in (walls, cpus):
            ratios = [x / y for x, y in zip(samples[label], samples[reference], strict=True)]
            low, high = median_interval(ratios)
            cells += [
                f"{statistics.median(samples[label]):.2f}",
                f"{statistics.median(ratios):.2f}x ({low:.2f}-{high:.2f})",
            ]
        print(f"| {label} | {' | '.join(cells)} | {'reference' if label == reference else 'agree'} |")


if __name__ == "__main__":
    main()
