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
