"""``rankmeter.similarity(run_a, run_b, measures)``: per-query judgment-free comparison of two runs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from rankmeter._version import __version__
from rankmeter.agreement.names import SimilarityMeasure, parse_similarity
from rankmeter.agreement.pairs import ONE_SIDED, SIMILARITY_TIES, RankedList, paired_lists
from rankmeter.agreement.rbo import rbo_batch
from rankmeter.agreement.tau import kendall_tau, tau_ap
from rankmeter.core.semantics import choose
from rankmeter.errors import RankmeterError
from rankmeter.results import EvaluationResult

_RBO_FORM = {"rbo": "ext", "rbo_min": "min", "rbo_max": "max", "rbo_res": "res", "rbo_prefix": "prefix"}


def _shared_values(a: RankedList, b: RankedList) -> tuple[np.ndarray, np.ndarray]:
    """The items both lists hold, as (minus) their tie groups' first ranks in each list (tied items equal)."""
    _, ia, ib = np.intersect1d(a.items, b.items, assume_unique=True, return_indices=True)
    return -a.top[ia].astype(np.float64), -b.top[ib].astype(np.float64)


def _values(
    parsed: list[SimilarityMeasure], a: list[RankedList], b: list[RankedList], ties: str, query_ids: list[str]
) -> np.ndarray:
    """``(n_queries, n_measures)`` values; RBO's forms that share ``p`` and a depth are computed together."""
    values = np.full((len(query_ids), len(parsed)), np.nan)
    bounds = {(m.p, m.depth) for m in parsed if _RBO_FORM.get(m.family) in ("max", "res")}
    forms: dict[tuple[float | None, int | None], dict[str, np.ndarray]] = {}
    for j, m in enumerate(parsed):
        if m.family in _RBO_FORM:
            key = (m.p, m.depth)
            if key not in forms:
                assert m.p is not None
                forms[key] = rbo_batch(a, b, m.p, m.depth, ties, query_ids, bounds=key in bounds)
            values[:, j] = forms[key][_RBO_FORM[m.family]]
            continue
        for i, (la, lb) in enumerate(zip(a, b, strict=True)):
            x, y = _shared_values(la.cut(m.depth), lb.cut(m.depth))
            if m.family == "kendall_tau":
                values[i, j] = kendall_tau(x, y, ties="expected" if ties == "expected" else "equal")
            else:
                values[i, j] = tau_ap(x, y, where=f"query {query_ids[i]!r}: ")
    return values


def similarity(
    run_a: Any,
    run_b: Any,
    measures: str | Sequence[str],
    *,
    ties: str = "expected",
    one_sided: str = "skip",
    seed: int | None = None,
) -> EvaluationResult:
    r"""Compare two runs query by query, without judgments: rank-biased overlap and rank correlations.

    Parameters
    ----------
    run_a, run_b : path, table, dict or Run
        Two runs in any form :func:`rankmeter.evaluate` reads (TREC files,
        pandas / polars / pyarrow tables, ``{query: {doc: score}}``).
    measures : str or list of str
        ``rbo(p=0.9)`` (RBO_EXT, eq. 32 of Webber, Moffat & Zobel 2010),
        ``rbo_min``, ``rbo_max``, ``rbo_res`` (its bounds and residual),
        ``rbo_prefix(p=0.9)@k`` (:math:`(1-p)\sum_{d\le k} p^{d-1} A_d`),
        ``kendall_tau`` and ``tau_ap`` (over the documents both lists hold);
        ``@k`` cuts both lists at depth ``k`` first.
    ties : str
        ``expected`` (default: the exact mean over every ordering of the tied
        documents), ``equal`` (tied documents are equal: RBO's section 4.3,
        Kendall's tau-b), or ``trec`` / ``stable`` / ``shuffle``, which break
        ties as :func:`rankmeter.evaluate` does.
    one_sided : str
        A query that only one run ranks: ``skip`` (default; left out and
        counted in the metadata), ``zero`` (every measure 0 for it) or ``error``.
    seed : int, optional
        Seed for ``ties="shuffle"``.

    Returns
    -------
    EvaluationResult
        Per-query values (queries both runs rank), their means, and metadata
        (tie treatment, ``queries_only_in_a`` / ``queries_only_in_b``, and in
        ``queries_undefined`` the queries per measure whose value is undefined,
        e.g. tau with fewer than two shared documents; measures without any are
        not listed).

    Examples
    --------
    >>> import rankmeter
    >>> a = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> b = {"q1": {"d1": 3.0, "d3": 2.0, "d2": 1.0}, "q2": {"d9": 1.0}}
    >>> res = rankmeter.similarity(a, b, ["rbo(p=0.9)", "kendall_tau@10"])
    >>> round(res["rbo(p=0.9)"], 6), round(res["kendall_tau@10"], 6), res.metadata["queries_only_in_b"]
    (0.955, 0.333333, 1)
    """
    names = [measures] if isinstance(measures, str) else list(measures)
    parsed = [parse_similarity(m) for m in names]
    choose(ties, SIMILARITY_TIES, "ties")
    choose(one_sided, ONE_SIDED, "one_sided")
    pairs = paired_lists(run_a, run_b, ties=ties, seed=seed)
    if one_sided == "error" and (pairs.only_a or pairs.only_b):
        which, query = ("run_a", pairs.only_a[0]) if pairs.only_a else ("run_b", pairs.only_b[0])
        raise RankmeterError(f"query {query!r} is only in {which}; pass one_sided='skip' or 'zero'")
    query_ids = list(pairs.query_ids)
    values = _values(parsed, pairs.a, pairs.b, ties, query_ids)
    if one_sided == "zero":
        one = sorted(pairs.only_a + pairs.only_b)
        query_ids += one
        values = np.concatenate((values, np.zeros((len(one), len(parsed)))))
    order = np.argsort(np.array(query_ids, dtype=str), kind="stable")
    values = values[order]
    included = ~np.isnan(values)
    columns = [str(m) for m in parsed]
    aggregate = {
        name: float(values[included[:, j], j].mean()) if included[:, j].any() else math.nan
        for j, name in enumerate(columns)
    }
    metadata = {
        "kind": "similarity",
        "ties": ties,
        "seed": seed,
        "one_sided": one_sided,
        "queries_compared": len(pairs.query_ids),
        "queries_only_in_a": len(pairs.only_a),
        "queries_only_in_b": len(pairs.only_b),
        "queries_with_ties": pairs.tied_queries,
        "queries_undefined": {name: n for j, name in enumerate(columns) if (n := int((~included[:, j]).sum()))},
        "version": __version__,
    }
    return EvaluationResult(np.array(query_ids, dtype=str)[order], columns, values, included, aggregate, metadata)
