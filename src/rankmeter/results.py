"""The one result type every entry point returns."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class EvaluationResult:
    """Per-query values, aggregates and metadata of one evaluation.

    Attributes
    ----------
    query_ids : ndarray of str, shape (Q,)
        Evaluated queries, sorted by id.
    measure_names : list of str
        Canonical name of each column (one per cutoff: ``ndcg@5``, ``ndcg@10``).
    values : ndarray of float64, shape (Q, M)
        Per-query values; NaN where a query is excluded (``empty="skip"``) or
        undefined (``empty="nan"``).
    included : ndarray of bool, shape (Q, M)
        Whether each value takes part in the aggregate and the per-query rows.
    aggregate : dict of str to float
        Mean over included queries (weighted for weighted dense input); sum
        for counting measures (``num_*``).
    metadata : dict
        Policies used, query counts, tie diagnostics, library version.

    Examples
    --------
    >>> import rankmeter
    >>> res = rankmeter.evaluate({"q1": {"a": 1}}, {"q1": {"a": 0.3, "b": 0.9}}, ["p@2", "rr"])
    >>> res.aggregate
    {'p@2': 0.5, 'rr': 0.5}
    >>> res["rr"], res.per_query[0]
    (0.5, {'query_id': 'q1', 'measure': 'p@2', 'value': 0.5})
    """

    query_ids: np.ndarray
    measure_names: list[str]
    values: np.ndarray
    included: np.ndarray
    aggregate: dict[str, float]
    metadata: dict[str, Any]

    def __getitem__(self, measure: str) -> float:
        """Aggregate value of a measure (by canonical name or anything :func:`parse` accepts)."""
        if measure in self.aggregate:
            return self.aggregate[measure]
        from rankmeter.measures import parse

        return self.aggregate[str(parse(measure))]

    @property
    def per_query(self) -> list[dict[str, Any]]:
        """Tidy rows ``{"query_id", "measure", "value"}`` for every included value (query-major)."""
        rows = []
        for qi, qid in enumerate(self.query_ids.tolist()):
            for mi, name in enumerate(self.measure_names):
                if self.included[qi, mi]:
                    rows.append({"query_id": qid, "measure": name, "value": float(self.values[qi, mi])})
        return rows

    def by_query(self, measure: str) -> dict[str, float]:
        """``{query_id: value}`` of one measure (included queries only)."""
        if measure not in self.measure_names:
            from rankmeter.measures import parse

            measure = str(parse(measure))
        mi = self.measure_names.index(measure)
        keep = self.included[:, mi]
        return dict(zip(self.query_ids[keep].tolist(), self.values[keep, mi].tolist(), strict=True))

    def to_dict(self) -> dict[str, Any]:
        """``{"aggregate": ..., "per_query": [...], "metadata": ...}`` (JSON-ready)."""
        return {"aggregate": dict(self.aggregate), "per_query": self.per_query, "metadata": self.metadata}

    def to_json(self, path: str | Path | None = None, *, indent: int | None = 2) -> str:
        """JSON text of :meth:`to_dict` (NaN written as ``null``); also written to ``path`` if given."""
        import json

        text = json.dumps(json_safe(self.to_dict()), indent=indent)
        if path is not None:
            _write_text(path, text + "\n")
        return text

    def to_csv(self, path: str | Path | None = None) -> str:
        """Tidy CSV ``query_id,measure,value`` with the aggregate as query ``all``."""
        import csv

        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["query_id", "measure", "value"])
        for row in self.per_query:
            writer.writerow([row["query_id"], row["measure"], repr(row["value"])])
        for name, value in self.aggregate.items():
            writer.writerow(["all", name, repr(value)])
        text = buf.getvalue()
        if path is not None:
            _write_text(path, text)
        return text

    def to_pandas(self) -> Any:
        """Tidy pandas DataFrame (query_id, measure, value)."""
        import pandas as pd

        return pd.DataFrame(self.per_query, columns=["query_id", "measure", "value"])

    def to_polars(self) -> Any:
        """Tidy polars DataFrame (query_id, measure, value)."""
        import polars as pl

        rows = self.per_query
        return pl.DataFrame(
            {
                "query_id": [r["query_id"] for r in rows],
                "measure": [r["measure"] for r in rows],
                "value": [r["value"] for r in rows],
            },
            schema={"query_id": pl.String, "measure": pl.String, "value": pl.Float64},
        )

    def to_arrow(self) -> Any:
        """Tidy pyarrow Table (query_id, measure, value)."""
        import pyarrow as pa

        rows = self.per_query
        return pa.table(
            {
                "query_id": pa.array([r["query_id"] for r in rows], pa.string()),
                "measure": pa.array([r["measure"] for r in rows], pa.string()),
                "value": pa.array([r["value"] for r in rows], pa.float64()),
            }
        )

    def to_trec_eval(self, per_query: bool = False) -> str:
        """Text in trec_eval's layout: ``name<TAB>query<TAB>value`` (4 decimals, counts as integers)."""
        lines = []

        def fmt(name: str, value: float) -> str:
            if name.startswith("num_") and math.isfinite(value):
                return str(int(round(value)))
            return f"{value:.4f}"

        if per_query:
            for qi, qid in enumerate(self.query_ids.tolist()):
                for mi, name in enumerate(self.measure_names):
                    if self.included[qi, mi]:
                        lines.append(f"{name:<22}\t{qid}\t{fmt(name, float(self.values[qi, mi]))}")
        for name, value in self.aggregate.items():
            lines.append(f"{name:<22}\tall\t{fmt(name, value)}")
        return "\n".join(lines) + "\n"


def _write_text(path: str | Path, text: str) -> None:
    from pathlib import Path

    Path(path).write_text(text)


def json_safe(obj: Any) -> Any:
    """``obj`` with NumPy scalars as Python numbers, non-finite floats as None and keys as strings (strict JSON).

    >>> json_safe({1: [np.float64("nan"), np.int64(3), (0.5, float("inf"))]})
    {'1': [None, 3, [0.5, None]]}
    """
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return json_safe(float(obj))
    return obj
