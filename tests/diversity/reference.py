"""Plain versions of the diversity kernels' fast paths, kept to check those against."""

from __future__ import annotations

import numpy as np

from rankmeter.core.intents import IntentLists
from rankmeter.measures.kernels.diversity import Ideal, ideal_from_steps
from rankmeter.measures.kernels.segments import segment_sum


def greedy_ideal_by_document(
    lists: IntentLists, relevant: np.ndarray, weights: np.ndarray, alpha: float, depth: int | None
) -> Ideal:
    """ndeval's greedy ideal ranking, one step over every judged document of every query (the plain version)."""
    n_q = lists.n_queries
    rel_count = segment_sum(relevant.astype(np.float64), lists.pair_offsets)
    docs = np.flatnonzero(rel_count > 0)  # by (query, document id)
    doc_query = lists.doc_query[docs]
    rel_pairs = np.flatnonzero(relevant)
    pair_doc = lists.pair_doc[rel_pairs]
    local = np.searchsorted(docs, pair_doc)  # pairs sorted by document, so locals are non-decreasing
    intent = lists.pair_intent[rel_pairs]
    uniform = lists.intent_weights is None
    w = weights[intent]
    gains = np.ones(len(lists.intent_ids), dtype=np.float64)
    keep_factor = 1.0 - alpha
    out_query: list[np.ndarray] = []
    out_score: list[np.ndarray] = []
    step = 0
    while len(docs) and (depth is None or step < depth):
        g = gains[intent] if uniform else w * gains[intent]
        score = np.bincount(local, weights=g, minlength=len(docs))  # sequential: intent order, as ndeval sums
        first = np.concatenate(([True], doc_query[1:] != doc_query[:-1]))
        starts = np.flatnonzero(first)
        group = np.cumsum(first) - 1
        best = np.maximum.reduceat(score, starts)
        index = np.arange(len(docs))
        pick = np.maximum.reduceat(np.where(score == best[group], index, -1), starts)
        gaining = best > 0
        pick = pick[gaining]
        out_query.append(doc_query[pick])
        out_score.append(best[gaining])
        placed = np.zeros(len(docs), dtype=bool)
        placed[pick] = True
        gains[intent[placed[local]]] *= keep_factor
        keep = ~placed & gaining[group]
        pair_keep = keep[local]
        renumber = np.cumsum(keep) - 1
        docs, doc_query = docs[keep], doc_query[keep]
        local, intent, w = renumber[local[pair_keep]], intent[pair_keep], w[pair_keep]
        step += 1
    return ideal_from_steps(out_query, out_score, n_q)
