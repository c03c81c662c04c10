"""Kendall's tau and tau_AP between the system orderings of two evaluations (meta-evaluation)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from rankmeter.agreement.tau import kendall_tau, tau_ap
from rankmeter.core.semantics import choose
from rankmeter.errors import RankmeterError

CORRELATIONS = ("tau", "tau_ap")
"""Correlations between system orderings."""


def _scores(results: Any, measure: str | None, which: str) -> dict[str, float]:
    """``{system: aggregate value}`` of one measure, from a SystemResults or a ``{system: {measure: value}}``."""
    table = results.aggregate if hasattr(results, "aggregate") else results
    if not isinstance(table, Mapping) or not table:
        raise RankmeterError(
            f"{which}: expected SystemResults or {{system: {{measure: value}}}} of two or more systems"
        )
    names = list(next(iter(table.values())))
    if measure is None:
        if len(names) != 1:
            raise RankmeterError(
                f"{which} holds {len(names)} measures ({', '.join(names)}); name one with measure_a= / measure_b="
            )
        measure = names[0]
    missing = [system for system, row in table.items() if measure not in row]
    if missing:
        raise RankmeterError(f"{which}: system {missing[0]!r} has no value for measure {measure!r}")
    scores = {str(system): float(row[measure]) for system, row in table.items()}
    undefined = [system for system, value in scores.items() if not math.isfinite(value)]
    if undefined:
        raise RankmeterError(
            f"{which}: system {undefined[0]!r} has {measure} = {scores[undefined[0]]}; it cannot be ranked"
        )
    return scores


def system_correlation(
    results_a: Any,
    results_b: Any,
    correlation: str = "tau",
    *,
    measure_a: str | None = None,
    measure_b: str | None = None,
) -> float:
    r"""Kendall's :math:`\tau_b` or :math:`\tau_{AP}` between the system orderings of two evaluations.

    Parameters
    ----------
    results_a, results_b : SystemResults or dict
        Two evaluations of the same systems (e.g. one measure under two sets of
        qrels, or two measures): :class:`~rankmeter.results.SystemResults` or
        ``{system: {measure: value}}``. ``results_a`` is the reference ordering
        for ``tau_ap``.
    correlation : {"tau", "tau_ap"}
        ``tau``: :math:`\tau_b` (scipy's ``kendalltau``; equal values are tied).
        ``tau_ap``: Yilmaz, Aslam & Robertson's AP correlation of ``results_b``'s
        ordering against ``results_a``'s (a tie raises :class:`PolicyError`).
    measure_a, measure_b : str, optional
        The measure read from each; needed when an evaluation holds several.

    Examples
    --------
    >>> a = {"bm25": {"map": 0.30}, "dense": {"map": 0.35}, "rm3": {"map": 0.32}}
    >>> b = {"bm25": {"map": 0.20}, "dense": {"map": 0.31}, "rm3": {"map": 0.19}}
    >>> round(system_correlation(a, b), 6), round(system_correlation(a, b, "tau_ap"), 6)
    (0.333333, 0.5)
    """
    choose(correlation, CORRELATIONS, "correlation")
    sa = _scores(results_a, measure_a, "results_a")
    sb = _scores(results_b, measure_b, "results_b")
    if set(sa) != set(sb):
        extra = sorted(set(sa) ^ set(sb))[0]
        raise RankmeterError(f"system {extra!r} is in only one of results_a and results_b; compare the same systems")
    systems = sorted(sa)
    x = np.array([sa[s] for s in systems])
    y = np.array([sb[s] for s in systems])
    if correlation == "tau":
        return kendall_tau(x, y, ties="equal")
    return tau_ap(x, y, where="systems: ")
