"""Recommender inputs on Spark (local[2]) and a dask LocalCluster: exclude=, candidates= and rank tables give the
local values."""

from __future__ import annotations

import re

import dask.dataframe as dd
import numpy as np
import pytest

import rankmeter
from rankmeter.errors import InputFormatError
from tests.distributed.test_dask import client  # noqa: F401  (the LocalCluster fixture, shared)
from tests.recsys.data import as_dict, rank_frame, split
from tests.recsys.test_exclude import SEEN

S = split(seed=3)
MEASURES = ["ndcg(gain=exp)@10", "r@20", "success@10", "rr@10", "p@10", "map", "bpref"]
RECS = rank_frame(S.top, S.users)
LOCAL = rankmeter.evaluate(S.test, RECS, MEASURES, exclude=SEEN)


def _same(result: rankmeter.EvaluationResult, local: rankmeter.EvaluationResult) -> None:
    assert result.query_ids.tolist() == local.query_ids.tolist()
    np.testing.assert_array_equal(result.values, local.values)
    assert result.aggregate == local.aggregate
    assert result.metadata["semantics"] == local.metadata["semantics"]
    assert result.metadata["candidates"] == local.metadata["candidates"]


def test_spark_exclude_equals_local(spark) -> None:
    from rankmeter.spark import evaluate

    frames = [spark.createDataFrame(f) for f in (S.test, RECS, SEEN)]
    for n in (1, 3, 8):
        _same(evaluate(frames[0], frames[1], MEASURES, exclude=frames[2], partitions=n).result, LOCAL)
    _same(evaluate(S.test, as_dict(S.top, S.users), MEASURES, exclude=SEEN, spark=spark).result, LOCAL)


def test_spark_candidates_equal_local(spark) -> None:
    from rankmeter.spark import evaluate

    candidates = {int(u): [int(i) for i in row[:6]] for u, row in zip(S.users, S.top, strict=True)}
    local = rankmeter.evaluate(S.test, RECS, MEASURES, candidates=candidates, exclude=SEEN)
    got = evaluate(S.test, spark.createDataFrame(RECS), MEASURES, candidates=candidates, exclude=SEEN, spark=spark)
    _same(got.result, local)
    assert got.metadata["semantics"]["candidates"] == "given, exclude"


def test_spark_rank_gap_is_located(spark) -> None:
    from rankmeter.spark import evaluate

    bad = RECS.copy()
    bad.loc[bad["rank"] == 3, "rank"] = 30
    with pytest.raises(InputFormatError, match=re.escape("rank 4 follows rank 2; ranks run 1, 2, 3, ... without gaps")):
        evaluate(spark.createDataFrame(S.test), spark.createDataFrame(bad), MEASURES)


@pytest.mark.usefixtures("client")
def test_dask_exclude_equals_local() -> None:
    from rankmeter.dask import evaluate

    test, recs, seen = (
        dd.from_pandas(S.test, npartitions=2),
        dd.from_pandas(RECS, npartitions=3),
        dd.from_pandas(SEEN, npartitions=2),
    )
    for n in (1, 4, 9):
        _same(evaluate(test, recs, MEASURES, exclude=seen, partitions=n).result, LOCAL)
    _same(evaluate(S.test, as_dict(S.top, S.users), MEASURES, exclude=SEEN).result, LOCAL)


@pytest.mark.usefixtures("client")
def test_dask_candidates_equal_local() -> None:
    from rankmeter.dask import evaluate

    candidates = {int(u): [int(i) for i in row[:6]] for u, row in zip(S.users, S.top, strict=True)}
    local = rankmeter.evaluate(S.test, RECS, MEASURES, candidates=candidates)
    got = evaluate(dd.from_pandas(S.test, npartitions=2), RECS, MEASURES, candidates=candidates, partitions=3)
    _same(got.result, local)


@pytest.mark.usefixtures("client")
def test_cli_dask_engine_with_exclude_prints_the_local_output(tmp_path, capsys) -> None:
    from rankmeter.cli.main import main

    test, recs, seen = tmp_path / "test.csv", tmp_path / "recs.csv", tmp_path / "seen.csv"
    S.test.to_csv(test, index=False)
    RECS.to_csv(recs, index=False)
    SEEN.to_csv(seen, index=False)
    argv = ["evaluate", str(test), str(recs), "-m", "r@20", "-m", "ndcg@10", "--exclude", str(seen), "--per-query"]
    assert main([*argv, "--format", "trec"]) == 0
    local = capsys.readouterr().out
    assert main([*argv, "--format", "trec", "--engine", "dask", "--partitions", "3"]) == 0
    assert capsys.readouterr().out == local
    assert f"{LOCAL['r@20']:.4f}" in local
