"""Every list of a sampled call is accounted for in the metadata, counted on the sampled values."""

import numpy as np
import pytest
import scipy.sparse as sp

import rankmeter

Y = np.array([[1.0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0, 0]])
S = np.array([[0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4], [0.5, 0.2, 0.3, 0.4]])


def _check(res: rankmeter.EvaluationResult) -> None:
    # row 0: its item below 3 negatives; with 1 of them sampled it is second: rr = 1/2
    assert res.by_query("rr")["0"] == 0.5
    assert res.metadata["queries_evaluated"] == 3
    assert res.metadata["queries_empty"] == 1  # row 1 has no relevant item
    assert res.metadata["queries_undefined"] == {}  # rows 0 and 2 have a value for every measure
    assert np.isfinite(res.values[[0, 2]]).all()


def test_evaluate_arrays_sampled_accounts_for_every_list() -> None:
    _check(rankmeter.evaluate_arrays(Y, S, ["rr", "ndcg@2"], sampled_negatives=1, empty="skip"))


def test_evaluate_embeddings_sampled_accounts_for_every_list() -> None:
    # one-dimensional embeddings: user u's score for item i is users[u] * items[i]
    items = S[0][:, None]
    users = np.array([[1.0], [1.0], [1.0]])
    truth = Y.copy()
    truth[2] = [0, 0, 0, 1]  # the highest-scored item: with any one negative sampled, rank 1
    res = rankmeter.evaluate_embeddings(
        users, items, sp.csr_array(truth), ["rr", "ndcg@2"], sampled_negatives=1, empty="skip"
    )
    _check(res)
    assert res.by_query("rr")["2"] == pytest.approx(1.0, abs=0)
