"""rankmeter's core measure families: the graded and binary IR measures, the cascade measures and the
measures of other tools' names (ranx, torchmetrics, scikit-learn) that share their kernels.

:func:`rankmeter.measures.registry.tables` puts these rows first in the measure tables. A measure name
is looked up here before the other family modules are imported
(:func:`rankmeter.measures._tables.family_row`), so a job that asks only for these families never
loads the others; the registry refuses an alias that another module gives another meaning, so the
answer is the same as the whole table's.

>>> [f.name for f in FAMILIES][:4], ALIASES["mrr"], BY_NAME["map"].aggregate
(['ndcg', 'dcg', 'idcg', 'cg'], 'rr', 'mean')
"""

from __future__ import annotations

from rankmeter.measures.family import (
    AP_DIVISOR,
    DISCOUNT,
    GAIN,
    IDEAL,
    MAX_FPR,
    MIN_REL,
    P_DIVISOR,
    STOP_GAIN,
    STOP_GMAX,
    Family,
    all_relevant_param,
)
from rankmeter.measures.kernels import average_precision, counts, dcg, err, label_ranking, precision, reciprocal_rank
from rankmeter.measures.traits import Traits

_GRADED = {"gain": GAIN, "discount": DISCOUNT, "ideal": IDEAL}
_BINARY = {"min_rel": MIN_REL}

FAMILIES: list[Family] = [
    Family(
        "ndcg",
        dcg.ndcg,
        "normalised discounted cumulative gain, DCG@k / IDCG@k",
        params=_GRADED,
        trec_name="ndcg / ndcg_cut.k",
        traits=Traits(
            expected_ties=True,
            graded=True,
            ideal_dcg=True,
            full_as_cutoff=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            array_api="ndcg",
            keras="ndcg",
            hamming="ndcg",
            sampled="ndcg",
        ),
    ),
    Family(
        "dcg",
        dcg.dcg,
        "discounted cumulative gain, sum of g(r_i) d(i) over the top k",
        params={"gain": GAIN, "discount": DISCOUNT},
        trec_name="dcg",
        traits=Traits(
            expected_ties=True,
            graded=True,
            gain_sum=True,
            full_as_cutoff=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            defined_without_relevant=True,
            array_api="dcg",
            keras="dcg",
            hamming="dcg",
            sampled="dcg",
        ),
    ),
    Family(
        "idcg",
        dcg.idcg,
        "DCG of the ideal ranking at k",
        params=_GRADED,
        trec_name="ideal_dcg",
        traits=Traits(
            expected_ties=True,
            graded=True,
            gain_sum=True,
            ideal_dcg=True,
            full_as_cutoff=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            array_api="idcg",
            hamming="idcg",
        ),
    ),
    Family(
        "cg",
        dcg.cg,
        "cumulative gain, sum of g(r_i) over the top k (no discount)",
        params={"gain": GAIN},
        traits=Traits(
            expected_ties=True,
            graded=True,
            gain_sum=True,
            full_as_cutoff=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            array_api="cg",
            keras="cg",
            hamming="cg",
            sampled="cg",
        ),
    ),
    Family(
        "map",
        average_precision.average_precision,
        "average precision: sum of precision at each relevant rank <= k, / R (divisor=min: / min(R, k))",
        params={**_BINARY, "divisor": AP_DIVISOR},
        trec_name="map / map_cut.k",
        traits=Traits(
            expected_ties=True,
            full_as_cutoff=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            array_api="map",
            keras="map",
            hamming="map",
            sampled="ap",
        ),
    ),
    Family(
        "ap",
        average_precision.average_precision,
        "average precision (same as map; per-query name)",
        params={**_BINARY, "divisor": AP_DIVISOR},
        traits=Traits(
            expected_ties=True,
            full_as_cutoff=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            array_api="map",
            keras="map",
            hamming="map",
            sampled="ap",
        ),
    ),
    Family(
        "p",
        precision.precision,
        "precision: relevant in the top k / k (divisor=min: / min(k, list length))",
        cutoff="required",
        params={**_BINARY, "divisor": P_DIVISOR},
        trec_name="P.k",
        traits=Traits(
            expected_ties=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            array_api="p",
            keras="p",
            hamming="p",
            sampled="p",
        ),
    ),
    Family(
        "r",
        precision.recall,
        "recall: relevant in the top k / number relevant",
        params=_BINARY,
        trec_name="recall.k",
        traits=Traits(
            expected_ties=True,
            full_as_cutoff=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            array_api="r",
            keras="r",
            hamming="r",
            sampled="r",
        ),
    ),
    Family(
        "f1",
        precision.f1,
        "F1 of p@k and r@k: 2 rel@k / (k + R)",
        params=_BINARY,
        traits=Traits(
            expected_ties=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            array_api="f1",
            hamming="f1",
            sampled="f1",
        ),
    ),
    Family(
        "rr",
        reciprocal_rank.reciprocal_rank,
        "reciprocal rank of the first relevant document (0 past k)",
        params=_BINARY,
        trec_name="recip_rank",
        traits=Traits(
            expected_ties=True,
            full_as_cutoff=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            array_api="rr",
            keras="rr",
            hamming="rr",
            sampled="rr",
        ),
    ),
    Family(
        "rprec",
        precision.rprec,
        "R-precision: relevant in the top R / R (R = number relevant)",
        cutoff="none",
        params=_BINARY,
        trec_name="Rprec",
        traits=Traits(
            expected_ties=True,
            judged_items=True,
            positive_ideal=True,
            cut_at_relevant=True,
            array_api="rprec",
            hamming="rprec",
            sampled="rprec",
        ),
    ),
    Family(
        "success",
        precision.success,
        "1 if a relevant document is in the top k (hit rate)",
        cutoff="required",
        params=_BINARY,
        trec_name="success.k",
        traits=Traits(
            expected_ties=True,
            full_as_cutoff=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            array_api="success",
            keras="success",
            hamming="success",
            sampled="success",
        ),
    ),
    Family(
        "judged",
        precision.judged,
        "judged documents in the top k / k (divisor=min: / min(k, list length))",
        cutoff="required",
        params={"divisor": P_DIVISOR},
        needs_relevant=False,
        traits=Traits(
            expected_ties=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            counts_judged=True,
            array_api="judged",
            hamming="judged",
        ),
    ),
    Family(
        "acg",
        precision.acg,
        "average cumulative gain: mean grade of the top k",
        cutoff="required",
        traits=Traits(
            expected_ties=True, top_k=True, judged_items=True, positive_ideal=True, array_api="acg", hamming="acg"
        ),
    ),
    Family(
        "wap",
        average_precision.weighted_average_precision,
        "weighted average precision: AP with ACG@i in place of precision@i (multi-level relevance)",
        params=_BINARY,
        traits=Traits(
            expected_ties=True,
            full_as_cutoff=True,
            top_k=True,
            judged_items=True,
            positive_ideal=True,
            array_api="wap",
            hamming="wap",
        ),
    ),
    Family(
        "num_q",
        counts.num_q,
        "number of evaluated queries",
        cutoff="none",
        aggregate="sum",
        trec_name="num_q",
        traits=Traits(expected_ties=True, judged_items=True, positive_ideal=True, array_api="num_q", hamming="num_q"),
    ),
    Family(
        "num_ret",
        counts.num_ret,
        "number of documents retrieved",
        cutoff="none",
        aggregate="sum",
        trec_name="num_ret",
        traits=Traits(
            expected_ties=True, judged_items=True, positive_ideal=True, array_api="num_ret", hamming="num_ret"
        ),
    ),
    Family(
        "num_rel",
        counts.num_rel,
        "number of relevant judged documents",
        cutoff="none",
        params=_BINARY,
        aggregate="sum",
        trec_name="num_rel",
        traits=Traits(
            expected_ties=True, judged_items=True, positive_ideal=True, array_api="num_rel", hamming="num_rel"
        ),
    ),
    Family(
        "num_rel_ret",
        counts.num_rel_ret,
        "number of relevant documents retrieved",
        cutoff="none",
        params=_BINARY,
        aggregate="sum",
        trec_name="num_rel_ret",
        traits=Traits(
            expected_ties=True,
            judged_items=True,
            positive_ideal=True,
            array_api="num_rel_ret",
            hamming="num_rel_ret",
        ),
    ),
]


# the cascade family (Chapelle et al., CIKM 2009): stopping probability R(grade), gdeval's defaults
_CASCADE = {"gain": STOP_GAIN, "gmax": STOP_GMAX}
FAMILIES += [
    Family(
        "err",
        err.err,
        "expected reciprocal rank: sum of R_i / i * prod_{j<i} (1 - R_j)",
        params=_CASCADE,
        traits=Traits(expected_ties=True, judged_items=True),
    ),
    Family(
        "nerr",
        err.nerr,
        "ERR@k / ERR@k of the ideal ordering of all judged documents",
        params={**_CASCADE, "ideal": IDEAL},
        traits=Traits(expected_ties=True, judged_items=True),
    ),
]


# measures of other tools (ranx, torchmetrics, scikit-learn); their names are in peer_names
FAMILIES += [
    Family(
        "hits",
        precision.hits,
        "number of relevant documents in the top k (ranx hits)",
        params=_BINARY,
        traits=Traits(expected_ties=True, array_api="hits"),
    ),
    Family(
        "fall_out",
        precision.fall_out,
        "non-relevant items in the top k / non-relevant items of the list (torchmetrics)",
        params={**_BINARY, "all_relevant": all_relevant_param(0.0)},
        needs_relevant=False,
        traits=Traits(expected_ties=True, array_api="fall_out"),
    ),
    Family(
        "auroc",
        label_ranking.auroc,
        "share of (relevant, non-relevant) pairs ranked in order; ties 1/2 under expected (torchmetrics)",
        cutoff="none",
        params={**_BINARY, "all_relevant": all_relevant_param(1.0), "max_fpr": MAX_FPR},
        traits=Traits(expected_ties=True),
    ),
    Family(
        "lrap",
        label_ranking.lrap,
        "label ranking average precision, tied items at their group's lowest rank (scikit-learn)",
        cutoff="none",
        params=_BINARY,
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "coverage_error",
        label_ranking.coverage_error,
        "items scored >= the lowest-scored relevant item (scikit-learn)",
        cutoff="none",
        params=_BINARY,
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
    Family(
        "label_ranking_loss",
        label_ranking.label_ranking_loss,
        "share of (relevant, non-relevant) pairs with the non-relevant scored >= (scikit-learn)",
        cutoff="none",
        params=_BINARY,
        needs_relevant=False,
        traits=Traits(expected_ties=True),
    ),
]


ALIASES: dict[str, str] = {
    "precision": "p",
    "recall": "r",
    "mrr": "rr",
    "recip_rank": "rr",
    "r-prec": "rprec",
    "r_prec": "rprec",
    "r-precision": "rprec",
    "hit_rate": "success",
    "hit": "success",
    "f": "f1",
    "f1_score": "f1",
    "mean_average_precision": "map",
    "average_precision": "ap",
}

BY_NAME: dict[str, Family] = {f.name: f for f in FAMILIES}
"""The rows of :data:`FAMILIES` by canonical name."""
