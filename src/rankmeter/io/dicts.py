"""Dict-of-dicts ``{query_id: {doc_id: value}}`` (pytrec_eval's input) -> tables."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError
from rankmeter.io.tables import Qrels, Run
from rankmeter.io.validate import check_finite


def _flatten(nested: Mapping[object, Mapping[object, object]], what: str) -> tuple[np.ndarray, ...]:
    qids: list[str] = []
    dids: list[str] = []
    values: list[float] = []
    for qid, docs in nested.items():
        if not isinstance(docs, Mapping):
            raise InputFormatError(
                f"{what} dict: query '{qid}' maps to {type(docs).__name__}, expected a dict {{doc_id: value}}"
            )
        for did, value in docs.items():
            try:
                values.append(float(value))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise InvalidScoreError(
                    f"{what} dict: query '{qid}', document '{did}': value {value!r} is not a number"
                ) from None
            qids.append(str(qid))
            dids.append(str(did))
    q = np.array(qids, dtype=str)
    d = np.array(dids, dtype=str)
    v = np.array(values, dtype=np.float64)
    check_finite(v, "score" if what == "run" else "relevance", q, d, f"<{what} dict>", None)
    return q, d, v


def qrels_from_dict(nested: Mapping[object, Mapping[object, object]]) -> Qrels:
    """Qrels from ``{query_id: {doc_id: grade}}``.

    >>> q = qrels_from_dict({"q1": {"d1": 2, "d2": 0}})
    >>> q.doc_ids.tolist(), q.relevance.tolist()
    (['d1', 'd2'], [2.0, 0.0])
    """
    q, d, v = _flatten(nested, "qrels")
    return Qrels(q, d, v, source="<qrels dict>")


def run_from_dict(nested: Mapping[object, Mapping[object, object]]) -> Run:
    """Run from ``{query_id: {doc_id: score}}``."""
    q, d, v = _flatten(nested, "run")
    return Run(q, d, v, source="<run dict>")
