"""rankmeter on Spark: exact, tie-aware evaluation of runs too large for one machine (``pip install rankmeter[spark]``).

* :func:`evaluate` -- qrels + run (Spark DataFrames or files read by Spark),
  the values of :func:`rankmeter.evaluate` whatever the partitioning;
* :class:`RankmeterEvaluator` -- a ``pyspark.ml`` evaluator taking
  ``RankingEvaluator``'s input, for ``CrossValidator`` pipelines.

``import rankmeter`` does not import this package or pyspark.
"""

from rankmeter.spark.evaluation import SparkResult, evaluate, local_session
from rankmeter.spark.evaluator import RankmeterEvaluator

__all__ = ["RankmeterEvaluator", "SparkResult", "evaluate", "local_session"]
