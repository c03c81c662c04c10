"""RecBole's evaluator (its collector and metric classes, full ranking) against rankmeter's names.

RecBole scores every item of the catalogue for each user (item 0 is its padding item, scored -inf),
takes the top max(topk) items and averages each metric over the users of the batch. Its MAP divides by
min(R, k), its NDCG's ideal holds min(R, k) items, its GAUC is each user's AUC over the catalogue
weighted by the user's relevant items, ties counting 1/2 (its average ranks). The top-k metrics get
scores without ties (torch.topk orders ties as it likes); GAUC gets ties. RecBole computes GAUC in
float32 (its ranks are a float32 tensor).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import per_user
from recbole.evaluator import metrics
from recbole.evaluator.collector import Collector

import rankmeter

TOPK = [1, 5, 10, 20]
TOPK_METRICS = {  # RecBole class -> rankmeter family
    "Hit": "success",
    "MRR": "rr",
    "NDCG": "ndcg",
    "MAP": "map(divisor=min)",
    "Precision": "p",
    "Recall": "r",
}


def _config(names: list[str]) -> dict:
    return {
        "metrics": names,
        "topk": TOPK,
        "eval_args": {"mode": {"valid": "full", "test": "full"}},
        "device": torch.device("cpu"),
        "metric_decimal_place": 15,
        "LABEL_FIELD": "label",
    }


def _case(seed: int, ties: bool) -> tuple[np.ndarray, np.ndarray]:
    """Scores (users x items) and relevance, every user with 1-12 relevant items of 40."""
    rng = np.random.default_rng(seed)
    n_users, n_items = 50, 40
    scores = rng.integers(0, 6, (n_users, n_items)).astype(np.float64) if ties else rng.random((n_users, n_items))
    relevance = np.zeros((n_users, n_items), dtype=np.int64)
    for u in range(n_users):
        relevance[u, rng.choice(n_items, int(rng.integers(1, 13)), replace=False)] = 1
    relevance[0] = 1  # every item relevant: RecBole leaves the user out of GAUC
    return scores, relevance


def _collect(scores: np.ndarray, relevance: np.ndarray, names: list[str]) -> tuple[dict, object]:
    config = _config(names)
    collector = Collector(config)
    padded = np.concatenate([np.full((len(scores), 1), -np.inf), scores], axis=1)  # item 0: RecBole's padding
    users, items = np.nonzero(relevance)
    collector.eval_batch_collect(
        torch.tensor(padded, dtype=torch.float32), None, torch.tensor(users), torch.tensor(items + 1)
    )
    return config, collector.get_data_struct()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_topk_metrics_equal_rankmeter_names(seed: int) -> None:
    scores, relevance = _case(seed, ties=False)
    config, data = _collect(scores, relevance, list(TOPK_METRICS))
    names = [f"{family}@{k}" for family in TOPK_METRICS.values() for k in TOPK]
    res = rankmeter.evaluate_arrays(relevance, scores, names)
    for cls, family in TOPK_METRICS.items():
        metric = getattr(metrics, cls)(config)
        theirs = metric.calculate_metric(data)
        pos_index, pos_len = metric.used_info(data)
        with_len = cls in ("NDCG", "MAP", "Recall")
        per_row = metric.metric_info(pos_index, pos_len) if with_len else metric.metric_info(pos_index)
        for k in TOPK:
            name = f"{family}@{k}"
            assert res[name] == pytest.approx(theirs[f"{cls.lower()}@{k}"], abs=1e-12, rel=0), name
            ours = per_user(res, name)
            for u in range(len(scores)):
                assert ours[u] == pytest.approx(per_row[u, k - 1], abs=1e-12, rel=0), (name, u)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("ties", [False, True])
def test_gauc_is_auroc_pooled_by_relevant_items(seed: int, ties: bool) -> None:
    scores, relevance = _case(seed, ties=ties)
    config, data = _collect(scores, relevance, ["GAUC"])
    theirs = metrics.GAUC(config).calculate_metric(data)["gauc"]
    res = rankmeter.evaluate_arrays(relevance, scores, ["gauc", "auroc"], ties="expected")
    assert res["gauc"] == pytest.approx(theirs, abs=1e-6, rel=0)
    assert res.pool_weights["gauc"][0] == 0  # no non-relevant item: left out as RecBole does
    weights = relevance.sum(axis=1)[1:]
    auroc = res.values[1:, res.measure_names.index("auroc")]
    assert res["gauc"] == pytest.approx(float((auroc * weights).sum() / weights.sum()), abs=1e-12, rel=0)


def test_users_without_relevant_items_score_zero_in_recbole() -> None:
    """RecBole's data loaders drop such users; its functions given one score 0 (rankmeter's empty="zero")."""
    scores = np.array([[0.9, 0.5, 0.1], [0.2, 0.8, 0.4]])
    relevance = np.array([[1, 0, 0], [0, 0, 0]])
    config = dict(_config(["NDCG", "MAP"]), topk=[1, 2, 3])
    pos_index = np.array([[True, False, False], [False, False, False]])
    pos_len = np.array([1, 0])
    ndcg = metrics.NDCG(config).metric_info(pos_index, pos_len)
    ap = metrics.MAP(config).metric_info(pos_index, pos_len)
    res = rankmeter.evaluate_arrays(relevance, scores, ["ndcg@3", "map(divisor=min)@3"], empty="zero")
    assert res.values.tolist() == [[ndcg[0, 2], ap[0, 2]], [ndcg[1, 2], ap[1, 2]]] == [[1.0, 1.0], [0.0, 0.0]]
