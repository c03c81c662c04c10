"""RankmeterEvaluator in a real pyspark.ml pipeline: ALS + a ranking step, tuned by CrossValidator.

The ALS predictions of each validation fold are grouped into RankingEvaluator's
input (each user's items by predicted rating, and the items the user rated 4
or more), so Spark's RankingEvaluator and RankmeterEvaluator see the same
rows; the pipeline has no repeated items, so their values must agree, and
CrossValidator must pick the same model with either.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter
from rankmeter.spark import RankmeterEvaluator


@pytest.fixture(scope="module")
def ratings(spark):
    rng = np.random.default_rng(3)
    taste = rng.normal(size=(24, 3)) @ rng.normal(size=(3, 30))  # low rank: ALS has something to find
    rows = [
        (u, int(i), float(np.clip(np.round(3 + taste[u, i] + rng.normal(scale=0.5)), 1, 5)))
        for u in range(24)
        for i in rng.permutation(30)[:18]
    ]
    return spark.createDataFrame(rows, "user int, item int, rating double").cache()


def _pipeline():  # noqa: ANN202
    from pyspark.ml import Pipeline, Transformer
    from pyspark.ml.recommendation import ALS
    from pyspark.sql import functions as F

    class ToRankings(Transformer):
        """Each user's rated items ordered by predicted rating (prediction), and those rated 4+ (label)."""

        def _transform(self, frame):  # noqa: ANN001, ANN202
            ranked = F.array_sort(F.collect_list(F.struct((-F.col("prediction")).alias("s"), F.col("item"))))
            good = F.collect_list(F.when(F.col("rating") >= 4, F.col("item").cast("double")))
            grouped = frame.groupBy("user").agg(ranked.alias("ranked"), good.alias("label"))
            items = F.transform("ranked", lambda x: x.getField("item").cast("double"))
            return grouped.select("user", items.alias("prediction"), "label")

    als = ALS(
        userCol="user",
        itemCol="item",
        ratingCol="rating",
        maxIter=4,
        seed=1,
        coldStartStrategy="drop",
        numUserBlocks=2,
        numItemBlocks=2,
    )
    return Pipeline(stages=[als, ToRankings()]), als


def test_cross_validator_picks_the_model_sparks_evaluator_picks(spark, ratings) -> None:
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.ml.tuning import CrossValidator, ParamGridBuilder
    from pyspark.sql import functions as F

    pipeline, als = _pipeline()
    grid = ParamGridBuilder().addGrid(als.regParam, [0.05, 3.0]).build()
    folds = ratings.withColumn("fold", (F.col("user") + F.col("item")) % 2)  # known folds: Spark's check below
    cv = CrossValidator(
        estimator=pipeline,
        estimatorParamMaps=grid,
        evaluator=RankmeterEvaluator(metricName="ndcgAtK", k=5),
        numFolds=2,
        foldCol="fold",
        collectSubModels=True,
    )
    tuned = cv.fit(folds)
    # Spark's RankingEvaluator on the same models and validation folds
    spark_evaluator = RankingEvaluator(metricName="ndcgAtK", k=5)
    theirs = [
        np.mean(
            [spark_evaluator.evaluate(tuned.subModels[f][j].transform(folds.filter(folds.fold == f))) for f in (0, 1)]
        )
        for j in range(len(grid))
    ]
    assert tuned.avgMetrics == pytest.approx(theirs, abs=1e-12)
    assert abs(theirs[0] - theirs[1]) > 1e-6  # the two models differ: the choice means something
    best = int(np.argmax(theirs))
    assert tuned.bestModel.stages[0]._java_obj.parent().getRegParam() == grid[best][als.regParam]

    # the chosen model's rankings of every user, evaluated locally by rankmeter, give the evaluator's value
    ranked = tuned.bestModel.transform(ratings)
    rows = ranked.collect()
    qrels = {str(r.user): {str(x): 1 for x in r.label} or {"none": 0} for r in rows}
    run = {str(r.user): {str(x): -float(p) for p, x in enumerate(r.prediction)} for r in rows}
    local = rankmeter.evaluate(qrels, run, "ndcg@5", ties="stable")["ndcg@5"]
    assert RankmeterEvaluator(metricName="ndcgAtK", k=5).evaluate(ranked) == pytest.approx(local, abs=1e-12)
