"""The floors of docs/design.md, read from the sources: floors, no import circles, no private names across modules.

Imports are read with :mod:`ast` (those inside functions too, which a lazy
import hides from a run-time check); imports under ``if TYPE_CHECKING:`` are
annotations only and not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rankmeter

SRC = Path(rankmeter.__file__).resolve().parent

FLOORS = {
    "rankmeter._version": 0,
    "rankmeter.errors": 0,
    "rankmeter.progress": 0,
    "rankmeter.ids": 0,
    "rankmeter.io": 1,
    "rankmeter.core": 2,
    "rankmeter.measures": 3,
    "rankmeter.aggregate": 4,
    "rankmeter.results": 4,
    "rankmeter.segments": 4,
    "rankmeter.pipeline": 5,
    "rankmeter.xp": 5,
    "rankmeter.streaming": 6,
    "rankmeter.by_ids": 6,
    "rankmeter.by_arrays": 6,
    "rankmeter.vectors": 6,
    "rankmeter.diversity": 6,
    "rankmeter.beyond": 6,
    "rankmeter.beyond_dense": 6,
    "rankmeter.partitions": 6,
    "rankmeter.negatives": 6,
    "rankmeter.trec_eval": 7,
    "rankmeter.ndeval": 7,
    "rankmeter.stats": 7,
    "rankmeter.sampled": 7,
    "rankmeter.agreement": 7,
    "rankmeter.keras": 7,
    "rankmeter.torch": 7,
    "rankmeter.sklearn": 7,
    "rankmeter.spark": 7,
    "rankmeter.dask": 7,
    "rankmeter.report": 8,
    "rankmeter.cli": 9,
    "rankmeter": 10,
}
"""errors/ids -> io -> core -> measures -> aggregate/results -> pipeline -> entry points -> trec_eval/stats -> report -> cli."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def _floor(module: str) -> int:
    owner = max((k for k in FLOORS if module == k or module.startswith(k + ".")), key=len)
    return FLOORS[owner]


def _imports(path: Path) -> list[tuple[str, str, int]]:
    """``(module, name, line)`` of every rankmeter import in a file (name: '' for ``import x``)."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
        for inner in ast.walk(node)
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "rankmeter":
            found += [(node.module, alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(a.name, "", node.lineno) for a in node.names if a.name.split(".")[0] == "rankmeter"]
    return found


def _target(module: str, name: str) -> str:
    """The module an import reads: ``from rankmeter import streaming`` reads ``rankmeter.streaming``."""
    return f"{module}.{name}" if f"{module}.{name}" in MODULES else module


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for imported, name, _ in _imports(path):
            target = _target(imported, name)
            while target not in MODULES:
                target = target.rpartition(".")[0]
            if target != module and not module.startswith(target + "."):  # a package's own __init__ is no circle
                graph[module].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_checker_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles() -> None:
    assert _cycles(_graph()) == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_floors(module: str) -> None:
    upward = [
        f"line {line}: {_target(imported, name)}"
        for imported, name, line in _imports(MODULES[module])
        if _floor(_target(imported, name)) > _floor(module)
    ]
    assert upward == [], f"{module} (floor {_floor(module)}) imports from a higher floor"


def test_no_private_name_is_imported_from_another_module() -> None:
    private = [
        f"{module}:{line} takes {name} from {imported}"
        for module, path in MODULES.items()
        for imported, name, line in _imports(path)
        if name.startswith("_") and not name.startswith("__") and imported != module
    ]
    assert private == []
