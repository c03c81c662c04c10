"""From per-query kernel values to included values and aggregates: the empty-query policy and weighting."""

from __future__ import annotations

import numpy as np

from rankmeter.core.semantics import EMPTY_POLICIES, choose
from rankmeter.errors import PolicyError
from rankmeter.measures.kernels.segments import segment_sum


def check_empty_policy(empty: str) -> str:
    """Validate the ``empty`` policy name."""
    return choose(empty, EMPTY_POLICIES, "empty")


def apply_empty_policy(
    values: np.ndarray,
    empty: np.ndarray,
    policy: str,
    *,
    is_count: bool,
    query_ids: np.ndarray,
    measure_name: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Values and inclusion mask of one measure column after the empty-query policy.

    Parameters
    ----------
    values : ndarray, shape (Q,)
    empty : ndarray of bool, shape (Q,)
        Queries with no relevant document for this measure: the only
        queries the policy applies to.
    policy : {"zero", "skip", "nan", "one", "error"}
        ``zero``/``one``: the value is 0/1 and counts in the mean (trec_eval
        counts such queries with 0); ``skip``: left out of the per-query
        values and the mean; ``nan``: reported as NaN and left out of the
        mean; ``error``: raise. Counting measures keep their values under
        ``zero``/``one``/``nan``. A NaN of a query that is not empty (a
        value undefined for another reason, :func:`note_undefined`)
        stays NaN under every policy: reported, and left out of the mean.

    Examples
    --------
    >>> import numpy as np
    >>> v, inc = apply_empty_policy(np.array([0.5, np.nan]), np.array([False, True]), "one",
    ...                             is_count=False, query_ids=np.array(["a", "b"]), measure_name="ndcg")
    >>> v.tolist(), inc.tolist()
    ([0.5, 1.0], [True, True])
    >>> apply_empty_policy(np.array([np.nan]), np.array([False]), "zero",
    ...                    is_count=False, query_ids=np.array(["a"]), measure_name="mean_rank")[0].tolist()
    [nan]
    """
    values = values.copy()
    included = np.ones(len(values), dtype=bool)
    if not empty.any():
        return values, included
    if policy == "error":
        bad = query_ids[empty][:5].tolist()
        raise PolicyError(
            f"{int(empty.sum())} queries have no relevant judged document for {measure_name}: "
            f"{', '.join(bad)}{' ...' if empty.sum() > 5 else ''} (empty='error'; use zero, one, nan or skip)"
        )
    if policy == "skip":
        values[empty] = np.nan
        included[empty] = False
    elif not is_count:
        values[empty] = {"zero": 0.0, "one": 1.0, "nan": np.nan}[policy]
        if policy == "nan":
            included[empty] = True
    return values, included


def note_undefined(undefined: dict[str, int], name: str, values: np.ndarray, empty: np.ndarray) -> None:
    """Add to ``undefined[name]`` the queries that are not empty but have no value (NaN) for measure ``name``.

    No ``empty=`` policy touches such a value: it is undefined for a query
    that has relevant documents (the mean rank of a list that retrieved
    none of them, AMRI and MPR of a list of one item, AUROC of a list
    without a relevant item). Results count them per measure in
    ``metadata["queries_undefined"]``; measures without any are not listed.

    >>> found = {}
    >>> note_undefined(found, "mean_rank", np.array([np.nan, np.nan, 0.5]), np.array([True, False, False]))
    >>> note_undefined(found, "ndcg", np.array([0.5]), np.array([False]))
    >>> found
    {'mean_rank': 1}
    """
    count = int(np.count_nonzero(np.isnan(values) & ~empty))
    if count:
        undefined[name] = undefined.get(name, 0) + count


def keras_list_weights(item_weights: np.ndarray, relevance: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    r"""Per-list weights from per-item weights, keras-rs's rule.

    .. math:: w_q = \frac{\sum_i w_i \, rel_i}{\sum_i rel_i}

    Lists with no relevance get the mean of the other lists' weights (1 if
    there are none); lists whose weights sum to 0 get 0.

    >>> import numpy as np
    >>> keras_list_weights(np.array([2.0, 4.0, 3.0]), np.array([1.0, 1.0, 0.0]), np.array([0, 2, 3])).tolist()
    [3.0, 3.0]
    """
    sum_w = segment_sum(item_weights, offsets)
    sum_rel = segment_sum(relevance, offsets)
    numerator = segment_sum(item_weights * relevance, offsets)
    with_rel = (sum_rel > 0) & (sum_w > 0)
    per_list = np.divide(numerator, sum_rel, out=np.zeros_like(numerator), where=sum_rel > 0)
    default = per_list[with_rel].sum() / with_rel.sum() if with_rel.any() else 1.0
    return np.where(sum_w > 0, np.where(sum_rel > 0, per_list, default), 0.0)


GMEAN_FLOOR = 1e-5  # trec_eval's floor for gm_map / gm_bpref: log(max(v, 1e-5))


def aggregate_column(
    values: np.ndarray,
    included: np.ndarray,
    *,
    is_count: bool = False,
    weights: np.ndarray | None = None,
    kind: str | None = None,
) -> float:
    r"""Aggregate one measure over included, non-NaN values.

    ``kind`` is the family's aggregation: ``"sum"`` (counting measures),
    ``"mean"`` (weighted when ``weights`` is given), ``"gmean"``, the
    geometric mean with trec_eval's floor, :math:`\exp(rac{1}{n}\sum \ln \max(v, 10^{-5}))`,
    or ``"pooled"``: the ratio of sums :math:`\sum_q w_q v_q / \sum_q w_q` with ``weights`` the
    family's per-query pool (implicit's precision: :math:`\sum_q rel@k_q / \sum_q \min(k, R_q)`);
    NaN when the weights sum to 0.

    >>> import numpy as np
    >>> aggregate_column(np.array([1.0, 0.0, np.nan]), np.array([True, True, True]), kind="mean")
    0.5
    >>> round(aggregate_column(np.array([0.5, 0.125]), np.array([True, True]), kind="gmean"), 6)
    0.25
    >>> aggregate_column(np.array([1.0, 0.25]), np.array([True, True]), weights=np.array([1.0, 4.0]), kind="pooled")
    0.4
    """
    kind = kind or ("sum" if is_count else "mean")
    keep = included & ~np.isnan(values)
    if kind == "sum":
        return float(values[keep].sum())
    if not keep.any():
        return float("nan")
    if kind == "pooled":
        if weights is None:
            raise ValueError("a pooled aggregate needs the per-query weights")
        total = float(weights[keep].sum())
        return float((values[keep] * weights[keep]).sum() / total) if total > 0 else float("nan")
    v = np.log(np.maximum(values[keep], GMEAN_FLOOR)) if kind == "gmean" else values[keep]
    if weights is None:
        out = float(v.mean())
    else:
        w = weights[keep]
        total = w.sum()
        out = float((v * w).sum() / total) if total > 0 else 0.0
    return float(np.exp(out)) if kind == "gmean" else out
