"""rankmeter.keras on the backend KERAS_BACKEND names (JAX by default; test_keras_backends.py reruns it on PyTorch).

* keras-rs's six metrics against ``rankmeter.keras``'s, on random tie-free
  batches with ragged masks and the three weight shapes, to 1e-6 in float32
  (relative for the unnormalised DCG). keras-rs runs with ``shuffle_ties=True``:
  on tie-free scores the order is the same, and keras-rs's ``shuffle_ties=False``
  path on PyTorch subtracts 1e-6 * column from the scores, which moves masked
  items (placed at min - 1e-7) above a valid item holding the row's minimum.
* ``ties="expected"`` (and the other policies) against
  ``rankmeter.evaluate_arrays`` on tie-heavy scores (one decimal), inside
  ``jax.jit`` on JAX, to 1e-6 in float32 and 1e-12 in float64.
* ``model.fit`` for two epochs with the metrics, the value ``model.evaluate``
  reports, a ``.keras`` file that loads again, and one test per error message.
"""

from __future__ import annotations

import os

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras
import keras_rs
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import rankmeter  # noqa: E402
import rankmeter.keras as rk  # noqa: E402
from rankmeter.errors import InputFormatError, InvalidScoreError, MeasureSyntaxError, PolicyError  # noqa: E402

BACKEND = keras.backend.backend()
SHAPE = (10, 12)  # one shape: eager JAX compiles each op once per shape
CLASSES = ["NDCG", "DCG", "MeanReciprocalRank", "MeanAveragePrecision", "PrecisionAtK", "RecallAtK"]
WEIGHTINGS = ["none", "scalar", "list", "item"]


def make_batch(rng, *, scores="distinct", weighting="none", negative=False, full_rows=True):
    """Labels 0..4 (some rows all 0), ragged masks (some rows fully masked), weights > 0."""
    n, m = SHAPE
    y = rng.integers(0, 5, (n, m)).astype(np.float32)
    y[rng.random(n) < 0.15] = 0.0
    if negative:
        y[rng.random((n, m)) < 0.1] = -1.0
    if scores == "distinct":
        s = rng.permuted(np.tile(np.arange(m, dtype=np.float32), (n, 1)), axis=1)
    else:  # one decimal: many ties
        s = np.round(rng.normal(0.0, 1.0, (n, m)), 1).astype(np.float32)
    mask = rng.random((n, m)) < rng.uniform(0.1, 1.0, (n, 1))
    mask[np.arange(n), rng.integers(0, m, n)] = True
    if full_rows:
        mask[rng.random(n) < 0.15] = False
    w = {
        "none": None,
        "scalar": np.float32(1.7),
        "list": rng.uniform(0.2, 3.0, n).astype(np.float32),
        "item": rng.uniform(0.2, 3.0, (n, m)).astype(np.float32),
    }[weighting]
    return y, s, mask, w


def value(metric, y, s, mask=None, w=None):
    metric.update_state(y if mask is None else {"labels": y, "mask": mask}, s, sample_weight=w)
    out = metric.result()
    return {k: float(v) for k, v in out.items()} if isinstance(out, dict) else float(out)


def close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(b))


@pytest.mark.parametrize("weighting", WEIGHTINGS)
@pytest.mark.parametrize("cls", CLASSES)
def test_keras_rs_metrics_are_reproduced(cls, weighting):
    rng = np.random.default_rng(10 * CLASSES.index(cls) + WEIGHTINGS.index(weighting))
    for rep, k in enumerate([None, 1, 3, 5, 12]):
        y, s, mask, w = make_batch(rng, weighting=weighting)
        want = value(getattr(keras_rs.metrics, cls)(k=k, shuffle_ties=True, seed=1), y, s, mask, w)
        got = value(getattr(rk, cls)(k=k), y, s, mask, w)
        assert close(got, want, 1e-6), (cls, weighting, k, rep, got, want)


def test_keras_rs_conventions_unmasked_unbatched_negative_labels_and_accumulation():
    """No mask (labels < 0 leave the list), rank-1 input, and a mean over several batches."""
    rng = np.random.default_rng(7)
    theirs, ours = keras_rs.metrics.NDCG(k=5, seed=3), rk.NDCG(k=5)
    for _ in range(3):
        y, s, _, w = make_batch(rng, weighting="item", negative=True)
        theirs.update_state(y, s, sample_weight=w)
        ours.update_state(y, s, sample_weight=w)
    assert close(float(ours.result()), float(theirs.result()), 1e-6)
    y, s, _, _ = make_batch(rng)
    for cls in ("NDCG", "MeanAveragePrecision"):  # a rank-1 list is a batch of one (each new shape compiles on JAX)
        want = value(getattr(keras_rs.metrics, cls)(k=4, seed=2), y[1], s[1])
        assert close(value(getattr(rk, cls)(k=4), y[1], s[1]), want, 1e-6), cls
    ours.reset_state()
    assert float(ours.result()) == 0.0  # keras.metrics.Mean's value before any list


# --------------------------------------------------------------------------- tie policies vs evaluate_arrays

MEASURES = ["ndcg(gain=exp)@[1,3,5]", "ndcg", "ndcg(ideal=retrieved)@5", "dcg@[3,20]", "cg@4", "ndcg(discount=jarvelin(2))@5", "rr@[1,3]",
            "map@[3,12]", "ap", "p@[1,5,20]", "r", "r@[2,5]", "success@[1,2]", "p(min_rel=2)@3"]  # fmt: skip


def rm_values(y, s, measures, mask, w, **options):
    """evaluate_arrays with the items every rankmeter.keras metric drops masked: labels < 0 (and weight 0)."""
    mask = (np.ones(y.shape, bool) if mask is None else mask) & (y >= 0)
    res = rankmeter.evaluate_arrays(
        y.astype(np.float64), s.astype(np.float64), measures, mask=mask, sample_weight=w, **options
    )
    return res


def jitted(metric, y, s, mask, w):
    """One update and the result, compiled with jax.jit on the JAX backend (eager elsewhere)."""
    if BACKEND != "jax":
        return value(metric, y, s, mask, w)
    import jax

    @jax.jit
    def step(variables, y, s, mask, w):
        variables = metric.stateless_update_state(variables, {"labels": y, "mask": mask}, s, sample_weight=w)
        return metric.stateless_result(variables)

    out = step([v.value for v in metric.variables], y, s, mask, w)
    return {k: float(v) for k, v in out.items()} if isinstance(out, dict) else float(out)


@pytest.mark.parametrize(
    ("ties", "weighting"),
    [("expected", "none"), ("expected", "item"), ("stable", "list"), ("optimistic", "item"), ("pessimistic", "none")],
)
def test_metric_equals_evaluate_arrays_on_tied_scores(ties, weighting):
    rng = np.random.default_rng(100 + len(ties) + 7 * (weighting == "item"))
    y, s, mask, w = make_batch(rng, scores="ties", weighting=weighting, negative=True)
    if weighting == "none":
        w = None
    res = rm_values(y, s, MEASURES, mask, w, ties=ties)
    metric = rk.Metric(MEASURES, ties=ties)
    got = jitted(metric, y, s, mask, np.ones(SHAPE, np.float32) if w is None else w)
    assert sorted(got) == sorted(res.aggregate)
    for name, v in got.items():
        assert close(v, res[name], 1e-6), (ties, name, v, res[name])


@pytest.mark.parametrize("small_depth", [64, 0])  # the (batch, depth, depth) groups; one sort and segment sums
@pytest.mark.parametrize("measures", [MEASURES, ["ndcg@3", "map@5", "rr@4", "p@[2,5]", "success@2", "dcg@5"]])
def test_expected_ties_at_every_depth_equal_evaluate_arrays(measures, small_depth, monkeypatch):
    """Cutoffs below the list size keep that many positions: the group of the last one runs past them."""
    monkeypatch.setattr("rankmeter.keras.ranking.SMALL_DEPTH", small_depth)
    rng = np.random.default_rng(150 + small_depth + len(measures))
    y, s, mask, w = make_batch(rng, scores="ties", weighting="item", negative=True)
    s = np.round(s, 0)  # a handful of groups per row, most longer than the depth
    res = rm_values(y, s, measures, mask, w)
    got = jitted(rk.Metric(measures), y, s, mask, w)
    assert sorted(got) == sorted(res.aggregate)
    for name, v in got.items():
        assert close(v, res[name], 1e-6), (small_depth, name, v, res[name])


@pytest.mark.parametrize("small_depth", [64, 0])
def test_expected_ties_float64_to_1e12(small_depth, monkeypatch):
    monkeypatch.setattr("rankmeter.keras.ranking.SMALL_DEPTH", small_depth)
    rng = np.random.default_rng(200)
    y, s, mask, w = make_batch(rng, scores="ties", weighting="item")
    res = rm_values(y, s, MEASURES, mask, w)
    y64, s64, w64 = y.astype(np.float64), s.astype(np.float64), w.astype(np.float64)
    if BACKEND == "jax":
        import jax

        with jax.enable_x64(True):
            got = jitted(rk.Metric(MEASURES, dtype="float64"), y64, s64, mask, w64)
    else:
        got = value(rk.Metric(MEASURES, dtype="float64"), y64, s64, mask, w64)
    for name, v in got.items():
        assert close(v, res[name], 1e-12), (name, v, res[name])


@pytest.mark.parametrize(
    ("cls", "measure"),
    [("NDCG", "ndcg(gain=exp)@3"), ("MeanReciprocalRank", "rr(min_rel=1)@3"), ("RecallAtK", "r(min_rel=1)@3"),
     ("MeanAveragePrecision", "map(min_rel=1)@3")],
)  # fmt: skip
def test_keras_rs_classes_take_expected_ties(cls, measure):
    """On tied scores the keras-rs names average over tied orders exactly (their default ``ties``)."""
    rng = np.random.default_rng(300 + CLASSES.index(cls))
    y, s, mask, w = make_batch(rng, scores="ties", weighting="list")
    res = rm_values(y, s, measure, mask, w)
    assert close(value(getattr(rk, cls)(k=3), y, s, mask, w), res[measure], 1e-6)


@pytest.mark.parametrize("small_depth", [64, 0])
@pytest.mark.parametrize("depth", [None, 3, 5])
@pytest.mark.parametrize("ties", ["expected", "stable", "trec", "optimistic", "pessimistic"])
def test_infinite_scores_rank_and_tie_like_finite_ones(ties, depth, small_depth, monkeypatch):
    """Valid +-inf scores rank by :func:`rankmeter.core.ties.reference_order` like the finite stand-ins 9 and -9.

    Equal infinities form one tied group under ``expected``, and a valid ``-inf`` ranks before every masked item.
    """
    from keras import ops

    from rankmeter.core.ties import TiedItem, reference_order
    from rankmeter.keras.ranking import Ranked

    monkeypatch.setattr("rankmeter.keras.ranking.SMALL_DEPTH", small_depth)
    scores = np.array([[0.0, np.inf, -np.inf, 1.0, np.inf, 5.0, -np.inf, 1.0]])
    valid = np.array([[False, True, True, True, True, False, True, True]])
    grades = np.array([[0.0, 1.0, 2.0, 0.0, 3.0, 0.0, 1.0, 2.0]])
    t = ops.convert_to_tensor
    ranked = Ranked(t(scores), t(valid), ties, grades=t(grades), depth=depth)
    stand_in = np.where(valid, np.clip(scores, -9.0, 9.0), -10.0)  # masked items last, in column order
    items = [TiedItem(i, grade=float(grades[0, i]), doc=i) for i in range(8)]
    spec = reference_order(stand_in[0].tolist(), ties, items)[:depth]
    order = ops.convert_to_numpy(ranked.order)[0, : len(spec)]
    start = ops.convert_to_numpy(ranked.start)[0, : len(spec)].tolist()
    if ties != "expected":
        assert order.tolist() == spec
        assert start == list(range(len(spec)))
        return
    assert scores[0, order].tolist() == scores[0, spec].tolist()
    # groups: inf x2, 1.0 x2, -inf x2, then the two masked items alone
    assert start == [0, 0, 2, 2, 4, 4, 6, 7][: len(spec)]
    assert ops.convert_to_numpy(ranked.size)[0, : len(spec)].tolist() == [2, 2, 2, 2, 2, 2, 1, 1][: len(spec)]


def test_shuffle_lies_between_the_bounds_and_is_seeded():
    rng = np.random.default_rng(400)
    y, s, mask, _ = make_batch(rng, scores="ties", full_rows=False)
    low = value(rk.NDCG(k=3, ties="pessimistic"), y, s, mask)
    high = value(rk.NDCG(k=3, ties="optimistic"), y, s, mask)
    draws = [value(rk.NDCG(k=3, shuffle_ties=True, seed=seed), y, s, mask) for seed in (1, 2, 3)]
    assert low < high
    assert all(low - 1e-6 <= d <= high + 1e-6 for d in draws)
    assert value(rk.NDCG(k=3, ties="shuffle", seed=1), y, s, mask) == pytest.approx(draws[0], abs=1e-7)


@pytest.mark.parametrize("empty", ["zero", "one", "skip", "nan"])
def test_empty_policies_match_evaluate_arrays(empty):
    rng = np.random.default_rng(500)
    y, s, mask, _ = make_batch(rng, scores="ties")
    y[:3] = 0.0
    measures = ["ndcg@5", "p@3", "rr"]
    res = rm_values(y, s, measures, mask, None, empty=empty)
    got = value(rk.Metric(measures, empty=empty), y, s, mask)
    for name in measures:
        assert close(got[name], res[name], 1e-6), (empty, name)


def test_sample_weight_of_every_shape_keras_rs_takes():
    rng = np.random.default_rng(550)
    y, s, mask, _ = make_batch(rng)
    n, m = SHAPE
    for w in (rng.uniform(0.2, 3.0, (n, 1)), rng.uniform(0.2, 3.0, (1, m)), np.full((1, 1), 2.5)):
        w = w.astype(np.float32)
        want = value(keras_rs.metrics.NDCG(k=5, seed=1), y, s, mask, w)
        assert close(value(rk.NDCG(k=5), y, s, mask, w), want, 1e-6), w.shape
        res = rm_values(y, s, "ndcg(gain=exp)@5", mask, np.broadcast_to(w, SHAPE))
        assert close(value(rk.Metric("ndcg(gain=exp)@5"), y, s, mask, w), res["ndcg(gain=exp)@5"], 1e-6), w.shape
        assert close(res["ndcg(gain=exp)@5"], want, 1e-6), w.shape


def test_one_masking_rule_negative_labels_and_zero_weights():
    """rk.NDCG, rk.Metric and keras-rs drop labels < 0 and items of weight 0 alike; evaluate_arrays with the mask."""
    rng = np.random.default_rng(560)
    y, s, _, w = make_batch(rng, weighting="item", negative=True)
    w[rng.random(SHAPE) < 0.2] = 0.0
    want = value(keras_rs.metrics.NDCG(k=5, seed=2), y, s, None, w)
    for metric in (rk.NDCG(k=5), rk.Metric("ndcg(gain=exp)@5")):
        assert close(value(metric, y, s, None, w), want, 1e-6), metric.name
    assert close(rm_values(y, s, "ndcg(gain=exp)@5", None, w)["ndcg(gain=exp)@5"], want, 1e-6)
    assert close(
        value(rk.Metric("map(min_rel=1)"), y, s, None, w),
        value(keras_rs.metrics.MeanAveragePrecision(seed=2), y, s, None, w),
        1e-6,
    )


def test_nan_scores_give_nan_inside_a_compiled_step():
    """A compiled step cannot raise on a value: the lists holding NaN make the result NaN (eagerly: an error)."""
    rng = np.random.default_rng(570)
    y, s, mask, _ = make_batch(rng, full_rows=False)
    w = np.ones(SHAPE, np.float32)
    clean = jitted(rk.Metric(["ndcg@5", "map"]), y, s, mask, w)
    hidden = s.copy()
    hidden[~mask] = np.nan  # masked items are never read
    assert jitted(rk.Metric(["ndcg@5", "map"]), y, hidden, mask, w) == pytest.approx(clean, abs=1e-6)
    bad = s.copy()
    bad[2, np.flatnonzero(mask[2])[0]] = np.nan
    if BACKEND != "jax":
        with pytest.raises(InvalidScoreError, match=r"y_pred\[2, \d+\] is nan"):
            jitted(rk.NDCG(k=5), y, bad, mask, w)
        return
    for metric in (rk.NDCG(k=5), rk.Metric(["ndcg@5", "map"]), rk.Metric("p@3", empty="skip")):
        got = jitted(metric, y, bad, mask, w)
        assert all(np.isnan(v) for v in (got.values() if isinstance(got, dict) else [got])), metric.name
    assert np.isnan(jitted(rk.NDCG(k=5), y, np.full(SHAPE, np.nan, np.float32), mask, w))  # all NaN: NaN, not 0


# --------------------------------------------------------------------------- config, saving, training


def test_config_round_trip():
    def custom_gain(label):
        return label * 2.0

    metrics = [
        rk.NDCG(k=5, ties="optimistic", name="n5"),
        rk.DCG(k=3, gain_fn=rk.default_gain_fn, shuffle_ties=True, seed=4),
        rk.MeanReciprocalRank(),
        rk.MeanAveragePrecision(k=2, dtype="float32"),
        rk.PrecisionAtK(k=1, shuffle_ties=False),
        rk.RecallAtK(k=7),
        rk.Metric("ndcg(gain=exp)@[5,10]", ties="pessimistic", empty="skip", name="m"),
    ]
    rng = np.random.default_rng(600)
    y, s, mask, w = make_batch(rng, scores="ties", weighting="list")
    for metric in metrics:
        config = metric.get_config()
        again = type(metric).from_config(config)
        assert again.get_config() == config
        assert value(again, y, s, mask, w) == value(metric, y, s, mask, w)
    assert metrics[0].get_config()["ties"] == "optimistic"
    assert metrics[1].ties == "shuffle" and metrics[4].ties == "stable" and metrics[2].ties == "expected"
    assert rk.Metric("ndcg@10").name == "ndcg@10"
    assert rk.NDCG(gain_fn=custom_gain).gain_fn is custom_gain


def tiny_data(seed=0, n=64, m=10, d=4):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, m, d)).astype(np.float32)
    y = np.clip(np.round(x[..., 0] + rng.normal(0, 0.5, (n, m))), 0, 3).astype(np.float32)
    return x, y


def tiny_model(m=10, d=4):
    inputs = keras.Input((m, d))
    scores = keras.layers.Reshape((m,))(keras.layers.Dense(1)(keras.layers.Dense(8, activation="relu")(inputs)))
    return keras.Model(inputs, scores)


def test_model_fit_two_epochs_evaluate_and_saved_model(tmp_path):
    keras.utils.set_random_seed(0)
    x, y = tiny_data()
    model = tiny_model()
    model.compile(
        optimizer="adam",
        loss="mse",
        metrics=[rk.NDCG(k=10, name="ndcg"), rk.Metric("ndcg(gain=exp)@[5,10]"), rk.MeanReciprocalRank(name="mrr")],
    )
    history = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    for key in ("ndcg", "ndcg(gain=exp)@5", "ndcg(gain=exp)@10", "mrr"):
        assert len(history.history[key]) == 2
    logs = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
    pred = np.asarray(model.predict(x, batch_size=16, verbose=0), dtype=np.float64)
    res = rankmeter.evaluate_arrays(y, pred, ["ndcg(gain=exp)@[5,10]", "rr(min_rel=1)"])
    assert logs["ndcg"] == pytest.approx(res["ndcg(gain=exp)@10"], abs=1e-5)  # lists unweighted: batches add up
    assert logs["ndcg(gain=exp)@5"] == pytest.approx(res["ndcg(gain=exp)@5"], abs=1e-5)
    assert logs["mrr"] == pytest.approx(res["rr(min_rel=1)"], abs=1e-5)
    path = tmp_path / "ranker.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    again = loaded.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
    for key in ("ndcg", "ndcg(gain=exp)@5", "mrr"):
        assert again[key] == pytest.approx(logs[key], abs=1e-6)


def test_model_fit_with_padded_lists_masks_the_padding():
    """Lists of 3 to 10 items padded to 10 with label -1 (the target Keras's fit takes): keras-rs's NDCG,
    rk.NDCG and rk.Metric agree on tie-free scores, and equal evaluate_arrays with mask=labels >= 0; per-item
    weights (0 on some items) through fit's sample_weight reach the weighted_metrics."""
    keras.utils.set_random_seed(1)
    x, y = tiny_data(seed=3)
    rng = np.random.default_rng(4)
    padded = np.arange(10)[None, :] >= rng.integers(3, 11, len(y))[:, None]
    y[padded], x[padded] = -1.0, 0.0
    w = rng.uniform(0.5, 2.0, y.shape).astype(np.float32)
    w[rng.random(y.shape) < 0.15] = 0.0
    model = tiny_model()
    metrics = [
        keras_rs.metrics.NDCG(name="peer"),
        rk.NDCG(name="rk_ndcg"),
        rk.Metric("ndcg(gain=exp)", name="rk_metric"),
    ]
    weighted = [
        keras_rs.metrics.NDCG(name="w_peer"),
        rk.NDCG(name="w_rk"),
        rk.Metric("ndcg(gain=exp)", name="w_metric"),
    ]
    model.compile(
        optimizer="adam", loss=keras_rs.losses.PairwiseHingeLoss(), metrics=metrics, weighted_metrics=weighted
    )
    history = model.fit(x, y, sample_weight=w, epochs=2, batch_size=16, verbose=0).history
    for ours in ("rk_ndcg", "rk_metric"):
        assert history[ours] == pytest.approx(history["peer"], abs=1e-5), ours
    for ours in ("w_rk", "w_metric"):
        assert history[ours] == pytest.approx(history["w_peer"], abs=1e-5), ours
    logs = model.evaluate(x, y, sample_weight=w, batch_size=16, verbose=0, return_dict=True)
    pred = np.asarray(model.predict(x, batch_size=16, verbose=0), dtype=np.float64)
    res = rankmeter.evaluate_arrays(y, pred, "ndcg(gain=exp)", mask=y >= 0)
    for key in ("peer", "rk_ndcg", "rk_metric"):
        assert logs[key] == pytest.approx(res["ndcg(gain=exp)"], abs=1e-5), key
    assert res["ndcg(gain=exp)"] != pytest.approx(
        rankmeter.evaluate_arrays(y, pred, "ndcg(gain=exp)")["ndcg(gain=exp)"]
    )


# --------------------------------------------------------------------------- errors


def test_errors_name_the_argument_and_what_was_received():
    y = np.zeros((2, 3), np.float32)
    s = np.zeros((2, 3), np.float32)
    with pytest.raises(InputFormatError, match=r"y_pred has shape \(2, 4\) but y_true has shape \(2, 3\)"):
        rk.NDCG().update_state(y, np.zeros((2, 4), np.float32))
    with pytest.raises(InputFormatError, match=r"y_true\['mask'\] has shape \(3, 2\) but y_true\['labels'\]"):
        rk.NDCG().update_state({"labels": y, "mask": np.ones((3, 2), bool)}, s)
    with pytest.raises(
        InputFormatError, match=r"y_true as a dict takes the keys 'labels' and 'mask'; got keys \['mask'\]"
    ):
        rk.NDCG().update_state({"mask": np.ones((2, 3), bool)}, s)
    with pytest.raises(
        InputFormatError,
        match=r"sample_weight has shape \(3,\); with y_true of shape \(2, 3\) it must be a scalar, \(2,\), "
        r"or broadcast to \(2, 3\) \(e.g. \(2, 1\)\)",
    ):
        rk.NDCG().update_state(y, s, sample_weight=np.ones(3, np.float32))
    with pytest.raises(InputFormatError, match=r"y_true must have shape .* got shape \(2, 3, 1\)"):
        rk.NDCG().update_state(y[..., None], s[..., None])
    bad = s.copy()
    bad[1, 2] = np.nan
    with pytest.raises(InvalidScoreError, match=r"y_pred\[1, 2\] is nan; values must be finite"):
        rk.Metric("ndcg@2").update_state(y, bad)
    masked = {"labels": y, "mask": np.array([[True] * 3, [True, True, False]])}
    rk.Metric("ndcg@2").update_state(masked, bad)  # a masked NaN is not read
    with pytest.raises(MeasureSyntaxError, match="nDCG@x"):
        rk.Metric("nDCG@x")
    with pytest.raises(MeasureSyntaxError, match=r"'bpref' is not available in rankmeter.keras"):
        rk.Metric("bpref")
    with pytest.raises(MeasureSyntaxError, match=r"gain=.* is not available in rankmeter.keras"):
        rk.Metric("ndcg(gain={0:0,1:3})@5")
    with pytest.raises(PolicyError, match=r"k must be a positive integer or None; got 0"):
        rk.NDCG(k=0)
    with pytest.raises(PolicyError, match=r"unknown ties policy 'random'"):
        rk.RecallAtK(ties="random")
    with pytest.raises(PolicyError, match=r"ties='trec' orders by document id"):
        rk.Metric("p@5", ties="trec")
    with pytest.raises(PolicyError, match=r"empty='error' cannot raise inside a compiled training step"):
        rk.Metric("p@5", empty="error")
    with pytest.raises(MeasureSyntaxError, match=r"no measures given"):
        rk.Metric([])
