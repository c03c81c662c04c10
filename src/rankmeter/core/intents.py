"""Join a run with intent (subtopic) qrels into :class:`IntentLists`, the layout of the diversity kernels.

The run is ranked by :func:`rankmeter.core.join.align` -- the one place
where ties, depth, judged-only filtering, duplicates and missing queries are
decided -- against a document-level view of the intent qrels: one row per
judged (query, document) whose grade column carries the document's row in
the judgment table (plus one). The ranked items thus come back knowing which
judged document they are, and the judgments per intent are read from the
table in columnar form: no per-query loop.

Intents are ordered within a query as ``ndeval`` orders subtopics: by number
when every intent id is a natural number, else by id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter.core.join import AlignInfo, align
from rankmeter.core.semantics import DUPLICATE_POLICIES, Semantics, SemanticsOptions, choose
from rankmeter.errors import DuplicateEntryError, InputFormatError, PolicyError
from rankmeter.ids.column import IdColumn, id_at
from rankmeter.ids.intern import encode
from rankmeter.ids.order import number_order_codes, string_codes
from rankmeter.io.arrow import dictionary_array
from rankmeter.io.frames import is_frame
from rankmeter.io.intents import INTENT_COLUMNS, IntentQrels
from rankmeter.io.tables import Qrels, Run

if TYPE_CHECKING:
    from typing_extensions import Unpack

DIVERSITY_TIES = ("trec", "stable", "shuffle")
"""Tie policies the diversity measures take (each a deterministic order of every tied group)."""

_TIES_REFUSED = {
    "expected": "the exact expectation over the orderings of a tied group is not implemented for diversity "
    "measures: a document's gain depends on which tied documents with the same intents precede it",
    "optimistic": "relevant-first is no bound for diversity measures: which relevant document comes first "
    "changes the novelty gain of every later one",
    "pessimistic": "relevant-last is no bound for diversity measures: which relevant document comes first "
    "changes the novelty gain of every later one",
}


@dataclass(frozen=True)
class IntentLists:
    """Ranked lists with their judged documents' intent judgments (CSR throughout).

    Attributes
    ----------
    query_ids : ndarray of str, shape (Q,)
        The evaluated queries (sorted by id).
    offsets : ndarray of int64, shape (Q + 1,)
        Ranked items of each query, in ranked order.
    item_doc : ndarray of int64, shape (N,)
        The judged document of each ranked item (an index into the document
        table), -1 for an unjudged one.
    doc_offsets : ndarray of int64, shape (Q + 1,)
        Judged documents of each query, sorted by document id.
    pair_offsets : ndarray of int64, shape (D + 1,)
        The judgments of each document, by intent.
    pair_intent : ndarray of int64, shape (P,)
        Intent of each judgment, an index into ``intent_ids`` (intents of a
        query are consecutive: ``intent_offsets``).
    pair_grade : ndarray of float64, shape (P,)
    intent_offsets : ndarray of int64, shape (Q + 1,)
    intent_ids : ndarray of str, shape (I,)
    intent_weights : ndarray of float64 or None, shape (I,)
        User weights of the intents (``None``: uniform).
    ties : str
    """

    query_ids: np.ndarray
    offsets: np.ndarray
    item_doc: np.ndarray
    doc_offsets: np.ndarray
    pair_offsets: np.ndarray
    pair_intent: np.ndarray
    pair_grade: np.ndarray
    intent_offsets: np.ndarray
    intent_ids: np.ndarray
    intent_weights: np.ndarray | None
    ties: str

    @property
    def n_queries(self) -> int:
        return len(self.offsets) - 1

    @property
    def doc_query(self) -> np.ndarray:
        """The query of each judged document."""
        return np.repeat(np.arange(self.n_queries), np.diff(self.doc_offsets))

    @property
    def pair_doc(self) -> np.ndarray:
        """The document of each judgment."""
        return np.repeat(np.arange(len(self.pair_offsets) - 1), np.diff(self.pair_offsets))


def _duplicate_judgments(qrels: IntentQrels, order: np.ndarray, same: np.ndarray, policy: str) -> np.ndarray:
    """Rows kept when (query, intent, document) repeats: ``order`` sorted by key, ``same[i]``: row i+1 repeats row i."""
    if not same.any():
        return order
    if policy == "error":
        i = int(np.flatnonzero(same)[0])
        first, second = sorted((int(order[i]), int(order[i + 1])))
        raise DuplicateEntryError(
            f"{qrels.location_text(second)}query '{id_at(qrels.query_ids, second)}', intent "
            f"'{id_at(qrels.intent_ids, second)}', document '{id_at(qrels.doc_ids, second)}' is judged twice "
            f"(first at {qrels.location_text(first).rstrip(': ')}; "
            f"grade {float(qrels.relevance[second])!r} here, {float(qrels.relevance[first])!r} there); "
            "pass duplicates='first' or 'max' to keep one"
        )
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    if policy == "first":
        return np.minimum.reduceat(order, starts)
    best = np.maximum.reduceat(qrels.relevance[order], starts)
    group = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(order))))
    hit = qrels.relevance[order] == best[group]
    rows = np.where(hit, order, np.iinfo(np.int64).max)
    return np.minimum.reduceat(rows, starts)


@dataclass(frozen=True)
class _Table:
    queries: np.ndarray  # (Qt,) sorted query ids
    doc_query: np.ndarray  # (D,) query code of each judged document
    doc_ids: IdColumn  # (D,)
    pair_doc: np.ndarray  # (P,) sorted by (doc, intent)
    pair_intent: np.ndarray  # (P,) global intent code, consecutive per query
    pair_grade: np.ndarray
    intent_query: np.ndarray  # (I,)
    intent_ids: np.ndarray  # (I,)


def _sort_rows(*keys: np.ndarray) -> np.ndarray:
    """Rows in order of the non-negative integer ``keys`` (most significant first), stably.

    One packed int64 key when their ranges fit in 62 bits (one sort instead of a lexsort over each key).

    >>> _sort_rows(np.array([1, 0, 1, 0]), np.array([0, 5, 0, 2])).tolist()
    [3, 1, 0, 2]
    """
    widths = [int(k.max(initial=0)) + 1 for k in keys]
    if sum(w.bit_length() for w in widths) > 62:
        return np.lexsort(keys[::-1])
    packed = np.zeros(len(keys[0]), dtype=np.int64)
    for key, width in zip(keys, widths, strict=True):
        packed *= width
        packed += key
    return np.argsort(packed, kind="stable")


def _dense_unique(values: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for integers in ``[0, bound)``; a table, no sort, when bound is small.

    >>> [a.tolist() for a in _dense_unique(np.array([7, 2, 7, 4]), 8)]
    [[2, 4, 7], [2, 0, 2, 1]]
    """
    if bound > 4 * len(values) + 1024:
        uniq, inverse = np.unique(values, return_inverse=True)
        return uniq, inverse.ravel()
    present = np.zeros(bound, dtype=bool)
    present[values] = True
    uniq = np.flatnonzero(present)
    code = np.cumsum(present) - 1
    return uniq, code[values]


def _judgment_table(qrels: IntentQrels, duplicates: str) -> _Table:
    """The judgments sorted by (query, document, intent) with query, document and intent codes."""
    queries, qcode = encode(qrels.query_ids)
    dcode = string_codes(qrels.doc_ids)
    icode = number_order_codes(qrels.intent_ids)
    order = _sort_rows(qcode, dcode, icode)
    q, d, i = qcode[order], dcode[order], icode[order]
    same = (q[1:] == q[:-1]) & (d[1:] == d[:-1]) & (i[1:] == i[:-1])
    kept = _duplicate_judgments(qrels, order, same, duplicates)
    q, d, i = qcode[kept], dcode[kept], icode[kept]
    new_doc = np.concatenate(([True], (q[1:] != q[:-1]) | (d[1:] != d[:-1])))
    pair_doc = np.cumsum(new_doc) - 1
    first = kept[new_doc]
    # intents of each query: (query, intent) pairs in order
    width = int(icode.max(initial=0)) + 1
    pair_keys, intent_index = _dense_unique(q * width + i, (int(qcode.max(initial=0)) + 1) * width)
    intent_rows = np.zeros(len(pair_keys), dtype=np.int64)
    intent_rows[intent_index] = kept
    return _Table(
        queries=queries,
        doc_query=qcode[first],
        doc_ids=qrels.doc_ids.take(first),
        pair_doc=pair_doc.astype(np.int64),
        pair_intent=intent_index.astype(np.int64),
        pair_grade=qrels.relevance[kept],
        intent_query=(pair_keys // width).astype(np.int64),
        intent_ids=qrels.intent_ids.take(intent_rows).text(),
    )


def _weights_from_table(frame: Any) -> dict[str, dict[str, float]]:
    """``{query: {intent: weight}}`` from a pandas / polars / pyarrow table with query, intent and weight columns."""
    names = [str(c) for c in (frame.column_names if hasattr(frame, "column_names") else frame.columns)]
    roles = {"query": ("query_id", "qid", "query"), "intent": INTENT_COLUMNS, "weight": ("weight", "probability")}
    found = {}
    for role, candidates in roles.items():
        present = [c for c in candidates if c in names]
        if len(present) != 1:
            raise InputFormatError(
                f"intent_weights table needs one {role} column (looked for {', '.join(map(repr, candidates))}; "
                f"columns: {', '.join(names)})"
            )
        column = frame.column(present[0]) if hasattr(frame, "column_names") else frame[present[0]]
        found[role] = column.to_pylist() if hasattr(column, "to_pylist") else list(column)
    out: dict[str, dict[str, float]] = {}
    for q, intent, w in zip(found["query"], found["intent"], found["weight"], strict=True):
        out.setdefault(str(q), {})[str(intent)] = w
    return out


def _weights(table: _Table, weights: Any) -> np.ndarray | None:
    """Per-intent weights from ``{query: {intent: weight}}`` (every judged intent needs one)."""
    if weights is None:
        return None
    if is_frame(weights):
        weights = _weights_from_table(weights)
    if not isinstance(weights, Mapping):
        raise InputFormatError(
            f"intent_weights must be a {{query: {{intent: weight}}}} dict, got {type(weights).__name__}"
        )
    out = np.empty(len(table.intent_ids), dtype=np.float64)
    for k, (q, intent) in enumerate(zip(table.queries[table.intent_query], table.intent_ids, strict=True)):
        per_query = weights.get(str(q))
        value = None if per_query is None else per_query.get(str(intent))
        if value is None:
            raise InputFormatError(f"intent_weights: no weight for query '{q}', intent '{intent}'")
        w = float(value)
        if not np.isfinite(w) or w < 0:
            raise InputFormatError(f"intent_weights: query '{q}', intent '{intent}': weight {value!r} is not >= 0")
        out[k] = w
    return out


def align_intents(
    qrels: IntentQrels,
    run: Run,
    semantics: Semantics | None = None,
    *,
    intent_weights: Mapping[str, Mapping[str, float]] | None = None,
    **options: Unpack[SemanticsOptions],
) -> tuple[IntentLists, AlignInfo]:
    """Rank each query's documents (:func:`~rankmeter.core.join.align`) and attach their intent judgments.

    Parameters
    ----------
    qrels : IntentQrels
    run : Run
    semantics : Semantics, optional
        ``ties`` must be one of :data:`DIVERSITY_TIES`; the other fields act
        as in :func:`~rankmeter.core.join.align`. ``duplicates`` also
        settles a (query, intent, document) judged twice.
    intent_weights : dict or table, optional
        ``{query: {intent: weight}}`` or a table with query, intent and
        ``weight`` columns; uniform when omitted.

    Examples
    --------
    >>> from rankmeter.io.intents import intent_qrels_from_dict
    >>> q = intent_qrels_from_dict({"1": {"1": {"a": 1}, "2": {"a": 1, "b": 1}}})
    >>> r = Run(np.array(["1", "1"]), np.array(["b", "x"]), np.array([2.0, 1.0]))
    >>> lists, _ = align_intents(q, r)
    >>> lists.item_doc.tolist(), lists.pair_intent.tolist(), lists.intent_ids.tolist()
    ([1, -1], [0, 1, 1], ['1', '2'])
    """
    sem = Semantics.build(semantics, "qrels", **options)
    ties = sem.tie_policy
    if ties in _TIES_REFUSED:
        raise PolicyError(f"ties={ties!r} is not available for diversity measures: {_TIES_REFUSED[ties]}")
    choose(sem.duplicates, DUPLICATE_POLICIES, "duplicates")
    table = _judgment_table(qrels, sem.duplicates)
    weights = _weights(table, intent_weights)
    n_docs = len(table.doc_ids)
    doc_queries = dictionary_array(table.doc_query, table.queries)
    docs = Qrels(doc_queries, table.doc_ids, np.arange(1, n_docs + 1, dtype=np.float64), source=qrels.source)
    ranked, info = align(docs, run, sem)
    qindex = np.searchsorted(table.queries, ranked.query_ids)
    item_doc = np.where(ranked.judged, ranked.grades - 1.0, -1.0).astype(np.int64)
    # documents, judgments and intents of the evaluated queries only (in the order of ranked.query_ids)
    doc_counts = np.bincount(table.doc_query, minlength=len(table.queries))
    doc_starts = np.concatenate(([0], np.cumsum(doc_counts)))
    keep_doc = np.zeros(n_docs, dtype=bool)
    for_query = np.zeros(len(table.queries), dtype=bool)
    for_query[qindex] = True
    keep_doc[:] = for_query[table.doc_query]
    new_doc = np.cumsum(keep_doc) - 1
    item_doc = np.where(item_doc >= 0, new_doc[np.maximum(item_doc, 0)], -1)
    keep_pair = keep_doc[table.pair_doc]
    intent_counts = np.bincount(table.intent_query, minlength=len(table.queries))
    keep_intent = for_query[table.intent_query]
    new_intent = np.cumsum(keep_intent) - 1
    del doc_starts
    lists = IntentLists(
        query_ids=ranked.query_ids,
        offsets=ranked.offsets,
        item_doc=item_doc,
        doc_offsets=np.concatenate(([0], np.cumsum(doc_counts[qindex]))).astype(np.int64),
        pair_offsets=np.concatenate(
            ([0], np.cumsum(np.bincount(new_doc[table.pair_doc[keep_pair]], minlength=int(keep_doc.sum()))))
        ).astype(np.int64),
        pair_intent=new_intent[table.pair_intent[keep_pair]],
        pair_grade=table.pair_grade[keep_pair],
        intent_offsets=np.concatenate(([0], np.cumsum(intent_counts[qindex]))).astype(np.int64),
        intent_ids=table.intent_ids[keep_intent],
        intent_weights=None if weights is None else weights[keep_intent],
        ties=ranked.ties,
    )
    return lists, info
