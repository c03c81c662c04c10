"""cornac's ranking metrics (``cornac.metrics``) against rankmeter's names, user by user.

cornac's ``NDCG``, ``Precision``, ``Recall`` and ``HitRatio`` read the top k of a user's item ranking;
its ``Precision@k`` divides by k also when the ranking is shorter. Its ``MRR`` reads the whole ranking
and raises when no item is relevant; its ``MAP`` reads scores and gives tied items the lowest rank of
their group, so it gets scores without ties here.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import Case, per_user
from cornac.metrics import MAP, MRR, NDCG, HitRatio, Precision, Recall

import rankmeter

K_VALUES = [1, 5, 10, 30]  # 30: longer than every list


@pytest.mark.parametrize("k", K_VALUES)
def test_top_k_metrics(case: Case, k: int) -> None:
    pairs = [
        (NDCG(k=k), f"ndcg@{k}"),
        (Precision(k=k), f"p@{k}"),
        (Recall(k=k), f"r@{k}"),
        (HitRatio(k=k), f"success@{k}"),
    ]
    users = [u for u, items in case.truth.items() if items and case.lists[u]]
    res = rankmeter.evaluate(case.qrels(users), case.run(), [name for _, name in pairs])
    for metric, name in pairs:
        ours = per_user(res, name)
        for u in users:
            theirs = metric.compute(gt_pos=np.array(case.truth[u]), pd_rank=np.array(case.lists[u]))
            assert ours[u] == pytest.approx(theirs, abs=1e-12, rel=0), (name, u)


def test_mrr_and_map_over_the_catalogue(case: Case) -> None:
    rng = np.random.default_rng(len(case.truth))
    users = [u for u, items in case.truth.items() if items]
    scores = {u: rng.permutation(case.n_items).astype(float) for u in users}
    run = {str(u): {str(i): s for i, s in enumerate(scores[u])} for u in users}
    res = rankmeter.evaluate(case.qrels(users), run, ["rr", "map"])
    for u in users:
        ranking = np.argsort(-scores[u])
        gt = np.array(case.truth[u])
        assert per_user(res, "rr")[u] == pytest.approx(MRR().compute(gt_pos=gt, pd_rank=ranking), abs=1e-12)
        theirs = MAP().compute(item_indices=np.arange(case.n_items), pd_scores=scores[u], gt_pos=gt)
        assert per_user(res, "map")[u] == pytest.approx(theirs, abs=1e-12, rel=0)
