"""Align per-query results of several systems on their query ids."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, PolicyError

QUERY_SET_POLICIES = ("error", "intersect")

#: How many example query ids an error message names.
_EXAMPLES = 5

PerQuery = tuple[Any, Sequence[str], Any]
"""``(query_ids, measure_names, values)`` with ``values`` of shape (n_queries, n_measures)."""


@dataclass(frozen=True)
class Aligned:
    """Per-query values of every system on a common, ordered set of queries.

    Attributes
    ----------
    query_ids : ndarray of str or int64
        The common queries, in the order of the first system: integers when
        every system's ids are integers (as :func:`rankmeter.evaluate` gives
        them for integer ids), else their text.
    measure_names : list of str
        Column names of every score matrix.
    scores : dict
        System name -> float64 array of shape (n_queries, n_measures).
    original_counts : dict
        System name -> number of queries it had before alignment.
    dropped : dict
        System name -> number of its queries left out by ``"intersect"``.
    """

    query_ids: np.ndarray
    measure_names: list[str]
    scores: dict[str, np.ndarray] = field(repr=False)
    original_counts: dict[str, int]
    dropped: dict[str, int]


def _examples(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(q) for q in list(ids)[:_EXAMPLES])
    more = len(ids) - _EXAMPLES
    return shown + (f", ... ({more} more)" if more > 0 else "")


def _checked(name: str, entry: PerQuery) -> tuple[list[Any], list[str], np.ndarray]:
    query_ids, measure_names, values = entry
    qids = np.asarray(query_ids).tolist()
    if not all(type(q) is int for q in qids):  # integer ids stay integers; anything else is compared as text
        qids = [str(q) for q in qids]
    measures = [str(m) for m in measure_names]
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 1 and len(measures) == 1:
        arr = arr[:, None]
    if arr.shape != (len(qids), len(measures)):
        raise InputFormatError(
            f"system {name!r}: values have shape {arr.shape}, expected ({len(qids)} queries, {len(measures)} measures)"
        )
    if len(set(qids)) != len(qids):
        dups = sorted(q for q, count in Counter(qids).items() if count > 1)
        raise InputFormatError(f"system {name!r}: duplicate query ids ({_examples(dups)})")
    bad = ~np.isfinite(arr)
    if bad.any():
        row, col = (int(i[0]) for i in np.nonzero(bad))
        rows = sorted({qids[r] for r in np.nonzero(bad)[0]})
        raise InputFormatError(
            f"system {name!r}: measure {measures[col]!r} is not finite for query {qids[row]!r} "
            f"({arr[row, col]!r}); {len(rows)} queries affected ({_examples(rows)}); "
            "significance tests need a value for every query"
        )
    return qids, measures, arr


def align_queries(per_query: Mapping[str, PerQuery], query_sets: str = "error") -> Aligned:
    """Align the per-query values of several systems by query id.

    Parameters
    ----------
    per_query : mapping
        System name -> ``(query_ids, measure_names, values)``; ``values`` has
        one row per query id and one column per measure name. Every system
        must have the same measure names.
    query_sets : {"error", "intersect"}, default "error"
        What to do when systems cover different queries: raise
        :class:`~rankmeter.errors.PolicyError` naming each system and example
        missing ids, or keep only the queries common to all systems (the
        dropped counts are reported in :attr:`Aligned.dropped`).

    Returns
    -------
    Aligned

    Examples
    --------
    >>> a = (["q1", "q2", "q3"], ["map"], [[0.1], [0.2], [0.3]])
    >>> b = (["q2", "q3"], ["map"], [[0.5], [0.6]])
    >>> al = align_queries({"A": a, "B": b}, "intersect")
    >>> al.query_ids.tolist(), al.dropped
    (['q2', 'q3'], {'A': 1, 'B': 0})
    """
    if query_sets not in QUERY_SET_POLICIES:
        raise PolicyError(f"unknown query_sets policy {query_sets!r}; choose one of {', '.join(QUERY_SET_POLICIES)}")
    if not per_query:
        raise InputFormatError("no systems to align")
    checked = {name: _checked(name, entry) for name, entry in per_query.items()}
    if any(qids and type(qids[0]) is not int for qids, _, _ in checked.values()):  # one type for all: text
        checked = {name: ([str(q) for q in qids], m, v) for name, (qids, m, v) in checked.items()}
    names = list(checked)
    first_measures = checked[names[0]][1]
    for name in names[1:]:
        if checked[name][1] != first_measures:
            raise InputFormatError(
                f"system {name!r} has measures {checked[name][1]}, but {names[0]!r} has {first_measures}"
            )
    id_sets = {name: set(c[0]) for name, c in checked.items()}
    union = set().union(*id_sets.values())
    common = set.intersection(*id_sets.values())
    if common != union and query_sets == "error":
        problems = []
        for name in names:
            missing = sorted(union - id_sets[name])
            if missing:
                problems.append(f"{name!r} lacks {len(missing)} of the {len(union)} queries ({_examples(missing)})")
        raise PolicyError(
            "systems cover different query sets: "
            + "; ".join(problems)
            + f". Pass query_sets='intersect' to compare on the {len(common)} common queries."
        )
    if not common:
        raise PolicyError("systems have no query in common")
    order = [q for q in checked[names[0]][0] if q in common]
    scores = {}
    for name, (qids, _, arr) in checked.items():
        row = {q: i for i, q in enumerate(qids)}
        scores[name] = arr[[row[q] for q in order]]
    return Aligned(
        query_ids=np.array(order, dtype=np.int64 if order and type(order[0]) is int else str),
        measure_names=list(first_measures),
        scores=scores,
        original_counts={name: len(c[0]) for name, c in checked.items()},
        dropped={name: len(id_sets[name]) - len(common) for name in names},
    )
