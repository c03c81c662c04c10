"""``RankmeterEvaluator``: a ``pyspark.ml`` evaluator on ``RankingEvaluator``'s input, computed by rankmeter.

Each row is one query: ``predictionCol`` holds the ranked items (best first),
``labelCol`` the relevant items, and the optional ``relevanceCol`` a grade per
label. A row already holds a whole query, so there is no shuffle: each
partition's rows are turned into a run (item at position i gets score -i, so
the given order is kept) and qrels (every label judged, grade 1 or its
relevance) by :func:`partition_rows` and evaluated by
:func:`rankmeter.partitions.evaluate_partition`, the step
:func:`rankmeter.spark.evaluate` runs on each partition.

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

from rankmeter.core.semantics import Semantics
from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures import parse
from rankmeter.partitions import QRELS, RUN, Sources, combine, evaluate_partition
from rankmeter.pipeline import parse_measures

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
        from pyspark.sql import functions as F

        measure = self.measure()
        measures = parse_measures(measure)
        sem = Semantics(ties="stable", duplicates=self.getOrDefault(self.duplicates))
        sources = Sources("<label column>", "<prediction column>")
        relevance = self.getOrDefault(self.relevanceCol) if self.isDefined(self.relevanceCol) else None

        def as_text(name: str) -> Any:
            return F.transform(F.col(name), lambda item: item.cast("string"))

        columns = [
            F.monotonically_increasing_id().alias("query"),
            as_text(self.getOrDefault(self.predictionCol)).alias("prediction"),
            as_text(self.getOrDefault(self.labelCol)).alias("label"),
        ]
        if relevance is not None:
            columns.append(F.transform(F.col(relevance), lambda r: r.cast("double")).alias("relevance"))
        rows = dataset.select(*columns)
        if self.isDefined(self.partitions):
            rows = rows.repartition(self.getOrDefault(self.partitions))

        def evaluate_batches(batches: Any) -> Any:
            import pyarrow as pa

            full = [b for b in batches if b.num_rows]
            if full:
                table = partition_rows(pa.Table.from_batches(full))
                yield pa.RecordBatch.from_pydict({"payload": [evaluate_partition(table, measures, sem, sources)]})

        payloads = rows.mapInArrow(evaluate_batches, "payload binary").toArrow().column("payload").to_pylist()
        return float(combine(payloads, measures, sem, sources).aggregate[measure])


def partition_rows(rows: Any) -> Any:
    """The rows of :data:`rankmeter.partitions.COLUMNS` from rows of (query, prediction, label[, relevance]) arrays.

    Each row is one whole query (so no shuffle is needed): its predicted
    items form the run (the item at position i gets score -i; ``line`` keeps
    the position, so ``duplicates="first"`` keeps the first copy), its labels
    the qrels (grade 1, or the row's relevance); a row without labels is
    judged all the same (one placeholder item, not relevant), so that it
    counts 0 in the mean as in Spark.

    >>> import pyarrow as pa
    >>> rows = pa.table({"query": [7, 8], "prediction": [["a", "b"], ["c"]], "label": [["b"], []]})
    >>> t = partition_rows(rows)
    >>> t.column("query_id").to_pylist(), t.column("doc_id").to_pylist()[1:], t.column("value").to_pylist()
    (['7', '8', '7', '7', '8'], ['\\x00rankmeter: no label', 'a', 'b', 'c'], [1.0, 0.0, 0.0, -1.0, 0.0])
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    query = pc.cast(rows.column("query"), pa.string()).combine_chunks()
    label = rows.column("label").combine_chunks()
    prediction = rows.column("prediction").combine_chunks()
    label_sizes = pc.fill_null(pc.list_value_length(label), 0).to_numpy(zero_copy_only=False)
    unlabelled = np.flatnonzero(label_sizes == 0)
    q_rows = pc.list_parent_indices(label).to_numpy()
    if "relevance" in rows.column_names:
        grades = pc.list_flatten(rows.column("relevance").combine_chunks()).to_numpy(zero_copy_only=False)
    else:
        grades = np.ones(len(q_rows))
    p_rows = pc.list_parent_indices(prediction).to_numpy()
    p_sizes = np.bincount(p_rows, minlength=len(rows))
    position = np.arange(len(p_rows)) - np.repeat(np.cumsum(p_sizes) - p_sizes, p_sizes)
    n_q, n_u, n_p = len(q_rows), len(unlabelled), len(p_rows)
    return pa.table(
        {
            "role": pa.array(np.repeat(np.array([QRELS, QRELS, RUN], dtype=np.int8), [n_q, n_u, n_p])),
            "query_id": pa.concat_arrays(
                [query.take(pa.array(q_rows)), query.take(pa.array(unlabelled)), query.take(pa.array(p_rows))]
            ),
            "doc_id": pa.concat_arrays(
                [pc.list_flatten(label), pa.array([NO_LABEL] * n_u, pa.string()), pc.list_flatten(prediction)]
            ),
            "value": pa.array(np.concatenate([grades, np.zeros(n_u), (-position).astype(np.float64)])),
            "text": pa.nulls(n_q + n_u + n_p, pa.string()),
            "line": pa.array(np.concatenate([np.arange(1, n_q + 1), np.zeros(n_u, np.int64), position + 1])),
        }
    )
