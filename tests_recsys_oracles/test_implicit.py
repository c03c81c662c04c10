"""implicit's ``ranking_metrics_at_k`` (precision, MAP, NDCG, AUC at K) against rankmeter's names.

implicit asks a model for each test user's top K (a stand-in model returns the case's lists, padded with
-1, which matches no item) and skips the users without test items (rankmeter's ``empty="skip"``). Its
precision is pooled, the relevant items found over the sum of min(K, R) (``implicit_p@k``); its MAP
divides by min(K, R) (``map(divisor=min)@k``). Its AUC counts the catalogue's items below the top K as
in random order (``implicit_auc(n_items=N)@k``); it also counts the -1 padding of a list shorter than
K as non-relevant items, so the AUC cases give every user at least K items.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from conftest import Case, make_case
from implicit.evaluation import AUC_at_k, mean_average_precision_at_k, ndcg_at_k, precision_at_k

import rankmeter

K_VALUES = [1, 5, 10, 30]  # 30: longer than every list


class ListModel:
    """Returns the case's ranked lists as implicit's ``recommend`` does (ids, scores), padded with -1."""

    def __init__(self, case: Case) -> None:
        self.case = case

    def recommend(self, userid, user_items, N: int = 10, **_: object) -> tuple[np.ndarray, np.ndarray]:
        ids = np.full((len(userid), N), -1, dtype=np.int32)
        for row, u in enumerate(np.asarray(userid)):
            items = self.case.lists[int(u)][:N]
            ids[row, : len(items)] = items
        return ids, np.zeros(ids.shape, dtype=np.float32)


def _matrices(case: Case) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    rows = [u for u, items in case.truth.items() for _ in items]
    cols = [i for items in case.truth.values() for i in items]
    shape = (len(case.truth), case.n_items)
    test = sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=shape)
    return sp.csr_matrix(shape, dtype=np.float32), test


@pytest.mark.parametrize("k", K_VALUES)
def test_precision_map_ndcg_at_k(case: Case, k: int) -> None:
    train, test = _matrices(case)
    model = ListModel(case)
    names = [f"implicit_p@{k}", f"map(divisor=min)@{k}", f"ndcg@{k}"]
    res = rankmeter.evaluate(case.qrels(), case.run(), names, empty="skip")
    assert res.metadata["queries_missing"] > 0  # users with test items but no list: 0, as implicit's
    theirs = {
        names[0]: precision_at_k(model, train, test, K=k, show_progress=False),
        names[1]: mean_average_precision_at_k(model, train, test, K=k, show_progress=False),
        names[2]: ndcg_at_k(model, train, test, K=k, show_progress=False),
    }
    for name, value in theirs.items():
        assert res[name] == pytest.approx(value, abs=1e-12, rel=0), name
    # pooled, not a mean of per-user values
    weights = res.pool_weights[names[0]]
    col = res.values[:, res.measure_names.index(names[0])]
    keep = res.included[:, res.measure_names.index(names[0])]
    assert res[names[0]] == pytest.approx((col * weights)[keep].sum() / weights[keep].sum(), abs=1e-15)
    if k > 1:  # at k = 1 every weight is 1
        assert res[names[0]] != pytest.approx(col[keep].mean(), abs=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [1, 5, 10])
def test_auc_at_k(seed: int, k: int) -> None:
    case = make_case(seed, min_len=10, max_len=25)
    train, test = _matrices(case)
    res = rankmeter.evaluate(case.qrels(), case.run(), f"implicit_auc(n_items={case.n_items})@{k}", empty="skip")
    theirs = AUC_at_k(ListModel(case), train, test, K=k, show_progress=False)
    assert res[f"implicit_auc(n_items={case.n_items})@{k}"] == pytest.approx(theirs, abs=1e-12, rel=0)


def test_auc_at_k_is_auroc_with_the_rest_of_the_catalogue_tied_below() -> None:
    """The same number from the catalogue's scores: the top K by rank, every other item tied at the bottom."""
    case = make_case(5, min_len=10, max_len=25)
    k = 5
    relevance = np.zeros((len(case.truth), case.n_items))
    scores = np.zeros((len(case.truth), case.n_items))
    for u, items in case.truth.items():
        relevance[u, items] = 1
        scores[u, case.lists[u][:k]] = np.arange(k, 0, -1)
    dense = rankmeter.evaluate_arrays(relevance, scores, "auroc", ties="expected", empty="skip")
    res = rankmeter.evaluate(case.qrels(), case.run(), f"implicit_auc(n_items={case.n_items})@{k}", empty="skip")
    assert res[f"implicit_auc(n_items={case.n_items})@{k}"] == pytest.approx(dense["auroc"], abs=1e-12)


def test_repeated_recommendation_counts_twice() -> None:
    """A defect rankmeter does not copy: implicit counts each copy of a relevant item in the top K as a hit."""
    case = Case(n_items=10, truth={0: [1, 2]}, lists={0: [1, 1, 3]})
    train, test = _matrices(case)
    assert precision_at_k(ListModel(case), train, test, K=3, show_progress=False) == 1.0  # 2 hits / min(3, 2)
    qrels = {"0": {"1": 1, "2": 1}}
    run = pd.DataFrame({"user_id": ["0", "0", "0"], "item_id": ["1", "1", "3"], "score": [3.0, 2.0, 1.0]})
    assert rankmeter.evaluate(qrels, run, "implicit_p@3", duplicates="first")["implicit_p@3"] == 0.5
