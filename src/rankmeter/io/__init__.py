"""Readers: every input format becomes a :class:`~rankmeter.io.tables.Qrels` or :class:`~rankmeter.io.tables.Run`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rankmeter.io.tables import Qrels, Run

if TYPE_CHECKING:
    from rankmeter.io.trec import read_qrels, read_run

__all__ = ["Qrels", "Run", "read_qrels", "read_run"]


def __getattr__(name: str) -> Any:
    """The TREC readers, imported on first use (their module is large and not needed for in-memory input)."""
    if name in ("read_qrels", "read_run"):
        from rankmeter.io import trec

        return getattr(trec, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
