"""rankmeter.torch against torchmetrics's retrieval metrics, the dense form, two gloo processes, and the errors.

The ``Retrieval*`` classes give torchmetrics's numbers, quirks included; these
tests draw preds in (0.01, 1] and compare the common cases (the quirks, every
class and option: tests/oracles/test_oracle_torchmetrics.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torchmetrics

import rankmeter  # noqa: E402
import rankmeter.torch as rt  # noqa: E402
from rankmeter.errors import InputFormatError, InvalidScoreError, PolicyError  # noqa: E402

HERE = Path(__file__).resolve().parent
ACTIONS = ["neg", "pos", "skip"]


def flat_case(seed, ties=False, graded=False, n=400, n_queries=30):
    rng = np.random.default_rng(seed)
    indexes = rng.integers(0, n_queries, n)
    preds = np.round(rng.uniform(0.01, 1.0, n), 1) if ties else rng.uniform(0.01, 1.0, n)
    target = rng.integers(0, 4, n) * (rng.random(n) < 0.4) if graded else (rng.random(n) < 0.3).astype(np.int64)
    target[np.isin(indexes, [0, 1, 2])] = 0  # queries with no relevant item
    return torch.tensor(preds, dtype=torch.float32), torch.tensor(target), torch.tensor(indexes)


def both(ours, theirs, preds, target, indexes, batches=3):
    for part in np.array_split(np.arange(len(preds)), batches):
        ours.update(preds[part], target[part], indexes=indexes[part])
        theirs.update(preds[part], target[part], indexes=indexes[part])
    return float(ours.compute()), float(theirs.compute())


CASES = [
    ("RetrievalNormalizedDCG", [None, 1, 3, 10]),
    ("RetrievalMRR", [None, 1, 3]),
    ("RetrievalRecall", [None, 2, 5]),
    ("RetrievalHitRate", [None, 1, 4]),
    ("RetrievalPrecision", [1, 3, 50]),
    ("RetrievalMAP", [None, 2, 5]),
]


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize(("name", "top_ks"), CASES)
def test_matches_torchmetrics(name, top_ks, action):
    for top_k in top_ks:
        seed = 100 * [n for n, _ in CASES].index(name) + 10 * ACTIONS.index(action) + top_ks.index(top_k)
        preds, target, indexes = flat_case(seed)  # a fixed seed per case
        ours, theirs = both(
            getattr(rt, name)(top_k=top_k, empty_target_action=action),
            getattr(torchmetrics.retrieval, name)(top_k=top_k, empty_target_action=action),
            preds, target, indexes,
        )  # fmt: skip
        assert ours == pytest.approx(theirs, abs=1e-6), (name, top_k, action)


@pytest.mark.parametrize("top_k", [None, 2, 5])
def test_ndcg_on_ties_and_grades_matches_torchmetrics_tie_average(top_k):
    """torchmetrics's NDCG averages over tied orders (scikit-learn's method): rankmeter's ``expected``."""
    preds, target, indexes = flat_case(40 + (top_k or 0), ties=True, graded=True)
    ours, theirs = both(
        rt.RetrievalNormalizedDCG(top_k=top_k), torchmetrics.retrieval.RetrievalNormalizedDCG(top_k=top_k),
        preds, target, indexes,
    )  # fmt: skip
    assert ours == pytest.approx(theirs, abs=1e-6)


def test_empty_target_error_raises_like_torchmetrics():
    preds, target, indexes = flat_case(50)
    theirs = torchmetrics.retrieval.RetrievalMRR(empty_target_action="error")
    theirs.update(preds, target, indexes=indexes)
    with pytest.raises(ValueError, match="no positive"):
        theirs.compute()
    ours = rt.RetrievalMRR(empty_target_action="error")
    ours.update(preds, target, indexes=indexes)
    with pytest.raises(PolicyError, match=r"3 queries have no relevant item \(target 1\)"):
        ours.compute()
    mine = rt.Metric("rr", empty_target_action="error")  # rankmeter's measure: rankmeter's message
    mine.update(preds, target, indexes=indexes)
    with pytest.raises(PolicyError, match=r"3 queries have no relevant judged document for rr"):
        mine.compute()


def test_ignore_index_drops_items_like_torchmetrics():
    preds, target, indexes = flat_case(60)
    target = target.clone()
    target[::7] = -100
    ours, theirs = both(
        rt.RetrievalNormalizedDCG(top_k=3, ignore_index=-100),
        torchmetrics.retrieval.RetrievalNormalizedDCG(top_k=3, ignore_index=-100),
        preds, target, indexes,
    )  # fmt: skip
    assert ours == pytest.approx(theirs, abs=1e-6)


def test_dense_rows_flat_form_and_evaluate_arrays_agree():
    rng = np.random.default_rng(70)
    y = rng.integers(0, 3, (12, 9))
    s = np.round(rng.random((12, 9)), 1)
    measures = ["ndcg(gain=exp)@[3,5]", "map", "p@4", "rr"]
    want = rankmeter.evaluate_arrays(y, s, measures, empty="one")
    dense = rt.Metric(measures, empty_target_action="pos")
    dense.update(torch.tensor(s[:5]), torch.tensor(y[:5]))
    dense.update(torch.tensor(s[5:]), torch.tensor(y[5:]))
    flat = rt.Metric(measures, empty="one")
    rows = torch.arange(12)[:, None].expand(12, 9)
    perm = torch.randperm(108, generator=torch.Generator().manual_seed(0))  # any item order
    flat.update(torch.tensor(s).reshape(-1)[perm], torch.tensor(y).reshape(-1)[perm], indexes=rows.reshape(-1)[perm])
    for metric in (dense, flat):
        got = metric.compute()
        assert sorted(got) == sorted(want.aggregate)
        for name, v in got.items():
            assert v.dtype == torch.float64 and float(v) == pytest.approx(want[name], abs=1e-12), name
    dense.reset()
    dense.update(torch.tensor(s[:5]), torch.tensor(y[:5]))
    assert float(dense.compute()["map"]) == pytest.approx(
        rankmeter.evaluate_arrays(y[:5], s[:5], "map", empty="one")["map"]
    )
    assert isinstance(dense, torchmetrics.Metric)


def test_updates_of_mixed_dtypes_keep_their_values_until_compute_converts():
    """update keeps the tensors given (no copy); compute converts them, whatever each update's dtypes."""
    rng = np.random.default_rng(75)
    y = rng.integers(0, 3, (10, 8))
    s = np.round(rng.random((10, 8)), 1)
    metric = rt.Metric(["ndcg@3", "map"])
    metric.update(torch.tensor(s[:4], dtype=torch.float32), torch.tensor(y[:4], dtype=torch.int32))
    metric.update(torch.tensor(s[4:]), torch.tensor(y[4:], dtype=torch.float64))
    want = rankmeter.evaluate_arrays(y, np.vstack([s[:4].astype(np.float32), s[4:]]), ["ndcg@3", "map"])
    got = metric.compute()
    for name in ("ndcg@3", "map"):
        assert got[name].dtype == torch.float64 and float(got[name]) == pytest.approx(want[name], abs=1e-12), name


def test_forward_returns_the_batch_value_and_accumulates():
    preds, target, indexes = flat_case(80)
    metric = rt.RetrievalRecall(top_k=3)
    first = float(metric(preds[:200], target[:200], indexes=indexes[:200]))
    alone = rt.RetrievalRecall(top_k=3)
    alone.update(preds[:200], target[:200], indexes=indexes[:200])
    assert first == pytest.approx(float(alone.compute()), abs=1e-12)
    metric.update(preds[200:], target[200:], indexes=indexes[200:])
    whole = rt.RetrievalRecall(top_k=3)
    whole.update(preds, target, indexes=indexes)
    assert float(metric.compute()) == pytest.approx(float(whole.compute()), abs=1e-12)


@pytest.mark.parametrize("plain", [False, True])
def test_two_gloo_processes_give_the_single_process_value(tmp_path, plain):
    out = tmp_path / "out.json"
    cmd = [sys.executable, str(HERE / "torch_distributed.py"), str(out)] + (["--plain"] if plain else [])
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(out.read_text())
    assert got["torchmetrics"] is (not plain)
    assert got["values"] == pytest.approx(got["single"], abs=1e-12)
    assert got["dense"] == pytest.approx(got["single_dense"], abs=1e-12)
    assert 0.0 < got["values"]["ndcg@3"] < 1.0


def test_errors_name_the_argument_and_what_was_received():
    p, t = torch.rand(2, 3), torch.ones(2, 3)
    with pytest.raises(InputFormatError, match=r"preds has shape \(2, 3\) but target has shape \(3,\)"):
        rt.Metric("ndcg").update(p, torch.ones(3))
    with pytest.raises(InputFormatError, match=r"indexes has shape \(6,\) but preds has shape \(2, 3\)"):
        rt.Metric("ndcg").update(p, t, indexes=torch.zeros(6, dtype=torch.long))
    with pytest.raises(InputFormatError, match=r"indexes must be an integer tensor; got dtype torch.float32"):
        rt.Metric("ndcg").update(p, t, indexes=torch.zeros(2, 3))
    with pytest.raises(InputFormatError, match=r"preds must be a floating-point tensor; got dtype torch.int64"):
        rt.Metric("ndcg").update(torch.ones(2, 3, dtype=torch.long), t)
    with pytest.raises(
        InputFormatError, match=r"without indexes, preds must have shape \(batch, list_size\); got shape \(3,\)"
    ):
        rt.Metric("ndcg").update(torch.rand(3), torch.ones(3))
    bad = rt.Metric("ndcg")
    bad.update(torch.tensor([[0.5, float("nan")]]), torch.ones(1, 2))
    with pytest.raises(InvalidScoreError, match=r"preds has the value nan \(item 1, query 0\)"):
        bad.compute()
    with pytest.raises(PolicyError, match=r"top_k must be a positive integer or None; got 0"):
        rt.RetrievalMRR(top_k=0)
    with pytest.raises(PolicyError, match=r"unknown empty_target_action policy 'drop'"):
        rt.RetrievalMRR(empty_target_action="drop")
    with pytest.raises(PolicyError, match=r"ignore_index must be an integer or None; got 0.5"):
        rt.RetrievalMRR(ignore_index=0.5)
    with pytest.raises(PolicyError, match=r"ties='trec' orders by document id"):
        rt.Metric("ndcg", ties="trec")
