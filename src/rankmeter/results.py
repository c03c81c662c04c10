"""The result types: :class:`EvaluationResult` for one evaluation, :class:`SystemResults` for several runs."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from pathlib import Path


class _TidyExport:
    """Writers shared by the result types, from their tidy rows (``per_query`` and ``aggregate_rows``)."""

    key_columns: tuple[str, ...] = ("query_id",)

    @property
    def per_query(self) -> list[dict[str, Any]]:  # pragma: no cover - defined by each result type
        raise NotImplementedError

    def aggregate_rows(self) -> list[dict[str, Any]]:  # pragma: no cover - defined by each result type
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - defined by each result type
        raise NotImplementedError

    def to_json(self, path: str | Path | None = None, *, indent: int | None = 2) -> str:
        """JSON text of :meth:`to_dict` (NaN written as ``null``); also written to ``path`` if given.

        With ``indent``, laid out as :func:`result_json` does (each per-query row on a line of its own).
        """
        if indent is None:
            import json

            text = json.dumps(json_safe(self.to_dict()))
        else:
            text = result_json(self.to_dict(), indent)
        if path is not None:
            _write_text(path, text + "\n")
        return text

    def to_csv(self, path: str | Path | None = None) -> str:
        """Tidy CSV (key columns, measure, value) with the aggregates as query ``all``."""
        import csv

        columns = [*self.key_columns, "measure", "value"]
        rows = [
            [*(row[c] for c in columns[:-1]), repr(row["value"])] for row in [*self.per_query, *self.aggregate_rows()]
        ]
        # csv quotes a field holding "\n" but not one holding a lone "\r", which readers then split on
        lone_cr = any(isinstance(cell, str) and "\r" in cell for row in rows for cell in row)
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL if lone_cr else csv.QUOTE_MINIMAL)
        writer.writerow(columns)
        writer.writerows(rows)
        text = buf.getvalue()
        if path is not None:
            _write_text(path, text)
        return text

    def _columns(self) -> dict[str, list[Any]]:
        rows = self.per_query
        return {key: [r[key] for r in rows] for key in (*self.key_columns, "measure", "value")}

    def to_polars(self) -> Any:
        """Tidy polars DataFrame (key columns, measure, value)."""
        import polars as pl

        schema = {key: pl.String for key in (*self.key_columns, "measure")} | {"value": pl.Float64}
        return pl.DataFrame(self._columns(), schema=schema)

    def to_arrow(self) -> Any:
        """Tidy pyarrow Table (key columns, measure, value)."""
        import pyarrow as pa

        return pa.table(
            {
                key: pa.array(values, pa.float64() if key == "value" else pa.string())
                for key, values in self._columns().items()
            }
        )


@dataclass(frozen=True)
class EvaluationResult(_TidyExport):
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
        if measure in self.metadata.get("list_set_measures", ()):
            from rankmeter.errors import PolicyError

            raise PolicyError(f"{measure} is a list-set value (one number for the whole set of lists, no per-user "
                              f"value): read it as result.aggregate[{measure!r}]")  # fmt: skip
        mi = self.measure_names.index(measure)
        keep = self.included[:, mi]
        return dict(zip(self.query_ids[keep].tolist(), self.values[keep, mi].tolist(), strict=True))

    def to_dict(self) -> dict[str, Any]:
        """``{"aggregate": ..., "per_query": [...], "metadata": ...}`` (JSON-ready)."""
        return {"aggregate": dict(self.aggregate), "per_query": self.per_query, "metadata": self.metadata}

    def aggregate_rows(self) -> list[dict[str, Any]]:
        """Tidy rows of the aggregates, query ``all``."""
        return [{"query_id": "all", "measure": name, "value": value} for name, value in self.aggregate.items()]

    def to_pandas(self) -> Any:
        """Tidy pandas DataFrame (query_id, measure, value)."""
        import pandas as pd

        return pd.DataFrame(self.per_query, columns=["query_id", "measure", "value"])

    def to_trec_eval(self, per_query: bool = False) -> str:
        """Text in trec_eval's layout: ``name<TAB>query<TAB>value`` (4 decimals, counts as integers)."""
        lines = []

        def fmt(name: str, value: float) -> str:
            if name.startswith("num_") and math.isfinite(value):
                return str(int(round(value)))
            return f"{value:.4f}"

        if per_query:
            _check_trec_ids(self.query_ids.tolist())
            for qi, qid in enumerate(self.query_ids.tolist()):
                for mi, name in enumerate(self.measure_names):
                    if self.included[qi, mi]:
                        lines.append(f"{name:<22}\t{qid}\t{fmt(name, float(self.values[qi, mi]))}")
        for name, value in self.aggregate.items():
            lines.append(f"{name:<22}\tall\t{fmt(name, value)}")
        return "\n".join(lines) + "\n"


def _check_trec_ids(query_ids: list[str]) -> None:
    """Raise InputFormatError for a query id that trec_eval's whitespace-separated text cannot hold.

    >>> _check_trec_ids(["q1", "a b"])
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputFormatError: query 'a b': trec_eval's text format separates fields by whitespace ...
    """
    for qid in query_ids:
        if not qid or any(ch.isspace() for ch in qid):
            from rankmeter.errors import InputFormatError

            raise InputFormatError(
                f"query {qid!r}: trec_eval's text format separates fields by whitespace and cannot hold "
                "this id; write CSV or JSON instead"
            )


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


def result_json(data: dict[str, Any], indent: int = 2) -> str:
    """A result's :meth:`to_dict` as indented JSON whose ``per_query`` rows take one line each.

    Everything but ``per_query`` is laid out as ``json.dumps(json_safe(...), indent=indent)``
    lays it out; each tidy row is one object on one line. The rows are written a
    column at a time (each distinct string escaped once, floats as ``repr``, NaN and
    infinities as ``null``, as :func:`json_safe`): 100 systems x 200 queries x 3
    measures take about a quarter of the time of Python's indenting encoder.

    >>> print(result_json({"aggregate": {"rr": 0.5}, "per_query": [{"query_id": "q1", "value": float("nan")}]}))
    {
      "aggregate": {
        "rr": 0.5
      },
      "per_query": [
        {"query_id": "q1", "value": null}
      ]
    }
    """
    import json

    pad = " " * indent
    parts = []
    for key, value in data.items():
        if key == "per_query" and isinstance(value, list) and value:
            text = "[\n" + ",\n".join(_tidy_rows_json(value, pad * 2)) + "\n" + pad + "]"
        else:  # a raw line break only ever separates JSON tokens (strings escape theirs)
            text = json.dumps(json_safe(value), indent=indent).replace("\n", "\n" + pad)
        parts.append(f"{pad}{json.dumps(str(key))}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}" if parts else "{}"


def _tidy_rows_json(rows: list[dict[str, Any]], pad: str) -> list[str]:
    """One JSON object per row (rows of one result share their keys), each line starting with ``pad``."""
    import json

    keys = list(rows[0])
    if any(list(row) != keys for row in rows):
        return [pad + json.dumps(json_safe(row)) for row in rows]
    columns = []
    for key in keys:
        cells = [row[key] for row in rows]
        kinds = set(map(type, cells))
        if kinds == {str}:
            escaped = {text: json.dumps(text) for text in set(cells)}
            columns.append(list(map(escaped.__getitem__, cells)))
        elif kinds == {float}:
            text = list(map(float.__repr__, cells))
            for at in np.flatnonzero(~np.isfinite(np.array(cells))).tolist():
                text[at] = "null"
            columns.append(text)
        else:
            columns.append([json.dumps(json_safe(cell)) for cell in cells])
    line = pad + "{" + ", ".join(json.dumps(str(key)).replace("%", "%%") + ": %s" for key in keys) + "}"
    return [line % cells for cells in zip(*columns, strict=True)]


@dataclass(frozen=True)
class SystemResults(_TidyExport, Mapping[str, EvaluationResult]):
    """The results of several runs (systems) on the same qrels: a mapping system name -> :class:`EvaluationResult`.

    Attributes
    ----------
    results : dict of str to EvaluationResult
        One result per system, in the order the runs were given.
    metadata : dict
        What the systems share (measures, semantics, qrels source) and
        ``systems``, their names in order.

    Examples
    --------
    >>> import rankmeter
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> runs = {"bm25": {"q1": {"a": 2.0, "x": 1.0}, "q2": {"x": 2.0, "b": 1.0}},
    ...         "dense": {"q1": {"x": 2.0, "a": 1.0}, "q2": {"b": 2.0}}}
    >>> res = rankmeter.evaluate(qrels, runs, ["rr", "p@1"])
    >>> res.aggregate
    {'bm25': {'rr': 0.75, 'p@1': 0.5}, 'dense': {'rr': 0.75, 'p@1': 0.5}}
    >>> res["dense"].by_query("rr"), res.per_query[0]
    ({'q1': 0.5, 'q2': 1.0}, {'system': 'bm25', 'query_id': 'q1', 'measure': 'rr', 'value': 1.0})
    """

    results: dict[str, EvaluationResult]
    metadata: dict[str, Any]
    key_columns = ("system", "query_id")

    @classmethod
    def of(cls, results: dict[str, EvaluationResult]) -> SystemResults:
        """The results of several systems, with the metadata they share taken from the first.

        >>> import rankmeter
        >>> one = rankmeter.evaluate({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, "rr")
        >>> SystemResults.of({"x": one, "y": one}).metadata["systems"]
        ['x', 'y']
        """
        first = next(iter(results.values()), None)
        shared = {} if first is None else first.metadata
        metadata = {
            "systems": list(results),
            "measures": [] if first is None else first.measure_names,
            "semantics": shared.get("semantics"),
            "qrels_source": shared.get("qrels_source"),
        }
        return cls(dict(results), metadata)

    def __getitem__(self, system: str) -> EvaluationResult:
        return self.results[system]

    def __iter__(self) -> Iterator[str]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    @property
    def systems(self) -> list[str]:
        """System names, in the order the runs were given."""
        return list(self.results)

    @property
    def measure_names(self) -> list[str]:
        """Canonical measure names (the same for every system)."""
        return next(iter(self.results.values())).measure_names if self.results else []

    @property
    def aggregate(self) -> dict[str, dict[str, float]]:
        """``{system: {measure: value}}``: the systems x measures table."""
        return {name: dict(result.aggregate) for name, result in self.results.items()}

    @property
    def per_query(self) -> list[dict[str, Any]]:
        """Tidy rows ``{"system", "query_id", "measure", "value"}`` (system-major, then query-major)."""
        return [{"system": name, **row} for name, result in self.results.items() for row in result.per_query]

    def to_dict(self) -> dict[str, Any]:
        """``{"aggregate": {system: {...}}, "per_query": [...], "metadata": {..., "systems": {name: {...}}}}``."""
        meta = dict(self.metadata)
        meta["per_system"] = {name: result.metadata for name, result in self.results.items()}
        return {"aggregate": self.aggregate, "per_query": self.per_query, "metadata": meta}

    def aggregate_rows(self) -> list[dict[str, Any]]:
        """Tidy rows of each system's aggregates, query ``all``."""
        return [{"system": name, **row} for name, result in self.results.items() for row in result.aggregate_rows()]

    def to_pandas(self, kind: str = "per_query") -> Any:
        """A pandas DataFrame: tidy per-query rows with a ``system`` column, or (``kind="aggregate"``)
        the systems x measures table indexed by system."""
        import pandas as pd

        if kind == "aggregate":
            return pd.DataFrame.from_dict(self.aggregate, orient="index")[self.measure_names]
        if kind != "per_query":
            raise ValueError(f"kind must be 'per_query' or 'aggregate', got {kind!r}")
        return pd.DataFrame(self.per_query, columns=["system", "query_id", "measure", "value"])

    def to_trec_eval(self, per_query: bool = False) -> str:
        """Each system's :meth:`EvaluationResult.to_trec_eval` text after a ``runid  all  <system>`` line."""
        return "".join(
            f"{'runid':<22}\tall\t{name}\n" + result.to_trec_eval(per_query) for name, result in self.results.items()
        )
