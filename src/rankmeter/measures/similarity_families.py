"""The judgment-free families of :func:`rankmeter.similarity`: rank-biased overlap and rank correlations.

They compare two runs, not a run with judgments, so they are not in
:data:`rankmeter.measures.FAMILIES` (``rankmeter.evaluate`` cannot compute
them); they are :class:`~rankmeter.measures.family.Family` rows all the
same, with :class:`~rankmeter.measures.family.Param` parameters, so that the
name parser (:mod:`rankmeter.agreement.names`), ``rankmeter measures`` and
the docs read one table. The cutoff ``@k`` is the depth both lists are cut
at; ``rbo_prefix`` requires it.

>>> [f.name for f in FAMILIES], ALIASES
(['rbo', 'rbo_min', 'rbo_max', 'rbo_res', 'rbo_prefix', 'kendall_tau', 'tau_ap'], {'rbo_ext': 'rbo'})
>>> PERSISTENCE.parse("0.8", "rbo(p=0.8)")
0.8
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures.family import Family, Param


def _check_p(value: Any, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise MeasureSyntaxError(f"measure {source!r}: p must be a number, got {value!r}")
    p = float(value)
    if not 0.0 < p < 1.0:
        raise MeasureSyntaxError(f"measure {source!r}: p must lie strictly between 0 and 1, got {p!r}")
    return p


def _parse_p(text: str, source: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise MeasureSyntaxError(f"measure {source!r}: p must be a number, got {text.strip()!r}") from None
    return _check_p(value, source)


PERSISTENCE = Param(0.9, _parse_p, _check_p, "RBO's persistence, strictly between 0 and 1 (the chance to go on)")


def _two_runs(ctx: Any, measure: Any) -> np.ndarray:
    """The kernel slot of a judgment-free family: its values compare two runs (:func:`rankmeter.similarity`)."""
    raise MeasureSyntaxError(f"measure {str(measure)!r} compares two runs: compute it with rankmeter.similarity")


def _rbo(name: str, description: str, cutoff: str = "optional") -> Family:
    return Family(name, _two_runs, description, cutoff=cutoff, params={"p": PERSISTENCE})


FAMILIES: list[Family] = [
    _rbo("rbo", "rank-biased overlap, extrapolated (RBO_EXT, eq. 32 of Webber, Moffat & Zobel 2010)"),
    _rbo("rbo_min", "RBO's lower bound: every unseen item disagrees"),
    _rbo("rbo_max", "RBO's upper bound: every unseen item agrees"),
    _rbo("rbo_res", "RBO's residual, rbo_max - rbo_min"),
    _rbo("rbo_prefix", "RBO summed to the depth k: (1 - p) sum_{d <= k} p^(d-1) A_d", cutoff="required"),
    Family("kendall_tau", _two_runs, "Kendall's tau between the items both lists hold"),
    Family("tau_ap", _two_runs, "AP rank correlation (Yilmaz, Aslam & Robertson 2008) of the items both lists hold"),
]
"""RBO's forms (extrapolated, lower and upper bounds, residual, prefix sum) and the rank correlations."""

ALIASES = {"rbo_ext": "rbo"}
"""Other spellings of a family."""
