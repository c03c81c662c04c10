"""The recommender libraries' own definitions, where their number is not a rankmeter measure with parameters.

=====================================  ========================================  ===========================
rankmeter name                         peer function                             aggregate
=====================================  ========================================  ===========================
``implicit_p@k``                       implicit ``precision_at_k``               pooled: sum rel@k / sum min(k, R)
``implicit_auc(n_items=N)@k``          implicit ``AUC_at_k``                     mean
``rectools_ndcg@k``                    rectools ``NDCG(k)`` (default)            mean
``gauc``                               RecBole ``GAUC``                          pooled: weighted by R
=====================================  ========================================  ===========================

The formulas are in :mod:`rankmeter.measures.kernels.recsys`. A *pooled*
aggregate is a ratio of sums, :math:`\\sum_u w_u v_u / \\sum_u w_u`, with the
weights :math:`w_u` the family's ``pool`` kernel gives (implicit's precision is
:math:`\\sum_u rel@k_u / \\sum_u \\min(k, R_u)`, not a mean of per-user values).
Every other peer convention is a rankmeter measure with parameters and
policies: docs/measures.md lists them all.

>>> from rankmeter import evaluate
>>> qrels = {"u1": {"a": 1}, "u2": {"a": 1, "b": 1, "c": 1}}
>>> run = {"u1": {"x": 2, "a": 1}, "u2": {"a": 2, "b": 1}}
>>> res = evaluate(qrels, run, ["implicit_p@2", "relative_p@2"])
>>> res["implicit_p@2"], res["relative_p@2"]  # (1 + 2) / (1 + 2) against the mean of 1 and 1
(1.0, 1.0)
>>> res = evaluate(qrels, {"u1": {"x": 2, "a": 1}, "u2": {"a": 2, "y": 1}}, ["implicit_p@2", "relative_p@2"])
>>> res["implicit_p@2"], res["relative_p@2"]  # (1 + 1) / (1 + 2) against (1 + 1/2) / 2
(0.6666666666666666, 0.75)
"""

from __future__ import annotations

from typing import Any

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures.family import MIN_REL, Family, Param
from rankmeter.measures.kernels import label_ranking, recsys
from rankmeter.measures.kernels.trec import sets
from rankmeter.measures.traits import Traits


def _check_n_items(value: Any, family: str) -> int:
    try:
        n = int(value) if not isinstance(value, bool) and float(value) == int(float(value)) else 0
    except (TypeError, ValueError):
        n = 0
    if n < 1:
        raise MeasureSyntaxError(f"measure {family!r}: n_items must be a positive integer, got {value!r}")
    return n


N_ITEMS = Param(
    None,
    lambda text, source: _check_n_items(text, source),
    _check_n_items,
    "number of items in the catalogue (required: implicit's AUC counts every item of the catalogue)",
)

_BINARY = {"min_rel": MIN_REL}

FAMILIES = [
    Family(
        "implicit_p",
        sets.relative_p,
        "implicit's precision_at_k: rel@k / min(k, R), pooled: sum of rel@k / sum of min(k, R)",
        cutoff="required",
        params=_BINARY,
        aggregate="pooled",
        pool=recsys.min_k_relevant,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "implicit_auc",
        recsys.implicit_auc,
        "implicit's AUC_at_k: catalogue AUC (n_items=N) with the items below the top k in random order",
        cutoff="required",
        params={**_BINARY, "n_items": N_ITEMS},
        example="(n_items=10)",
        traits=Traits(expected_ties=True),
    ),
    Family(
        "rectools_ndcg",
        recsys.rectools_ndcg,
        "rectools' NDCG (divide_by_achievable=False): binary DCG@k / DCG of k relevant items",
        cutoff="required",
        params=_BINARY,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "gauc",
        label_ranking.auroc,
        "RecBole's GAUC: auroc per list, mean weighted by the list's relevant items (0 without non-relevant)",
        cutoff="none",
        params=_BINARY,
        aggregate="pooled",
        pool=recsys.ranked_relevant_count,
        traits=Traits(expected_ties=True),
    ),
]

ALIASES = {
    "implicit_precision_at_k": "implicit_p",
    "implicit_auc_at_k": "implicit_auc",
    "rectools_ndcg_at_k": "rectools_ndcg",
}
