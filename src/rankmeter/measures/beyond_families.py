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

import math
from typing import Any

import numpy as np

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures.family import Family, Param
from rankmeter.measures.kernels import beyond, beyond_expected, beyond_relevance
from rankmeter.measures.traits import Traits


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


ILD_METRIC = _choice(
    "metric", ("cosine", "euclidean", "hamming"), "cosine (1 - cos) | euclidean | hamming (features that differ)"
)
SET_METRIC = _choice("metric", ("cosine", "jaccard"), "cosine | jaccard similarity of two users' item sets")
HEAD = _number("head", beyond.HEAD_SHARE, 0.0, 1.0, "share of the catalogue, most popular first, in the head")
TAIL_MAX = _number("tail_max", None, 0.0, np.inf, "tail = items with at most this many training users")
_TAIL = {"head": HEAD, "tail_max": TAIL_MAX}
GAMMA = _number("gamma", beyond_relevance.GAMMA, 0.0, np.inf, "weight of a relevant item: max(N_i, 1)^-gamma")
ATTENTION = _choice("attention", ("ndcg", "rbp", "cascade"), "ndcg 1/log2(r+1) | rbp p^(r-1) | cascade")
PATIENCE = _number("patience", beyond_relevance.PATIENCE, 0.0, 1.0, "p of the rbp and cascade attention models")


def _check_group(value: Any, family: str) -> str:
    if not isinstance(value, str | int) or isinstance(value, bool) or str(value) == "":
        raise MeasureSyntaxError(f"measure {family!r}: group must be a group name of Items(groups=...), got {value!r}")
    return str(value)


GROUP = Param(None, lambda text, source: _check_group(text, source), _check_group, "the item group (Items(groups=))")
_EXPOSURE = {"attention": ATTENTION, "patience": PATIENCE}

FAMILIES = [
    Family(
        "catalog_coverage",
        beyond.catalog_coverage,
        "distinct items in the top-k lists / catalogue size (RecBole ItemCoverage, rectools CatalogCoverage)",
        cutoff="required",
        reads="lists",
        list_set=True,
        needs_relevant=False,
        traits=Traits(expected_ties=True, value_range=(0.0, 1.0)),
    ),
    Family(
        "entropy",
        beyond.entropy,
        "Shannon entropy in bits of the items' recommendation counts (MS Recommenders distributional_coverage)",
        cutoff="required",
        reads="lists",
        list_set=True,
        needs_relevant=False,
        traits=Traits(expected_ties=True, value_range=(0.0, math.inf)),
    ),
    Family(
        "recbole_entropy",
        beyond.recbole_entropy,
        "RecBole ShannonEntropy: natural-log entropy of the counts / the number of recommended items",
        cutoff="required",
        reads="lists",
        list_set=True,
        needs_relevant=False,
        traits=Traits(expected_ties=True, value_range=(0.0, math.inf)),
    ),
    Family(
        "gini",
        beyond.gini,
        "Gini index of the recommendation counts over the catalogue, unrecommended items 0 (RecBole GiniIndex)",
        cutoff="required",
        reads="lists",
        list_set=True,
        needs_relevant=False,
        traits=Traits(expected_ties=True, value_range=(0.0, 1.0)),
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
        traits=Traits(expected_ties=True, value_range=(0.0, 1.0)),
    ),
    Family(
        "novelty",
        beyond.novelty,
        "mean -log2(share of training users of each item), unseen items as seen once (rectools MeanInvUserFreq)",
        cutoff="required",
        reads="lists",
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "ms_novelty",
        beyond.ms_novelty,
        "MS Recommenders novelty: mean -log2(share of training interactions) over all recommendations",
        cutoff="required",
        reads="lists",
        list_set=True,
        needs_relevant=False,
        traits=Traits(expected_ties=True, value_range=(0.0, math.inf)),
    ),
    Family(
        "ild",
        beyond.ild,
        "intra-list diversity: mean distance between a list's item pairs (rectools IntraListDiversity)",
        cutoff="required",
        params={"metric": ILD_METRIC},
        reads="lists",
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "arp",
        beyond.arp,
        "average recommendation popularity: mean training interactions of a list's items (rectools)",
        cutoff="required",
        reads="lists",
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "aplt",
        beyond.aplt,
        "average percentage of long tail: share of a list's items in the tail (RecBole TailPercentage)",
        cutoff="required",
        params=_TAIL,
        reads="lists",
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "aclt",
        beyond.aclt,
        "average coverage of long tail: number of a list's items in the tail",
        cutoff="required",
        params=_TAIL,
        reads="lists",
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
]

FAMILIES += [
    Family(
        "ms_serendipity",
        beyond_relevance.ms_serendipity,
        "MS Recommenders serendipity: mean (1 - mean cosine to the user's training items) * relevance",
        cutoff="required",
        reads="lists",
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "rectools_serendipity",
        beyond_relevance.rectools_serendipity,
        "rectools Serendipity: mean max(p(rank) - p(popularity rank), 0) * relevance",
        cutoff="required",
        reads="lists",
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "pop_recall",
        beyond_relevance.pop_recall,
        "popularity-stratified recall: relevant items found, each weighted by max(N_i, 1)^-gamma (Steck)",
        cutoff="required",
        params={"gamma": GAMMA},
        reads="lists",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "exposure",
        beyond_relevance.exposure,
        "attention a list gives the items of one group, under a named attention model",
        cutoff="required",
        params={"group": GROUP, **_EXPOSURE},
        reads="lists",
        needs_relevant=False,
        example="(group=x)",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "exposure_ratio",
        beyond_relevance.exposure_ratio,
        "least / most exposed group's mean exposure per catalogue item (disparity ratio)",
        cutoff="required",
        params=_EXPOSURE,
        reads="lists",
        list_set=True,
        needs_relevant=False,
        traits=Traits(expected_ties=True, value_range=(0.0, 1.0)),
    ),
    Family(
        "exposure_diff",
        beyond_relevance.exposure_diff,
        "most - least exposed group's mean exposure per catalogue item (disparity difference)",
        cutoff="required",
        params=_EXPOSURE,
        reads="lists",
        list_set=True,
        needs_relevant=False,
        traits=Traits(expected_ties=True, value_range=(0.0, math.inf)),
    ),
]

EE_PATIENCE = _number("patience", beyond_expected.EE_PATIENCE, 0.0, 0.999, "gamma of the RBP browsing model")
FAMILIES += [
    Family(
        name,
        kernel,
        f"expected exposure (Diaz et al., CIKM 2020): {what}, over the sampled rankings of each user",
        cutoff="required",
        params={"patience": EE_PATIENCE},
        reads="lists",
        needs_relevant=False,
        traits=Traits(sampled_rankings=True, expected_ties=True),
    )
    for name, kernel, what in [
        ("ee_loss", beyond_expected.ee_loss, "EE-L, squared distance to the ideal stochastic ranker's exposure"),
        ("ee_disparity", beyond_expected.ee_disparity, "EE-D, sum of squared expected exposures"),
        ("ee_relevance", beyond_expected.ee_relevance, "EE-R, 2 x expected . target exposure"),
    ]
]
NAMES = frozenset(f.name for f in FAMILIES)

ALIASES = {
    "distributional_coverage": "entropy",
    "meaninvuserfreq": "novelty",
    "miuf": "novelty",
    "avgrecpopularity": "arp",
}
