"""The measure families trec_eval computes beyond rankmeter's core set (merged into the registry).

When the measure tables are first used, :func:`rankmeter.measures.registry.tables`
merges :data:`FAMILIES` and :data:`ALIASES` into them, so every family here
is reachable from :func:`rankmeter.evaluate`, ``rankmeter evaluate -m`` and
``rankmeter measures``. The kernels live in :mod:`rankmeter.measures.kernels.trec`.

======================================  ===============================  =====================
rankmeter name                          trec_eval name                   aggregate
======================================  ===============================  =====================
``gm_map``                              ``gm_map``                       geometric mean
``bpref`` / ``gm_bpref``                ``bpref`` / ``gm_bpref``         mean / geometric mean
``infap``                               ``infAP``                        mean
``iprec_at_recall(recall=x)``           ``iprec_at_recall_x``            mean
``iprec_avg`` / ``iprec_avg(levels=[..])``  ``11pt_avg``                 mean
``rprec_mult(mult=x)``                  ``Rprec_mult_x``                 mean
``utility(a=,b=,c=,d=,collection=)``    ``utility``                      mean
``bing`` / ``g(gain=..)``               ``binG`` / ``G``                 mean
``ndcg_rel`` / ``rndcg``                ``ndcg_rel`` / ``Rndcg``         mean
``relative_p@k``                        ``relative_P_k``                 mean
``set_p`` ``set_recall`` ``set_relative_p`` ``set_map`` ``set_f(beta=)``  ``set_*``  mean
``num_nonrel_judged_ret``               ``num_nonrel_judged_ret``        sum
``rbp(p=,gain=)`` / ``rbp_resid(p=)``   ``rbp`` / ``rbp_resid``          mean
``unj@k``                               ``unj_k``                        mean
``yaap``                                ``yaap``                         mean
======================================  ===============================  =====================

``utility``, ``unj``, ``rbp``, ``rbp_resid`` and ``yaap`` are defined for queries
without relevant documents (``needs_relevant=False``: the empty-query policy
keeps their values). ``gm_*`` families declare ``aggregate="gmean"``: the geometric mean of the
per-query values floored at 1e-5, :math:`\\exp(\\frac{1}{Q}\\sum_q \\log\\max(v_q, 10^{-5}))`.

>>> from rankmeter.measures import parse
>>> str(parse("iprec_at_recall(recall=0.20)")), str(parse("Rprec_mult(mult=2)")), str(parse("unj@[5,10]"))
('iprec_at_recall(recall=0.2)', 'rprec_mult(mult=2)', 'unj@[5,10]')
>>> str(parse("iprec_avg(levels=[0.2, .5, 0.8])")), str(parse("infAP")), str(parse("rbp(p=0.95)"))
('iprec_avg(levels=[0.2,0.5,0.8])', 'infap', 'rbp(p=0.95)')
"""

from __future__ import annotations

import math
from typing import Any

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures.family import GAIN, MIN_REL, Family, Param
from rankmeter.measures.kernels import average_precision
from rankmeter.measures.kernels.trec import average, gain, interpolated, preference, rbp, sets
from rankmeter.measures.params import format_number
from rankmeter.measures.traits import Traits


class RecallLevels(tuple):  # type: ignore[type-arg]
    """An ordered tuple of recall levels that prints as ``[0,0.1,0.5]`` inside a measure name.

    >>> str(RecallLevels((0.0, 0.25, 1.0)))
    '[0,0.25,1]'
    """

    def __str__(self) -> str:
        return "[" + ",".join(format_number(x) for x in self) + "]"


def _finite(value: Any, what: str, family: str) -> float:
    """``value`` as a finite float, or :class:`MeasureSyntaxError` naming the measure."""
    try:
        x = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        x = math.nan
    if not math.isfinite(x):
        raise MeasureSyntaxError(f"measure {family!r}: {what} must be a finite number, got {value!r}")
    return x


def _number_param(
    what: str, default: float | None, doc: str, low: float | None = None, high: float | None = None
) -> Param:
    def check(value: Any, family: str) -> float | None:
        if value is None:
            return None
        x = _finite(value, what, family)
        if (low is not None and x < low) or (high is not None and x > high):
            raise MeasureSyntaxError(f"measure {family!r}: {what} must lie in [{low}, {high}], got {value!r}")
        return x

    return Param(default, lambda text, source: check(text, source), check, doc)


def _check_levels(value: Any, family: str) -> RecallLevels:
    if isinstance(value, str):
        text = value.strip()
        if len(text) < 2 or text[0] not in "[(" or text[-1] not in "])":
            raise MeasureSyntaxError(f"measure {family!r}: levels must look like [0,0.5,1], got {value!r}")
        value = [t for t in (s.strip() for s in text[1:-1].split(",")) if t]
    try:
        items = list(value)
    except TypeError:
        raise MeasureSyntaxError(f"measure {family!r}: levels must be a list of numbers, got {value!r}") from None
    if not items:
        raise MeasureSyntaxError(f"measure {family!r}: levels must not be empty")
    return RecallLevels(_finite(x, "recall level", family) for x in items)


RECALL = _number_param("recall", None, "recall level x in [0, 1] (required); trec_eval iprec_at_recall_x")
LEVELS = Param(
    RecallLevels(interpolated.ELEVEN_POINTS),
    lambda text, source: _check_levels(text, source),
    _check_levels,
    "recall levels averaged over, e.g. [0.2,0.5,0.8] (default: the 11 levels 0, 0.1, ..., 1)",
)
OFFSET = _number_param(
    "offset",
    0.5,
    "recall level x counts floor(x R + offset) relevant documents: 0.5 as "
    "trec_eval 10, 0.9 as trec_eval 9 and pytrec_eval",
    0.0,
    1.0,
)
MULT = _number_param("mult", 1.0, "multiple of R giving the cutoff floor(mult R + 0.9); trec_eval Rprec_mult_x")
BETA = _number_param("beta", 1.0, "relative weight of recall against precision; trec_eval set_F.x")
PERSISTENCE = _number_param("p", 0.9, "persistence: probability of going on to the next document", 0.0, 1.0)
COEF_A = _number_param("a", 1.0, "utility weight of a relevant retrieved document")
COEF_B = _number_param("b", -1.0, "utility weight of a non-relevant retrieved document")
COEF_C = _number_param("c", 0.0, "utility weight of a relevant document not retrieved")
COEF_D = _number_param("d", 0.0, "utility weight of a non-relevant document not retrieved")
COLLECTION = _number_param("collection", 0.0, "number of documents in the collection (trec_eval -N)", 0.0)

_BINARY = {"min_rel": MIN_REL}

FAMILIES: list[Family] = [
    Family(
        "gm_map",
        average_precision.average_precision,
        "AP per query, geometric mean over queries (AP floored at 1e-5)",
        cutoff="none",
        params=_BINARY,
        aggregate="gmean",
        trec_name="gm_map",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "bpref",
        preference.bpref,
        "binary preference: relevant documents ranked above judged non-relevant ones (unjudged skipped)",
        cutoff="none",
        params=_BINARY,
        trec_name="bpref",
    ),
    Family(
        "gm_bpref",
        preference.bpref,
        "bpref per query, geometric mean over queries (floored at 1e-5)",
        cutoff="none",
        params=_BINARY,
        aggregate="gmean",
        trec_name="gm_bpref",
    ),
    Family(
        "infap",
        preference.infap,
        "inferred AP (Yilmaz & Aslam): AP estimated from a sampled judgment pool",
        cutoff="none",
        params=_BINARY,
        trec_name="infAP",
    ),
    Family(
        "iprec_at_recall",
        interpolated.iprec_at_recall,
        "interpolated precision at a recall level: best precision at that recall or beyond",
        cutoff="none",
        params={"recall": RECALL, "offset": OFFSET, "min_rel": MIN_REL},
        trec_name="iprec_at_recall_x",
        example="(recall=0.5)",
    ),
    Family(
        "iprec_avg",
        interpolated.iprec_avg,
        "mean interpolated precision over recall levels (11-point average by default)",
        cutoff="none",
        params={"levels": LEVELS, "offset": OFFSET, "min_rel": MIN_REL},
        trec_name="11pt_avg",
    ),
    Family(
        "rprec_mult",
        interpolated.rprec_mult,
        "precision at floor(mult R + 0.9) documents",
        cutoff="none",
        params={"mult": MULT, "min_rel": MIN_REL},
        trec_name="Rprec_mult_x",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "utility",
        sets.utility,
        "linear utility a.relret + b.nonrelret + c.relmissed + d.nonrelmissed",
        cutoff="none",
        params={"a": COEF_A, "b": COEF_B, "c": COEF_C, "d": COEF_D, "collection": COLLECTION, "min_rel": MIN_REL},
        trec_name="utility",
        needs_relevant=False,
        traits=Traits(expected_ties=True, zero_without_results=True),
    ),
    Family(
        "bing",
        gain.bing,
        "binary G: mean over relevant documents of 1 / log2(2 + non-relevant above)",
        cutoff="none",
        params=_BINARY,
        trec_name="binG",
    ),
    Family(
        "g",
        gain.g,
        "trec_eval's G: gain discounted by the gain still missing at each rank",
        cutoff="none",
        params={"gain": GAIN},
        trec_name="G",
    ),
    Family(
        "ndcg_rel",
        gain.ndcg_rel,
        "nDCG averaged over the relevant documents",
        cutoff="none",
        params={"gain": GAIN},
        trec_name="ndcg_rel",
    ),
    Family(
        "rndcg",
        gain.rndcg,
        "nDCG averaged at the ranks where the ideal gain level changes",
        cutoff="none",
        params={"gain": GAIN, "min_rel": MIN_REL},
        trec_name="Rndcg",
    ),
    Family(
        "relative_p",
        sets.relative_p,
        "relevant in the top k / min(k, R)",
        cutoff="required",
        params=_BINARY,
        trec_name="relative_P_k",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "set_p",
        sets.set_p,
        "relevant retrieved / retrieved (the whole list as a set)",
        cutoff="none",
        params=_BINARY,
        trec_name="set_P",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "set_recall",
        sets.set_recall,
        "relevant retrieved / R",
        cutoff="none",
        params=_BINARY,
        trec_name="set_recall",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "set_relative_p",
        sets.set_relative_p,
        "relevant retrieved / min(retrieved, R)",
        cutoff="none",
        params=_BINARY,
        trec_name="set_relative_P",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "set_map",
        sets.set_map,
        "set precision x set recall",
        cutoff="none",
        params=_BINARY,
        trec_name="set_map",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "set_f",
        sets.set_f,
        "F-beta of set precision and set recall",
        cutoff="none",
        params={"beta": BETA, "min_rel": MIN_REL},
        trec_name="set_F",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "num_nonrel_judged_ret",
        sets.num_nonrel_judged_ret,
        "number of retrieved documents judged non-relevant",
        cutoff="none",
        params=_BINARY,
        aggregate="sum",
        trec_name="num_nonrel_judged_ret",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "rbp",
        rbp.rbp,
        "rank-biased precision (1 - p) sum g_i p^(i-1), gains scaled into [0, 1]",
        cutoff="none",
        params={"p": PERSISTENCE, "gain": GAIN},
        trec_name="rbp",
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "rbp_resid",
        rbp.rbp_resid,
        "RBP residual: the most RBP could gain from unjudged documents",
        cutoff="none",
        params={"p": PERSISTENCE},
        trec_name="rbp_resid",
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "unj",
        sets.unj,
        "unjudged documents in the top k / k",
        cutoff="required",
        trec_name="unj_k",
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "yaap",
        average.yaap,
        "yet another AP (Robertson): log((1 + R AP) / (1 + R - R AP))",
        cutoff="none",
        params=_BINARY,
        trec_name="yaap",
        needs_relevant=False,
    ),
]

ALIASES: dict[str, str] = {
    "ideal_dcg": "idcg",
    "gmap": "gm_map",
    "iprec": "iprec_at_recall",
    "rbp_residual": "rbp_resid",
    "unjudged": "unj",
    "relative_precision": "relative_p",
    "set_precision": "set_p",
}
