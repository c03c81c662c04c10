r"""Exact expected measures under sampled negatives, from full-catalogue scores (``sampled_negatives=``).

:func:`rankmeter.evaluate_arrays` and :func:`rankmeter.evaluate_embeddings`
take ``sampled_negatives=n`` and ``sampling=``: each user's relevant items
(grade > 0) are ranked against n negatives drawn uniformly without
replacement from the user's other items (grade <= 0, not masked, not
excluded; ``sampling="recbole_uni"``: the distinct negatives of R n draws
with replacement, RecBole's protocol), and the result holds, for each user and measure, the exact
expectation of the measure over every such draw
(:mod:`rankmeter.measures.kernels.sampled`), with the full-catalogue
aggregates beside it in ``metadata["full_catalogue"]``.

The rows are ranked once, in blocks of rows, and each relevant item's place
is read off as counts (relevant items and negatives above it and tied with
it) under the call's tie policy.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from rankmeter.aggregate import aggregate_column, apply_empty_policy, note_undefined
from rankmeter.core.lists import EVALUATION_BLOCK_ITEMS, row_blocks
from rankmeter.core.semantics import choose
from rankmeter.core.ties import row_order
from rankmeter.errors import PolicyError
from rankmeter.io.dense import dense_arrays
from rankmeter.io.exclude import RemovedItems, is_sparse, removed_items
from rankmeter.io.foreign import host_array
from rankmeter.measures import FAMILIES, Measure
from rankmeter.measures.kernels.sampled import (
    PROTOCOLS,
    WITH_REPLACEMENT,
    PositiveCounts,
    check_pooled_measures,
    check_sampled_measures,
    expected_values,
)
from rankmeter.results import EvaluationResult

SAMPLED_TIES = ("expected", "stable", "trec", "optimistic", "pessimistic")


FEW_POSITIVES = 16
"""Rows with at most this many relevant items are counted by comparisons (p m), others by sorting (m log m)."""


def positive_counts(y: np.ndarray, s: np.ndarray, keep: np.ndarray | None, ties: str) -> PositiveCounts:
    """Where each relevant item of each row stands among the row's relevant items and negatives.

    Under ``expected`` the counts are of items strictly above and tied; under
    a deterministic policy, of the items before it in that policy's order
    (``stable``: lower column first, ``trec``: higher column first,
    ``optimistic`` / ``pessimistic``: higher / lower grade first, then lower
    column). Rows with few relevant items compare each of them with the row
    (:func:`counts_by_comparison`); the others are sorted (:func:`counts_by_sorting`).

    >>> c = positive_counts(np.array([[1.0, 0, 2, 0]]), np.array([[0.5, 0.9, 0.5, 0.1]]), None, "expected")
    >>> c.above_neg.tolist(), c.tied_pos.tolist(), c.n_negatives.tolist()
    ([1, 1], [1, 1], [2])
    """
    keep = np.ones(y.shape, dtype=bool) if keep is None else keep
    many = np.flatnonzero((keep & (y > 0)).sum(axis=1) > FEW_POSITIVES)
    if not len(many):
        return counts_by_comparison(y, s, keep, ties)
    few = np.setdiff1d(np.arange(y.shape[0]), many)
    parts = [(rows, f(y[rows], s[rows], keep[rows], ties)) for rows, f in
             ((few, counts_by_comparison), (many, counts_by_sorting)) if len(rows)]  # fmt: skip
    user = np.concatenate([rows[c.user] for rows, c in parts])
    order = np.argsort(user, kind="stable")
    fields = ("grade", "above_pos", "tied_pos", "above_neg", "tied_neg")
    flat = {f: np.concatenate([getattr(c, f) for _, c in parts])[order] for f in fields}
    per_row = {f: np.zeros(y.shape[0], dtype=np.int64) for f in ("n_positives", "n_negatives")}
    for rows, c in parts:
        for f in per_row:
            per_row[f][rows] = getattr(c, f)
    return PositiveCounts(user[order], **flat, **per_row)


def counts_by_comparison(y: np.ndarray, s: np.ndarray, keep: np.ndarray, ties: str) -> PositiveCounts:
    """:func:`positive_counts` by comparing each relevant item with its row: O(p m) for p relevant items a row."""
    pos, neg = keep & (y > 0), keep & ~(y > 0)
    scores = np.where(keep, s.astype(np.float64, copy=False), -np.inf)
    rows, cols = np.nonzero(pos)
    n_pos = pos.sum(axis=1)
    width = int(n_pos.max(initial=0))
    slot = np.arange(len(rows)) - np.repeat(np.cumsum(n_pos) - n_pos, n_pos)
    ps = np.full((y.shape[0], width), np.nan)
    ps[rows, slot] = scores[rows, cols]
    pc = np.full((y.shape[0], width), -1)
    pc[rows, slot] = cols
    pg = np.full((y.shape[0], width), np.nan)
    pg[rows, slot] = y[rows, cols]
    above = np.zeros((y.shape[0], width), dtype=np.int64)
    tied = np.zeros_like(above)
    before = np.zeros_like(above)  # tied negatives a deterministic policy puts first
    column = np.arange(y.shape[1])[None, :]
    for j in range(width):
        v = ps[:, j : j + 1]
        above[:, j] = ((scores > v) & neg).sum(axis=1)
        same = (scores == v) & neg
        tied[:, j] = same.sum(axis=1)
        if ties in ("stable", "trec"):
            first = column < pc[:, j : j + 1] if ties == "stable" else column > pc[:, j : j + 1]
            before[:, j] = (same & first).sum(axis=1)
    valid = ~np.isnan(ps)
    other = valid[:, None, :] & ~np.eye(width, dtype=bool)[None]  # [row, i, k]: relevant item k, not i itself
    a = ((ps[:, None, :] > ps[:, :, None]) & other).sum(axis=2)
    tie = (ps[:, None, :] == ps[:, :, None]) & other
    b = tie.sum(axis=2)
    if ties != "expected":
        k_col, i_col = pc[:, None, :], pc[:, :, None]
        k_grade, i_grade = pg[:, None, :], pg[:, :, None]
        first_pos = {
            "stable": k_col < i_col,
            "trec": k_col > i_col,
            "optimistic": (k_grade > i_grade) | ((k_grade == i_grade) & (k_col < i_col)),
            "pessimistic": (k_grade < i_grade) | ((k_grade == i_grade) & (k_col < i_col)),
        }[ties]
        a = a + (tie & first_pos).sum(axis=2)
        above = above + (tied if ties == "pessimistic" else before)
        b = np.zeros_like(b)
        tied = np.zeros_like(tied)
    return PositiveCounts(
        rows.astype(np.int64),
        y[rows, cols].astype(np.float64),
        a[rows, slot].astype(np.int64),
        b[rows, slot].astype(np.int64),
        above[rows, slot],
        tied[rows, slot],
        n_pos.astype(np.int64),
        neg.sum(axis=1).astype(np.int64),
    )


def counts_by_sorting(y: np.ndarray, s: np.ndarray, keep: np.ndarray, ties: str) -> PositiveCounts:
    """:func:`positive_counts` by one sort of each row (any number of relevant items a row)."""
    pos, neg = keep & (y > 0), keep & ~(y > 0)
    scores = np.where(keep, s.astype(np.float64, copy=False), -np.inf)  # removed items: last, tied with none kept
    if ties == "expected":
        order = np.argsort(-scores, axis=1, kind="stable")
    else:
        order = row_order(scores, ties=ties, grades=np.where(keep, y, 0.0).astype(np.float64))
    sp, sn = np.take_along_axis(pos, order, axis=1), np.take_along_axis(neg, order, axis=1)
    cpos: np.ndarray = np.cumsum(sp, axis=1, dtype=np.int32)  # int32: half the bytes of a block's counts
    cneg: np.ndarray = np.cumsum(sn, axis=1, dtype=np.int32)
    before_pos: np.ndarray = cpos - sp
    before_neg: np.ndarray = cneg - sn
    if ties == "expected":
        ranked = np.take_along_axis(scores, order, axis=1)
        cols = np.arange(y.shape[1], dtype=np.int32)
        first = np.ones(y.shape, dtype=bool)
        first[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
        last = np.ones(y.shape, dtype=bool)
        last[:, :-1] = first[:, 1:]
        start = np.maximum.accumulate(np.where(first, cols, 0), axis=1)
        end = np.minimum.accumulate(np.where(last, cols, y.shape[1] - 1)[:, ::-1], axis=1)[:, ::-1]
        a: np.ndarray = np.take_along_axis(before_pos, start, axis=1)
        r: np.ndarray = np.take_along_axis(before_neg, start, axis=1)
        b, t = np.take_along_axis(cpos, end, axis=1) - a - 1, np.take_along_axis(cneg, end, axis=1) - r
    else:
        a, r = before_pos, before_neg
        b = t = np.zeros(y.shape, dtype=np.int32)
    rows = np.nonzero(sp)[0]
    return PositiveCounts(
        rows.astype(np.int64),
        np.take_along_axis(y, order, axis=1)[sp].astype(np.float64),
        a[sp].astype(np.int64),
        b[sp].astype(np.int64),
        r[sp].astype(np.int64),
        t[sp].astype(np.int64),
        pos.sum(axis=1).astype(np.int64),
        neg.sum(axis=1).astype(np.int64),
    )


@dataclass(frozen=True)
class BlockValues:
    """The expected sampled values of a block of rows and their counts of relevant items."""

    values: np.ndarray
    n_positives: np.ndarray
    n_items: np.ndarray


class SampledNegatives:
    """The sampled-negative expectation of the measures of one call, block by block of rows.

    Parameters
    ----------
    n : int
        Negatives sampled for each list (>= 1).
    sampling : {"per_positive", "shared", "recbole_uni"}
    measures : list of Measure
    ties, empty : str
        The call's semantics (``shuffle`` is refused: its order is not a property of the scores).

    Examples
    --------
    >>> from rankmeter.measures import parse
    >>> plan = SampledNegatives(1, "per_positive", [parse("rr")], "expected", "zero")
    >>> block = plan.values(np.array([[1.0, 0, 0]]), np.array([[0.2, 0.9, 0.1]]), None, np.array(["u"]))
    >>> block.values.tolist()  # rank 2 when the sampled negative is the one above (p = 1/2), else 1
    [[0.75]]
    """

    def __init__(self, n: Any, sampling: str, measures: list[Measure], ties: str, empty: str) -> None:
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise PolicyError(f"sampled_negatives must be a positive integer (negatives per list), got {n!r}")
        if ties not in SAMPLED_TIES:
            raise PolicyError(
                f"ties={ties!r} is not available with sampled_negatives= (a seeded order is not a property of the "
                f"scores); choose one of {', '.join(SAMPLED_TIES)}"
            )
        check_sampled_measures(measures)
        self.n, self.sampling, self.measures = int(n), choose(sampling, PROTOCOLS, "sampling"), measures
        check_pooled_measures(measures, self.sampling)
        self.ties, self.empty = ties, empty

    def values(self, y: np.ndarray, s: np.ndarray, removed: RemovedItems | None, query_ids: np.ndarray) -> BlockValues:
        """Expected values of rows ``y``/``s`` (``removed``: their removed items; ``query_ids``: their ids)."""
        counts = positive_counts(y, s, removed.keep_matrix() if removed is not None else None, self.ties)
        replacement = self.sampling in WITH_REPLACEMENT
        short = np.flatnonzero((counts.n_positives > 0) & (counts.n_negatives < (1 if replacement else self.n)))
        if len(short) and replacement:
            raise PolicyError(
                f"user {query_ids[int(short[0])]}: sampling={self.sampling!r} draws its negatives from its items "
                "that are not relevant, masked or excluded, and it has none"
            )
        if len(short):
            i = int(short[0])
            raise PolicyError(
                f"user {query_ids[i]}: sampled_negatives={self.n} is more than its {int(counts.n_negatives[i])} "
                "non-relevant items left to sample from (items with grade <= 0, not masked or excluded)"
            )
        values, _ = expected_values(counts, self.n, self.sampling, self.measures)
        return BlockValues(values, counts.n_positives, counts.n_positives + counts.n_negatives)

    def result(self, full: EvaluationResult, blocks: list[BlockValues]) -> EvaluationResult:
        """``full`` (the same call without sampling) with the expected sampled values in its place.

        The full-catalogue aggregates move to ``metadata["full_catalogue"]``;
        ``metadata["semantics"]`` records ``sampled_negatives`` and ``sampling``;
        ``metadata["queries_undefined"]`` counts the sampled values that are
        NaN for a list with a relevant item (every supported family is defined
        there, so no measure is listed).
        """
        values = np.concatenate([b.values for b in blocks]) if blocks else np.zeros((0, len(full.measure_names)))
        empty = np.concatenate([b.n_positives for b in blocks]) == 0 if blocks else np.zeros(0, dtype=bool)
        family = {str(single): single.family for m in self.measures for single in m.expand()}
        # a row with no item left weighs 0 in the means, as in the full-catalogue result
        weights = np.concatenate([b.n_items for b in blocks]) > 0 if full.metadata.get("weighted") else None
        columns, included, aggregate = [], [], {}
        undefined: dict[str, int] = {}
        for c, name in enumerate(full.measure_names):
            note_undefined(undefined, name, values[:, c], empty)
            col, inc = apply_empty_policy(values[:, c], empty, self.empty, is_count=False,
                                          query_ids=full.query_ids, measure_name=name)  # fmt: skip
            columns.append(col)
            included.append(inc)
            aggregate[name] = aggregate_column(
                col,
                inc,
                weights=None if weights is None else weights.astype(np.float64),
                kind=FAMILIES[family[name]].aggregate,
            )
        meta = dict(full.metadata)
        meta["semantics"] = {**meta.get("semantics", {}), "sampled_negatives": self.n, "sampling": self.sampling}
        meta["full_catalogue"] = dict(full.aggregate)
        meta["queries_undefined"] = undefined  # counted on the sampled values, not the full catalogue's
        meta["sampled"] = {
            "negatives": self.n,
            "sampling": self.sampling,
            "replacement": self.sampling in WITH_REPLACEMENT,
            "value": "exact expectation over every draw of the negatives",
        }
        n_q = len(full.query_ids)
        return replace(
            full,
            values=np.stack(columns, axis=1) if columns else np.zeros((n_q, 0)),
            included=np.stack(included, axis=1) if included else np.zeros((n_q, 0), dtype=bool),
            aggregate=aggregate,
            metadata=meta,
        )


def sampled_arrays(
    full: EvaluationResult,
    y_true: Any,
    y_score: Any,
    plan: SampledNegatives,
    *,
    mask: Any = None,
    exclude: Any = None,
) -> EvaluationResult:
    """The sampled-negative result of :func:`rankmeter.evaluate_arrays` (``full``: the same call without sampling)."""
    y, s = dense_arrays(host_array(y_true), host_array(y_score), check_finite=False)
    removed = None
    if mask is not None or exclude is not None:
        removed = removed_items(
            None if mask is None else host_array(mask), exclude if is_sparse(exclude) else host_array(exclude), y.shape
        )
    n, m = y.shape
    query_ids = np.asarray(full.query_ids).astype(str)
    blocks = [
        plan.values(y[a:b], s[a:b], removed.rows(a, b) if removed is not None else None, query_ids[a:b])
        for a, b in row_blocks(n, m, max(1, EVALUATION_BLOCK_ITEMS // max(m, 1)))
    ]
    return plan.result(full, blocks)
