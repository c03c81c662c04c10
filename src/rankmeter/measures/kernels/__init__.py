"""Kernels: pure functions ``(Context, Measure) -> float64[n_queries, n_cutoffs]``.

Every kernel computes all cutoffs of its family in one call and handles every
tie policy: deterministic orders are already applied by the core, and for
``ties="expected"`` each kernel uses the exact expectation over all orderings
of each tied group (McSherry & Najork, ECIR 2008). A query where the measure
is undefined (0/0, e.g. no relevant document) gets NaN; the empty-query
policy is applied later by :mod:`rankmeter.evaluate`.
"""
