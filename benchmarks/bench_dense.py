"""W3 in one process: rankmeter's dense full-list measures against scikit-learn and one row sort, alternating.

W3 is ``workloads.w3()``: 20,000 x 2,000 float32 scores, graded 0-5 labels
(~2% non-zero). Every round runs each contender once, one after the other
(rankmeter, scikit-learn, the floor), so a busy machine slows them alike;
the table gives medians of wall and CPU seconds (user + system of the whole
process) and the ratios. Contenders:

* ``rankmeter.evaluate_arrays(y, s, [measure], ties="expected")`` (on all the
  machine's cores, blocks of rows on threads);
* scikit-learn: ``ndcg_score(y, s, k=10)`` for ndcg@10, ``ndcg_score(y, s)``
  for ndcg, ``label_ranking_average_precision_score(y > 0, s)`` for map (see
  the agreement lines: LRAP counts every item tied with a relevant one as
  ranked above it and gives 1 to rows without a relevant item);
* the floor: ``np.sort(s, axis=1)`` (one thread), and the same sort split
  over the cores in threads;
* the same rankmeter call with items removed from every row, side by side
  with the call without: ``mask=`` (a dense boolean matrix) and
  ``exclude=`` (a ``scipy.sparse`` CSR matrix), both removing the same ~20
  random items per row (the training interactions of a recommender); the
  second table gives their time over the unmasked call's, round by round.

Run::

    nice python benchmarks/bench_dense.py                 # W3, 3 rounds
    nice python benchmarks/bench_dense.py --users 4000 --rounds 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads  # noqa: E402

import rankmeter  # noqa: E402


def timed(fn: Callable[[], object]) -> tuple[float, float, object]:
    """Wall seconds, CPU seconds (all threads) and the result of ``fn()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def sort_threads(s: np.ndarray, threads: int) -> None:
    """``np.sort`` of every row, the rows split in ``threads`` slices sorted on threads (NumPy drops the GIL)."""
    bounds = np.linspace(0, len(s), threads + 1).astype(int)
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda i: np.sort(s[bounds[i] : bounds[i + 1]], axis=1), range(threads)))


def agreement(y: np.ndarray, s: np.ndarray) -> str:
    """Where rankmeter's map and scikit-learn's LRAP agree, row by row, and why the other rows differ."""
    from sklearn.metrics import label_ranking_average_precision_score

    exp = rankmeter.evaluate_arrays(y, s, ["map"], ties="expected", empty="nan").values[:, 0]
    pes = rankmeter.evaluate_arrays(y, s, ["map"], ties="pessimistic", empty="nan").values[:, 0]
    lrap = np.array([label_ranking_average_precision_score(y[i : i + 1] > 0, s[i : i + 1]) for i in range(len(y))])
    empty = ~(y > 0).any(axis=1)
    same = np.isclose(exp, lrap, rtol=0, atol=1e-12) & ~empty
    same_pes = np.isclose(pes, lrap, rtol=0, atol=1e-12) & ~empty
    return (
        f"map vs LRAP, row by row ({len(y)} rows): equal (1e-12) on {int(same.sum())}; "
        f"rows without a relevant item (LRAP 1, map nan/0): {int(empty.sum())}; "
        f"other rows differing: {int((~same & ~empty).sum())}, all of them equal to map(ties=pessimistic): "
        f"{bool(same_pes[~same & ~empty].all())}; mean difference {float(np.nanmean(exp) - lrap[~empty].mean()):.2e}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=20_000, help="rows of W3 (default 20,000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; each runs every contender once")
    parser.add_argument("--measures", default="ndcg@10,ndcg,map", help="comma-separated: ndcg@10, ndcg, map")
    parser.add_argument("--no-sklearn", action="store_true", help="rankmeter and the floor only")
    parser.add_argument("--agreement", action="store_true", help="compare map with LRAP row by row (slow)")
    parser.add_argument("--no-exclude", action="store_true", help="leave out the mask= and exclude= rows")
    parser.add_argument("--seen", type=int, default=20, help="items removed per row by mask= / exclude=")
    args = parser.parse_args()
    y, s = workloads.w3(args.users)
    seen = seen_items(y.shape, args.seen)
    keep = np.ones(y.shape, dtype=bool)
    keep[seen.nonzero()] = False
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    measures = args.measures.split(",")
    peers: dict[str, Callable[[], float]] = {}
    if not args.no_sklearn:
        from sklearn.metrics import label_ranking_average_precision_score, ndcg_score

        peers = {
            "ndcg@10": lambda: float(ndcg_score(y, s, k=10)),
            "ndcg": lambda: float(ndcg_score(y, s)),
            "map": lambda: float(label_ranking_average_precision_score(y > 0, s)),
        }
    rows: dict[str, list[tuple[float, float]]] = {}
    values: dict[str, float] = {}
    load = [os.getloadavg()[0]]

    def record(label: str, fn: Callable[[], object]) -> object:
        wall, cpu, out = timed(fn)
        rows.setdefault(label, []).append((wall, cpu))
        return out

    rankmeter.evaluate_arrays(y[:100], s[:100], measures, ties="expected")  # imports and caches
    ratios: dict[str, list[tuple[float, float]]] = {}
    for _ in range(args.rounds):
        for m in measures:
            res = record(f"rankmeter {m}", lambda m=m: rankmeter.evaluate_arrays(y, s, [m], ties="expected"))
            values[f"rankmeter {m}"] = res.aggregate[m]  # type: ignore[attr-defined]
            if not args.no_exclude:
                plain = rows[f"rankmeter {m}"][-1]
                for label, kwargs in ((f"{m}, mask", {"mask": keep}), (f"{m}, exclude (sparse)", {"exclude": seen})):
                    res = record(
                        f"rankmeter {label}", lambda m=m, kw=kwargs: rankmeter.evaluate_arrays(y, s, [m], **kw)
                    )
                    values[f"rankmeter {label}"] = res.aggregate[m]  # type: ignore[attr-defined]
                    wall, cpu = rows[f"rankmeter {label}"][-1]
                    ratios.setdefault(label, []).append((wall / plain[0], cpu / plain[1]))
            if m in peers:
                values[f"scikit-learn {m}"] = record(f"scikit-learn {m}", peers[m])  # type: ignore[assignment]
        record("floor: np.sort of every row (one thread)", lambda: np.sort(s, axis=1))
        record(f"floor: np.sort of every row ({cpus} threads)", lambda: sort_threads(s, cpus))
        load.append(os.getloadavg()[0])
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in rows.items()}
    sort1 = med["floor: np.sort of every row (one thread)"]
    print(f"# W3: {args.users:,} x {s.shape[1]:,} dense, ties='expected' ({args.rounds} rounds, medians)\n")
    print(f"{cpus} CPUs; load average (1 min) during the run: {min(load):.1f}-{max(load):.1f}\n")
    print("| contender | wall s | CPU s | scikit-learn / rankmeter (wall, CPU) | wall / one-thread sort |")
    print("|---|---:|---:|---|---:|")
    for label, (wall, cpu) in med.items():
        ratio = ""
        if label.startswith("rankmeter ") and f"scikit-learn {label[10:]}" in med:
            pw, pc = med[f"scikit-learn {label[10:]}"]
            ratio = f"{pw / wall:.1f}x, {pc / cpu:.1f}x"
        print(f"| {label} | {wall:.3f} | {cpu:.3f} | {ratio} | {wall / sort1[0]:.2f} |")
    print()
    for m in measures:
        if f"scikit-learn {m}" in values:
            a, b = values[f"rankmeter {m}"], values[f"scikit-learn {m}"]
            print(f"{m}: rankmeter {a:.15f}, scikit-learn {b:.15f}, difference {a - b:.1e}")
    if ratios:
        print(f"\n## Items removed ({args.seen} per row, the same items for mask= and exclude=)\n")
        print("| call | wall s | CPU s | wall / unmasked call, round by round | median ratio: wall, CPU | value |")
        print("|---|---:|---:|---|---|---:|")
        for label, rs in ratios.items():
            wall, cpu = med[f"rankmeter {label}"]
            each = ", ".join(f"{r:.2f}" for r, _ in rs)
            mid = f"{statistics.median(r for r, _ in rs):.2f}x, {statistics.median(c for _, c in rs):.2f}x"
            print(f"| {label} | {wall:.3f} | {cpu:.3f} | {each} | {mid} | {values[f'rankmeter {label}']:.6f} |")
        same = all(values[f"rankmeter {m}, mask"] == values[f"rankmeter {m}, exclude (sparse)"] for m in measures)
        print(f"\nmask= and exclude= give the same values: {same}")
    if args.agreement and not args.no_sklearn:
        print(agreement(y, s))


def seen_items(shape: tuple[int, int], per_row: int, seed: int = 5) -> Any:
    """A CSR matrix of ``per_row`` random items of each row (drawn with replacement: a few rows have fewer)."""
    import scipy.sparse

    n, m = shape
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, m, (n, per_row)).reshape(-1)
    rows = np.repeat(np.arange(n), per_row)
    return scipy.sparse.csr_array((np.ones(len(cols), dtype=bool), (rows, cols)), shape=shape)


if __name__ == "__main__":
    main()
