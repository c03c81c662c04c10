"""CLI: one ``rankmeter evaluate`` process on W2 against trec_eval's and against a bare API script.

W2 (200 queries x 1,000 documents, 7.3 MB run) with ndcg@10, ndcg and map, each variant a fresh
process, the variants in turns (so the machine's drift touches each alike), medians of wall and CPU
(user + sys) time and the peak RSS:

- ``rankmeter evaluate QRELS RUN -m ndcg@10 -m ndcg -m map`` (the console script, table output);
- a bare Python script calling ``rankmeter.evaluate`` and printing the three means;
- NIST ``trec_eval -c -m ndcg_cut.10 -m ndcg -m map`` (the ``TREC_EVAL`` variable, PATH or
  /tmp/trec_eval_build/trec_eval; its row is left out when there is none);
- ``python -c "import numpy"``: the floor any NumPy program starts from (for reference).

Targets: the CLI <= 1.3x trec_eval's whole process and <= 1.1x the API script. Values are
checked first: the CLI's JSON equals the API's exactly, and trec_eval's four printed decimals.

Usage::

    python benchmarks/cli_startup.py [--repeats 21]    # or: python benchmarks/run.py --only CLI
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import shutil
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads  # noqa: E402
from harness import run_command_cpu  # noqa: E402

MEASURES = ["ndcg@10", "ndcg", "map"]
TREC_NAMES = {"ndcg@10": "ndcg_cut_10", "ndcg": "ndcg", "map": "map"}
TREC_ARGS = ["-c", "-m", "ndcg_cut.10", "-m", "ndcg", "-m", "map"]
API_SCRIPT = """
import json, sys, rankmeter
res = rankmeter.evaluate(sys.argv[1], sys.argv[2], sys.argv[3].split(';'))
print(json.dumps(res.aggregate))
"""


def rankmeter_script() -> str:
    """The ``rankmeter`` console script of this environment."""
    return shutil.which("rankmeter") or str(Path(sys.executable).with_name("rankmeter"))


def trec_eval_binary() -> str | None:
    """NIST trec_eval: ``$TREC_EVAL``, on PATH, or the -O2 build in /tmp; None when there is none."""
    for candidate in (os.environ.get("TREC_EVAL"), shutil.which("trec_eval"), "/tmp/trec_eval_build/trec_eval"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _trec_values(out: str) -> dict[str, float]:
    printed = {f[0]: float(f[2]) for f in (line.split() for line in out.splitlines()) if len(f) == 3 and f[1] == "all"}
    return {ours: printed[theirs] for ours, theirs in TREC_NAMES.items()}


def check_values(qrels: str, run: str, trec_eval: str | None) -> str:
    """The CLI's means against the API's (exactly) and trec_eval's (printed to 4 decimals)."""
    flags = [a for m in MEASURES for a in ("-m", m)]
    cli = json.loads(run_command_cpu([rankmeter_script(), "evaluate", qrels, run, *flags, "--format", "json"])[0])
    api = json.loads(run_command_cpu([sys.executable, "-c", API_SCRIPT, qrels, run, ";".join(MEASURES)])[0])
    if cli["aggregate"] != api:
        raise AssertionError(f"the CLI's values {cli['aggregate']} differ from the API's {api}")
    if trec_eval:
        theirs = _trec_values(run_command_cpu([trec_eval, *TREC_ARGS, qrels, run])[0])
        worst = max(abs(api[m] - theirs[m]) for m in MEASURES)
        if worst > 5e-5:
            raise AssertionError(f"trec_eval's values {theirs} differ from rankmeter's {api}")
    return "agree"


def byte_compile() -> None:
    """Write rankmeter's bytecode first, as pip does on install: with PYTHONDONTWRITEBYTECODE set, an editable
    install would otherwise compile every module from source in every process (tens of ms)."""
    spec = importlib.util.find_spec("rankmeter")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        compileall.compile_dir(folder, quiet=1)


def cli_benchmark(repeats: int) -> dict[str, dict[str, float]]:
    """Time the variants in turns; print the table and the ratios; return the medians by variant."""
    byte_compile()
    qrels, run = (str(p) for p in workloads.w2())
    trec_eval = trec_eval_binary()
    note = check_values(qrels, run, trec_eval)
    flags = [a for m in MEASURES for a in ("-m", m)]
    variants = {
        "rankmeter evaluate (CLI, table output)": [rankmeter_script(), "evaluate", qrels, run, *flags],
        "python script calling rankmeter.evaluate": [sys.executable, "-c", API_SCRIPT, qrels, run, ";".join(MEASURES)],
    }
    if trec_eval:
        variants["trec_eval -c (C, -O2)"] = [trec_eval, *TREC_ARGS, qrels, run]
    variants['python -c "import numpy" (floor)'] = [sys.executable, "-c", "import numpy"]
    samples: dict[str, dict[str, list[float]]] = {label: {"wall": [], "cpu": [], "rss": []} for label in variants}
    for _ in range(repeats):
        for label, argv in variants.items():
            _, wall, rss, cpu = run_command_cpu(argv)
            samples[label]["wall"].append(wall)
            samples[label]["cpu"].append(cpu)
            samples[label]["rss"].append(rss)
    medians = {label: {k: statistics.median(v) for k, v in got.items()} for label, got in samples.items()}
    cli = medians["rankmeter evaluate (CLI, table output)"]
    print(f"\n## CLI: W2 whole process ({', '.join(MEASURES)}), variants alternating, medians of {repeats}\n")
    print("| variant | wall s | CPU s (user+sys) | CLI / variant, wall | CLI / variant, CPU | peak RSS MB | values |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for label, m in medians.items():
        values = "" if "floor" in label else note
        print(
            f"| {label} | {m['wall']:.3f} | {m['cpu']:.3f} | {cli['wall'] / m['wall']:.2f}x | "
            f"{cli['cpu'] / m['cpu']:.2f}x | {m['rss']:.0f} | {values} |"
        )
    api = medians["python script calling rankmeter.evaluate"]
    goals = [f"CLI / API script {cli['wall'] / api['wall']:.2f}x wall (goal <= 1.1x)"]
    if trec_eval:
        te = medians["trec_eval -c (C, -O2)"]
        goals.append(
            f"CLI / trec_eval {cli['wall'] / te['wall']:.2f}x wall, {cli['cpu'] / te['cpu']:.2f}x CPU (goal <= 1.3x)"
        )
    else:
        goals.append("trec_eval not found (TREC_EVAL, PATH, /tmp/trec_eval_build): its row is left out")
    print("\n" + "; ".join(goals))
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=21, help="rounds of each variant (default: 21)")
    cli_benchmark(parser.parse_args().repeats)


if __name__ == "__main__":
    main()
