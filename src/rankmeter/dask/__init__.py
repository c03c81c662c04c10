"""rankmeter on dask: exact, tie-aware evaluation of qrels + run as dask DataFrames (``pip install rankmeter[dask]``).

:func:`evaluate` gives the values of :func:`rankmeter.evaluate` whatever the
partitioning; it runs on dask's current scheduler (a
``dask.distributed.Client`` sends it to a cluster). ``import rankmeter`` does
not import this package or dask.
"""

from rankmeter.dask.evaluation import DaskResult, evaluate

__all__ = ["DaskResult", "evaluate"]
