"""Kernels: pure functions ``(Context, Measure) -> float64[n_queries, n_cutoffs]``.

Every kernel computes all cutoffs of its family in one call and handles every
tie policy: deterministic orders are already applied by the core, and for
``ties="expected"`` each kernel uses the exact expectation over all orderings
of each tied group (McSherry & Najork, ECIR 2008). A query where the measure
is undefined (0/0, e.g. no relevant document) gets NaN; the empty-query
policy is applied later by :func:`rankmeter.pipeline.evaluate_ranked`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def deferred(module: str, name: str) -> Callable[..., Any]:
    """The kernel ``name`` of ``rankmeter.measures.kernels.<module>``, whose module is imported on its first call.

    A family module names its kernels with it when their module is costly to import (the diversity
    kernels and intent qrels): the registry then lists every family without importing every kernel.

    >>> kernel = deferred("dcg", "ndcg")
    >>> kernel.__name__, kernel.__module__
    ('ndcg', 'rankmeter.measures.kernels.dcg')
    """
    path = f"{__name__}.{module}"

    def kernel(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(path), name)(*args, **kwargs)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__module__ = path
    return kernel
