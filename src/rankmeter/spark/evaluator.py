"""``RankmeterEvaluator``: a ``pyspark.ml`` evaluator on ``RankingEvaluator``'s input, computed by rankmeter.

Each row is one query: ``predictionCol`` holds the ranked items (best first),
``labelCol`` the relevant items, and the optional ``relevanceCol`` a grade per
label. The rows are turned into a run (item at position i gets score -i, so
the given order is kept) and qrels (every label judged, grade 1 or its
relevance) and evaluated by :func:`rankmeter.spark.evaluate`.

Spark's metric names map to rankmeter measures:

=========================  ===================================  ==========================================
Spark ``metricName``       rankmeter measure                    agrees with Spark's value
=========================  ===================================  ==========================================
``meanAveragePrecision``   ``map``                              yes
``meanAveragePrecisionAtK`` ``map@k``                           when no label set has more than k items:
                                                                Spark divides by min(|labels|, k),
                                                                rankmeter (as trec_eval) by |labels|
``precisionAtK``           ``p@k``                              yes (both divide by k)
``recallAtK``              ``r@k``                              yes
``ndcgAtK``                ``ndcg@k``, with a relevance column   without relevance, yes; with it rankmeter
                           ``ndcg(gain=exp)@k``                 uses gain 2^rel - 1 like Spark
=========================  ===================================  ==========================================

Duplicated predicted items: Spark counts every copy as a hit (its NDCG can
exceed 1); rankmeter keeps the first copy (``duplicates="first"``), or raises
with ``duplicates="error"``. Any other rankmeter measure name is accepted as
``metricName`` too (``"ndcg(gain=exp)@[10]"`` is not: one value per metric).
"""

from __future__ import annotations

from typing import Any

from pyspark.ml.evaluation import Evaluator
from pyspark.ml.param import Param, Params, TypeConverters
from pyspark.ml.param.shared import HasLabelCol, HasPredictionCol

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures import parse
from rankmeter.spark.evaluation import evaluate

NO_LABEL = "\x00rankmeter: no label"
"""The document id judged non-relevant for a row without labels (no predicted item has it)."""
SPARK_METRICS = ("meanAveragePrecision", "meanAveragePrecisionAtK", "precisionAtK", "recallAtK", "ndcgAtK")
"""The metric names of ``pyspark.ml.evaluation.RankingEvaluator``."""


def measure_for(metric: str, k: int, graded: bool) -> str:
    """The rankmeter measure computed for a Spark metric name (or a rankmeter name, returned canonical).

    >>> measure_for("ndcgAtK", 10, False), measure_for("ndcgAtK", 5, True), measure_for("recallAtK", 3, False)
    ('ndcg@10', 'ndcg(gain=exp)@5', 'r@3')
    >>> measure_for("P@5", 10, False)
    'p@5'
    """
    names = {
        "meanAveragePrecision": "map",
        "meanAveragePrecisionAtK": f"map@{k}",
        "precisionAtK": f"p@{k}",
        "recallAtK": f"r@{k}",
        "ndcgAtK": f"ndcg(gain=exp)@{k}" if graded else f"ndcg@{k}",
    }
    if metric in names:
        return names[metric]
    measure = parse(metric)
    if len(measure.expand()) != 1:
        raise MeasureSyntaxError(f"metricName {metric!r} names {len(measure.expand())} measures; give one")
    return str(measure)


class RankmeterEvaluator(Evaluator, HasPredictionCol, HasLabelCol):
    """Evaluator for ranking: ``RankingEvaluator``'s input and metric names, rankmeter's exact values.

    Parameters
    ----------
    predictionCol : str, default "prediction"
        Array of the ranked items, best first.
    labelCol : str, default "label"
        Array of the relevant items.
    relevanceCol : str, optional
        Array of a grade per label (same length as the labels): graded NDCG.
    metricName : str, default "meanAveragePrecision"
        One of :data:`SPARK_METRICS` or a rankmeter measure name.
    k : int, default 10
        The cutoff of the ``...AtK`` metrics.
    duplicates : {"first", "error"}, default "first"
        A predicted item listed twice in a row.
    partitions : int, optional
        Partitions by query (default: ``spark.sql.shuffle.partitions``).

    Examples
    --------
    In a ``CrossValidator`` (``evaluator=RankmeterEvaluator(metricName="ndcgAtK", k=10)``)
    or alone: ``RankmeterEvaluator(metricName="ndcgAtK", k=3).evaluate(frame)``.
    """

    metricName: Param[str] = Param(
        Params._dummy(), "metricName", "Spark ranking metric or rankmeter measure", TypeConverters.toString
    )
    k: Param[int] = Param(Params._dummy(), "k", "cutoff of the ...AtK metrics", TypeConverters.toInt)
    relevanceCol: Param[str] = Param(
        Params._dummy(), "relevanceCol", "array column: a grade per label", TypeConverters.toString
    )
    duplicates: Param[str] = Param(
        Params._dummy(), "duplicates", "a repeated predicted item: 'first' or 'error'", TypeConverters.toString
    )
    partitions: Param[int] = Param(Params._dummy(), "partitions", "partitions by query", TypeConverters.toInt)

    def __init__(
        self,
        *,
        predictionCol: str = "prediction",
        labelCol: str = "label",
        metricName: str = "meanAveragePrecision",
        k: int = 10,
        relevanceCol: str | None = None,
        duplicates: str = "first",
        partitions: int | None = None,
    ) -> None:
        super().__init__()
        self._setDefault(
            predictionCol="prediction", labelCol="label", metricName="meanAveragePrecision", k=10, duplicates="first"
        )
        given = {
            "predictionCol": predictionCol,
            "labelCol": labelCol,
            "metricName": metricName,
            "k": k,
            "relevanceCol": relevanceCol,
            "duplicates": duplicates,
            "partitions": partitions,
        }
        self._set(**{key: value for key, value in given.items() if value is not None})

    def setMetricName(self, value: str) -> RankmeterEvaluator:
        """Set ``metricName``."""
        return self._set(metricName=value)

    def getMetricName(self) -> str:
        """The metric name."""
        return self.getOrDefault(self.metricName)

    def setK(self, value: int) -> RankmeterEvaluator:
        """Set ``k``."""
        return self._set(k=value)

    def getK(self) -> int:
        """The cutoff of the ``...AtK`` metrics."""
        return self.getOrDefault(self.k)

    def measure(self) -> str:
        """The rankmeter measure this evaluator computes."""
        return measure_for(self.getMetricName(), self.getK(), self.isDefined(self.relevanceCol))

    def isLargerBetter(self) -> bool:
        """Every ranking metric here is better when larger."""
        return True

    def _evaluate(self, dataset: Any) -> float:
        qrels, run, rows = ranking_tables(
            dataset,
            self.getOrDefault(self.predictionCol),
            self.getOrDefault(self.labelCol),
            self.getOrDefault(self.relevanceCol) if self.isDefined(self.relevanceCol) else None,
        )
        partitions = self.getOrDefault(self.partitions) if self.isDefined(self.partitions) else None
        try:
            result = evaluate(
                qrels,
                run,
                self.measure(),
                ties="stable",
                duplicates=self.getOrDefault(self.duplicates),
                partitions=partitions,
                spark=dataset.sparkSession,
            )
        finally:
            rows.unpersist()
        return float(result.aggregate[self.measure()])


def ranking_tables(dataset: Any, prediction: str, label: str, relevance: str | None) -> tuple[Any, Any, Any]:
    """``(qrels, run, rows)`` DataFrames from rows of (predicted items, relevant items[, relevance per label]).

    A row's query id is its ``monotonically_increasing_id``; items are
    compared as text; a predicted item at position i gets score -i. A row
    without labels is judged all the same (one judged, non-relevant
    placeholder), so that it counts 0 in the mean as in Spark. ``rows`` is
    the cached selection both come from (unpersist it when done).
    """
    from pyspark.sql import functions as F

    cols = [F.col(prediction).alias("_pred"), F.col(label).alias("_label")]
    if relevance is not None:
        cols.append(F.col(relevance).alias("_rel"))
    rows = dataset.select(F.monotonically_increasing_id().cast("string").alias("query_id"), *cols).cache()
    run = rows.select("query_id", F.posexplode("_pred").alias("pos", "item")).select(
        "query_id", F.col("item").cast("string").alias("doc_id"), (-F.col("pos")).cast("double").alias("score")
    )
    if relevance is None:
        qrels = rows.select("query_id", F.explode(F.array_distinct("_label")).alias("item")).select(
            "query_id", F.col("item").cast("string").alias("doc_id"), F.lit(1.0).alias("relevance")
        )
    else:
        pairs = rows.select("query_id", F.explode(F.arrays_zip("_label", "_rel")).alias("pair"))
        qrels = pairs.select(
            "query_id",
            F.col("pair._label").cast("string").alias("doc_id"),
            F.col("pair._rel").cast("double").alias("relevance"),
        )
    unlabelled = rows.filter(F.coalesce(F.size("_label"), F.lit(0)) <= 0).select(
        "query_id", F.lit(NO_LABEL).alias("doc_id"), F.lit(0.0).alias("relevance")
    )
    return qrels.unionByName(unlabelled), run, rows
