"""Oracle: keras-rs ranking metrics (JAX backend) on random masked, weighted batches.

How the comparison is made deterministic and exact:

* keras-rs breaks ties at random whenever a mask is present, and it always
  builds one (``sort_by_scores`` shuffles when ``mask is not None`` even with
  ``shuffle_ties=False``), so scores are a random permutation of 0..m-1 per
  row: tie-free.
* keras-rs masks items whose label is < 0 or whose weight is 0 on its own;
  evaluate_arrays drops weight-0 items too. Labels are generated >= 0 here,
  so the only other masking is the explicit ``mask`` both libraries receive. (rankmeter keeps negative
  grades as judged non-relevant items; ``test_negative_labels_are_masked_by_keras``
  shows the equivalence once rankmeter is given the mask ``y_true >= 0``.)
* Precision: the metrics run in float64 (``dtype="float64"`` inside
  ``jax.enable_x64``), and keras-rs's per-list values and per-list weights
  (the output of ``compute_metric``) agree with rankmeter to 1e-9. The final
  reduction in ``keras.metrics.Mean`` goes through ``keras.ops.mean``, which in
  keras 3.x computes in ``result_type(float64, "float32")`` = float32, so
  ``metric.result()`` carries float32 rounding; it is compared at 1e-6, and
  the float64 weighted mean of the captured per-list values at 1e-9.

Semantics that differ and are therefore not compared for equality:

* ``PrecisionAtK`` divides by min(k, number of unmasked items); rankmeter's
  ``p@k`` divides by k, as trec_eval's P does (tested as that relation).
* ``DCG`` with weights: per-list values divided by the list weight, as keras-rs does.
"""

from __future__ import annotations

import os

os.environ.setdefault("KERAS_BACKEND", "jax")

import jax  # noqa: E402
import keras  # noqa: E402
import keras_rs  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import rankmeter  # noqa: E402

if keras.backend.backend() != "jax":  # pragma: no cover - keras imported earlier with another backend
    pytest.fail(f"the keras-rs oracle runs on the JAX backend, not {keras.backend.backend()!r}", pytrace=False)

TOL = 1e-9
RESULT_TOL = 1e-6  # keras.metrics.Mean's float32 reduction (see module docstring)
# One batch shape throughout: JAX compiles every eager op once per input shape (about 3 s per new shape on a
# small CPU, most of this module's runtime). Ragged lists come from per-row masks instead.
SHAPE = (10, 12)
WEIGHTINGS = ["none", "scalar", "list", "item"]


def suffix(k: int | None) -> str:
    return "" if k is None else f"@{k}"


def cutoffs(m: int) -> list[int | None]:
    return list(dict.fromkeys([None, 1, 3, 5, m]))


def make_batch(rng: np.random.Generator, *, labels="int", masked=True, weighting="none", full_mask_rows=None):
    """A random (10, 12) batch: labels >= 0, tie-free scores, ragged masks, weights > 0."""
    n, m = SHAPE
    if labels == "int":
        y = rng.integers(0, 5, (n, m)).astype(np.float64)
    else:
        y = np.round(rng.uniform(0, 3, (n, m)), 2) * (rng.random((n, m)) < 0.6)
    y[rng.random(n) < 0.15] = 0.0  # some lists without relevance
    s = rng.permuted(np.tile(np.arange(m, dtype=np.float64), (n, 1)), axis=1)  # tie-free
    mask = None
    if masked:
        # ragged lists: each row keeps a random share (10%..100%) of its items
        mask = rng.random((n, m)) < rng.uniform(0.1, 1.0, (n, 1))
        mask[np.arange(n), rng.integers(0, m, n)] = True
        if full_mask_rows is None:
            # unweighted, fully masked lists expose a reported rankmeter bug (test_fully_masked_list_*),
            # so by default they are generated only together with explicit weights
            full_mask_rows = weighting != "none"
        if full_mask_rows:
            mask[rng.random(n) < 0.15] = False
    w = {
        "none": None,
        "scalar": float(np.round(rng.uniform(0.2, 3.0), 2)),
        "list": np.round(rng.uniform(0.2, 3.0, n), 2),
        "item": np.round(rng.uniform(0.2, 3.0, (n, m)), 2),
    }[weighting]
    return y, s, mask, w


class KerasRun:
    """One keras-rs metric update: ``result()`` and the captured per-list values and weights."""

    def __init__(self, metric_cls, k, y_true, y_pred, mask=None, sample_weight=None, **kwargs):
        with jax.enable_x64(True):
            metric = metric_cls(k=k, shuffle_ties=False, dtype="float64", **kwargs)
            inner = metric.compute_metric
            captured = {}

            def capture(**kw):
                values, weights = inner(**kw)
                captured["values"] = np.asarray(values, dtype=np.float64).reshape(-1)
                captured["weights"] = np.asarray(weights, dtype=np.float64).reshape(-1)
                assert np.asarray(values).dtype == np.float64
                return values, weights

            metric.compute_metric = capture
            y = y_true if mask is None else {"labels": y_true, "mask": mask}
            metric.update_state(y, y_pred, sample_weight=sample_weight)
            self.result = float(metric.result())
        self.values = captured["values"]
        self.weights = captured["weights"]
        total = self.weights.sum()
        self.mean = float((self.values * self.weights).sum() / total) if total > 0 else 0.0
        assert abs(self.result - self.mean) <= RESULT_TOL  # the capture is what keras aggregates


def rm_rows(res: rankmeter.EvaluationResult, name: str) -> np.ndarray:
    values = res.by_query(name)
    return np.array([values[str(i)] for i in range(SHAPE[0])])


def check(kr: KerasRun, res: rankmeter.EvaluationResult, name: str, ctx: str) -> None:
    np.testing.assert_allclose(rm_rows(res, name), kr.values, rtol=0, atol=TOL, err_msg=f"{ctx} per list")
    assert res[name] == pytest.approx(kr.mean, abs=TOL), ctx
    assert res[name] == pytest.approx(kr.result, abs=RESULT_TOL), ctx


KS = cutoffs(SHAPE[1])  # None, 1, 3, 5, 12


@pytest.mark.parametrize("weighting", WEIGHTINGS)
@pytest.mark.parametrize("labels", ["int", "float"])
def test_ndcg_masked_weighted_matches_keras_rs(labels, weighting):
    rng = np.random.default_rng(100 + 10 * WEIGHTINGS.index(weighting) + (labels == "float"))
    names = [f"ndcg(gain=exp){suffix(k)}" for k in KS]
    for rep in range(5):
        y, s, mask, w = make_batch(rng, labels=labels, masked=rep < 4, weighting=weighting)
        res = rankmeter.evaluate_arrays(y, s, names, mask=mask, sample_weight=w)
        for k, name in zip(KS, names, strict=True):
            kr = KerasRun(keras_rs.metrics.NDCG, k, y, s, mask, w)
            check(kr, res, name, f"{labels}/{weighting} k={k} rep={rep}")


def test_dcg_matches_keras_rs_unweighted():
    rng = np.random.default_rng(300)
    names = [f"dcg(gain=exp){suffix(k)}" for k in KS]
    for rep in range(2):
        y, s, mask, w = make_batch(rng, masked=rep == 0)
        res = rankmeter.evaluate_arrays(y, s, names, mask=mask)
        for k, name in zip(KS, names, strict=True):
            check(KerasRun(keras_rs.metrics.DCG, k, y, s, mask), res, name, f"rep={rep} k={k}")


@pytest.mark.parametrize("weighting", ["scalar", "list", "item"])
def test_weighted_dcg_per_list_values_match_keras_rs(weighting):
    """keras-rs DCG with weights: per list sum(w * gain * discount) divided by the list weight, then a
    weighted mean with the list weights; rankmeter's per-list values and mean are the same."""
    rng = np.random.default_rng(310 + WEIGHTINGS.index(weighting))
    y, s, mask, w = make_batch(rng, weighting=weighting)
    res = rankmeter.evaluate_arrays(y, s, "dcg(gain=exp)@5", mask=mask, sample_weight=w)
    kr = KerasRun(keras_rs.metrics.DCG, 5, y, s, mask, w)
    np.testing.assert_allclose(kr.values, rm_rows(res, "dcg(gain=exp)@5"), rtol=0, atol=TOL)
    assert res["dcg(gain=exp)@5"] == pytest.approx(kr.mean, abs=TOL)


@pytest.mark.parametrize("weighting", ["scalar", "list"])
def test_weighted_dcg_matches_keras_rs(weighting):
    rng = np.random.default_rng(320 + WEIGHTINGS.index(weighting))
    y, s, mask, w = make_batch(rng, weighting=weighting)
    res = rankmeter.evaluate_arrays(y, s, "dcg(gain=exp)@5", mask=mask, sample_weight=w)
    kr = KerasRun(keras_rs.metrics.DCG, 5, y, s, mask, w)
    assert res["dcg(gain=exp)@5"] == pytest.approx(kr.mean, abs=TOL)


def test_fully_masked_list_unweighted_matches_keras_rs():
    rng = np.random.default_rng(330)
    y, s, mask, _ = make_batch(rng, full_mask_rows=True)
    mask[0] = False
    kr = KerasRun(keras_rs.metrics.NDCG, None, y, s, mask)
    weighted = rankmeter.evaluate_arrays(y, s, "ndcg(gain=exp)", mask=mask, sample_weight=1.0)
    assert weighted["ndcg(gain=exp)"] == pytest.approx(kr.mean, abs=TOL)  # weighted: list 0 dropped, as keras
    unweighted = rankmeter.evaluate_arrays(y, s, "ndcg(gain=exp)", mask=mask)
    assert unweighted["ndcg(gain=exp)"] == pytest.approx(kr.mean, abs=TOL)  # list 0 dropped too


@pytest.mark.parametrize(
    ("masked", "weighting"), [(False, "none"), (True, "none"), (True, "scalar"), (True, "list"), (True, "item")]
)
def test_mrr_map_recall_match_keras_rs(masked, weighting):
    """keras-rs relevance is y_true >= 1, i.e. rankmeter min_rel=1; AP and recall divide by all relevant in the list.

    MRR and recall ignore item weights in keras-rs except through the list weight sum(w*rel)/sum(rel), as in
    rankmeter; MAP weights each relevant item's precision inside AP, as evaluate_arrays' ``map`` with item weights.
    """
    rng = np.random.default_rng(400 + 10 * masked + WEIGHTINGS.index(weighting))
    metrics = [
        (keras_rs.metrics.MeanReciprocalRank, "rr(min_rel=1)"),
        (keras_rs.metrics.RecallAtK, "r(min_rel=1)"),
        (keras_rs.metrics.MeanAveragePrecision, "map(min_rel=1)"),
    ]
    names = [f"{stem}{suffix(k)}" for _, stem in metrics for k in KS]
    for labels in ("int", "float"):
        y, s, mask, w = make_batch(rng, labels=labels, masked=masked, weighting=weighting)
        res = rankmeter.evaluate_arrays(y, s, names, mask=mask, sample_weight=w)
        for cls, stem in metrics:
            for k in KS:
                kr = KerasRun(cls, k, y, s, mask, w)
                check(kr, res, f"{stem}{suffix(k)}", f"{cls.__name__} {labels} k={k} {weighting} masked={masked}")


def test_precision_differs_by_denominator():
    """keras-rs P@k = rel@k / min(k, unmasked items); rankmeter p@k = rel@k / k (trec_eval's P)."""
    rng = np.random.default_rng(500)
    for rep in range(2):
        y, s, mask, _ = make_batch(rng)
        valid = mask.sum(axis=1)
        assert (valid < 5).any()  # short lists, where the denominators differ
        for k in KS[1:]:
            res = rankmeter.evaluate_arrays(y, s, f"p(min_rel=1)@{k}", mask=mask)
            kr = KerasRun(keras_rs.metrics.PrecisionAtK, k, y, s, mask)
            denom = np.minimum(k, valid).astype(np.float64)
            want = rm_rows(res, f"p(min_rel=1)@{k}") * k / denom
            np.testing.assert_allclose(kr.values, want, rtol=0, atol=TOL, err_msg=f"rep={rep} k={k}")
            # p(divisor=min) is keras-rs' PrecisionAtK
            named = rankmeter.evaluate_arrays(y, s, f"p(divisor=min,min_rel=1)@{k}", mask=mask)
            got = rm_rows(named, f"p(divisor=min,min_rel=1)@{k}")
            np.testing.assert_allclose(kr.values, got, rtol=0, atol=TOL, err_msg=f"rep={rep} k={k}")
    # e.g. 1 relevant among 2 items at k = 5: keras-rs 1/2, rankmeter (and trec_eval) 1/5
    assert rankmeter.evaluate_arrays([[1.0, 0.0]], [[1.0, 0.0]], "p@5")["p@5"] == pytest.approx(0.2)


def test_negative_labels_are_masked_by_keras():
    """keras-rs drops items with y_true < 0; rankmeter keeps them as judged non-relevant unless masked."""
    rng = np.random.default_rng(600)
    names = [f"ndcg(gain=exp){suffix(k)}" for k in KS]
    differs = 0
    for _ in range(2):
        y, s, _, w = make_batch(rng, masked=False, weighting="item")
        y[rng.random(SHAPE) < 0.3] = -1.0
        res = rankmeter.evaluate_arrays(y, s, names, mask=y >= 0, sample_weight=w)
        raw = rankmeter.evaluate_arrays(y, s, names, sample_weight=w)
        for k, name in zip(KS, names, strict=True):
            check(KerasRun(keras_rs.metrics.NDCG, k, y, s, None, w), res, name, f"k={k}")
            differs += raw[name] != res[name]
    assert differs > 0  # without the mask, the -1 items occupy ranks and the values change


# --------------------------------------------------------------------------- keras-rs's own test cases
# keras_rs_cases.json: every parameterised case of keras-rs's metric tests (inputs, constructor arguments and the
# expected value its tests assert), transcribed from the keras-rs repository. Each case runs through keras-rs
# itself (the transcription is right), rankmeter.keras's class of the same name, and evaluate_arrays with the
# measure that names keras-rs's formula (keras-rs masks labels < 0: evaluate_arrays gets mask=labels >= 0).

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import rankmeter.keras as rk  # noqa: E402

KERAS_RS_CASES = json.loads((Path(__file__).with_name("keras_rs_cases.json")).read_text())["cases"]
MEASURE_OF = {
    "NDCG": "ndcg(gain=exp)",
    "DCG": "dcg(gain=exp)",
    "MeanAveragePrecision": "map(min_rel=1)",
    "MeanReciprocalRank": "rr(min_rel=1)",
    "PrecisionAtK": "p(divisor=min,min_rel=1)",
    "RecallAtK": "r(min_rel=1)",
}


def _case_arrays(case: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | float | None]:
    """(labels, scores, mask, weights) as 2-D rows for evaluate_arrays (an unbatched case is one row)."""
    y_true = case["y_true"]
    labels = np.asarray(y_true["labels"] if isinstance(y_true, dict) else y_true, dtype=np.float64)
    mask = np.asarray(y_true.get("mask", np.ones(labels.shape, bool)) if isinstance(y_true, dict) else labels >= 0)
    scores = np.asarray(case["y_pred"], dtype=np.float64)
    weights = case["sample_weight"]
    if labels.ndim == 1:
        labels, scores, mask = labels[None], scores[None], mask[None]
        weights = None if weights is None else np.reshape(weights, (1, -1)) if np.ndim(weights) == 1 else weights
    return labels, scores, mask.astype(bool) & (labels >= 0), weights


def _close(got: float, want: float) -> bool:
    """keras-rs's tests' tolerance (keras's assertAllClose, rtol 1e-5 as in their test_k, atol 1e-6)."""
    return abs(got - want) <= 1e-6 + 1e-5 * abs(want)


@pytest.mark.parametrize("case", KERAS_RS_CASES, ids=[c["test"] for c in KERAS_RS_CASES])
def test_keras_rs_own_cases(case: dict) -> None:
    name, kwargs, want = case["metric"], case["kwargs"], case["expected"]
    y_true = case["y_true"]
    peer = getattr(keras_rs.metrics, name)(**kwargs)
    peer.update_state(y_true, case["y_pred"], sample_weight=case["sample_weight"])
    assert _close(float(peer.result()), want)  # keras-rs's test, as keras-rs runs it
    ours = getattr(rk, name)(**kwargs)
    ours.update_state(y_true, case["y_pred"], sample_weight=case["sample_weight"])
    assert _close(float(ours.result()), want), f"rankmeter.keras: {float(ours.result())} != {want}"
    labels, scores, mask, weights = _case_arrays(case)
    k = kwargs.get("k") or (labels.shape[1] if name == "PrecisionAtK" else None)
    measure = MEASURE_OF[name] + suffix(k)
    got = rankmeter.evaluate_arrays(labels, scores, measure, mask=mask, sample_weight=weights)[measure]
    if np.isnan(got):  # every list weighs 0 (keras's Mean then reports 0): rankmeter's mean of nothing is NaN
        w = np.ones(labels.shape) if weights is None else np.asarray(weights, dtype=np.float64)
        w = w[:, None] if w.ndim == 1 else w
        assert want == 0.0 and not (mask & (np.broadcast_to(w, labels.shape) > 0)).any()
        return
    assert _close(got, want), f"evaluate_arrays: {got} != {want}"
