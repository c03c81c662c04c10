"""Mutation run over ``rankmeter.measures.kernels``: change one operator or constant at a time, run the tests.

Each mutant is one small change to one kernel module (``+`` <-> ``-``, ``*`` <-> ``/``, ``**`` -> ``*``,
``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``, ``is`` <-> ``is not``, ``and`` <-> ``or``, a unary
minus or ``not`` dropped, ``min`` <-> ``max``, ``np.minimum`` <-> ``np.maximum``, a number n -> n + 1
(0 -> 1, 1 -> 0)), written into a copy of ``src/`` (the working tree is never touched). The tests selected
for that module (:data:`SELECTIONS`) then run against the copy, stopping at the first failure; a mutant
is *killed* when they fail (or run past the time limit), and *survives* when they pass. Docstrings,
``raise`` statements (error messages), f-strings and annotations are not mutated.

Not part of the test suite (pytest collects no test here). Run it from the repository root::

    python tests/mutation/run.py --list                    # the mutants, without running anything
    python tests/mutation/run.py precision.py dcg.py       # some modules (default: every selected module)
    python tests/mutation/run.py --chunk 1/4 --out part1.jsonl   # a quarter of the mutants, one JSON line each
    python tests/mutation/run.py --match "precision.py:56 " # the mutants of one line
    python tests/mutation/run.py --report part*.jsonl      # the table (a mutant run again: its last result)

Each mutant runs in a process forked from one that already imported NumPy, SciPy and pytest, so a
mutant costs its tests' time plus the import of rankmeter.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KERNELS = Path("rankmeter/measures/kernels")

_BRUTE = "tests/reference/test_ties_bruteforce.py"
_CORE = [
    "tests/reference/test_independent_sources.py",
    f"{_BRUTE}::test_tie_policies_on_a_small_sample",
    "tests/reference/test_reference_values.py",
]
_IR = [
    "tests/reference/test_independent_sources.py",
    f"{_BRUTE}::test_ir_families_on_a_small_sample",
]

# the error contracts of the kernels that refuse values (overflowing gains, stopping probabilities past 1)
_HOSTILE = "tests/hostile/test_hostile_values.py"
_OVERFLOW = [
    f"{_HOSTILE}::test_exp_gain_of_grade_1024_is_a_located_error",
    f"{_HOSTILE}::test_exp_gain_overflow_under_several_cutoffs_names_its_query",
    f"{_HOSTILE}::test_every_cumulative_gain_refuses_an_overflow",
    f"{_HOSTILE}::test_exp_gains_whose_sum_overflows_are_refused",
]

#: kernel module (relative to measures/kernels) -> the tests run against each of its mutants
SELECTIONS: dict[str, list[str]] = {
    "average_precision.py": _CORE,
    "counts.py": _CORE,
    "dcg.py": [*_CORE, *_OVERFLOW],
    "err.py": [*_CORE, "tests/measures/test_err.py", f"{_HOSTILE}::test_err_advice_for_a_high_grade_works"],
    "label_ranking.py": _CORE,
    "precision.py": _CORE,
    "reciprocal_rank.py": _CORE,
    "context.py": _CORE,
    "segments.py": _CORE,
    "cwl.py": [*_IR, "tests/measures/test_cwl.py"],
    "ntcir.py": [*_IR, "tests/measures/test_ntcir.py"],
    "rank_stats.py": [*_IR, "tests/measures/test_rank_stats.py"],
    "compat.py": [*_IR, "tests/measures/test_compat.py"],
}

_BINOP = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Pow: ast.Mult,
}
_CMP = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_SWAP_NAMES = {"min": "max", "max": "min", "minimum": "maximum", "maximum": "minimum"}


@dataclass(frozen=True)
class Mutant:
    module: str  # relative to measures/kernels
    line: int
    what: str  # e.g. "Add -> Sub"
    before: str  # the original source of the changed node
    start: tuple[int, int]
    end: tuple[int, int]
    text: str  # replacement text


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes that are never mutated: docstrings, raise statements, f-strings, annotations."""
    out: set[int] = set()

    def drop(node: ast.AST | None) -> None:
        if node is not None:
            out.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Raise | ast.JoinedStr):
            drop(node)
        elif isinstance(node, ast.FunctionDef):
            drop(node.returns)
            for arg in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs]:
                drop(arg.annotation)
        elif isinstance(node, ast.AnnAssign):
            drop(node.annotation)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                drop(first)
    return out


def _variants(node: ast.AST) -> Iterator[tuple[str, str]]:
    """(description, replacement text) of each mutation of one node."""
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOP:
        new = copy.deepcopy(node)
        new.op = _BINOP[type(node.op)]()
        yield f"{type(node.op).__name__} -> {type(new.op).__name__}", f"({ast.unparse(new)})"
    elif isinstance(node, ast.AugAssign) and type(node.op) in _BINOP:
        new = copy.deepcopy(node)
        new.op = _BINOP[type(node.op)]()
        yield f"{type(node.op).__name__}= -> {type(new.op).__name__}=", ast.unparse(new)
    elif isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in _CMP:
                new = copy.deepcopy(node)
                new.ops[i] = _CMP[type(op)]()
                yield f"{type(op).__name__} -> {type(new.ops[i]).__name__}", f"({ast.unparse(new)})"
    elif isinstance(node, ast.BoolOp):
        new = copy.deepcopy(node)
        new.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield f"{type(node.op).__name__} -> {type(new.op).__name__}", f"({ast.unparse(new)})"
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.Not):
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return  # a negative literal: the constant rule covers it
        yield f"{type(node.op).__name__} dropped", f"({ast.unparse(node.operand)})"
    elif isinstance(node, ast.Constant) and type(node.value) in (int, float):
        v = node.value
        new_value = type(v)(1 if v == 0 else 0 if v == 1 else v + 1)
        yield f"{v!r} -> {new_value!r}", f"({new_value!r})"
    elif isinstance(node, ast.Name) and node.id in ("min", "max"):
        yield f"{node.id} -> {_SWAP_NAMES[node.id]}", _SWAP_NAMES[node.id]
    elif isinstance(node, ast.Attribute) and node.attr in ("minimum", "maximum"):
        new = copy.deepcopy(node)
        new.attr = _SWAP_NAMES[node.attr]
        yield f"{node.attr} -> {new.attr}", ast.unparse(new)


def mutants(module: str, src: Path) -> list[Mutant]:
    """Every mutant of one kernel module, in source order."""
    text = (src / KERNELS / module).read_text()
    tree = ast.parse(text)
    skipped = _skipped_nodes(tree)
    out = []
    for node in ast.walk(tree):
        if id(node) in skipped or not hasattr(node, "lineno") or node.end_lineno is None:
            continue
        before = ast.get_source_segment(text, node) or ""
        for what, replacement in _variants(node):
            start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset or 0)
            out.append(Mutant(module, node.lineno, what, before, start, end, replacement))
    out.sort(key=lambda m: (m.start, m.end, m.what))
    return out


def apply(text: str, m: Mutant) -> str:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line.encode()))
    data = text.encode()
    a = offsets[m.start[0] - 1] + m.start[1]
    b = offsets[m.end[0] - 1] + m.end[1]
    return (data[:a] + m.text.encode() + data[b:]).decode()


def _warm() -> None:
    """Import what every mutant's tests import, once, before forking: NumPy, SciPy, pytest and the parts of
    rankmeter that import no kernel (each child imports the kernels, and the registry, from the mutated copy)."""
    import numpy  # noqa: F401
    import pytest  # noqa: F401
    import scipy.special  # noqa: F401
    import scipy.stats  # noqa: F401

    import rankmeter.core.join  # noqa: F401
    import rankmeter.io.dicts  # noqa: F401

    early = [name for name in sys.modules if name.startswith(("rankmeter.measures.kernels", "rankmeter.measures.reg"))]
    if early:
        raise RuntimeError(f"the warm-up imported kernels before any mutant: {early}")


def run_one(m: Mutant, src: Path, original: str, timeout: float) -> tuple[str, float]:
    """Apply one mutant to the copy, run its tests in a forked child; 'killed', 'survived' or 'timeout'."""
    path = src / KERNELS / m.module
    mutated = apply(original, m)
    try:
        compile(mutated, str(path), "exec")
    except SyntaxError:
        return "invalid", 0.0
    path.write_text(mutated)
    began = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: quiet, runs the selection and exits with pytest's status
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        import pytest

        args = ["-x", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *SELECTIONS[m.module]]
        os._exit(int(pytest.main(args)))
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() - began > timeout:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "timeout", time.monotonic() - began
            time.sleep(0.05)
    finally:
        path.write_text(original)
    return ("survived" if code == 0 else "killed"), time.monotonic() - began


def _report(paths: list[str]) -> None:
    latest: dict[tuple[object, ...], dict[str, object]] = {}  # a mutant run again (--match) counts once, as last run
    for p in paths:
        for line in Path(p).read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                latest[(r["module"], tuple(r["start"]), tuple(r["end"]), r["what"])] = r
    rows = list(latest.values())
    by_module: dict[str, dict[str, int]] = {}
    for r in rows:
        counts = by_module.setdefault(r["module"], {"tried": 0, "killed": 0, "timeout": 0, "survived": 0})
        if r["status"] == "invalid":
            continue
        counts["tried"] += 1
        counts[r["status"]] += 1
    print("| module | tried | killed | timeout | survived |")
    print("|---|---:|---:|---:|---:|")
    total = dict.fromkeys(("tried", "killed", "timeout", "survived"), 0)
    for module, c in sorted(by_module.items()):
        print(f"| {module} | {c['tried']} | {c['killed']} | {c['timeout']} | {c['survived']} |")
        for k in total:
            total[k] += c[k]
    print(f"| all | {total['tried']} | {total['killed']} | {total['timeout']} | {total['survived']} |")
    for r in rows:
        if r["status"] == "survived":
            print(f"survived: {r['module']}:{r['line']} {r['what']}: {r['before']!r} -> {r['text']!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="kernel modules (default: every one in SELECTIONS)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--match", help="only the mutants whose 'module:line what' contains this text")
    parser.add_argument("--chunk", default="1/1", help="i/n: run the i-th of n equal slices of the mutants")
    parser.add_argument("--out", help="append one JSON line per mutant to this file")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant (past it: killed)")
    parser.add_argument("--report", nargs="+", metavar="JSONL", help="print the table of earlier runs")
    args = parser.parse_args(argv)
    if args.report:
        _report(args.report)
        return 0
    modules = args.modules or sorted(SELECTIONS)
    unknown = sorted(set(modules) - set(SELECTIONS))
    if unknown:
        parser.error(f"no test selection for {unknown}; add them to SELECTIONS")
    sys.dont_write_bytecode = True  # a mutant must never be read back from a stale .pyc
    work = Path(tempfile.mkdtemp(prefix="rankmeter-mutants-"))
    try:
        # a copy of the sources and of the tests: editing the checkout while a run goes on changes nothing
        src = work / "src"
        for part in ("src", "tests", "tests_recsys_oracles", "docs"):
            shutil.copytree(ROOT / part, work / part, ignore=shutil.ignore_patterns("__pycache__"))
        for name in ("conftest.py", "pyproject.toml"):
            shutil.copy(ROOT / name, work / name)
        todo = [m for module in modules for m in mutants(module, src)]
        if args.match:
            todo = [m for m in todo if args.match in f"{m.module}:{m.line} {m.what}"]
        i, n = (int(x) for x in args.chunk.split("/"))
        todo = todo[(i - 1) * len(todo) // n : i * len(todo) // n]
        if args.list:
            for m in todo:
                print(f"{m.module}:{m.line} {m.what}: {m.before!r} -> {m.text!r}")
            print(f"{len(todo)} mutants")
            return 0
        os.chdir(work)
        os.environ["PYTHONPATH"] = str(src)
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
        sys.path.insert(0, str(src))
        sys.path.insert(0, str(work))
        _warm()
        originals = {module: (src / KERNELS / module).read_text() for module in modules}
        for module in sorted({m.module for m in todo}):  # each selection must pass on the unchanged code
            unchanged = Mutant(module, 0, "none", "", (1, 0), (1, 0), "")
            status, seconds = run_one(unchanged, src, originals[module], args.timeout)
            if status != "survived":
                print(f"{module}: skipped, its selection fails on the unchanged code ({status})", flush=True)
                todo = [m for m in todo if m.module != module]
            else:
                print(f"{module}: its selection passes on the unchanged code in {seconds:.0f} s", flush=True)
        for m in todo:
            status, seconds = run_one(m, src, originals[m.module], args.timeout)
            row = {**asdict(m), "status": status, "seconds": round(seconds, 1)}
            line = json.dumps(row)
            print(line, flush=True)
            if args.out:
                with open(args.out, "a") as f:
                    f.write(line + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
