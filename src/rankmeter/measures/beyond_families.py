"""The beyond-accuracy families (coverage, concentration, novelty, diversity, popularity bias).

Their kernels (:mod:`rankmeter.measures.kernels.beyond`, whose docstring gives every formula) read each
user's top-k list and the side information of :class:`rankmeter.Items` rather than grades
(``Family.reads == "lists"``); :func:`rankmeter.evaluate` routes them with ``items=``. Every one needs a
cutoff. ``list_set`` families give one value for the whole set of lists (``res.aggregate`` only).

>>> from rankmeter.measures import parse
>>> str(parse("ILD(metric=euclidean)@10")), str(parse("aplt(head=0.1)@[5,10]")), str(parse("MeanInvUserFreq@5"))
('ild(metric=euclidean)@10', 'aplt(head=0.1)@[5,10]', 'novelty@5')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures.family import Family, Param
from rankmeter.measures.kernels import beyond


def _choice(name: str, options: tuple[str, ...], doc: str) -> Param:
    def check(value: Any, family: str) -> str:
        if value not in options:
            raise MeasureSyntaxError(f"measure {family!r}: {name} must be one of {', '.join(options)}, got {value!r}")
        return str(value)

    return Param(options[0], lambda text, source: check(text, source), check, doc)


def _number(name: str, default: Any, low: float, high: float, doc: str) -> Param:
    def check(value: Any, family: str) -> float:
        try:
            x = float(value) if not isinstance(value, bool) else float("nan")
        except (TypeError, ValueError):
            x = float("nan")
        if not low <= x <= high:
            raise MeasureSyntaxError(f"measure {family!r}: {name} must be a number in [{low}, {high}], got {value!r}")
        return x

    return Param(default, lambda text, source: check(text, source), check, doc)


ILD_METRIC = _choice("metric", ("cosine", "euclidean"), "cosine (1 - cos) | euclidean distance of item features")
SET_METRIC = _choice("metric", ("cosine", "jaccard"), "cosine | jaccard similarity of two users' item sets")
HEAD = _number("head", beyond.HEAD_SHARE, 0.0, 1.0, "share of the catalogue, most popular first, in the head")
TAIL_MAX = _number("tail_max", None, 0.0, np.inf, "tail = items with at most this many training users")
_TAIL = {"head": HEAD, "tail_max": TAIL_MAX}

FAMILIES = [
    Family(
        "catalog_coverage",
        beyond.catalog_coverage,
        "distinct items in the top-k lists / catalogue size (RecBole ItemCoverage, rectools CatalogCoverage)",
        cutoff="required",
        reads="lists",
        list_set=True,
        needs_relevant=False,
    ),
    Family(
        "entropy",
        beyond.entropy,
        "Shannon entropy in bits of the items' recommendation counts (MS Recommenders distributional_coverage)",
        cutoff="required",
        reads="lists",
        list_set=True,
        needs_relevant=False,
    ),
    Family(
        "recbole_entropy",
        beyond.recbole_entropy,
        "RecBole ShannonEntropy: natural-log entropy of the counts / the number of recommended items",
        cutoff="required",
        reads="lists",
        list_set=True,
        needs_relevant=False,
    ),
    Family(
        "gini",
        beyond.gini,
        "Gini index of the recommendation counts over the catalogue, unrecommended items 0 (RecBole GiniIndex)",
        cutoff="required",
        reads="lists",
        list_set=True,
        needs_relevant=False,
    ),
    Family(
        "personalization",
        beyond.personalization,
        "1 - mean similarity of two users' lists over all pairs (recmetrics personalization)",
        cutoff="required",
        params={"metric": SET_METRIC},
        reads="lists",
        list_set=True,
        needs_relevant=False,
    ),
    Family(
        "novelty",
        beyond.novelty,
        "mean -log2(share of training users of each item), unseen items as seen once (rectools MeanInvUserFreq)",
        cutoff="required",
        reads="lists",
        needs_relevant=False,
    ),
    Family(
        "ms_novelty",
        beyond.ms_novelty,
        "MS Recommenders novelty: mean -log2(share of training interactions) over all recommendations",
        cutoff="required",
        reads="lists",
        list_set=True,
        needs_relevant=False,
    ),
    Family(
        "ild",
        beyond.ild,
        "intra-list diversity: mean distance between a list's item pairs (rectools IntraListDiversity)",
        cutoff="required",
        params={"metric": ILD_METRIC},
        reads="lists",
        needs_relevant=False,
    ),
    Family(
        "arp",
        beyond.arp,
        "average recommendation popularity: mean training interactions of a list's items (rectools)",
        cutoff="required",
        reads="lists",
        needs_relevant=False,
    ),
    Family(
        "aplt",
        beyond.aplt,
        "average percentage of long tail: share of a list's items in the tail (RecBole TailPercentage)",
        cutoff="required",
        params=_TAIL,
        reads="lists",
        needs_relevant=False,
    ),
    Family(
        "aclt",
        beyond.aclt,
        "average coverage of long tail: number of a list's items in the tail",
        cutoff="required",
        params=_TAIL,
        reads="lists",
        needs_relevant=False,
    ),
]

NAMES = frozenset(f.name for f in FAMILIES)

ALIASES = {
    "distributional_coverage": "entropy",
    "meaninvuserfreq": "novelty",
    "miuf": "novelty",
    "avgrecpopularity": "arp",
}
