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

import numpy as np

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures.family import GAIN, MIN_REL, Family, Param
from rankmeter.measures.kernels import compat, cwl, ntcir, rank_stats
from rankmeter.measures.traits import Traits


def _number(
    what: str,
    default: float | None,
    doc: str,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    positive: bool = False,
) -> Param:
    """A finite number parameter in [low, high] (and > 0 when ``positive``); ``None`` stays None without a default."""

    def check(value: Any, family: str) -> float | None:
        if value is None and default is None:
            return None
        try:
            x = math.nan if isinstance(value, bool) else float(value)
        except (TypeError, ValueError):
            x = math.nan
        if not math.isfinite(x):
            raise MeasureSyntaxError(f"measure {family!r}: {what} must be a finite number, got {value!r}")
        if positive and x <= 0:
            raise MeasureSyntaxError(f"measure {family!r}: {what} must be > 0, got {value!r}")
        if not low <= x <= high:
            raise MeasureSyntaxError(f"measure {family!r}: {what} must lie in [{low:g}, {high:g}], got {value!r}")
        return x

    return Param(default, lambda text, source: check(text, source), check, doc)


TARGET = _number("t", 1.0, "T: the total gain wanted (gains scaled into [0, 1]); ir_measures' T", positive=True)
LOW = _number("min_rel", 0.0, "grade whose gain is 0 (and lower ones): g = (clip(r, lo, hi) - lo) / (hi - lo)")
HIGH = _number("max_rel", None, "grade whose gain is 1 (higher grades too); required, as in ir_measures")
PERSISTENCE = _number("p", 0.9, "persistence: probability of going on to the next document", 0.0, 1.0)


def _check_bool(value: Any, family: str) -> bool:
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise MeasureSyntaxError(f"measure {family!r}: normalize must be true or false, got {value!r}")


RBO_P = _number("p", 0.95, "RBO persistence: the weight of depth d is p^(d-1)", 0.0, 1.0)
NORMALIZE = Param(
    True,
    lambda text, source: _check_bool(text, source),
    _check_bool,
    "divide by the ideal ranking's own RBO (ir_measures' normalize)",
)

_CWL = {"t": TARGET, "min_rel": LOW, "max_rel": HIGH}
_SCALE = {"min_rel": LOW, "max_rel": HIGH}

FAMILIES: list[Family] = [
    Family(
        "insq",
        cwl.insq,
        "C/W/L INSQ: C_i = ((i + 2T - 1) / (i + 2T))^2 (cwl_eval, ir_measures INSQ)",
        cutoff="none",
        params=_CWL,
        example="(max_rel=3)",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "inst",
        cwl.inst,
        "C/W/L INST: C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - gain so far (ir_measures INST)",
        cutoff="none",
        params=_CWL,
        example="(max_rel=3)",
    ),
    Family(
        "bpm",
        cwl.bpm,
        "C/W/L static Bejewelled Player Model: gain / ranks read, stopping at gain T or rank k (ir_measures BPM)",
        cutoff="required",
        params=_CWL,
        example="(max_rel=3)",
    ),
    Family(
        "nerr8",
        cwl.nerr8,
        "C/W/L NERR eq. 8: C_i = 1 - g_i before rank k (ir_measures NERR8)",
        cutoff="required",
        params=_SCALE,
        example="(max_rel=3)",
    ),
    Family(
        "nerr9",
        cwl.nerr9,
        "C/W/L NERR eq. 9: C_i = i / (i + 1) (1 - g_i) before rank k (ir_measures NERR9)",
        cutoff="required",
        params=_SCALE,
        example="(max_rel=3)",
    ),
    Family(
        "nerr10",
        cwl.nerr10,
        "C/W/L NERR eq. 10: C_i = p (1 - g_i) (ir_measures NERR10)",
        cutoff="none",
        params={"p": PERSISTENCE, **_SCALE},
        example="(max_rel=3)",
    ),
    Family(
        "nerr11",
        cwl.nerr11,
        "C/W/L NERR eq. 11: C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i) (ir_measures NERR11)",
        cutoff="none",
        params=_CWL,
        example="(max_rel=3)",
    ),
]

FAMILIES.append(
    Family(
        "compat",
        compat.compat,
        "compatibility: rank-biased overlap with the ideal ranking, over the ideal's own (ir_measures Compat)",
        cutoff="none",
        params={"p": RBO_P, "normalize": NORMALIZE},
    )
)

FAMILIES += [
    Family(
        "mean_rank",
        rank_stats.mean_rank,
        "mean rank of the relevant items of the list; lower is better (PyKEEN ArithmeticMeanRank)",
        cutoff="none",
        params={"min_rel": MIN_REL},
        traits=Traits(expected_ties=True),
    ),
    Family(
        "amri",
        rank_stats.amri,
        "adjusted mean rank index 1 - (MR - 1) / ((n + 1) / 2 - 1): 1 best, 0 chance (PyKEEN AMRI)",
        cutoff="none",
        params={"min_rel": MIN_REL},
        traits=Traits(expected_ties=True),
    ),
    Family(
        "mpr",
        rank_stats.mpr,
        "mean percentile rank (i - 1) / (n - 1) of the items, weighted by grade; lower is better",
        cutoff="none",
        traits=Traits(expected_ties=True),
    ),
]

Q_BETA = _number("beta", 1.0, "weight of the gain in the blended ratio (NTCIREVAL -beta)", 0.0)
RBU_P = _number("p", None, "persistence: a stop at rank i is worth p^i (NTCIREVAL -rbup); required", 0.0, 1.0)
RBU_GMAX = _number(
    "gmax", None, "highest grade: stopping probability g / (gain(gmax) + 1) (NTCIREVAL's top -g level); required", 0.0
)

FAMILIES += [
    Family(
        "q_measure",
        ntcir.q_measure,
        "Q-measure: AP with the blended ratio (C(i) + beta cg(i)) / (i + beta cg*(i)) (NTCIREVAL Q, Q@k)",
        params={"beta": Q_BETA, "gain": GAIN},
        traits=Traits(expected_ties=True),
    ),
    Family(
        "gap",
        ntcir.gap,
        "graded average precision with level weights l (l + 1), as NTCIREVAL -gap computes it",
    ),
    Family(
        "irbu",
        ntcir.irbu,
        "intentwise rank-biased utility: ERR's cascade, stop probability g / (g(gmax) + 1), worth p^i (NTCIREVAL)",
        params={"p": RBU_P, "gmax": RBU_GMAX, "gain": GAIN},
        example="(gmax=3,p=0.9)",
        traits=Traits(expected_ties=True),
    ),
]

ALIASES: dict[str, str] = {
    "q": "q_measure",
    "qmeasure": "q_measure",
    "q-measure": "q_measure",
    "graded_average_precision": "gap",
    "mr": "mean_rank",
    "arithmetic_mean_rank": "mean_rank",
    "adjusted_mean_rank_index": "amri",
    "adjusted_arithmetic_mean_rank_index": "amri",
    "aamri": "amri",
    "mean_percentile_rank": "mpr",
}
