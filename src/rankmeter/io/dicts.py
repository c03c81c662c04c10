"""Dict-of-dicts ``{query_id: {doc_id: value}}`` (pytrec_eval's input) -> tables."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError
from rankmeter.ids.booleans import check_python_ids
from rankmeter.ids.integers import python_ids
from rankmeter.io.tables import Qrels, Run
from rankmeter.io.validate import UnreadableNumber, as_float, check_finite


def _flatten(nested: Mapping[object, Mapping[object, object]], what: str) -> tuple[np.ndarray, ...]:
    """(query ids, doc ids, values) of a dict of dicts, in its iteration order.

    Columns are built a whole column at a time (one NumPy array of the
    inner dicts' values, ids through :func:`~rankmeter.ids.integers.python_ids`); any input that path
    cannot take -- a query mapped to something else than a dict, a value
    that is not a plain number (text, an integer beyond int64, a complex
    number), an inner dict whose length does not match its items -- goes
    through :func:`_flatten_item_by_item`, which reads each value with
    :func:`rankmeter.io.validate.as_float` (the TREC readers' number
    grammar) and gives the same result or names the first problem in the
    dict's order.
    """
    qids = list(nested)
    inner = list(nested.values())
    if not all(type(docs) is dict or isinstance(docs, Mapping) for docs in inner):
        return _flatten_item_by_item(nested, what)
    counts = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    try:
        raw = np.array(list(chain.from_iterable(docs.values() for docs in inner)))
    except (TypeError, ValueError):
        return _flatten_item_by_item(nested, what)
    if raw.dtype.kind not in "biuf" or raw.shape != (int(counts.sum()),):  # text, objects, complex: one by one
        return _flatten_item_by_item(nested, what)
    values = raw.astype(np.float64)
    q = np.repeat(_ids(qids, what, "query"), counts)
    d = _ids(list(chain.from_iterable(inner)), what, "document")
    check_finite(values, "score" if what == "run" else "relevance", q, d, f"<{what} dict>", None)
    return q, d, values


def _flatten_item_by_item(nested: Mapping[object, Mapping[object, object]], what: str) -> tuple[np.ndarray, ...]:
    """:func:`_flatten` one item at a time, naming the first query that is not a dict or value that is not a number."""
    qids: list[object] = []
    dids: list[object] = []
    values: list[float] = []
    for qid, docs in nested.items():
        if not isinstance(docs, Mapping):
            raise InputFormatError(
                f"{what} dict: query '{qid}' maps to {type(docs).__name__}, expected a dict {{doc_id: value}}"
            )
        for did, value in docs.items():
            try:
                values.append(as_float(value))
            except UnreadableNumber as exc:
                raise InvalidScoreError(
                    f"{what} dict: query '{qid}', document '{did}': value {exc.describe()}"
                ) from None
            qids.append(qid)
            dids.append(did)
    q = _ids(qids, what, "query")
    d = _ids(dids, what, "document")
    v = np.array(values, dtype=np.float64)
    check_finite(v, "score" if what == "run" else "relevance", q, d, f"<{what} dict>", None)
    return q, d, v


def _ids(keys: list[object], what: str, role: str) -> np.ndarray:
    """Dict keys as ids (:func:`~rankmeter.ids.integers.python_ids`), booleans refused (rankmeter.ids.booleans)."""
    text = python_ids(keys)
    check_python_ids(keys, text, f"{what} dict: {role}")
    return text


def qrels_from_dict(nested: Mapping[object, Mapping[object, object]]) -> Qrels:
    """Qrels from ``{query_id: {doc_id: grade}}``.

    >>> q = qrels_from_dict({"q1": {"d1": 2, "d2": 0}})
    >>> q.doc_ids.tolist(), q.relevance.tolist()
    (['d1', 'd2'], [2.0, 0.0])
    """
    q, d, v = _flatten(nested, "qrels")
    if not len(q):
        raise InputFormatError("qrels dict: no judgments (no query maps to a non-empty {doc_id: grade} dict)")
    return Qrels(q, d, v, source="<qrels dict>")


def run_from_dict(nested: Mapping[object, Mapping[object, object]]) -> Run:
    """Run from ``{query_id: {doc_id: score}}``."""
    q, d, v = _flatten(nested, "run")
    return Run(q, d, v, source="<run dict>")
