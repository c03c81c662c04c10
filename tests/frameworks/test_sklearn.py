"""rankmeter.sklearn scorers in a real GridSearchCV and cross_validate, against ndcg_score's own scorer.

KNeighborsRegressor with integer grades predicts means of a few neighbours'
grades, so its score matrices are full of ties: the search only agrees with
``make_scorer(ndcg_score, k=...)`` if the tie semantics do.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.metrics import make_scorer, ndcg_score
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.neighbors import KNeighborsRegressor

import rankmeter
import rankmeter.sklearn as rs
from rankmeter.errors import InputFormatError, MeasureSyntaxError, PolicyError


def data(seed=0, n=90, m=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = np.clip(np.round(X[:, :1] * rng.normal(size=(1, m)) + rng.normal(0, 1, (n, m))), 0, 3)
    y[rng.random(n) < 0.1] = 0  # rows without relevance
    return X, y


def test_grid_search_agrees_with_ndcg_score_on_tied_predictions():
    X, y = data()
    grid = {"n_neighbors": [1, 2, 3, 5]}
    cv = KFold(3, shuffle=True, random_state=0)
    ours = GridSearchCV(KNeighborsRegressor(), grid, scoring=rs.scorer("ndcg@3"), cv=cv).fit(X, y)
    theirs = GridSearchCV(KNeighborsRegressor(), grid, scoring=make_scorer(ndcg_score, k=3), cv=cv).fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], atol=1e-12)
    assert ours.best_params_ == theirs.best_params_
    pred = KNeighborsRegressor(n_neighbors=2).fit(X[:60], y[:60]).predict(X[60:])
    assert len(np.unique(pred)) < pred.size / 4  # heavily tied
    tied = rankmeter.evaluate_arrays(y[60:], pred, "ndcg@3", ties="stable")["ndcg@3"]
    assert tied != pytest.approx(ndcg_score(y[60:], pred, k=3), abs=1e-6)  # so ties decide the agreement


def test_cross_validate_with_several_scorers():
    X, y = data(1)
    scoring = rs.scorers(["ndcg@[2,5]", "map", "rr@3"])
    assert sorted(scoring) == ["map", "ndcg@2", "ndcg@5", "rr@3"]
    out = cross_validate(KNeighborsRegressor(n_neighbors=3), X, y, scoring=scoring, cv=3)
    folds = list(KFold(3).split(X))
    for name in scoring:
        want = []
        for train, test in folds:
            pred = KNeighborsRegressor(n_neighbors=3).fit(X[train], y[train]).predict(X[test])
            want.append(rankmeter.evaluate_arrays(y[test], pred, name)[name])
        np.testing.assert_allclose(out[f"test_{name}"], want, atol=1e-12)
    sk = cross_validate(KNeighborsRegressor(n_neighbors=3), X, y, scoring=make_scorer(ndcg_score, k=5), cv=3)
    np.testing.assert_allclose(out["test_ndcg@5"], sk["test_score"], atol=1e-12)


def test_options_pickling_and_errors():
    X, y = data(2)
    model = KNeighborsRegressor(n_neighbors=2).fit(X, y)
    pred = model.predict(X)
    low = rs.scorer("ndcg@3", ties="pessimistic")(model, X, y)
    assert low == pytest.approx(rankmeter.evaluate_arrays(y, pred, "ndcg@3", ties="pessimistic")["ndcg@3"], abs=1e-12)
    assert low < rs.scorer("ndcg@3")(model, X, y)
    again = pickle.loads(pickle.dumps(rs.scorer("map@5", empty="skip")))
    assert again(model, X, y) == pytest.approx(rankmeter.evaluate_arrays(y, pred, "map@5", empty="skip")["map@5"])
    with pytest.raises(MeasureSyntaxError, match=r"'ndcg@\[5,10\]' has 2 values; a scorer gives one"):
        rs.scorer("ndcg@[5,10]")
    with pytest.raises(MeasureSyntaxError, match="nope"):
        rs.scorer("nope@3")
    with pytest.raises(PolicyError, match="unknown ties policy 'random'"):
        rs.scorer("ndcg@3", ties="random")


def test_refuses_what_ndcg_score_refuses_with_the_shape_needed():
    X, y = data(3)
    model = KNeighborsRegressor(n_neighbors=2).fit(X, y[:, 0])
    with pytest.raises(ValueError, match="formats are supported"):
        make_scorer(ndcg_score)(model, X, y[:, 0])  # scikit-learn's own refusal of a 1-D y
    with pytest.raises(InputFormatError, match=r"y has shape \(90,\); a ranking scorer needs y of shape \(n_queries, "):
        rs.scorer("ndcg@10")(model, X, y[:, 0])
    with pytest.raises(InputFormatError, match=r"y has shape \(18,\)"):  # a fold of 90 rows
        GridSearchCV(
            KNeighborsRegressor(), {"n_neighbors": [1, 2]}, scoring=rs.scorer("ndcg@10"), error_score="raise"
        ).fit(X, y[:, 0])
    one = KNeighborsRegressor(n_neighbors=2).fit(X, y[:, :1])
    with pytest.raises(ValueError, match="more than 1 document"):
        make_scorer(ndcg_score)(one, X, y[:, :1])
    with pytest.raises(InputFormatError, match=r"y has shape \(90, 1\); .* at least 2 columns"):
        rs.scorer("ndcg@10")(one, X, y[:, :1])


def test_mask_and_sample_weight_through_metadata_routing():
    """scikit-learn splits a routed mask and per-item weights with the folds; each fold equals evaluate_arrays."""
    X, y = data(4)
    rng = np.random.default_rng(5)
    mask = rng.random(y.shape) < 0.8
    weight = rng.uniform(0.5, 2.0, y.shape)
    cv = KFold(3, shuffle=True, random_state=1)
    with sklearn.config_context(enable_metadata_routing=True):
        scoring = {
            "masked": rs.scorer("ndcg@3").set_score_request(mask=True),
            "weighted": rs.scorer("map").set_score_request(sample_weight=True, mask=True),
        }
        out = cross_validate(KNeighborsRegressor(n_neighbors=3), X, y, scoring=scoring, cv=cv,
                             params={"mask": mask, "sample_weight": weight})  # fmt: skip
    for i, (train, test) in enumerate(cv.split(X)):
        pred = KNeighborsRegressor(n_neighbors=3).fit(X[train], y[train]).predict(X[test])
        masked = rankmeter.evaluate_arrays(y[test], pred, "ndcg@3", mask=mask[test])["ndcg@3"]
        weighted = rankmeter.evaluate_arrays(y[test], pred, "map", mask=mask[test], sample_weight=weight[test])["map"]
        assert out["test_masked"][i] == pytest.approx(masked, abs=1e-12)
        assert out["test_weighted"][i] == pytest.approx(weighted, abs=1e-12)
        assert masked != pytest.approx(rankmeter.evaluate_arrays(y[test], pred, "ndcg@3")["ndcg@3"], abs=1e-9)
    with pytest.raises(
        PolicyError, match=r"mask holds a value per row of y, split with the folds: .*set_score_request"
    ):
        rs.scorer("ndcg@10", mask=mask)
    with pytest.raises(PolicyError, match=r"sample_weight holds a value per row of y"):
        rs.scorer("ndcg@10", sample_weight=weight)
