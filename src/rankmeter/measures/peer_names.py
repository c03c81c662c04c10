"""Other tools' names for rankmeter's measures: ranx, ir_measures, torchmetrics, scikit-learn, keras-rs.

Three kinds of entry, all read by :mod:`rankmeter.measures.grammar`:

* :data:`ALIASES` -- another spelling of a family (``NumRet`` -> ``num_ret``); merged into
  :data:`rankmeter.measures.ALIASES` by the registry.
* :data:`PRESETS` -- a name that stands for a family with parameters
  (ranx's ``ndcg_burges`` is ``ndcg(gain=exp)``); the canonical name spells the parameters out.
* Parameter spellings: :data:`PARAM_ALIASES` (ir_measures' ``rel=`` is ``min_rel=``, ``gains=`` is
  ``gain=``), :data:`PARAM_VALUES` (ir_measures' ``nDCG(dcg=exp-log2)`` is ``gain=exp``),
  :data:`CUTOFF_PARAMS` (ir_measures' ``IPrec@0.5`` is a recall level, not a cutoff, with
  pytrec_eval's rounding) and
  :data:`FAMILY_BY_PARAM` (ir_measures' ``NumRet(rel=1)`` counts relevant retrieved documents).

Each name is checked against the tool itself in ``tests/oracles/test_oracle_peer_names.py``.

>>> PRESETS["ndcg_burges"], ALIASES["numret"], PARAM_VALUES[("dcg", "exp-log2")]
(('ndcg', (('gain', 'exp'),)), 'num_ret', ('gain', 'exp'))
"""

from __future__ import annotations

ALIASES: dict[str, str] = {
    # ir_measures
    "numret": "num_ret",
    "numq": "num_q",
    "numrel": "num_rel",
    "numrelret": "num_rel_ret",
    "setp": "set_p",
    "setr": "set_recall",
    "setf": "set_f",
    "setap": "set_map",
    # torchmetrics
    "fallout": "fall_out",
    # scikit-learn
    "top_k_accuracy": "success",
    "top_k_accuracy_score": "success",
    "label_ranking_average_precision_score": "lrap",
    "label_ranking_average_precision": "lrap",
}

PRESETS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    # ranx: Burges et al.'s exponential gain
    "ndcg_burges": ("ndcg", (("gain", "exp"),)),
    "dcg_burges": ("dcg", (("gain", "exp"),)),
    # torchmetrics' RetrievalFallOut / RetrievalAUROC on a list whose items are all relevant (AUROC: with
    # ties="expected" for its tied pairs)
    "retrieval_fall_out": ("fall_out", (("all_relevant", "1"),)),
    "retrieval_auroc": ("auroc", (("all_relevant", "0"),)),
}

PARAM_ALIASES: dict[str, str] = {"rel": "min_rel", "gains": "gain", "T": "t"}  # T: ir_measures' C/W/L target

PARAM_VALUES: dict[tuple[str, str], tuple[str, str]] = {
    ("dcg", "log2"): ("gain", "linear"),
    ("dcg", "exp-log2"): ("gain", "exp"),
}

# ir_measures' IPrec@x: x is the recall level; its values are pytrec_eval's (trec_eval 9: floor(xR + 0.9))
CUTOFF_PARAMS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "iprec_at_recall": ("recall", (("offset", "0.9"),)),
}

FAMILY_BY_PARAM: dict[tuple[str, str], str] = {("num_ret", "min_rel"): "num_rel_ret"}
