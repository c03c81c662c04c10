"""Readers: every input format becomes a :class:`~rankmeter.io.tables.Qrels` or :class:`~rankmeter.io.tables.Run`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankmeter.io.tables import Qrels, Run
    from rankmeter.io.trec import read_qrels, read_run

__all__ = ["Qrels", "Run", "read_qrels", "read_run"]

_HOMES = {"Qrels": "tables", "Run": "tables", "read_qrels": "trec", "read_run": "trec"}


def __getattr__(name: str) -> Any:
    """The tables and the TREC readers, imported on first use (in-memory input needs neither at import)."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = globals()[name] = getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
