"""Many runs and the command line's start-up, whole processes side by side.

MANY: 100 W2-sized runs (200 queries x 1,000 documents, each run scored with its own seed) against W2's
qrels, with ndcg@10, ndcg and map:

- one ``rankmeter evaluate QRELS DIR`` process (qrels read once, runs evaluated on a thread per CPU);
- a shell-style loop of one ``rankmeter evaluate QRELS RUN`` process per run;
- a loop of NIST ``trec_eval -c`` processes per run (when ``trec_eval`` is on PATH).

Every per-run value of the one process must equal the loop's (exactly for rankmeter, to trec_eval's four
printed decimals for trec_eval).

CLI: ``rankmeter evaluate`` on W2 against a bare API script and trec_eval (benchmarks/cli_startup.py).

Usage::

    python benchmarks/many_runs.py [--runs 100] [--repeats 7]    # or: python benchmarks/run.py --only MANY,CLI
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads  # noqa: E402
from harness import print_table, run_command  # noqa: E402

MEASURES = ["ndcg@10", "ndcg", "map"]
TREC_NAMES = {"ndcg@10": "ndcg_cut_10", "ndcg": "ndcg", "map": "map"}
TREC_ARGS = ["-c", "-m", "ndcg_cut.10", "-m", "ndcg", "-m", "map"]


def many_w2_runs(n_runs: int) -> tuple[Path, list[Path]]:
    """W2's qrels and ``n_runs`` runs over W2's documents, run k scored with seed k (written once)."""
    qrels, base = workloads.w2()
    folder = workloads.DATA / f"w2_runs_{n_runs}"
    paths = [folder / f"run{k:03d}.txt" for k in range(n_runs)]
    if all(p.exists() for p in paths):
        return qrels, paths
    folder.mkdir(parents=True, exist_ok=True)
    fields = np.loadtxt(base, dtype=str, usecols=(0, 2))
    qids, docs = fields[:, 0], fields[:, 1]
    n_queries = len(np.unique(qids))
    depth = len(qids) // n_queries
    ranks = np.tile(np.arange(1, depth + 1), n_queries).astype(str)
    for k, path in enumerate(paths):
        rng = np.random.default_rng(1000 + k)
        scores = np.round(rng.gamma(2.0, 2.0, size=(n_queries, depth)), 3)
        order = np.argsort(-scores, axis=1, kind="stable")  # each list written best first, as systems do
        rows = (order + (np.arange(n_queries) * depth)[:, None]).reshape(-1)
        text = np.char.add(np.char.add(qids[rows], " Q0 "), docs[rows])
        text = np.char.add(np.char.add(text, " "), ranks)
        text = np.char.add(np.char.add(text, " "), np.take_along_axis(scores, order, axis=1).reshape(-1).astype(str))
        path.write_text("\n".join(np.char.add(text, f" run{k:03d}").tolist()) + "\n")
    return qrels, paths


def _rankmeter() -> str:
    return shutil.which("rankmeter") or str(Path(sys.executable).with_name("rankmeter"))


def _trec_values(out: str) -> dict[str, float]:
    printed = {f[0]: float(f[2]) for f in (line.split() for line in out.splitlines()) if len(f) == 3 and f[1] == "all"}
    return {ours: printed[theirs] for ours, theirs in TREC_NAMES.items()}


def _differ(reference: dict[str, dict[str, float]], other: dict[str, dict[str, float]], tol: float) -> str:
    worst = max(abs(reference[run][m] - other[run][m]) for run in other for m in other[run])
    return "agree" if worst <= tol else f"DIFFER by {worst:.2e}"


def many_benchmark(n_runs: int, repeats: int) -> None:
    qrels, paths = many_w2_runs(n_runs)
    flags = [a for m in MEASURES for a in ("-m", m)]
    one_process = [_rankmeter(), "evaluate", str(qrels), str(paths[0].parent), *flags, "--format", "json"]
    walls: dict[str, list[float]] = {"one": [], "loop": [], "trec": []}
    values: dict[str, dict[str, dict[str, float]]] = {}
    trec_eval = shutil.which("trec_eval")
    for _ in range(repeats):  # the three variants in turns, so the machine's drift touches each alike
        out, wall, rss_one = run_command(one_process)
        walls["one"].append(wall)
        values["one"] = json.loads(out)["aggregate"]
        start, loop = time.perf_counter(), {}
        for path in paths:
            out, _, _ = run_command([_rankmeter(), "evaluate", str(qrels), str(path), *flags, "--format", "json"])
            loop[path.stem] = json.loads(out)["aggregate"]
        walls["loop"].append(time.perf_counter() - start)
        values["loop"] = loop
        if trec_eval:
            start, loop = time.perf_counter(), {}
            for path in paths:
                out, _, _ = run_command([trec_eval, *TREC_ARGS, str(qrels), str(path)])
                loop[path.stem] = _trec_values(out)
            walls["trec"].append(time.perf_counter() - start)
            values["trec"] = loop
    rows = [
        (
            f"rankmeter evaluate QRELS DIR (one process, {n_runs} runs)",
            statistics.median(walls["one"]),
            rss_one,
            "reference",
        ),
        (
            f"loop of {n_runs} `rankmeter evaluate QRELS RUN`",
            statistics.median(walls["loop"]),
            0.0,
            _differ(values["one"], values["loop"], 0.0),
        ),
    ]
    if trec_eval:
        rows.append(
            (
                f"loop of {n_runs} `trec_eval -c` (C)",
                statistics.median(walls["trec"]),
                0.0,
                _differ(values["one"], values["trec"], 5e-5),
            )
        )
    else:
        rows.append((f"loop of {n_runs} trec_eval", None, None, "trec_eval not on PATH"))
    print_table(f"MANY: {n_runs} W2-sized runs ({', '.join(MEASURES)}; whole processes, medians of {repeats})", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100, help="runs in MANY (default: 100)")
    parser.add_argument("--repeats", type=int, default=5, help="rounds of each variant (default: 5)")
    parser.add_argument("--only", default="MANY,CLI", help="MANY, CLI or both")
    args = parser.parse_args()
    only = set(args.only.upper().split(","))
    if "MANY" in only:
        many_benchmark(args.runs, max(1, args.repeats // 2))
    if "CLI" in only:
        from cli_startup import cli_benchmark

        cli_benchmark(args.repeats)


if __name__ == "__main__":
    main()
