"""Measure families of other IR evaluation tools: C/W/L (cwl_eval, via ir_measures), Compat, NTCIREVAL, PyKEEN.

When the measure tables are first used, :func:`rankmeter.measures.registry.tables` merges
:data:`FAMILIES` and :data:`ALIASES` into them. The kernels live in
:mod:`rankmeter.measures.kernels.cwl`, :mod:`~rankmeter.measures.kernels.compat`,
:mod:`~rankmeter.measures.kernels.ntcir` and :mod:`~rankmeter.measures.kernels.rank_stats`.

=====================================  =====================================  ==================
rankmeter name                         peer's name                            ties="expected"
=====================================  =====================================  ==================
``insq(t=,max_rel=)``                  ir_measures ``INSQ(T=,max_rel=)``      exact
``inst(t=,max_rel=)``                  ir_measures ``INST(T=,max_rel=)``      PolicyError
``bpm(t=,max_rel=)@k``                 ir_measures ``BPM(T=,max_rel=)@k``     PolicyError
``nerr8(max_rel=)@k`` ``nerr9``        ir_measures ``NERR8`` ``NERR9``        PolicyError
``nerr10(p=,max_rel=)`` ``nerr11``     ir_measures ``NERR10`` ``NERR11``      PolicyError
=====================================  =====================================  ==================

>>> from rankmeter.measures import parse
>>> str(parse("INST(T=2.0, max_rel=1)")), str(parse("BPM(T=1, max_rel=3)@20")), str(parse("NERR10(p=0.8,max_rel=1)"))
('inst(max_rel=1,t=2)', 'bpm(max_rel=3)@20', 'nerr10(max_rel=1,p=0.8)')
"""

from __future__ import annotations

import math
from typing import Any

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures.family import Family, Param
from rankmeter.measures.kernels import cwl


def _finite(value: Any, what: str, family: str) -> float:
    """``value`` (a number or its text) as a finite float, or :class:`MeasureSyntaxError` naming the measure."""
    try:
        x = math.nan if isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        x = math.nan
    if not math.isfinite(x):
        raise MeasureSyntaxError(f"measure {family!r}: {what} must be a finite number, got {value!r}")
    return x


def _param(what: str, default: float | None, doc: str, *, low: float = -math.inf, open_low: bool = False) -> Param:
    def check(value: Any, family: str) -> float | None:
        if value is None and default is None:
            return None
        x = _finite(value, what, family)
        if x < low or (open_low and x == low):
            bound = f"> {low:g}" if open_low else f">= {low:g}"
            raise MeasureSyntaxError(f"measure {family!r}: {what} must be {bound}, got {value!r}")
        return x

    return Param(default, lambda text, source: check(text, source), check, doc)


def _check_share(value: Any, family: str) -> float:
    x = _finite(value, "p", family)
    if not 0 <= x <= 1:
        raise MeasureSyntaxError(f"measure {family!r}: p must lie in [0, 1], got {value!r}")
    return x


TARGET = _param("t", 1.0, "T: the total gain wanted (gains scaled into [0, 1]); ir_measures' T", low=0, open_low=True)
LOW = _param("min_rel", 0.0, "grade whose gain is 0 (and lower ones): g = (clip(r, min_rel, max_rel) - min_rel) / span")
HIGH = _param("max_rel", None, "grade whose gain is 1 (higher grades too); required, as in ir_measures")
PERSIST = Param(0.9, lambda text, source: _check_share(text, source), _check_share, "persistence phi of NERR eq. 10")

_CWL = {"t": TARGET, "min_rel": LOW, "max_rel": HIGH}
_SCALE = {"min_rel": LOW, "max_rel": HIGH}

FAMILIES: list[Family] = [
    Family(
        "insq",
        cwl.insq,
        "C/W/L INSQ: C_i = ((i + 2T - 1) / (i + 2T))^2 (cwl_eval, ir_measures INSQ)",
        cutoff="none",
        params=_CWL,
    ),
    Family(
        "inst",
        cwl.inst,
        "C/W/L INST: C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - gain so far (ir_measures INST)",
        cutoff="none",
        params=_CWL,
    ),
    Family(
        "bpm",
        cwl.bpm,
        "C/W/L static Bejewelled Player Model: gain / ranks read, stopping at gain T or rank k (ir_measures BPM)",
        cutoff="required",
        params=_CWL,
    ),
    Family(
        "nerr8",
        cwl.nerr8,
        "C/W/L NERR eq. 8: C_i = 1 - g_i before rank k (ir_measures NERR8)",
        cutoff="required",
        params=_SCALE,
    ),
    Family(
        "nerr9",
        cwl.nerr9,
        "C/W/L NERR eq. 9: C_i = i / (i + 1) (1 - g_i) before rank k (ir_measures NERR9)",
        cutoff="required",
        params=_SCALE,
    ),
    Family(
        "nerr10",
        cwl.nerr10,
        "C/W/L NERR eq. 10: C_i = p (1 - g_i) (ir_measures NERR10)",
        cutoff="none",
        params={"p": PERSIST, **_SCALE},
    ),
    Family(
        "nerr11",
        cwl.nerr11,
        "C/W/L NERR eq. 11: C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i) (ir_measures NERR11)",
        cutoff="none",
        params=_CWL,
    ),
]

ALIASES: dict[str, str] = {}
