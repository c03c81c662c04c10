"""rankmeter: exact, explicit and fast evaluation of rankings.

>>> import rankmeter
>>> res = rankmeter.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 2.0, "d2": 1.0}}, "ndcg@10")
>>> res["ndcg@10"]
1.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rankmeter._version import __version__
from rankmeter.errors import (
    DuplicateEntryError,
    InputFormatError,
    InvalidScoreError,
    MeasureSyntaxError,
    PolicyError,
    RankmeterError,
)
from rankmeter.evaluate import evaluate, evaluate_arrays, evaluate_lists, evaluate_ranked
from rankmeter.measures import FAMILIES, GainTable, Jarvelin, Measure, measure, parse
from rankmeter.results import EvaluationResult

if TYPE_CHECKING:
    from rankmeter.io.tables import Qrels, Run
    from rankmeter.io.trec import read_qrels, read_run


def evaluate_vectors(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Evaluate embedding or hash-code retrieval; see :func:`rankmeter.vectors.evaluate_vectors`."""
    from rankmeter.vectors import evaluate_vectors as _evaluate_vectors

    return _evaluate_vectors(*args, **kwargs)


def evaluate_stream(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Evaluate a run file in blocks of whole queries; see :func:`rankmeter.stream.evaluate_stream`."""
    from rankmeter.stream import evaluate_stream as _evaluate_stream

    return _evaluate_stream(*args, **kwargs)


parse_measure = parse


def __getattr__(name: str) -> Any:
    """``Qrels``, ``Run``, ``read_qrels`` and ``read_run``, which :mod:`rankmeter.io` imports on first use."""
    if name not in ("Qrels", "Run", "read_qrels", "read_run"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from rankmeter import io

    value = globals()[name] = getattr(io, name)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "FAMILIES",
    "DuplicateEntryError",
    "EvaluationResult",
    "GainTable",
    "InputFormatError",
    "InvalidScoreError",
    "Jarvelin",
    "Measure",
    "MeasureSyntaxError",
    "PolicyError",
    "Qrels",
    "RankmeterError",
    "Run",
    "__version__",
    "evaluate",
    "evaluate_arrays",
    "evaluate_lists",
    "evaluate_ranked",
    "evaluate_stream",
    "evaluate_vectors",
    "measure",
    "parse",
    "parse_measure",
    "read_qrels",
    "read_run",
]
