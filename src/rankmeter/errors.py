"""The error hierarchy of rankmeter.

Every error a user can cause derives from :class:`RankmeterError`, itself a
``ValueError``, so ``except ValueError`` keeps working for callers that do not
know rankmeter. Messages name where the bad value came from (``file:line``,
query id, document id) and the value received.
"""

from __future__ import annotations


class RankmeterError(ValueError):
    """Base class of every error raised for bad input or bad options."""


class InputFormatError(RankmeterError):
    """A line of a TREC file, a table column or an array has the wrong form."""


class QueryOrderError(InputFormatError):
    """A query's lines of a run are not all together (reading in blocks of whole queries needs them so)."""


class DuplicateEntryError(RankmeterError):
    """The same (query, document) pair appears twice in a run or in qrels."""


class InvalidScoreError(RankmeterError):
    """A score or a grade is NaN, infinite or not a number."""


class MeasureSyntaxError(RankmeterError):
    """A measure name cannot be parsed, or names an unknown measure or parameter."""


class PolicyError(RankmeterError):
    """An option has an unknown value, or an ``error`` policy was triggered."""


class LimitError(PolicyError):
    """An input goes past a resource limit (a line's length, a ``.gz`` file's expansion): bad input, not bad options."""


class WorkerDiedError(RankmeterError):
    """A worker process evaluating runs died (killed by a signal, often by the system for lack of memory)."""


def where(source: str | None, line: int | None) -> str:
    """Format a location prefix ``"file:line: "`` (parts omitted when unknown).

    >>> where("run.txt", 3)
    'run.txt:3: '
    >>> where(None, None)
    ''
    """
    if source is None:
        return "" if line is None else f"row {line}: "
    return f"{source}: " if line is None else f"{source}:{line}: "
