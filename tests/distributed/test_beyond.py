"""Beyond-accuracy measures and segments on Spark (local[2]) and a dask LocalCluster: the in-process values."""

from __future__ import annotations

import re

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import rankmeter
from rankmeter.errors import PolicyError
from tests.distributed.test_dask import client  # noqa: F401  (the LocalCluster fixture, shared)
from tests.recsys.data import rank_frame, split

S = split(seed=5)
RECS = rank_frame(S.top, S.users)
ITEMS = rankmeter.Items(interactions=S.train, catalog=list(range(50)), features=np.random.default_rng(0).normal(size=(50, 4)),
                        groups=[f"g{i % 3}" for i in range(50)])  # fmt: skip
MEASURES = ["ndcg@10", "r@5", "catalog_coverage@[5,10]", "entropy@10", "recbole_entropy@5", "gini@10",
            "personalization@10", "novelty@10", "ms_novelty@10", "ild@5", "arp@10", "aplt@10", "aclt@10",
            "pop_recall@10", "exposure(group=g1)@10", "exposure_ratio(attention=cascade)@10", "exposure_diff@5"]  # fmt: skip
SEGMENTS = pd.DataFrame(
    {"user_id": S.users, "segment": np.where(S.users % 3 == 0, "a", np.where(S.users % 3 == 1, "b", "c"))}
)
LOCAL = rankmeter.evaluate(S.test, RECS, MEASURES, items=ITEMS, exclude=S.train, group_by=SEGMENTS)
SETS = LOCAL.metadata["list_set_measures"]


def _same(got: rankmeter.EvaluationResult) -> None:
    assert got.query_ids.tolist() == LOCAL.query_ids.tolist()
    assert got.measure_names == LOCAL.measure_names
    assert got.metadata["queries_undefined"] == LOCAL.metadata["queries_undefined"]
    np.testing.assert_allclose(got.values, LOCAL.values, rtol=1e-12, atol=1e-12)
    assert got.aggregate.keys() == LOCAL.aggregate.keys()
    for name, value in LOCAL.aggregate.items():
        assert got.aggregate[name] == pytest.approx(value, rel=1e-12, abs=1e-12), name
    for name in [*LOCAL.measure_names, *SETS]:
        assert got.by_group(name) == pytest.approx(LOCAL.by_group(name), rel=1e-12, abs=1e-12), name
    rows, want = got.group_rows(), LOCAL.group_rows()
    assert [(r["segment"], r["measure"], r["n_queries"]) for r in rows] == [
        (r["segment"], r["measure"], r["n_queries"]) for r in want
    ]
    assert [r["value"] for r in rows] == pytest.approx([r["value"] for r in want], rel=1e-12, abs=1e-12, nan_ok=True)


def test_local_list_set_values_are_there() -> None:
    assert set(SETS) == {"catalog_coverage@5", "catalog_coverage@10", "entropy@10", "recbole_entropy@5", "gini@10",
                         "personalization@10", "ms_novelty@10", "exposure_ratio(attention=cascade)@10",
                         "exposure_diff@5"}  # fmt: skip
    assert set(LOCAL.by_group("gini@10")) == {"a", "b", "c"}


def test_spark_equals_in_process(spark) -> None:
    from rankmeter.spark import evaluate

    test, recs, train = (spark.createDataFrame(f) for f in (S.test, RECS, S.train))
    for n in (1, 3, 7):
        got = evaluate(test, recs, MEASURES, items=ITEMS, exclude=train, group_by=SEGMENTS, partitions=n)
        _same(got.result)
    assert got.by_group("gini@10") == LOCAL.by_group("gini@10")


@pytest.mark.usefixtures("client")
def test_dask_equals_in_process() -> None:
    from rankmeter.dask import evaluate

    test, recs, train = (
        dd.from_pandas(S.test, npartitions=2),
        dd.from_pandas(RECS, npartitions=3),
        dd.from_pandas(S.train, npartitions=2),
    )
    for n in (1, 4, 9):
        _same(evaluate(test, recs, MEASURES, items=ITEMS, exclude=train, group_by=SEGMENTS, partitions=n).result)


@pytest.mark.usefixtures("client")
def test_dask_list_measures_alone_and_group_by_accuracy_alone() -> None:
    from rankmeter.dask import evaluate

    lists_only = ["gini@10", "novelty@10"]
    local = rankmeter.evaluate(S.test, RECS, lists_only, items=ITEMS)
    got = evaluate(S.test, dd.from_pandas(RECS, npartitions=3), lists_only, items=ITEMS, partitions=4).result
    assert got.aggregate == pytest.approx(local.aggregate, rel=1e-12)
    assert got.by_query("novelty@10") == pytest.approx(local.by_query("novelty@10"), rel=1e-12)
    segments = dict(zip(SEGMENTS["user_id"], SEGMENTS["segment"], strict=True))
    local = rankmeter.evaluate(S.test, RECS, ["ndcg@10", "r@5"], group_by=segments)
    got = evaluate(S.test, dd.from_pandas(RECS, npartitions=3), ["ndcg@10", "r@5"], group_by=segments, partitions=4)
    assert got.by_group("r@5") == local.by_group("r@5") and got.by_group("ndcg@10") == local.by_group("ndcg@10")
    assert got.result.group_rows() == local.group_rows()


@pytest.mark.usefixtures("client")
def test_dask_refuses_jaccard_personalization() -> None:
    from rankmeter.dask import evaluate

    with pytest.raises(
        PolicyError,
        match=re.escape("personalization(metric=jaccard)@10: Jaccard personalization is not a sum over the lists"),
    ):
        evaluate(S.test, RECS, "personalization(metric=jaccard)@10", items=ITEMS)


def test_spark_refuses_shuffled_lists(spark) -> None:
    from rankmeter.spark import evaluate

    with pytest.raises(PolicyError, match=re.escape("gini@10: ties='shuffle' orders the top-k lists by a draw")):
        evaluate(S.test, RECS, "gini@10", items=ITEMS, ties="shuffle", seed=1, spark=spark)


def test_spark_group_by_a_column_of_the_run(spark) -> None:
    from rankmeter.spark import evaluate

    recs = spark.createDataFrame(RECS.merge(SEGMENTS, on="user_id"))
    got = evaluate(S.test, recs, ["r@5", "gini@10"], items=ITEMS, exclude=S.train, group_by="segment", spark=spark)
    assert got.by_group("r@5") == LOCAL.by_group("r@5")
    assert got.by_group("gini@10") == pytest.approx(LOCAL.by_group("gini@10"), rel=1e-12)


@pytest.mark.usefixtures("client")
def test_dask_group_by_a_column_and_items_with_accuracy_only() -> None:
    from rankmeter.dask import evaluate

    recs = dd.from_pandas(RECS.merge(SEGMENTS, on="user_id"), npartitions=3)
    got = evaluate(S.test, recs, ["r@5", "novelty@10"], items=ITEMS, exclude=S.train, group_by="segment")
    assert got.by_group("r@5") == LOCAL.by_group("r@5")
    assert got.by_group("novelty@10") == pytest.approx(LOCAL.by_group("novelty@10"), rel=1e-12)
    accuracy = evaluate(S.test, recs, "r@5", items=ITEMS)
    assert accuracy.metadata["items"] == LOCAL.metadata["items"] and accuracy.metadata["list_set_measures"] == []
