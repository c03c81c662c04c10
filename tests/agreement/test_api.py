"""rankmeter.similarity's inputs, result, policies for one-sided queries, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankmeter

A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d1": 1.0}}
B = {"q1": {"d1": 3.0, "d3": 2.0, "d2": 1.0}, "q3": {"d9": 1.0}}


def test_trec_files_and_tables_give_the_dicts_values(tmp_path: Path) -> None:
    path = tmp_path / "a.run"
    path.write_text(
        "".join(f"{q} Q0 {d} {i} {s} x\n" for q, docs in A.items() for i, (d, s) in enumerate(docs.items()))
    )
    frame = pd.DataFrame(
        [(q, d, s) for q, docs in B.items() for d, s in docs.items()], columns=["qid", "docno", "score"]
    )
    from_files = rankmeter.similarity(str(path), frame, ["rbo(p=0.9)", "kendall_tau@10"])
    from_dicts = rankmeter.similarity(A, B, ["rbo(p=0.9)", "kendall_tau@10"])
    assert from_files.aggregate == from_dicts.aggregate
    assert from_dicts["rbo(p=0.9)"] == pytest.approx(0.1 / 0.9 * (0.9 + 0.5 * 0.81 + 0.729) + 0.729, abs=1e-15)


def test_one_sided_queries_are_counted_skipped_zeroed_or_an_error() -> None:
    res = rankmeter.similarity(A, B, "rbo")
    assert res.query_ids.tolist() == ["q1"]
    meta = res.metadata
    assert (meta["queries_only_in_a"], meta["queries_only_in_b"], meta["one_sided"]) == (1, 1, "skip")
    zero = rankmeter.similarity(A, B, "rbo", one_sided="zero")
    assert zero.by_query("rbo(p=0.9)") == {"q1": res["rbo(p=0.9)"], "q2": 0.0, "q3": 0.0}
    with pytest.raises(rankmeter.RankmeterError, match="query 'q2' is only in run_a; pass one_sided='skip' or 'zero'"):
        rankmeter.similarity(A, B, "rbo", one_sided="error")


def test_metadata_records_the_tie_treatment_and_tied_queries() -> None:
    res = rankmeter.similarity({"q": {"a": 1.0, "b": 1.0}}, {"q": {"a": 1.0}}, "rbo", ties="equal")
    assert (res.metadata["ties"], res.metadata["queries_with_ties"]) == ("equal", 1)
    assert res.measure_names == ["rbo(p=0.9)"]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("rbo(p=1.5)", r"measure 'rbo\(p=1.5\)': p must lie strictly between 0 and 1, got 1.5"),
        ("rbo(q=0.5)", r"measure 'rbo\(q=0.5\)': the only parameter is p"),
        ("rbo(p=x)", r"measure 'rbo\(p=x\)': p must be a number, got 'x'"),
        ("rbo_prefix", "rbo_prefix sums the agreements to a depth"),
        ("ndcg@10", "unknown judgment-free measure 'ndcg'"),
        ("kendall_tau(p=0.5)", "kendall_tau takes no parameters"),
        ("rbo@0", "depth must be a positive integer, got '0'"),
        ("rbo(p=0.9", "expected family"),
    ],
)
def test_bad_measure_names(name: str, message: str) -> None:
    with pytest.raises(rankmeter.MeasureSyntaxError, match=message):
        rankmeter.similarity(A, B, name)


def test_bad_policies() -> None:
    with pytest.raises(rankmeter.PolicyError, match="unknown ties policy 'optimistic'"):
        rankmeter.similarity(A, B, "rbo", ties="optimistic")
    with pytest.raises(rankmeter.PolicyError, match="unknown one_sided policy 'drop'"):
        rankmeter.similarity(A, B, "rbo", one_sided="drop")


def test_duplicate_and_non_finite_entries_are_located(tmp_path: Path) -> None:
    path = tmp_path / "dup.run"
    path.write_text("q1 Q0 d1 1 2.0 x\nq1 Q0 d1 2 1.0 x\n")
    with pytest.raises(
        rankmeter.DuplicateEntryError, match=r"dup.run:2: run_a: query 'q1', document 'd1' appears twice"
    ):
        rankmeter.similarity(str(path), B, "rbo")
    run = rankmeter.Run(np.array(["q1"]), np.array(["d1"]), np.array([np.inf]), source="b.run")
    with pytest.raises(rankmeter.InvalidScoreError, match="b.run:1: run_b: query 'q1', document 'd1' has score inf"):
        rankmeter.similarity(A, run, "rbo")


def test_shuffle_is_seeded_and_the_result_exports() -> None:
    a = {"q": {d: 1.0 for d in "abcdefgh"}}
    b = {"q": {d: float(i) for i, d in enumerate("abcdefgh")}}
    one = rankmeter.similarity(a, b, ["rbo(p=0.9)", "tau_ap"], ties="shuffle", seed=3)
    assert one.aggregate == rankmeter.similarity(a, b, ["rbo(p=0.9)", "tau_ap"], ties="shuffle", seed=3).aggregate
    assert one.metadata["seed"] == 3
    assert json.loads(one.to_json())["aggregate"] == one.aggregate
    draws = [rankmeter.similarity(a, b, "rbo(p=0.9)", ties="shuffle", seed=s)["rbo(p=0.9)"] for s in range(5)]
    assert len(set(draws)) > 1  # the seed orders the eight tied documents
