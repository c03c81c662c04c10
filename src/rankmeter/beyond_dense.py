"""Beyond-accuracy measures of dense scores and embeddings: each row's top k is the row's list.

Column j of the scores is catalogue item j: ``Items(catalog=...)`` names the columns (it must have one
id per column), or, without a catalogue, column j is the item ``str(j)`` and the columns are the
catalogue. Items removed by ``mask=`` / ``exclude=`` and non-finite scores never enter a list.

Each row keeps the items that score at least its k-th highest score (k: the largest cutoff of the
list-reading measures), in column order, and those entries are handed, as a run ``{row: {item: score}}``,
to the same code as :func:`rankmeter.evaluate` with ``items=``. Ties follow the rule of the accuracy
measures of the call, so that a row has one top k: under ``trec`` the higher column first
(:func:`rankmeter.core.ties.rank_rows`; not the ids' text, where ``"9"`` comes before ``"10"``), under
``stable`` column order; a tied group that straddles the cutoff is a
:class:`~rankmeter.errors.PolicyError` under ``expected``, ``optimistic`` and ``pessimistic``. The
lists and every value are those of ``evaluate(truth, run, ..., items=items)`` when the item ids sort
as their columns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from rankmeter.beyond import SegmentListSets, as_items, evaluate_with_items, merged, reads_lists
from rankmeter.core.lists import map_blocks
from rankmeter.core.semantics import Semantics
from rankmeter.errors import InputFormatError, InvalidScoreError, PolicyError
from rankmeter.io.dense import check_finite, dense_arrays
from rankmeter.io.exclude import RemovedItems, is_sparse, removed_items
from rankmeter.io.foreign import host_array
from rankmeter.io.items import Items
from rankmeter.io.tables import Qrels, Run
from rankmeter.measures import Measure
from rankmeter.results import EvaluationResult

Entries = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Of a block of rows: the listed entries' rows, columns and scores, the relevant entries' rows, columns, grades."""


def top_entries(scores: np.ndarray, k: int, keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The (row, column) of every kept item scoring at least its row's k-th highest kept score, row-major.

    >>> rows, cols = top_entries(np.array([[0.1, 0.5, 0.5, 0.2], [3.0, 2.0, 1.0, 0.0]]), 2)
    >>> rows.tolist(), cols.tolist()  # row 0: 0.5 and 0.5; row 1: 3 and 2
    ([0, 0, 1, 1], [1, 2, 0, 1])
    """
    s = scores if keep is None else np.where(keep, scores, -np.inf)
    if k < s.shape[1]:
        kth = -np.partition(-s, k - 1, axis=1)[:, k - 1]
        chosen = s >= kth[:, None]
    else:
        chosen = np.ones(s.shape, dtype=bool)
    if keep is not None:
        chosen &= keep
    rows, cols = np.nonzero(chosen)
    return rows, cols


def block_entries(y: np.ndarray, s: np.ndarray, k: int, keep: np.ndarray | None, first_row: int) -> Entries:
    """The top entries and the relevant (grade > 0, kept) entries of a block of rows starting at ``first_row``."""
    rows, cols = top_entries(s, k, keep)
    positive = y > 0 if keep is None else (y > 0) & keep
    r_rows, r_cols = np.nonzero(positive)
    return (rows + first_row, cols, s[rows, cols].astype(np.float64), r_rows + first_row, r_cols,
            y[r_rows, r_cols].astype(np.float64))  # fmt: skip


def on_columns(items: Items | None, n_items: int, names: np.ndarray | None = None) -> tuple[Items, np.ndarray]:
    """``items`` for ``n_items`` score columns, and the id of each column.

    Column j is ``names[j]`` when given (``item_ids=``), else ``catalog[j]`` when ``items`` has a catalogue,
    else ``str(j)``; the catalogue is the columns' ids when ``items`` has none.

    >>> items, names = on_columns(Items(interactions={"u": ["1"]}), 3)
    >>> names.tolist(), items.catalog_size
    (['0', '1', '2'], 3)
    """
    items = as_items(items)
    if "catalog" in items.given:
        if len(items.catalog) != n_items:
            raise InputFormatError(
                f"items=: the catalogue has {len(items.catalog)} items but the scores have {n_items} columns "
                "(column j is catalog[j])"
            )
        if names is not None and not np.array_equal(np.sort(names), np.sort(items.catalog)):
            other = np.setxor1d(names, items.catalog)[0]
            raise InputFormatError(
                f"items=: item {str(other)!r} is in one of item_ids and Items(catalog=...) but not in the other"
            )
        return items, (items.catalog if names is None else names)
    names = np.arange(n_items).astype(str) if names is None else names
    return items.with_catalog(names), names


def lists_result(
    parts: Iterator[Entries],
    query_ids: np.ndarray,
    names: np.ndarray,
    call: DenseItemsCall,
    items: Items,
    accuracy: EvaluationResult | None,
    extra: dict[str, Any],
) -> EvaluationResult:
    """The list-reading measures of ``call`` over the entries of every block, merged with ``accuracy``.

    Rows in their order, measures in the call's order.
    """
    blocks = list(parts)
    col = [np.concatenate([b[i] for b in blocks]) if blocks else np.zeros(0) for i in range(6)]
    rows, cols, r_rows, r_cols = (c.astype(np.int64) for c in (col[0], col[1], col[3], col[4]))
    scores, semantics = col[2], call.semantics
    if semantics.tie_policy == "trec":  # the accuracy measures' rule (higher column first), not the ids' text
        flip = np.lexsort((-cols, rows))
        rows, cols, scores = rows[flip], cols[flip], scores[flip]
        semantics = replace(semantics, ties="stable")
    run = Run(query_ids[rows], names[cols], scores)
    truth = Qrels(query_ids[r_rows], names[r_cols], col[5])
    mine = evaluate_with_items(truth, run, reads_lists(call.measures), items, semantics, None, None)
    if semantics is not call.semantics:  # the call's policy is reported, not the order that applied it
        mine.metadata["semantics"] = {**mine.metadata.get("semantics", {}), "ties": call.semantics.tie_policy}
        mine.metadata.update({"ties": call.semantics.tie_policy} if "ties" in mine.metadata else {})
        if isinstance(mine.list_sets, SegmentListSets):  # the lists were ordered already: trec reorders nothing
            lists = replace(mine.list_sets.ctx, ties=call.semantics.tie_policy)
            mine = replace(mine, list_sets=replace(mine.list_sets, ctx=lists))
    at = {q: i for i, q in enumerate(query_ids.tolist())}  # back to the rows' order
    rows_of = np.argsort([at[q] for q in mine.query_ids.tolist()], kind="stable")
    mine = replace(
        mine, query_ids=mine.query_ids[rows_of], values=mine.values[rows_of], included=mine.included[rows_of]
    )
    if accuracy is None:
        mine.metadata.update(extra)
        return mine
    order = list(dict.fromkeys(str(single) for m in call.measures for single in m.expand()))
    meta = {
        **accuracy.metadata,
        **{key: mine.metadata[key] for key in ("items", "users_with_lists", "list_set_measures")},
        "measures": order,
        "queries_undefined": {**accuracy.metadata.get("queries_undefined", {}), **mine.metadata["queries_undefined"]},
    }
    found = merged(accuracy, mine, order, meta, sort=False)
    return replace(found, list_sets=mine.list_sets)


@dataclass(frozen=True)
class DenseItemsCall:
    """What :func:`rankmeter.evaluate_arrays` hands over for a call with list-reading measures."""

    measures: list[Measure]
    items: Any
    semantics: Semantics
    accuracy: Callable[[list[Measure]], EvaluationResult]


def check_call(call: DenseItemsCall, sample_weight: Any) -> tuple[list[Measure], list[Measure]]:
    """The list-reading measures and the others; a PolicyError for what lists of scores cannot take."""
    if sample_weight is not None:
        raise PolicyError(
            "items=: the beyond-accuracy measures read each row's top-k list; sample_weight= has no meaning for "
            "them (evaluate the weighted accuracy measures in a call of their own)"
        )
    if call.semantics.tie_policy == "shuffle":
        raise PolicyError(
            "items=: ties='shuffle' is not available for the top-k lists of scores; use ties='trec' or 'stable' "
            "(or 'expected', which refuses a tied group that straddles the cutoff)"
        )
    listed = reads_lists(call.measures)
    return listed, [m for m in call.measures if m not in listed]


def arrays_with_items(y_true: Any, y_score: Any, mask: Any, exclude: Any, call: DenseItemsCall) -> EvaluationResult:
    """:func:`rankmeter.evaluate_arrays` with list-reading measures (``mask=`` False and ``exclude=`` remove items)."""
    listed, rest = check_call(call, None)
    y, s = dense_arrays(host_array(y_true), host_array(y_score), check_finite=False)
    keep = None
    extra: dict[str, Any] = {"input": "dense"}
    if mask is not None or exclude is not None:
        given = None if exclude is None or is_sparse(exclude) else host_array(exclude)
        removed = removed_items(
            None if mask is None else host_array(mask), exclude if given is None else given, y.shape
        )
        keep, extra["items_excluded"] = removed.keep_matrix(), removed.total
        extra["semantics"] = {**call.semantics.as_dict(), "candidates": "+".join(
            n for n, x in (("mask", mask), ("exclude", exclude)) if x is not None)}  # fmt: skip
    check_finite(y, s, keep)
    items, names = on_columns(call.items, s.shape[1])
    k = max(max(m.cutoffs or (1,)) for m in listed)
    part = block_entries(y, s, k, keep, 0)
    accuracy = call.accuracy(rest) if rest else None
    return lists_result(iter([part]), np.arange(s.shape[0]).astype(str), names, call, items, accuracy, extra)


def embeddings_with_items(
    users: np.ndarray,
    item_t: np.ndarray,
    grades: Any,
    removed: RemovedItems | None,
    query_ids: np.ndarray,
    item_ids: np.ndarray | None,
    blocks: list[tuple[int, int]],
    threads: int | None,
    call: DenseItemsCall,
) -> EvaluationResult:
    """:func:`rankmeter.evaluate_embeddings` with list-reading measures: each block of users scored, its top k kept.

    Memory: a block's scores at a time (as the accuracy measures), and the kept entries of every user.
    """
    listed, rest = check_call(call, None)
    items, names = on_columns(call.items, item_t.shape[1], None if item_ids is None else item_ids.astype(str))
    k = max(max(m.cutoffs or (1,)) for m in listed)

    def entries(rows: tuple[int, int]) -> Entries:
        a, b = rows
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, naming the users
            scores = users[a:b] @ item_t
        keep = removed.rows(a, b).keep_matrix() if removed is not None else None
        if not np.isfinite(scores if keep is None else scores[keep]).all():
            raise InvalidScoreError(
                f"the scores of users {a}-{b - 1} are not all finite (the products of their vectors overflow "
                f"{scores.dtype})"
            )
        return block_entries(grades[a:b].toarray(), scores, k, keep, a)

    accuracy = call.accuracy(rest) if rest else None
    extra: dict[str, Any] = {"input": "embeddings"}
    if removed is not None:
        extra["items_excluded"] = removed.total
    return lists_result(map_blocks(entries, blocks, threads), query_ids, names, call, items, accuracy, extra)
