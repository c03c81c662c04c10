"""rankmeter on Spark: exact, tie-aware evaluation of runs too large for one machine (``pip install rankmeter[spark]``).

* :func:`evaluate` -- qrels + run (Spark DataFrames or files read by Spark),
  the values of :func:`rankmeter.evaluate` whatever the partitioning;
* :class:`RankmeterEvaluator` -- a ``pyspark.ml`` evaluator taking
  ``RankingEvaluator``'s input, for ``CrossValidator`` pipelines.

``import rankmeter`` does not import this package or pyspark.
"""

import warnings

from rankmeter.spark.evaluation import PANDAS_WARNING

# PySpark 4.x warns that it does not fully support pandas >= 3 from each module that checks the version (and
# each Python worker): rankmeter silences those and says it once (pandas_warning_once, when a session starts)
warnings.filterwarnings("ignore", message=PANDAS_WARNING, category=FutureWarning)

from rankmeter.spark.evaluation import SparkResult, evaluate, local_session  # noqa: E402
from rankmeter.spark.evaluator import RankmeterEvaluator  # noqa: E402

__all__ = ["RankmeterEvaluator", "SparkResult", "evaluate", "local_session"]
