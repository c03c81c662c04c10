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

    python benchmarks/small_job.py [--repeats 21] [--base main]

``--base REV`` times that revision's rankmeter too (its ``src/`` exported to a temporary folder), in the
same turns, each row's ratio to the same peer runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads  # noqa: E402
from ab import export_sources  # noqa: E402
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


Command = tuple[list[str], dict[str, str] | None]
"""A child process: its argv and the variables added to this process's environment (None: none)."""


def in_turns(label: str, commands: dict[str, Command], peer: Command, repeats: int) -> list[list[str]]:
    """Run each of ``commands`` and ``peer`` in turns, ``repeats`` rounds; a table row per command (its name
    after ``label``): its and the peer's medians and the paired ratios to the peer, wall and CPU."""
    runs = [*commands.values(), peer]
    wall: list[list[float]] = [[] for _ in runs]
    cpu: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for i, (argv, env) in enumerate(runs):
            _, seconds, _, used = run_command_cpu(argv, env)
            wall[i].append(seconds)
            cpu[i].append(used)
    rows = []
    for i, name in enumerate(commands):
        row = [f"{label}{name}"]
        for samples in (wall, cpu):
            ratios = [x / y for x, y in zip(samples[i], samples[-1], strict=True)]
            low, high = median_interval(ratios)
            row += [f"{statistics.median(samples[i]):.3f}", f"{statistics.median(samples[-1]):.3f}"]
            row += [f"{statistics.median(ratios):.2f}x ({low:.2f}-{high:.2f})"]
        rows.append(row)
    return rows


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


BASE_SCRIPT = "import sys; from rankmeter.cli import main as m; sys.exit(getattr(m, 'script', m.main)())"
"""The console script of a revision, whichever of ``script`` (the process ends) or ``main`` it has."""


def small_job_rows(repeats: int, base: dict[str, str] | None, base_name: str | None) -> tuple[list[list[str]], bool]:
    """The table's rows (the base revision's beside this tree's when ``base`` holds its environment), and
    whether trec_eval was found."""
    byte_compile()
    check_dict()
    mine: Command = ([sys.executable, "-c", TINY_DICT_RANKMETER], None)
    dicts = {"": mine} | ({f" ({base_name})": (mine[0], base)} if base else {})
    rows = in_turns(
        "W4 dict (2 queries): rankmeter / pytrec_eval", dicts, ([sys.executable, "-c", TINY_DICT_PYTREC], None), repeats
    )
    rows += in_turns(
        "W4 dict, OPENBLAS_NUM_THREADS=1 for both",
        {"": (mine[0], ONE_BLAS_THREAD)},
        ([sys.executable, "-c", TINY_DICT_PYTREC], ONE_BLAS_THREAD),
        repeats,
    )
    binary = trec_eval_binary()
    if binary:
        qrels, run = (str(p) for p in workloads.w2())
        cli = [rankmeter_script(), "evaluate", qrels, run, *(a for m in MEASURES for a in ("-m", m))]
        te = [binary, *TREC_ARGS, qrels, run]
        check_cli(cli, te)
        # The revision's own console script: the installed one names this tree's entry point.
        base_cli = [sys.executable, "-c", BASE_SCRIPT, *cli[1:]]
        clis = {"": (cli, None)} | ({f" ({base_name})": (base_cli, base)} if base else {})
        rows += in_turns("W2 files: rankmeter evaluate (CLI) / trec_eval -c (-O2)", clis, (te, None), repeats)
    return rows, binary is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=21, help="paired rounds per pair (default: 21)")
    parser.add_argument("--base", default=None, help="also time this git revision's rankmeter in the same turns")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = {"PYTHONPATH": str(export_sources(args.base, Path(tmp) / "base"))} if args.base else None
        rows, binary = small_job_rows(args.repeats, base, args.base)
    print(f"\n## The small job, whole processes in turns, {args.repeats} rounds\n")
    print("| pair (A / B) | A wall s | B wall s | wall ratio (90% CI) | A CPU s | B CPU s | CPU ratio (90% CI) |")
    print("|---|---:|---:|---|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\n{own_cost(args.repeats)}")
    if not binary:
        print("\ntrec_eval not found (TREC_EVAL, PATH, /tmp/trec_eval_build/trec_eval): its pair is left out")


if __name__ == "__main__":
    main()
