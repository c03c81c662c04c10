"""The small job, whole processes: a two-query dict against pytrec_eval, W2's files through the CLI against trec_eval.

Two pairs, each run as fresh processes in turns (A, B, A, B, ...), so that a drift of a loaded machine
touches both alike; each round gives one paired ratio A / B of the wall time and one of the CPU time
(user + system, which a machine busy with other work disturbs less), and the table gives the median
ratios with distribution-free 90% intervals (the sign-test order statistics of
:func:`guard.median_interval`):

- **dict**: ``python -c`` evaluating W4 (two queries of ten documents, ndcg@10, ndcg, map) from dicts
  with ``rankmeter.evaluate`` against ``pytrec_eval.RelevanceEvaluator`` (goal: <= 1.1x);
- **W2 CLI**: ``rankmeter evaluate`` on W2's TREC files (200 queries x 1,000 documents) against NIST
  ``trec_eval -c`` built with ``-O2`` (goal: <= 1.3x). The binary is ``$TREC_EVAL``, ``trec_eval`` on
  PATH, or ``/tmp/trec_eval_build/trec_eval``; build it from trec_eval's sources with
  ``make CFLAGS='-O2 -I. -DVERSIONID=\\"10.0\\"'``. Without one, that pair is left out.

A third row runs the dict pair with ``OPENBLAS_NUM_THREADS=1``: NumPy's OpenBLAS starts a thread per
core when it loads, which busy-waits on the other core while the process then works, so with the default
both processes burn CPU beyond their wall time in proportion to their work after ``import numpy``
(neither starts a thread of its own); with one BLAS thread, CPU time is wall time. The line under the
table gives what rankmeter itself adds in the dict child: its modules and the milliseconds from after
``import numpy, json`` to the means (the best of the rounds).

Values are checked first: the dict child's means against pytrec_eval's (1e-12), the CLI's against
trec_eval's printed four decimals.

Usage::

    python benchmarks/small_job.py [--repeats 21]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads  # noqa: E402
from cli_startup import MEASURES, TREC_ARGS, _trec_values, byte_compile, rankmeter_script, trec_eval_binary  # noqa: E402
from guard import median_interval  # noqa: E402
from harness import TINY_DICT_PYTREC, TINY_DICT_RANKMETER, run_command_cpu  # noqa: E402

ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1"}

OWN_COST = """
import json, sys, time
import numpy
start = time.perf_counter()
import rankmeter
qrels = {"q1": {f"d{i}": i % 3 for i in range(10)}, "q2": {f"d{i}": (i + 1) % 2 for i in range(10)}}
run = {q: {f"d{i}": float(10 - i) for i in range(10)} for q in ("q1", "q2")}
rankmeter.evaluate(qrels, run, ["ndcg@10", "ndcg", "map"])
ms = 1000 * (time.perf_counter() - start)
print(json.dumps([ms, sum(name.split(".")[0] == "rankmeter" for name in sys.modules)]))
"""
"""The dict job's own cost: rankmeter's imports and first call after NumPy, and how many modules it loads."""


def own_cost(repeats: int) -> str:
    """The line on rankmeter's own share of the dict child: modules loaded, best import-and-call milliseconds."""
    best, modules = min(json.loads(run_command_cpu([sys.executable, "-c", OWN_COST])[0]) for _ in range(repeats))
    return f"rankmeter in the dict child: {modules} modules, {best:.1f} ms from after `import numpy` to the means"


def paired(label: str, a: list[str], b: list[str], repeats: int, env: dict[str, str] | None = None) -> list[str]:
    """Run ``a`` and ``b`` in turns ``repeats`` times (``env``: variables added for both); the table row: medians
    and paired ratios, wall and CPU."""
    wall: dict[str, list[float]] = {"a": [], "b": []}
    cpu: dict[str, list[float]] = {"a": [], "b": []}
    for _ in range(repeats):
        for key, argv in (("a", a), ("b", b)):
            _, seconds, _, used = run_command_cpu(argv, env)
            wall[key].append(seconds)
            cpu[key].append(used)
    row = [label]
    for samples in (wall, cpu):
        ratios = [x / y for x, y in zip(samples["a"], samples["b"], strict=True)]
        low, high = median_interval(ratios)
        row += [f"{statistics.median(samples['a']):.3f}", f"{statistics.median(samples['b']):.3f}"]
        row += [f"{statistics.median(ratios):.2f}x ({low:.2f}-{high:.2f})"]
    return row


def check_dict() -> None:
    """The rankmeter child's means equal pytrec_eval's (1e-12)."""
    ours = json.loads(run_command_cpu([sys.executable, "-c", TINY_DICT_RANKMETER])[0])
    theirs = json.loads(run_command_cpu([sys.executable, "-c", TINY_DICT_PYTREC])[0])
    if any(abs(ours[m] - theirs[m]) > 1e-12 for m in MEASURES):
        raise AssertionError(f"pytrec_eval's values {theirs} differ from rankmeter's {ours}")


def check_cli(cli: list[str], trec_eval: list[str]) -> None:
    """The CLI's means (JSON) equal trec_eval's printed four decimals."""
    ours = json.loads(run_command_cpu([*cli, "--format", "json"])[0])["aggregate"]
    theirs = _trec_values(run_command_cpu(trec_eval)[0])
    if any(abs(ours[m] - theirs[m]) > 5e-5 for m in MEASURES):
        raise AssertionError(f"trec_eval's values {theirs} differ from rankmeter's {ours}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=21, help="paired rounds per pair (default: 21)")
    repeats = parser.parse_args().repeats
    byte_compile()
    check_dict()
    rows = [
        paired(
            "W4 dict (2 queries): rankmeter / pytrec_eval",
            [sys.executable, "-c", TINY_DICT_RANKMETER],
            [sys.executable, "-c", TINY_DICT_PYTREC],
            repeats,
        ),
        paired(
            "W4 dict, OPENBLAS_NUM_THREADS=1 for both",
            [sys.executable, "-c", TINY_DICT_RANKMETER],
            [sys.executable, "-c", TINY_DICT_PYTREC],
            repeats,
            ONE_BLAS_THREAD,
        ),
    ]
    binary = trec_eval_binary()
    if binary:
        qrels, run = (str(p) for p in workloads.w2())
        cli = [rankmeter_script(), "evaluate", qrels, run, *(a for m in MEASURES for a in ("-m", m))]
        te = [binary, *TREC_ARGS, qrels, run]
        check_cli(cli, te)
        rows.append(paired("W2 files: rankmeter evaluate (CLI) / trec_eval -c (-O2)", cli, te, repeats))
    print(f"\n## The small job, whole processes in turns, {repeats} pairs\n")
    print("| pair (A / B) | A wall s | B wall s | wall ratio (90% CI) | A CPU s | B CPU s | CPU ratio (90% CI) |")
    print("|---|---:|---:|---|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\n{own_cost(repeats)}")
    if not binary:
        print("\ntrec_eval not found (TREC_EVAL, PATH, /tmp/trec_eval_build/trec_eval): its pair is left out")


if __name__ == "__main__":
    main()
