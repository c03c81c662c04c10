"""Build :class:`RankedLists` from flattened per-list arrays (dense and ragged input)."""

from __future__ import annotations

import numpy as np

from rankmeter.core.ranked_lists import RankedLists
from rankmeter.core.ties import rank_order, tie_group_starts
from rankmeter.io.dense import FlatLists


def rank_flat_lists(flat: FlatLists, *, ties: str, seed: int | None = None) -> RankedLists:
    """Order each list by score under ``ties``; every item is judged and the ideal is the list itself.

    Query ids are the list indices as strings (``"0"``, ``"1"``, ...). For
    ``ties="trec"`` the column index plays the document id (higher index first).
    """
    lengths = np.diff(flat.offsets)
    query = np.repeat(np.arange(len(lengths)), lengths)
    order = rank_order(query, flat.scores, ties=ties, doc_codes=flat.columns, grades=flat.grades, seed=seed)
    scores = flat.scores[order]
    weights = flat.item_weights[order] if flat.item_weights is not None else None
    # a list with no items (fully masked) has nothing to evaluate: weight 0, as keras-rs gives it
    list_weights = (lengths > 0).astype(np.float64) if flat.item_weights is None and (lengths == 0).any() else None
    return RankedLists(
        query_ids=np.arange(len(lengths)).astype(str),
        offsets=flat.offsets,
        grades=flat.grades[order],
        judged=np.ones(len(order), dtype=bool),
        scores=scores,
        group_starts=tie_group_starts(query, scores),
        ideal_offsets=flat.offsets,
        ideal_grades=flat.grades,
        ties=ties,
        item_weights=weights,
        ideal_weights=flat.item_weights,
        list_weights=list_weights,
    )
