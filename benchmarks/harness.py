"""What every benchmark script shares: fresh child processes, their wall time and peak RSS, and the tables.

The child processes are started by a small launcher process (:mod:`launcher`), not by the benchmark
process itself: a child forked from a process that holds the benchmark's data would report that
process's memory as its own peak.
"""

from __future__ import annotations

import atexit
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

TINY_DICT_RANKMETER = """
import json, rankmeter
qrels = {"q1": {f"d{i}": i % 3 for i in range(10)}, "q2": {f"d{i}": (i + 1) % 2 for i in range(10)}}
run = {q: {f"d{i}": float(10 - i) for i in range(10)} for q in ("q1", "q2")}
print(json.dumps(rankmeter.evaluate(qrels, run, ["ndcg@10", "ndcg", "map"]).aggregate))
"""
"""W4 in a fresh process: import, read two small dicts, three measures, print the means."""

TINY_DICT_PYTREC = """
import json, pytrec_eval
qrels = {"q1": {f"d{i}": i % 3 for i in range(10)}, "q2": {f"d{i}": (i + 1) % 2 for i in range(10)}}
run = {q: {f"d{i}": float(10 - i) for i in range(10)} for q in ("q1", "q2")}
res = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut", "ndcg", "map"}).evaluate(run)
names = {"ndcg@10": "ndcg_cut_10", "ndcg": "ndcg", "map": "map"}
print(json.dumps({ours: sum(r[theirs] for r in res.values()) / len(res) for ours, theirs in names.items()}))
"""
"""The same job with pytrec_eval."""


def best(call: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """The fastest of ``repeats`` timed calls after one warm-up call, and the last result."""
    call()
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - start)
    return min(times), out


_LAUNCHER: list[subprocess.Popen[str]] = []
"""The launcher process, started on first use and kept for the process's life."""


def _stop_launcher() -> None:
    """End the launcher process (its loop ends with its input) and close its pipes."""
    for proc in _LAUNCHER:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()
    _LAUNCHER.clear()


atexit.register(_stop_launcher)


def _launcher() -> subprocess.Popen[str]:
    if not _LAUNCHER or _LAUNCHER[0].poll() is not None:
        _stop_launcher()
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "launcher.py")
        proc = subprocess.Popen(
            [sys.executable, "-S", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        _LAUNCHER[:] = [proc]
    return _LAUNCHER[0]


def launch(argv: list[str], env: dict[str, str] | None = None) -> tuple[bytes, bytes, int, float, float, float]:
    """Run ``argv`` from the launcher process (``env``: variables added to the environment); return (its standard
    output, its standard error, its wait status, wall seconds, its own peak RSS in MB, its CPU seconds: user + sys).
    """
    proc = _launcher()
    assert proc.stdin is not None and proc.stdout is not None
    with tempfile.NamedTemporaryFile() as out, tempfile.NamedTemporaryFile() as err:
        job = {"argv": argv, "env": {**os.environ, **(env or {})}, "stdout": out.name, "stderr": err.name}
        proc.stdin.write(json.dumps(job) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        out.seek(0)
        err.seek(0)
        return out.read(), err.read(), answer["status"], answer["wall"], answer["rss_kb"] / 1024, answer["cpu"]


def run_command(argv: list[str]) -> tuple[str, float, float]:
    """Run a command; return (its standard output, wall seconds, its own peak RSS in MB)."""
    out, wall, rss, _ = run_command_cpu(argv)
    return out, wall, rss


def run_command_cpu(argv: list[str], env: dict[str, str] | None = None) -> tuple[str, float, float, float]:
    """Run a command (``env``: variables added to this process's); return (its standard output, wall seconds, its
    own peak RSS in MB, its CPU seconds: user + sys)."""
    out, err, status, wall, rss, cpu = launch(argv, env)
    if status != 0:
        raise RuntimeError(f"{argv[0]} failed ({status}):\n{err.decode()[-2000:]}")
    return out.decode(), wall, rss, cpu


def run_child(code: str, *args: str, env: dict[str, str] | None = None) -> tuple[dict, float, float]:
    """Run ``python -c code args`` (``env``: variables added to this process's); return (its JSON output,
    wall seconds, peak RSS in MB)."""
    out, err, status, wall, rss, _ = launch([sys.executable, "-c", code, *args], env)
    if status != 0:
        raise RuntimeError(f"child failed ({status}):\n{err.decode()[-2000:]}")
    return json.loads(out.decode().strip().splitlines()[-1]), wall, rss


def have(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def agree(reference: dict, other: dict, tol: float = 1e-6) -> str:
    diffs = {k: abs(reference[k] - other[k]) for k in other if k in reference and k != "seconds"}
    bad = {k: d for k, d in diffs.items() if d > tol}
    return "agree" if not bad else "DIFFER " + ", ".join(f"{k}: {d:.2e}" for k, d in bad.items())


def timed(label: str, code: str, args: list[str], repeats: int, rows: list, reference: dict | None) -> dict | None:
    results = []
    for _ in range(repeats):
        try:
            results.append(run_child(code, *args))
        except RuntimeError as exc:
            rows.append((label, None, None, f"failed: {str(exc).splitlines()[-1][:80]}"))
            return None
    values = results[0][0]
    inner = [r[0].get("seconds") for r in results]
    wall = statistics.median(r[1] for r in results) if inner[0] is None else statistics.median(inner)
    rss = max(r[2] for r in results)
    note = agree(reference, values) if reference is not None else "reference"
    rows.append((label, wall, rss, note))
    return values


def rounds(variants: list[tuple], repeats: int) -> list[tuple[dict, float, float]]:
    """Run child variants ``(code, args)`` or ``(code, args, env)`` round-robin, ``repeats`` rounds; per variant
    (values, median wall, peak RSS).

    Round k runs every variant once, so a drift in the machine's state over
    the invocation (this VM's page-fault cost varies) touches every variant
    alike instead of whichever ran last. Values are those of the first round.
    """
    runs: list[list[tuple[dict, float, float]]] = [[] for _ in variants]
    for _ in range(repeats):
        for done, (code, args, *env) in zip(runs, variants, strict=True):
            done.append(run_child(code, *args, env=env[0] if env else None))
    return [(r[0][0], statistics.median(x[1] for x in r), max(x[2] for x in r)) for r in runs]


def compared(labels: list[str], results: list[tuple[dict, float, float]]) -> list:
    """Table rows for :func:`rounds`' results, each variant's values checked against the first's."""
    reference = results[0][0]
    return [
        (label, wall, rss, "reference" if k == 0 else agree(reference, values))
        for k, (label, (values, wall, rss)) in enumerate(zip(labels, results, strict=True))
    ]


TABLES: list[tuple[str, list]] = []
"""Every table :func:`print_table` printed in this process, in order (title, rows): run_all.py's summary."""


def print_table(title: str, rows: list) -> None:
    TABLES.append((title, rows))
    base = rows[0][1] if rows and rows[0][1] else None
    print(f"\n## {title}\n")
    print("| tool | median s | peer / rankmeter | peak RSS MB | values |")
    print("|---|---:|---:|---:|---|")
    for label, secs, rss, note in rows:
        if secs is None:
            print(f"| {label} | – | – | – | {note} |")
            continue
        ratio = f"{secs / base:.1f}x" if base and label != rows[0][0] else "1.0x"
        print(f"| {label} | {secs:.3f} | {ratio} | {rss:.0f} | {note} |")
