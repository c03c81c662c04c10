"""Confidence intervals for every measure of one evaluation result (``rankmeter evaluate --ci``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.results import EvaluationResult
from rankmeter.stats._types import ConfidenceInterval
from rankmeter.stats.bootstrap import mean_ci


def result_intervals(
    result: EvaluationResult,
    *,
    level: float = 0.95,
    method: str = "BCa",
    n_resamples: int = 10_000,
    seed: int = 0,
) -> dict[str, ConfidenceInterval | None]:
    """Bootstrap CI of the mean over queries for each averaged measure of ``result``.

    Counting measures (``num_*``, summed rather than averaged) and weighted
    results get ``None``: a bootstrap of an unweighted mean would not describe them.

    Parameters
    ----------
    result : EvaluationResult
    level : float
        Confidence level, e.g. 0.95.
    method : {"BCa", "percentile", "basic"}
        scipy.stats.bootstrap method.
    n_resamples : int
    seed : int

    Examples
    --------
    >>> import rankmeter
    >>> res = rankmeter.evaluate_arrays([[1, 0], [0, 1], [1, 0], [0, 1]], [[2, 1]] * 4, "p@1")
    >>> ci = result_intervals(res, method="percentile", n_resamples=1000)["p@1"]
    >>> ci.estimate, 0.0 <= ci.low <= 0.5 <= ci.high <= 1.0
    (0.5, True)
    """
    from rankmeter.measures import FAMILIES, parse

    out: dict[str, ConfidenceInterval | None] = {}
    weighted = bool(result.metadata.get("weighted"))
    for i, name in enumerate(result.measure_names):
        keep = result.included[:, i] & ~np.isnan(result.values[:, i])
        family = FAMILIES[parse(name).family]
        if family.is_count or family.aggregate == "pooled" or weighted or not keep.any():
            out[name] = None
            continue
        out[name] = mean_ci(result.values[keep, i], level=level, method=method, n_resamples=n_resamples, seed=seed)
    return out


def intervals_as_dict(intervals: dict[str, ConfidenceInterval | None]) -> dict[str, Any]:
    """JSON-ready ``{name: {"low", "high", "level", "method"}}`` (None for measures without a CI)."""
    return {
        name: None if ci is None else {"low": ci.low, "high": ci.high, "level": ci.level, "method": ci.method}
        for name, ci in intervals.items()
    }
