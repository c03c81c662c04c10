"""Oracle: scikit-learn's ndcg_score / dcg_score on random dense batches with many ties.

scikit-learn averages the gains of tied items (``ignore_ties=False``, the
McSherry & Najork expectation), which is rankmeter's ``ties="expected"``
(the default of ``evaluate_arrays``). Its ideal ranking is the row itself,
which for dense input is both rankmeter's ``ideal=judged`` default and
``ideal=retrieved``. Rows whose y_true is all zero score 0 in scikit-learn and
under rankmeter's default ``empty="zero"``. Agreement is to 1e-9 absolute.

Semantic differences tested explicitly below:

* per-list ``sample_weight`` on rows with no relevant item: scikit-learn
  weights every row by its own weight; rankmeter follows keras-rs
  (``get_list_weights``): a row without relevance gets the mean weight of the
  rows that have some.
* ``dcg`` with ``sample_weight``: see ``test_weighted_dcg_reproducer``
  (per-list DCG divided by the list weight, so the mean is sklearn's weighted mean).
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as sk_metrics

import rankmeter

ndcg_score = sk_metrics.ndcg_score
dcg_score = sk_metrics.dcg_score

try:  # per-row scores: the helpers that ndcg_score / dcg_score average (private, so with a public fallback)
    from sklearn.metrics._ranking import _dcg_sample_scores, _ndcg_sample_scores
except ImportError:  # pragma: no cover - older/newer scikit-learn layouts
    _dcg_sample_scores = _ndcg_sample_scores = None

TOL = 1e-9
BATCHES_PER_KIND = 16


def sk_rows(public, private, yt: np.ndarray, ys: np.ndarray, k, ignore_ties: bool = False) -> np.ndarray:
    """Per-row scikit-learn scores; the private helper is cross-checked against the public API on one row."""
    n = len(yt)
    if private is None:
        return np.array([public(yt[i : i + 1], ys[i : i + 1], k=k, ignore_ties=ignore_ties) for i in range(n)])
    rows = np.asarray(private(yt, ys, k=k, ignore_ties=ignore_ties), dtype=np.float64)
    i = n // 2
    assert rows[i] == pytest.approx(public(yt[i : i + 1], ys[i : i + 1], k=k, ignore_ties=ignore_ties), abs=1e-12)
    return rows


def sk_ndcg_rows(yt, ys, k, ignore_ties=False):
    return sk_rows(ndcg_score, _ndcg_sample_scores, yt, ys, k, ignore_ties)


def sk_dcg_rows(yt, ys, k, ignore_ties=False):
    return sk_rows(dcg_score, _dcg_sample_scores, yt, ys, k, ignore_ties)


def cutoffs(m: int) -> list[int | None]:
    return [None, 1, 3, 5, m]


def suffix(k: int | None) -> str:
    return "" if k is None else f"@{k}"


def measures_for(m: int) -> list[str]:
    names: list[str] = []
    for k in dict.fromkeys(cutoffs(m)):  # m may coincide with 1, 3 or 5
        names += [f"ndcg{suffix(k)}", f"ndcg(ideal=retrieved){suffix(k)}", f"dcg{suffix(k)}"]
    return names


def per_row(res: rankmeter.EvaluationResult, name: str, n: int) -> np.ndarray:
    values = res.by_query(name)
    assert sorted(values, key=int) == [str(i) for i in range(n)]
    return np.array([values[str(i)] for i in range(n)])


KINDS = [("int", "ties"), ("int", "coarse"), ("float", "ties"), ("float", "coarse"), ("binary", "ties")]


@pytest.mark.parametrize(("labels", "scores"), KINDS, ids=[f"{a}-{b}" for a, b in KINDS])
def test_ndcg_dcg_expected_ties_match_sklearn(labels, scores, dense_batch):
    rng = np.random.default_rng(KINDS.index((labels, scores)))
    n_cases = 0
    for _ in range(BATCHES_PER_KIND):
        b = dense_batch(rng, labels=labels, scores=scores)
        yt, ys = b.y_true, b.y_score
        n, m = b.shape
        # default ties ("expected") on half the batches, explicit on the other half
        kwargs = {"ties": "expected"} if rng.random() < 0.5 else {}
        res = rankmeter.evaluate_arrays(yt, ys, measures_for(m), **kwargs)
        assert res.metadata["ties"] == "expected"
        for k in cutoffs(m):
            nd = per_row(res, f"ndcg{suffix(k)}", n)
            nd_ret = per_row(res, f"ndcg(ideal=retrieved){suffix(k)}", n)
            dc = per_row(res, f"dcg{suffix(k)}", n)
            want_nd = sk_ndcg_rows(yt, ys, k)
            want_dc = sk_dcg_rows(yt, ys, k)
            ctx = f"{labels}/{scores} shape {b.shape} k={k}\ny_true={yt.tolist()}\ny_score={ys.tolist()}"
            np.testing.assert_allclose(nd, want_nd, rtol=0, atol=TOL, err_msg=ctx)
            np.testing.assert_allclose(nd_ret, nd, rtol=0, atol=1e-12, err_msg=ctx)
            np.testing.assert_allclose(dc, want_dc, rtol=0, atol=TOL, err_msg=ctx)
            assert res[f"ndcg{suffix(k)}"] == pytest.approx(ndcg_score(yt, ys, k=k), abs=TOL), ctx
            assert res[f"ndcg(ideal=retrieved){suffix(k)}"] == pytest.approx(ndcg_score(yt, ys, k=k), abs=TOL), ctx
            assert res[f"dcg{suffix(k)}"] == pytest.approx(dcg_score(yt, ys, k=k), abs=TOL), ctx
            n_cases += 1
    assert n_cases == BATCHES_PER_KIND * 5


def test_cases_have_ties_that_matter(dense_batch):
    """Guard for the generator: ties straddle cutoffs, so 'stable' would differ from sklearn."""
    rng = np.random.default_rng(99)
    differs = 0
    for _ in range(20):
        b = dense_batch(rng, labels="int", scores="ties")
        exp = rankmeter.evaluate_arrays(b.y_true, b.y_score, "ndcg@3", ties="expected")
        stab = rankmeter.evaluate_arrays(b.y_true, b.y_score, "ndcg@3", ties="stable")
        differs += exp["ndcg@3"] != stab["ndcg@3"]
        assert any(len(np.unique(row)) < len(row) for row in b.y_score) or b.shape[0] == 1
    assert differs >= 10


@pytest.mark.parametrize("labels", ["int", "float"])
def test_ignore_ties_matches_stable_on_tie_free_scores(labels, dense_batch):
    """sklearn ignore_ties=True sorts by score only; on tie-free scores that is any deterministic order."""
    rng = np.random.default_rng(10 + (labels == "float"))
    for _ in range(15):
        b = dense_batch(rng, labels=labels, scores="distinct")
        yt, ys = b.y_true, b.y_score
        n, m = b.shape
        for ties in ("stable", "expected", "trec"):
            res = rankmeter.evaluate_arrays(yt, ys, measures_for(m), ties=ties)
            for k in cutoffs(m):
                want_nd = sk_ndcg_rows(yt, ys, k, ignore_ties=True)
                want_dc = sk_dcg_rows(yt, ys, k, ignore_ties=True)
                np.testing.assert_allclose(per_row(res, f"ndcg{suffix(k)}", n), want_nd, rtol=0, atol=TOL)
                np.testing.assert_allclose(per_row(res, f"dcg{suffix(k)}", n), want_dc, rtol=0, atol=TOL)
                assert res[f"ndcg{suffix(k)}"] == pytest.approx(ndcg_score(yt, ys, k=k, ignore_ties=True), abs=TOL)


def keras_rule_weights(w: np.ndarray, y_true: np.ndarray) -> np.ndarray:
    """keras-rs get_list_weights for per-list weights: rows without relevance get the mean weight of the others."""
    has_rel = (y_true > 0).any(axis=1)
    with_rel = has_rel & (w > 0)
    default = w[with_rel].mean() if with_rel.any() else 1.0
    return np.where(w > 0, np.where(has_rel, w, default), 0.0)


@pytest.mark.parametrize("scores", ["ties", "coarse"])
def test_ndcg_per_list_sample_weight_matches_sklearn(scores, dense_batch):
    rng = np.random.default_rng(20 + (scores == "coarse"))
    for trial in range(24):
        # even trials: every row has a relevant item, so both weighting rules coincide
        b = dense_batch(rng, labels="int", scores=scores, zero_rows=0.0 if trial % 2 == 0 else 0.3)
        yt, ys = b.y_true, b.y_score
        n, m = b.shape
        if trial % 2 == 0:
            yt[~(yt > 0).any(axis=1), 0] = 1.0
        w = np.round(rng.uniform(0.1, 3.0, n), 2)
        w[rng.random(n) < 0.15] = 0.0
        if not (w > 0).any():
            w[0] = 1.0
        res = rankmeter.evaluate_arrays(yt, ys, measures_for(m), sample_weight=w)
        unweighted = rankmeter.evaluate_arrays(yt, ys, measures_for(m))
        for k in cutoffs(m):
            name = f"ndcg{suffix(k)}"
            # per-list weights do not change per-row NDCG (the weight scales DCG and IDCG alike), except that
            # a zero weight removes every item of the row (keras-rs: weight 0 masks the item), leaving NDCG 0
            got = per_row(res, name, n)
            np.testing.assert_allclose(got[w > 0], per_row(unweighted, name, n)[w > 0], rtol=0, atol=1e-12)
            assert (got[w == 0] == 0).all()
            want = ndcg_score(yt, ys, k=k, sample_weight=keras_rule_weights(w, yt))
            assert res[name] == pytest.approx(want, abs=TOL), (trial, k)
            assert res[f"ndcg(ideal=retrieved){suffix(k)}"] == pytest.approx(want, abs=TOL), (trial, k)
            if trial % 2 == 0:
                assert res[name] == pytest.approx(ndcg_score(yt, ys, k=k, sample_weight=w), abs=TOL), (trial, k)


def test_weights_of_rows_without_relevance_differ_from_sklearn():
    """Documented difference: the all-zero row gets keras-rs's default weight, not its own."""
    yt = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    ys = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])
    w = np.array([1.0, 3.0])
    res = rankmeter.evaluate_arrays(yt, ys, "ndcg", sample_weight=w)
    row0 = ndcg_score(yt[:1], ys[:1])  # 0.5; row 1 scores 0 in both
    assert ndcg_score(yt, ys, sample_weight=w) == pytest.approx(row0 * 1 / 4)  # sklearn: own weight 3
    assert res["ndcg"] == pytest.approx(row0 * 1 / 2, abs=TOL)  # rankmeter: weight of row 1 -> mean(1) = 1


def test_weighted_dcg_reproducer():
    yt = np.array([[3.0, 0.0, 1.0], [1.0, 2.0, 0.0]])
    ys = np.array([[0.3, 0.2, 0.1], [0.1, 0.5, 0.9]])
    w = np.array([1.0, 3.0])
    res = rankmeter.evaluate_arrays(yt, ys, "dcg", sample_weight=w)
    # sklearn: (1 * 3.5 + 3 * 1.7619) / 4 = 2.1964; rankmeter: (1 * 3.5 + 3 * (3 * 1.7619)) / 4 = 4.8392
    assert res["dcg"] == pytest.approx(dcg_score(yt, ys, sample_weight=w), abs=TOL)


@pytest.mark.parametrize("max_fpr", [0.05, 0.3, 0.5, 0.99, 1.0])
def test_auroc_max_fpr_matches_roc_auc_score(max_fpr: float) -> None:
    """``auroc(max_fpr=x)``: scikit-learn's McClish-standardised partial AUC, list by list (tied scores grouped)."""
    rng = np.random.default_rng(31)
    rows = []
    for _ in range(40):
        m = int(rng.integers(2, 15))
        y = (rng.random(m) < 0.4).astype(float)
        y[0], y[1] = 1.0, 0.0  # both classes in every list
        rows.append((y, np.round(rng.random(m), 1)))  # many ties
    got = rankmeter.evaluate_lists(
        [y for y, _ in rows], [s for _, s in rows], f"auroc(max_fpr={max_fpr})", ties="expected"
    ).values[:, 0]
    want = [sk_metrics.roc_auc_score(y, s, max_fpr=max_fpr) for y, s in rows]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("value", ["0", "1.5", "x"])
def test_auroc_max_fpr_must_lie_in_the_unit_interval(value: str) -> None:
    message = "is not a number" if value == "x" else rf"max_fpr must be a number in \(0, 1\], got {float(value)}"
    with pytest.raises(rankmeter.errors.MeasureSyntaxError, match=message):
        rankmeter.parse(f"auroc(max_fpr={value})")
