"""Oracle: torchmetrics' RetrievalFallOut and RetrievalAUROC (CPU PyTorch) against rankmeter's fall_out and auroc.

Inputs in torchmetrics' long format (``indexes`` group the rows into queries): ragged lists, float32 scores,
binary targets, queries whose items are all relevant and queries without a relevant item.

* fall_out@k: rankmeter's ``retrieval_fall_out`` preset (``fall_out(all_relevant=1)``) is torchmetrics'
  class with its default ``empty_target_action="pos"``; plain ``fall_out`` is its functional
  ``retrieval_fall_out`` (0 there) and the class with ``"neg"``. Tie-free scores compare exactly; with ties
  torchmetrics takes the order ``torch.argsort`` gives, which rankmeter reproduces when handed that order,
  and its value lies between rankmeter's optimistic and pessimistic ones.
* auroc: torchmetrics' trapezoidal area counts a tied (relevant, non-relevant) pair 1/2, as rankmeter's
  ``ties="expected"``; ``retrieval_auroc`` (``auroc(all_relevant=0)``) gives torchmetrics' 0 for a list
  whose items are all relevant; a query without a relevant item is torchmetrics' empty target, whose
  ``empty_target_action`` ``neg`` / ``pos`` / ``skip`` is rankmeter's ``empty`` ``zero`` / ``one`` / ``skip``.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torchmetrics.functional.retrieval as functional
import torchmetrics.retrieval as retrieval

import rankmeter

CUTOFFS = (1, 2, 3, 5, 50)


def _per_query(values, dim=None):  # type: ignore[no-untyped-def]
    """A torchmetrics aggregation that keeps every query's value."""
    return values


def _collection(seed: int, ties: bool) -> tuple[list[int], np.ndarray, np.ndarray]:
    """(indexes, float32 scores, 0/1 targets); queries 0, 7, 14... all non-relevant, 1, 8, 15... all relevant."""
    rng = np.random.default_rng(seed)
    indexes: list[int] = []
    scores: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    for q in range(40):
        n = int(rng.integers(1, 13))
        if ties:
            s = rng.integers(0, 3, n) / 2
        else:
            s = rng.permutation(4096)[:n] / 4096  # distinct, exact in float32
        t = (rng.random(n) < 0.4).astype(np.int64)
        t[:] = 0 if q % 7 == 0 else 1 if q % 7 == 1 else t
        indexes += [q] * n
        scores.append(s.astype(np.float32))
        targets.append(t)
    rows = rng.permutation(len(indexes))  # torchmetrics groups the rows itself
    return list(np.array(indexes)[rows]), np.concatenate(scores)[rows], np.concatenate(targets)[rows]


def _kinds(indexes: list[int], targets: np.ndarray) -> tuple[int, int]:
    """(queries whose items are all relevant, queries without a relevant item)."""
    idx = np.array(indexes)
    rel = np.array([targets[idx == q].mean() for q in range(40)])
    return int((rel == 1).sum()), int((rel == 0).sum())


def _rankmeter_input(indexes: list[int], scores: np.ndarray, targets: np.ndarray) -> tuple[dict, dict]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for row, (q, s, t) in enumerate(zip(indexes, scores.tolist(), targets.tolist(), strict=True)):
        qrels.setdefault(f"q{q:02d}", {})[f"d{row}"] = int(t)
        run.setdefault(f"q{q:02d}", {})[f"d{row}"] = float(s)
    return qrels, run


def _torchmetrics(metric, indexes, scores, targets) -> np.ndarray:  # type: ignore[no-untyped-def]
    metric.update(torch.tensor(scores), torch.tensor(targets), indexes=torch.tensor(indexes))
    return np.asarray(metric.compute().numpy(), dtype=np.float64)


@pytest.mark.parametrize("seed", range(3))
def test_fall_out_tie_free(seed: int) -> None:
    indexes, scores, targets = _collection(seed, ties=False)
    qrels, run = _rankmeter_input(indexes, scores, targets)
    preset = rankmeter.evaluate(qrels, run, [f"retrieval_fall_out@{k}" for k in CUTOFFS])
    plain = rankmeter.evaluate(qrels, run, [f"fall_out@{k}" for k in CUTOFFS])
    assert plain.query_ids.tolist() == sorted(plain.query_ids.tolist()) and len(plain.query_ids) == 40
    for c, k in enumerate(CUTOFFS):
        pos = _torchmetrics(retrieval.RetrievalFallOut(top_k=k, aggregation=_per_query), indexes, scores, targets)
        neg = _torchmetrics(
            retrieval.RetrievalFallOut(top_k=k, aggregation=_per_query, empty_target_action="neg"),
            indexes,
            scores,
            targets,
        )
        np.testing.assert_allclose(preset.values[:, c], pos, rtol=0, atol=1e-6)
        np.testing.assert_allclose(plain.values[:, c], neg, rtol=0, atol=1e-6)
        all_relevant, _ = _kinds(indexes, targets)
        assert (pos != neg).sum() == all_relevant >= 6  # the all-relevant queries tell the two apart


def test_fall_out_with_ties_follows_the_order_torch_gives() -> None:
    indexes, scores, targets = _collection(11, ties=True)
    idx = np.array(indexes)
    qrels, _ = _rankmeter_input(indexes, scores, targets)
    torch_order_run: dict[str, dict[str, float]] = {}
    functional_values = np.zeros((40, len(CUTOFFS)))
    for q in range(40):
        rows = np.flatnonzero(idx == q)
        preds, target = torch.tensor(scores[rows]), torch.tensor(targets[rows])
        order = torch.argsort(preds, dim=-1, descending=True).numpy()  # torchmetrics' order, ties included
        torch_order_run[f"q{q:02d}"] = {f"d{rows[i]}": float(len(rows) - r) for r, i in enumerate(order)}
        for c, k in enumerate(CUTOFFS):
            functional_values[q, c] = float(functional.retrieval_fall_out(preds, target, top_k=k))
    names = [f"fall_out@{k}" for k in CUTOFFS]
    same_order = rankmeter.evaluate(qrels, torch_order_run, names)
    np.testing.assert_allclose(same_order.values, functional_values, rtol=0, atol=1e-6)
    _, run = _rankmeter_input(indexes, scores, targets)
    low = rankmeter.evaluate(qrels, run, names, ties="optimistic").values
    high = rankmeter.evaluate(qrels, run, names, ties="pessimistic").values
    assert np.all(low <= functional_values + 1e-6) and np.all(functional_values <= high + 1e-6)
    assert np.any(low < high)  # the ties matter on this input


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ties", [False, True])
def test_auroc(seed: int, ties: bool) -> None:
    indexes, scores, targets = _collection(20 + seed, ties=ties)
    qrels, run = _rankmeter_input(indexes, scores, targets)
    for action, empty in (("neg", "zero"), ("pos", "one"), ("skip", "skip")):
        want = _torchmetrics(
            retrieval.RetrievalAUROC(aggregation=_per_query, empty_target_action=action), indexes, scores, targets
        )
        got = rankmeter.evaluate(qrels, run, "retrieval_auroc", ties="expected", empty=empty)
        kept = got.values[got.included[:, 0], 0] if got.included.ndim == 2 else got.values[got.included, 0]
        _, no_relevant = _kinds(indexes, targets)
        assert len(kept) == len(want) == (40 - no_relevant if action == "skip" else 40) and no_relevant >= 6
        np.testing.assert_allclose(kept, want, rtol=0, atol=1e-6)
    plain = rankmeter.evaluate(qrels, run, "auroc", ties="expected").values[:, 0]
    idx = np.array(indexes)
    all_relevant = [targets[idx == q].all() for q in range(40)]
    assert plain[all_relevant].tolist() == [1.0] * sum(all_relevant)  # rankmeter's own: no pair out of order
    if not ties:  # tie-free: every tie policy gives torchmetrics' number
        want = _torchmetrics(retrieval.RetrievalAUROC(aggregation=_per_query), indexes, scores, targets)
        stable = rankmeter.evaluate(qrels, run, "retrieval_auroc", ties="stable").values[:, 0]
        np.testing.assert_allclose(stable, want, rtol=0, atol=1e-6)


def test_mean_over_queries_is_torchmetrics_default_aggregation() -> None:
    indexes, scores, targets = _collection(5, ties=False)
    qrels, run = _rankmeter_input(indexes, scores, targets)
    metric = retrieval.RetrievalFallOut(top_k=3)
    metric.update(torch.tensor(scores), torch.tensor(targets), indexes=torch.tensor(indexes))
    got = rankmeter.evaluate(qrels, run, "retrieval_fall_out@3").aggregate["fall_out(all_relevant=1)@3"]
    assert got == pytest.approx(float(metric.compute()), abs=1e-6)


@pytest.mark.parametrize("name", ["fall_out(all_relevant=2)@3", "auroc(all_relevant=-0.5)", "auroc(all_relevant=x)"])
def test_all_relevant_must_be_a_share(name: str) -> None:
    with pytest.raises(rankmeter.errors.MeasureSyntaxError, match=r"all_relevant must be a number in \[0, 1\]|is not"):
        rankmeter.parse(name)


def test_all_relevant_as_a_python_value_and_empty_lists() -> None:
    # an empty list (a judged query the run misses) stays 0 whatever all_relevant says
    from rankmeter.measures.grammar import measure

    res = rankmeter.evaluate(
        {"a": {"d1": 1}, "b": {"d2": 1}}, {"a": {"d1": 0.5}}, [measure("fall_out", 2, all_relevant=1)]
    )
    assert dict(zip(res.query_ids.tolist(), res.values[:, 0].tolist(), strict=True)) == {"a": 1.0, "b": 0.0}


# --------------------------------------------------------------------------- rankmeter.torch's Retrieval* classes
# Every torchmetrics retrieval class run side by side with rankmeter.torch's class of the same name, on ragged
# queries with scores <= 0 (torchmetrics then ignores the item's relevance in AP, RR, P and R), queries without
# a relevant item, queries whose items are all relevant, every empty_target_action and aggregation, top_k and
# the class's own options. Scores are tie-free in float32 (tied orders are torch.topk's, unspecified) except for
# NDCG, whose tie average is exact.

import rankmeter.torch as rt  # noqa: E402
from rankmeter.errors import InputFormatError, PolicyError  # noqa: E402


def _std(values, dim=None):  # type: ignore[no-untyped-def]
    """A callable aggregation."""
    return values.std() if dim is None else values.std(dim=dim)


AGGREGATIONS = ["mean", "median", "min", "max", _std]
ACTIONS = ["neg", "pos", "skip"]


def _signed(seed: int, graded: bool = False, ties: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(float32 preds in (-0.5, 1) with about a third <= 0, targets, int64 indexes) in shuffled row order."""
    indexes, scores, targets = _collection(seed, ties=ties)
    rng = np.random.default_rng(seed + 1000)
    if not ties:
        scores = (scores * 1.5 - 0.5).astype(np.float32)  # still distinct and exact in float32
    if graded:
        targets = targets * rng.integers(1, 4, len(targets))
    return torch.tensor(scores), torch.tensor(targets), torch.tensor(indexes, dtype=torch.long)


def _side_by_side(name: str, kwargs: dict, data, batches: int = 3):  # type: ignore[no-untyped-def]
    ours, theirs = getattr(rt, name)(**kwargs), getattr(retrieval, name)(**kwargs)
    preds, target, indexes = data
    for part in np.array_split(np.arange(len(preds)), batches):
        ours.update(preds[part], target[part], indexes=indexes[part])
        theirs.update(preds[part], target[part], indexes=indexes[part])
    return ours.compute(), theirs.compute()


def _same(ours, theirs, ctx) -> None:  # type: ignore[no-untyped-def]
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs), ctx
        for a, b in zip(ours, theirs, strict=True):
            _same(a, b, ctx)
        return
    np.testing.assert_allclose(
        np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64), rtol=0, atol=2e-6, err_msg=ctx
    )


TOP_K_CLASSES = ["RetrievalMAP", "RetrievalMRR", "RetrievalRecall", "RetrievalHitRate", "RetrievalFallOut",
                 "RetrievalPrecision", "RetrievalNormalizedDCG", "RetrievalAUROC"]  # fmt: skip


@pytest.mark.parametrize("name", TOP_K_CLASSES)
@pytest.mark.parametrize("action", ACTIONS)
def test_retrieval_classes_equal_torchmetrics(name: str, action: str) -> None:
    seed = 10 * TOP_K_CLASSES.index(name) + ACTIONS.index(action)  # a fixed seed per case
    data = _signed(seed, graded=name == "RetrievalNormalizedDCG")
    assert (data[0] <= 0).sum() > 50
    for top_k in (None, 1, 3, 7, 50):
        for aggregation in AGGREGATIONS:
            kwargs = {"top_k": top_k, "empty_target_action": action, "aggregation": aggregation}
            ours, theirs = _side_by_side(name, kwargs, data)
            assert ours.dtype == torch.float64
            _same(ours, theirs, f"{name} {kwargs}")


def test_map_at_k_divides_by_the_relevant_items_in_the_top_k() -> None:
    data = _signed(3)
    ours, theirs = _side_by_side("RetrievalMAP", {"top_k": 2}, data)
    _same(ours, theirs, "map@2")
    rankmeters = rt.Metric("map@2")  # rankmeter's MAP divides by every relevant item: another number
    rankmeters.update(*data[:2], indexes=data[2])
    assert float(rankmeters.compute()) < float(ours) - 0.05


@pytest.mark.parametrize("action", ACTIONS)
def test_ndcg_on_tied_scores_and_ignore_index(action: str) -> None:
    preds, target, indexes = _signed(7, graded=True, ties=True)
    target = target.clone()
    target[::9] = -100
    for top_k in (None, 2, 5):
        kwargs = {"top_k": top_k, "empty_target_action": action, "ignore_index": -100}
        _same(*_side_by_side("RetrievalNormalizedDCG", kwargs, (preds, target, indexes)), f"ndcg {kwargs}")


def test_precision_adaptive_k_and_r_precision() -> None:
    data = _signed(8)
    for top_k in (None, 3, 20):
        for adaptive_k in (False, True):
            kwargs = {"top_k": top_k, "adaptive_k": adaptive_k}
            _same(*_side_by_side("RetrievalPrecision", kwargs, data), f"precision {kwargs}")
    for action in ACTIONS:
        for aggregation in AGGREGATIONS:
            kwargs = {"empty_target_action": action, "aggregation": aggregation}
            _same(*_side_by_side("RetrievalRPrecision", kwargs, data), f"rprec {kwargs}")


@pytest.mark.parametrize("max_fpr", [None, 0.1, 0.3, 0.5, 1.0])
def test_auroc_max_fpr_and_top_k(max_fpr) -> None:  # type: ignore[no-untyped-def]
    for ties in (False, True):
        data = _signed(9 + ties, ties=ties)
        for top_k in (None, 4, 9) if not ties else (None,):  # a cutoff inside a tie: torch.topk's pick
            kwargs = {"top_k": top_k, "max_fpr": max_fpr}
            _same(*_side_by_side("RetrievalAUROC", kwargs, data), f"auroc {kwargs} ties={ties}")


@pytest.mark.parametrize("action", ACTIONS)
def test_precision_recall_curve_and_recall_at_fixed_precision(action: str) -> None:
    data = _signed(12)
    for max_k in (None, 1, 4, 15):
        for adaptive_k in (False, True):
            for aggregation in AGGREGATIONS:
                kwargs = {"max_k": max_k, "adaptive_k": adaptive_k, "empty_target_action": action,
                          "aggregation": aggregation}  # fmt: skip
                _same(*_side_by_side("RetrievalPrecisionRecallCurve", kwargs, data), f"curve {kwargs}")
            for min_precision in (0.0, 0.2, 0.45, 0.9, 1.0):
                kwargs = {"min_precision": min_precision, "max_k": max_k, "adaptive_k": adaptive_k,
                          "empty_target_action": action}  # fmt: skip
                _same(*_side_by_side("RetrievalRecallAtFixedPrecision", kwargs, data), f"fixed {kwargs}")


def test_empty_target_error_like_torchmetrics() -> None:
    data = _signed(13)
    for name, what in (("RetrievalMAP", "relevant"), ("RetrievalFallOut", "non-relevant")):
        theirs = getattr(retrieval, name)(empty_target_action="error")
        theirs.update(*data[:2], indexes=data[2])
        with pytest.raises(ValueError, match="no (positive|negative) target"):
            theirs.compute()
        ours = getattr(rt, name)(empty_target_action="error")
        ours.update(*data[:2], indexes=data[2])
        with pytest.raises(PolicyError, match=rf"queries have no {what} item .*empty_target_action='error'"):
            ours.compute()


def test_classes_refuse_what_torchmetrics_refuses() -> None:
    with pytest.raises(InputFormatError, match=r"RetrievalMAP takes targets 0 and 1, as torchmetrics; got 2.0"):
        m = rt.RetrievalMAP()
        m.update(torch.tensor([0.5, 0.2]), torch.tensor([2, 0]), indexes=torch.tensor([0, 0]))
        m.compute()
    with pytest.raises(PolicyError, match=r"aggregation must be one of mean, median, min, max or a callable"):
        rt.RetrievalMAP(aggregation="mode")
    with pytest.raises(PolicyError, match=r"max_fpr must be a float in \(0, 1\] or None; got 1.5"):
        rt.RetrievalAUROC(max_fpr=1.5)
    with pytest.raises(PolicyError, match=r"min_precision must be a float in \[0, 1\]; got 2.0"):
        rt.RetrievalRecallAtFixedPrecision(min_precision=2.0)
    with pytest.raises(PolicyError, match=r"adaptive_k must be True or False; got 1"):
        rt.RetrievalPrecision(adaptive_k=1)
    with pytest.raises(PolicyError, match=r"max_k must be a positive integer or None; got 0"):
        rt.RetrievalPrecisionRecallCurve(max_k=0)


def test_metric_aggregation_is_torchmetrics_over_rankmeter_values() -> None:
    """rankmeter's measures with torchmetrics's aggregations: the median etc. of rankmeter's per-query values."""
    preds, target, indexes = _signed(14, graded=True)
    for aggregation in AGGREGATIONS:
        metric = rt.Metric(["ndcg@5", "rr"], aggregation=aggregation, empty_target_action="skip")
        metric.update(preds, target, indexes=indexes)
        got = metric.compute()
        qrels, run = _rankmeter_input(indexes.tolist(), preds.numpy(), target.numpy())
        per_query = rankmeter.evaluate(qrels, run, ["ndcg@5", "rr"], empty="skip")
        for j, name in enumerate(["ndcg@5", "rr"]):
            values = torch.tensor(per_query.values[per_query.included[:, j], j], dtype=torch.float64)
            want = {"mean": values.mean(), "median": values.median(), "min": values.min(), "max": values.max()}.get(
                aggregation if isinstance(aggregation, str) else "", values.std()
            )
            assert float(got[name]) == pytest.approx(float(want), abs=1e-12), (name, aggregation)
