"""ERR's cost next to nDCG's on W1 (MS MARCO-like: 6,980 queries x 1,000 documents = 6.98M run rows).

Usage::

    python benchmarks/bench_err.py [--repeats 5] [--graded]

W1 is the synthetic workload of ``workloads.py`` (generated once under ``benchmarks/data``; no download).
Its qrels are binary; ``--graded`` uses the same shape with grades 0..3 (``w1g``). One process reads the
files once, then times, with the median of ``--repeats`` runs:

* the kernels alone on the aligned lists (``Context`` fresh each time): ``ndcg@[10,20]``, ``err@[10,20]``
  and ``nerr@[10,20]``, on the lists ``evaluate`` uses for each tie policy (the sparse judged-item lists
  under ``trec``, the complete lists under ``expected``);
* ``rankmeter.evaluate`` end to end with ``ndcg@[10,20]`` alone and with ``err@[10,20]`` added in the
  same call (parsing excluded: the inputs are already read), so the extra cost of ERR is visible.

The ratio printed is err / ndcg (target: at most 1.5 in the same call).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads  # noqa: E402


def median_seconds(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--graded", action="store_true", help="grades 0..3 instead of W1's binary qrels")
    args = parser.parse_args()

    import rankmeter
    from rankmeter.core.join import align
    from rankmeter.io.load import as_qrels, as_run
    from rankmeter.measures import FAMILIES, parse
    from rankmeter.measures.kernels.context import Context
    from rankmeter.pipeline import judged_items_suffice

    if args.graded:
        paths = workloads.trec_workload("w1g", 6980, 1000, graded=True, judged_per_query=4, seed=1)
    else:
        paths = workloads.w1()
    start = time.perf_counter()
    qrels, run = as_qrels(str(paths[0])), as_run(str(paths[1]))
    print(f"W1{' graded' if args.graded else ''}: {len(run)} run rows read in {time.perf_counter() - start:.1f} s")
    measures = {name: parse(name) for name in ("ndcg@[10,20]", "err@[10,20]", "nerr@[10,20]")}

    rows = []
    for ties in ("trec", "expected"):
        sparse = judged_items_suffice(ties, list(measures.values()))
        ranked, _ = align(qrels, run, ties=ties, judged_items=sparse)
        kernel = {
            name: median_seconds(lambda m=m, r=ranked: FAMILIES[m.family].kernel(Context(r), m), args.repeats)
            for name, m in measures.items()
        }
        both = median_seconds(
            lambda t=ties: rankmeter.evaluate(qrels, run, ["ndcg@[10,20]", "err@[10,20]"], ties=t), args.repeats
        )
        alone = median_seconds(lambda t=ties: rankmeter.evaluate(qrels, run, ["ndcg@[10,20]"], ties=t), args.repeats)
        rows.append((ties, len(ranked.grades), kernel, alone, both))

    print("\nmedian seconds (this machine is shared and busy: compare the ratios, not the absolute times)")
    print(f"{'ties':<9} {'items':>9} {'ndcg':>8} {'err':>8} {'nerr':>8} {'err/ndcg':>9}   evaluate: ndcg, ndcg+err")
    for ties, items, kernel, alone, both in rows:
        ndcg, err, nerr = kernel["ndcg@[10,20]"], kernel["err@[10,20]"], kernel["nerr@[10,20]"]
        print(
            f"{ties:<9} {items:>9} {ndcg:>8.3f} {err:>8.3f} {nerr:>8.3f} {err / ndcg:>9.2f}   "
            f"{alone:.3f}, {both:.3f} (+{(both - alone) / alone:.0%})"
        )


if __name__ == "__main__":
    main()
