"""The diversity measure families (intent-aware and novelty-biased), merged into the registry.

They are computed over intent (subtopic) qrels by
:func:`rankmeter.evaluate_diversity` and ``rankmeter ndeval``; the kernels
live in :mod:`rankmeter.measures.kernels.diversity`, whose docstring gives
every formula.

=======================================  ==========================  ===================================
rankmeter name                           NIST ndeval column          ir_measures name
=======================================  ==========================  ===================================
``alpha_ndcg(alpha=)@k``                 ``alpha-nDCG@k``            ``alpha_nDCG(alpha=)@k``
``alpha_dcg(alpha=)@k``                  ``alpha-DCG@k``             ``alpha_DCG(alpha=)@k``
``err_ia@k`` / ``nerr_ia@k``             ``ERR-IA@k`` / ``nERR-IA@k``  ``ERR_IA@k`` / ``nERR_IA@k``
``nrbp(alpha=,beta=)`` / ``nnrbp(..)``   ``NRBP`` / ``nNRBP``        ``NRBP`` / ``nNRBP``
``map_ia``                               ``MAP-IA``                  ``AP_IA``
``p_ia@k``                               ``P-IA@k``                  ``P_IA@k``
``strec@k``                              ``strec@k``                 ``StRecall@k``
``ndcg_ia@k``                            --                          --
=======================================  ==========================  ===================================

Every family takes ``min_rel`` (ir_measures' ``rel``: a judgment is relevant
when its grade is >= min_rel; default > 0). ``err_ia`` and ``nerr_ia`` use
alpha = 0.5 as ndeval does (it passes no alpha to them either), and accept
``alpha=`` to change it.

>>> from rankmeter.measures import parse
>>> str(parse("alpha_nDCG(alpha=0.5)@20")), str(parse("ERR_IA@[5,10]")), str(parse("NRBP(beta=0.8)"))
('alpha_ndcg@20', 'err_ia@[5,10]', 'nrbp(beta=0.8)')
>>> str(parse("StRecall@10")), str(parse("AP_IA(rel=2)")), str(parse("P_IA@5"))
('strec@10', 'map_ia(min_rel=2)', 'p_ia@5')
"""

from __future__ import annotations

import math
from typing import Any

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures.family import MIN_REL, Family, Param
from rankmeter.measures.kernels import deferred


def _probability(what: str) -> Param:
    def check(value: Any, family: str) -> float:
        try:
            x = float(value) if not isinstance(value, bool) else math.nan
        except (TypeError, ValueError):
            x = math.nan
        if not 0.0 <= x <= 1.0:
            raise MeasureSyntaxError(f"measure {family!r}: {what} must be a number in [0, 1], got {value!r}")
        return x

    return Param(0.5, lambda text, source: check(text, source), check, f"{what} in [0, 1] (default 0.5, ndeval's)")


ALPHA = _probability("alpha")
"""Redundancy penalty: a document's gain for an intent already covered n times is (1 - alpha)^n."""
BETA = _probability("beta")
"""Patience of NRBP: the chance of moving on to the next rank."""

_NOVELTY = {"alpha": ALPHA, "min_rel": MIN_REL}
_BINARY = {"min_rel": MIN_REL}

FAMILIES = [
    Family(
        "alpha_ndcg",
        deferred("diversity", "alpha_ndcg"),
        "alpha-nDCG@k: novelty-discounted DCG over that of the greedy ideal ranking (ndeval)",
        cutoff="required",
        params=_NOVELTY,
        reads="intents",
    ),
    Family(
        "alpha_dcg",
        deferred("diversity", "alpha_dcg"),
        "alpha-DCG@k over the ideal-ideal (every intent covered at every rank; ndeval's alpha-DCG)",
        cutoff="required",
        params=_NOVELTY,
        reads="intents",
    ),
    Family(
        "err_ia",
        deferred("diversity", "err_ia"),
        "intent-aware ERR@k, novelty-discounted, over the ideal-ideal (ndeval's ERR-IA)",
        cutoff="required",
        params=_NOVELTY,
        reads="intents",
    ),
    Family(
        "nerr_ia",
        deferred("diversity", "nerr_ia"),
        "intent-aware ERR@k over that of the greedy ideal ranking (ndeval's nERR-IA)",
        cutoff="required",
        params=_NOVELTY,
        reads="intents",
    ),
    Family(
        "nrbp",
        deferred("diversity", "nrbp"),
        "novelty- and rank-biased precision over the whole list (ndeval's NRBP)",
        cutoff="none",
        params={"alpha": ALPHA, "beta": BETA, "min_rel": MIN_REL},
        reads="intents",
    ),
    Family(
        "nnrbp",
        deferred("diversity", "nnrbp"),
        "NRBP over that of the greedy ideal ranking (ndeval's nNRBP)",
        cutoff="none",
        params={"alpha": ALPHA, "beta": BETA, "min_rel": MIN_REL},
        reads="intents",
    ),
    Family(
        "map_ia",
        deferred("diversity", "map_ia"),
        "intent-aware average precision: weighted mean over intents of AP per intent (ndeval's MAP-IA)",
        cutoff="none",
        params=_BINARY,
        reads="intents",
    ),
    Family(
        "p_ia",
        deferred("diversity", "p_ia"),
        "intent-aware precision@k: weighted mean over intents of P@k per intent (ndeval's P-IA)",
        cutoff="required",
        params=_BINARY,
        reads="intents",
    ),
    Family(
        "strec",
        deferred("diversity", "strec"),
        "subtopic recall@k: intents covered in the top k / intents with a relevant document",
        cutoff="required",
        params=_BINARY,
        reads="intents",
    ),
    Family(
        "ndcg_ia",
        deferred("diversity", "ndcg_ia"),
        "intent-aware nDCG@k: weighted mean over intents of nDCG@k per intent (grades as gains)",
        params=_BINARY,
        reads="intents",
    ),
]
"""The diversity families; :func:`rankmeter.measures.registry.tables` adds them to the catalogue."""

NAMES = frozenset(f.name for f in FAMILIES)
"""Names of the families that need intent qrels."""

ALIASES = {
    "ap_ia": "map_ia",
    "strecall": "strec",
    "subtopic_recall": "strec",
    "precision_ia": "p_ia",
}
"""Other spellings (ir_measures' names lower-cased) of the diversity families."""
