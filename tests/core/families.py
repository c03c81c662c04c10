"""The families of the core registry, listed by hand so that tests notice one going missing.

Other modules (the trec_eval set) may register more families, with parameters of their own.
"""

CORE_FAMILIES = [
    "ndcg",
    "dcg",
    "idcg",
    "cg",
    "map",
    "ap",
    "p",
    "r",
    "f1",
    "rr",
    "rprec",
    "success",
    "judged",
    "acg",
    "wap",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "err",
    "nerr",
    "hits",
    "fall_out",
    "auroc",
    "lrap",
    "coverage_error",
    "label_ranking_loss",
]
