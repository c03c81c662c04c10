"""``RankmeterEvaluator``: a ``pyspark.ml`` evaluator on ``RankingEvaluator``'s input, computed by rankmeter.

Each row is one query: ``predictionCol`` holds the ranked items (best first),
``labelCol`` the relevant items, and the optional ``relevanceCol`` a grade per
label. A row already holds a whole query, so there is no shuffle: each
partition's Arrow batches (``mapInArrow``, the array columns as they are, no
cast) become ranked lists, one per row, by
:func:`rankmeter.spark.arrays.ranked_from_arrays` (item i of a row has
score -i; every label is judged, grade 1 or its relevance), which
:func:`rankmeter.pipeline.evaluate_ranked` evaluates with rankmeter's
kernels; each partition sends back one :func:`rankmeter.partitions.partial_sum`
(a float and a count) and the driver computes the aggregate from them.

Spark's metric names map to rankmeter measures:

=========================  ===================================  ==========================================
Spark ``metricName``       rankmeter measure                    agrees with Spark's value
=========================  ===================================  ==========================================
``meanAveragePrecision``   ``map``                              yes
``meanAveragePrecisionAtK`` ``map(divisor=min)@k``              yes (both divide by min(|labels|, k);
                                                                ``map@k`` divides by |labels|, as trec_eval)
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

import pickle
from typing import Any

from pyspark.ml.evaluation import Evaluator
from pyspark.ml.param import Param, Params, TypeConverters
from pyspark.ml.param.shared import HasLabelCol, HasPredictionCol

from rankmeter.errors import DuplicateEntryError, MeasureSyntaxError, PolicyError, RankmeterError
from rankmeter.measures import FAMILIES, Measure, parse
from rankmeter.partitions import aggregate_of_sums, partial_sum
from rankmeter.pipeline import evaluate_ranked, parse_measures
from rankmeter.spark.arrays import ranked_from_arrays

SPARK_METRICS = ("meanAveragePrecision", "meanAveragePrecisionAtK", "precisionAtK", "recallAtK", "ndcgAtK")
"""The metric names of ``pyspark.ml.evaluation.RankingEvaluator``."""
TOP_K_METRICS = ("meanAveragePrecisionAtK", "precisionAtK", "recallAtK", "ndcgAtK")
"""The metrics that read only each row's first k predicted items."""


def measure_for(metric: str, k: int, graded: bool) -> str:
    """The rankmeter measure computed for a Spark metric name (or a rankmeter name, returned canonical).

    >>> measure_for("ndcgAtK", 10, False), measure_for("ndcgAtK", 5, True), measure_for("recallAtK", 3, False)
    ('ndcg@10', 'ndcg(gain=exp)@5', 'r@3')
    >>> measure_for("P@5", 10, False)
    'p@5'
    """
    names = {
        "meanAveragePrecision": "map",
        "meanAveragePrecisionAtK": f"map(divisor=min)@{k}",
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
        measure = parse_measures(self.measure())
        duplicates = self.getOrDefault(self.duplicates)
        if duplicates not in ("first", "error"):
            raise PolicyError(f"duplicates must be 'first' or 'error', got {duplicates!r}")
        # Spark's ...AtK metrics read the first k distinct items: only those cross to Python, unless a row
        # repeats an item among them (then the items after it move up: the whole lists are sent again)
        top = self.getK() if self.getMetricName() in TOP_K_METRICS and duplicates == "first" else None
        sums = self._sums(dataset, measure, duplicates, top)
        if sums is None:
            sums = self._sums(dataset, measure, duplicates, None)
        assert sums is not None  # the whole lists never ask for themselves
        return aggregate_of_sums(sums, FAMILIES[measure[0].family].aggregate)

    def _sums(self, dataset: Any, measure: list[Measure], duplicates: str, top: int | None) -> list | None:
        """Each partition's :func:`partial_sum` (None: a row repeats an item among its first ``top``)."""
        from pyspark.sql import functions as F

        kind = FAMILIES[measure[0].family].aggregate
        names = (self.getOrDefault(self.predictionCol), self.getOrDefault(self.labelCol))
        graded = self.isDefined(self.relevanceCol)
        columns = [F.col(names[0]) if top is None else F.slice(names[0], 1, top), F.col(names[1])]
        if graded:
            columns.append(F.col(self.getOrDefault(self.relevanceCol)).cast("array<double>"))
        rows = dataset.select(*columns)
        if self.isDefined(self.partitions):
            rows = rows.repartition(self.getOrDefault(self.partitions))

        def partition_sum(batches: Any) -> Any:
            import pyarrow as pa
            from pyspark import TaskContext

            context = TaskContext.get()
            where = f"partition {context.partitionId() if context else 0}, "
            sums, error, repeat, seen = [], b"", False, 0
            try:
                for batch in batches:
                    if batch.num_rows:
                        prediction, label = batch.column(0), batch.column(1)
                        relevance = batch.column(2) if graded else None
                        policy = duplicates if top is None else "error"
                        ranked = ranked_from_arrays(prediction, label, relevance, policy, names, where, first_row=seen)
                        result = evaluate_ranked(ranked, measure)
                        pool = result.pool_weights.get(result.measure_names[0])
                        sums.append(partial_sum(result.values[:, 0], result.included[:, 0], kind, pool))
                    seen += batch.num_rows
            except DuplicateEntryError as exc:
                repeat, error = top is not None, b"" if top is not None else pickle.dumps(exc)
            except RankmeterError as exc:  # raised on the driver, as it was raised here
                error = pickle.dumps(exc)
            schema = pa.schema(
                [("total", pa.float64()), ("count", pa.int64()), ("repeat", pa.bool_()), ("error", pa.binary())]
            )
            total, count = sum(s for s, _ in sums), sum(c for _, c in sums)
            yield pa.RecordBatch.from_pydict(
                {"total": [total], "count": [count], "repeat": [repeat], "error": [error]}, schema=schema
            )

        table = rows.mapInArrow(partition_sum, "total double, count long, repeat boolean, error binary").toArrow()
        for error in table.column("error").to_pylist():
            if error:
                raise pickle.loads(error)  # noqa: S301 - written by partition_sum on this cluster
        if any(table.column("repeat").to_pylist()):
            return None
        return list(zip(table.column("total").to_pylist(), table.column("count").to_pylist(), strict=True))
