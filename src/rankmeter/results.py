"""The result types: :class:`EvaluationResult` for one evaluation, :class:`SystemResults` for several runs."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from pathlib import Path

    from rankmeter.segments import Groups

GROUP_COLUMNS = ("segment", "measure", "value", "n_queries")
"""Columns of the tidy table of per-segment aggregates (after ``system`` for several systems)."""

NO_SEGMENT_LABEL = "(none)"
"""How the segment ``None`` (queries without a segment) is written in text: CSV, the CLI's tables, the HTML report."""


def segment_text(segment: Any) -> str:
    """A segment label as text: ``None`` (no segment) as ``(none)``.

    >>> segment_text(None), segment_text(3)
    ('(none)', '3')
    """
    return NO_SEGMENT_LABEL if segment is None else str(segment)


class _TidyExport:
    """Writers shared by the result types, from their tidy rows (``per_query`` and ``aggregate_rows``)."""

    key_columns: tuple[str, ...] = ("query_id",)

    @property
    def per_query(self) -> list[dict[str, Any]]:  # pragma: no cover - defined by each result type
        raise NotImplementedError

    @property
    def grouped(self) -> bool:  # pragma: no cover - defined by each result type
        raise NotImplementedError

    def group_rows(self) -> list[dict[str, Any]]:  # pragma: no cover - defined by each result type
        raise NotImplementedError

    def _row_keys(self) -> tuple[str, ...]:
        """Key columns of the per-query rows: the result's, and ``segment`` when grouped."""
        return (*self.key_columns, "segment") if self.grouped else self.key_columns

    def _group_keys(self) -> tuple[str, ...]:
        return (*self.key_columns[:-1], *GROUP_COLUMNS)

    def _table(self, kind: str) -> tuple[list[str], list[dict[str, Any]]]:
        """Columns and rows of the tidy per-query table or (``kind="groups"``) the per-segment table."""
        if kind == "per_query":
            return [*self._row_keys(), "measure", "value"], self.per_query
        if kind == "groups":
            if not self.grouped:
                from rankmeter.errors import PolicyError

                raise PolicyError("kind='groups': this result has no segments; evaluate with group_by=")
            return list(self._group_keys()), self.group_rows()
        from rankmeter.errors import PolicyError

        raise PolicyError(f"kind must be 'per_query' or 'groups', got {kind!r}")

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

    def to_csv(self, path: str | Path | None = None, *, kind: str = "per_query", safe: bool = False) -> str:
        """Tidy CSV (key columns, measure, value) with the aggregates as query ``all``.

        A grouped result has a ``segment`` column: each query's segment
        (``(none)`` for none), empty on the overall aggregate rows, and one
        more ``all`` row per segment and measure. ``kind="groups"``: the
        per-segment table (segment, measure, value, n_queries).

        With ``safe``, an id a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``, ``@``)
        gets a leading ``'`` (:func:`~rankmeter.io.escaping.spreadsheet_safe`); such ids then no longer read
        back unchanged, which is why it is off by default.
        """
        import csv

        from rankmeter.io.escaping import csv_quoting, spreadsheet_safe

        columns, records = self._table(kind)
        if kind == "per_query":
            check_aggregate_name((row["query_id"] for row in records), "CSV (to_csv, --format csv)")
            overall = [{**row, "segment": ""} if self.grouped else row for row in self.aggregate_rows()]
            records = [*records, *overall, *({**row, "query_id": "all"} for row in self.group_rows())]
        cell = {"value": repr, "segment": segment_text}
        rows = [[cell.get(c, _same)(row[c]) for c in columns] for row in records]
        if safe:  # ids and names only: values are numbers (repr of -0.5 starts with "-")
            shown = [c != "value" for c in columns]
            rows = [
                [spreadsheet_safe(v) if isinstance(v, str) and s else v for s, v in zip(shown, row, strict=True)]
                for row in rows
            ]
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n", quoting=csv_quoting(rows))
        writer.writerow(columns)
        writer.writerows(rows)
        text = buf.getvalue()
        if path is not None:
            _write_text(path, text)
        return text

    def _columns(self, kind: str = "per_query") -> dict[str, list[Any]]:
        columns, rows = self._table(kind)
        return {key: [r[key] for r in rows] for key in columns}

    def to_polars(self, kind: str = "per_query") -> Any:
        """Tidy polars DataFrame (key columns, measure, value); ``kind="groups"``: the per-segment table.

        Query ids are strings, or integers where integer ids came in; segments keep their type.
        """
        import polars as pl

        data = self._columns(kind)
        types = {key: _polars_type(pl, key, values) for key, values in data.items()}
        return pl.DataFrame(data, schema_overrides={key: t for key, t in types.items() if t is not None})

    def to_arrow(self, kind: str = "per_query") -> Any:
        """Tidy pyarrow Table (key columns, measure, value); ``kind="groups"``: the per-segment table."""
        import pyarrow as pa

        return pa.table(
            {key: pa.array(values, _arrow_type(pa, key, values)) for key, values in self._columns(kind).items()}
        )

    def _pandas(self, kind: str) -> Any:
        import pandas as pd

        columns, rows = self._table(kind)
        return pd.DataFrame(rows, columns=columns)


def _same(value: Any) -> Any:
    return value


def _is_integers(values: list[Any]) -> bool:
    return bool(values) and all(type(v) is int for v in values)


def _polars_type(pl: Any, key: str, values: list[Any]) -> Any:
    if key in ("value",):
        return pl.Float64
    if key == "n_queries" or (key in ("query_id", "segment") and _is_integers(values)):
        return pl.Int64
    if key == "segment" and not all(isinstance(v, str) or v is None for v in values):
        return None  # polars infers it
    return pl.String


def _arrow_type(pa: Any, key: str, values: list[Any]) -> Any:
    if key == "value":
        return pa.float64()
    if key == "n_queries" or (key in ("query_id", "segment") and _is_integers(values)):
        return pa.int64()
    if key == "segment" and not all(isinstance(v, str) or v is None for v in values):
        return None  # pyarrow infers it
    return pa.string()


@dataclass(frozen=True)
class EvaluationResult(_TidyExport):
    """Per-query values, aggregates and metadata of one evaluation.

    Attributes
    ----------
    query_ids : ndarray of str or int64, shape (Q,)
        Evaluated queries, sorted by id: strings, or integers (in numeric
        order) where the qrels and run came as dicts or tables with integer
        query ids.
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
    groups : Groups or None
        The per-segment aggregates when evaluated with ``group_by=``
        (:class:`rankmeter.segments.Groups`; see :meth:`by_group`).
    pool_weights : dict of str to ndarray, shape (Q,)
        For measures with a pooled aggregate (``implicit_p``, ``gauc``): each
        query's weight, so that the aggregate is
        :math:`\\sum_q w_q v_q / \\sum_q w_q` over included queries.
    list_sets : callable, optional
        For list-set measures (``gini@10``, ...): ``(segments, member,
        query_ids) -> ({measure: value per segment}, lists per segment)``,
        called by ``group_by=`` (see :mod:`rankmeter.segments`).

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
    groups: Groups | None = field(default=None, repr=False, compare=False)
    pool_weights: dict[str, np.ndarray] = field(default_factory=dict)
    list_sets: Any = field(default=None, repr=False, compare=False)

    def __getitem__(self, measure: str) -> float:
        """Aggregate value of a measure (by canonical name or anything :func:`parse` accepts)."""
        if measure in self.aggregate:
            return self.aggregate[measure]
        from rankmeter.measures import parse

        return self.aggregate[str(parse(measure))]

    @property
    def per_query(self) -> list[dict[str, Any]]:
        """Tidy rows ``{"query_id", "measure", "value"}`` for every included value (query-major).

        A grouped result's rows also hold the query's ``segment`` (None for none), after ``query_id``.
        """
        rows = []
        segments = self._query_segments()
        for qi, qid in enumerate(self.query_ids.tolist()):
            key = {"query_id": qid} if segments is None else {"query_id": qid, "segment": segments[qi]}
            for mi, name in enumerate(self.measure_names):
                if self.included[qi, mi]:
                    rows.append({**key, "measure": name, "value": float(self.values[qi, mi])})
        return rows

    def _query_segments(self) -> list[Any] | None:
        if self.groups is None:
            return None
        labels = self.groups.segments
        return [labels[m] if m >= 0 else None for m in self.groups.member.tolist()]

    def _measure_index(self, measure: str) -> int:
        if measure not in self.measure_names:
            from rankmeter.measures import parse

            measure = str(parse(measure))
        if measure in self.metadata.get("list_set_measures", ()):
            from rankmeter.errors import PolicyError

            raise PolicyError(f"{measure} is a list-set value (one number for the whole set of lists, no per-user "
                              f"value): read it as result.aggregate[{measure!r}]")  # fmt: skip
        return self.measure_names.index(measure)

    def by_query(self, measure: str) -> dict[Any, float]:
        """``{query_id: value}`` of one measure (included queries only); ids keep their type."""
        mi = self._measure_index(measure)
        keep = self.included[:, mi]
        return dict(zip(self.query_ids[keep].tolist(), self.values[keep, mi].tolist(), strict=True))

    @property
    def grouped(self) -> bool:
        """Whether the result has per-segment aggregates (evaluated with ``group_by=``)."""
        return self.groups is not None

    def by_group(self, measure: str) -> dict[Any, float]:
        """``{segment: value}`` of one measure: its aggregate over each segment's included queries.

        A segment without any evaluated query has NaN (its counts are 0 in :meth:`group_rows`).

        >>> import rankmeter
        >>> res = rankmeter.evaluate({"u1": {"a": 1}, "u2": {"b": 1}}, {"u1": {"a": 1.0}, "u2": {"x": 1.0, "b": 0.5}},
        ...                          "rr", group_by={"u1": "warm", "u2": "cold"})
        >>> res.by_group("rr"), res.aggregate
        ({'cold': 0.5, 'warm': 1.0}, {'rr': 0.75})
        """
        if self.groups is None:
            from rankmeter.errors import PolicyError

            raise PolicyError("by_group: this result has no segments; evaluate with group_by=")
        if measure not in self.aggregate:
            from rankmeter.measures import parse

            measure = str(parse(measure))
        if measure in self.groups.list_sets:  # a list-set value of each segment's lists
            return dict(zip(self.groups.segments, self.groups.list_sets[measure].tolist(), strict=True))
        mi = self._measure_index(measure)
        return dict(zip(self.groups.segments, self.groups.values[:, mi].tolist(), strict=True))

    def group_rows(self) -> list[dict[str, Any]]:
        """Tidy rows ``{"segment", "measure", "value", "n_queries"}`` of the per-segment aggregates (segment-major)."""
        if self.groups is None:
            return []
        g = self.groups
        lists = g.lists if g.lists is not None else np.zeros(len(g.segments), dtype=np.int64)
        return [
            row
            for si, seg in enumerate(g.segments)
            for row in [
                *(
                    {
                        "segment": seg,
                        "measure": name,
                        "value": float(g.values[si, mi]),
                        "n_queries": int(g.counts[si, mi]),
                    }
                    for mi, name in enumerate(self.measure_names)
                ),
                *(
                    {"segment": seg, "measure": name, "value": float(v[si]), "n_queries": int(lists[si])}
                    for name, v in g.list_sets.items()
                ),
            ]
        ]

    def to_dict(self) -> dict[str, Any]:
        """``{"aggregate": ..., "per_query": [...], "metadata": ...}`` (JSON-ready); ``"groups"``: the
        :meth:`group_rows` of a grouped result."""
        out = {"aggregate": dict(self.aggregate), "per_query": self.per_query, "metadata": self.metadata}
        if self.groups is not None:
            out["groups"] = self.group_rows()
        return out

    def aggregate_rows(self) -> list[dict[str, Any]]:
        """Tidy rows of the aggregates, query ``all``."""
        return [{"query_id": "all", "measure": name, "value": value} for name, value in self.aggregate.items()]

    def to_pandas(self, kind: str = "per_query") -> Any:
        """Tidy pandas DataFrame (query_id, measure, value; ``segment`` after query_id when grouped), or
        (``kind="groups"``) the per-segment table (segment, measure, value, n_queries)."""
        return self._pandas(kind)

    def to_trec_eval(self, per_query: bool = False) -> str:
        """Text in trec_eval's layout: ``name<TAB>query<TAB>value`` (4 decimals, counts as integers)."""
        lines = []

        def fmt(name: str, value: float) -> str:
            if name.startswith("num_") and math.isfinite(value):
                return str(int(round(value)))
            return f"{value:.4f}"

        if per_query:
            _check_trec_ids(self.query_ids.tolist())
            check_aggregate_name(self.query_ids.tolist(), "trec_eval-style text (to_trec_eval, --format trec)")
            for qi, qid in enumerate(self.query_ids.tolist()):
                for mi, name in enumerate(self.measure_names):
                    if self.included[qi, mi]:
                        lines.append(f"{name:<22}\t{qid}\t{fmt(name, float(self.values[qi, mi]))}")
        for name, value in self.aggregate.items():
            lines.append(f"{name:<22}\tall\t{fmt(name, value)}")
        return "\n".join(lines) + "\n"


def _check_trec_ids(query_ids: list[Any]) -> None:
    """Raise InputFormatError for a query id that trec_eval's whitespace-separated text cannot hold.

    >>> _check_trec_ids(["q1", "a b"])
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputFormatError: query 'a b': trec_eval's text format separates fields by whitespace ...
    """
    for qid in map(str, query_ids):
        if not qid or any(ch.isspace() for ch in qid):
            from rankmeter.errors import InputFormatError

            raise InputFormatError(
                f"query {qid!r}: trec_eval's text format separates fields by whitespace and cannot hold "
                "this id; write CSV or JSON instead"
            )


AGGREGATE_NAME = "all"
"""The query id of the aggregate rows in per-query CSV and trec_eval-style text (trec_eval's own name)."""


def check_aggregate_name(query_ids: Any, form: str) -> None:
    """Raise InputFormatError for a query named like the aggregate rows of a per-query ``form`` (``all``).

    JSON and data frames keep the aggregates apart (a key, a table of their own), so they take any id.

    >>> check_aggregate_name(["q1", "all"], "CSV")
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputFormatError: query 'all': per-query CSV names its aggregate rows 'all', so ...
    """
    if any(isinstance(qid, str) and qid == AGGREGATE_NAME for qid in query_ids):
        from rankmeter.errors import InputFormatError

        raise InputFormatError(
            f"query {AGGREGATE_NAME!r}: per-query {form} names its aggregate rows {AGGREGATE_NAME!r}, so this "
            "query could not be told from them; write JSON (to_json, --format json) or a data frame "
            "(to_pandas), which keep the aggregates apart, or rename the query"
        )


def _write_text(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8 to a temporary file renamed to ``path`` (the old file stays whole if it fails)."""
    from rankmeter.io.output import write_text_atomic

    write_text_atomic(path, text)


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
    """A result's :meth:`to_dict` as indented JSON whose ``per_query`` (and ``groups``) rows take one line each.

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
        if key in ("per_query", "groups") and isinstance(value, list) and value:
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

    @property
    def grouped(self) -> bool:
        """Whether the systems' results have per-segment aggregates (evaluated with ``group_by=``)."""
        return any(result.grouped for result in self.results.values())

    def by_group(self, measure: str) -> dict[str, dict[Any, float]]:
        """``{system: {segment: value}}`` of one measure (see :meth:`EvaluationResult.by_group`)."""
        return {name: result.by_group(measure) for name, result in self.results.items()}

    def group_rows(self) -> list[dict[str, Any]]:
        """Tidy rows ``{"system", "segment", "measure", "value", "n_queries"}`` (system-major)."""
        return [{"system": name, **row} for name, result in self.results.items() for row in result.group_rows()]

    def to_dict(self) -> dict[str, Any]:
        """``{"aggregate": {system: {...}}, "per_query": [...], "metadata": {..., "systems": {name: {...}}}}``;
        ``"groups"``: the :meth:`group_rows` of grouped results."""
        meta = dict(self.metadata)
        meta["per_system"] = {name: result.metadata for name, result in self.results.items()}
        out = {"aggregate": self.aggregate, "per_query": self.per_query, "metadata": meta}
        if self.grouped:
            out["groups"] = self.group_rows()
        return out

    def aggregate_rows(self) -> list[dict[str, Any]]:
        """Tidy rows of each system's aggregates, query ``all``."""
        return [{"system": name, **row} for name, result in self.results.items() for row in result.aggregate_rows()]

    def to_pandas(self, kind: str = "per_query") -> Any:
        """A pandas DataFrame: tidy per-query rows with a ``system`` column, (``kind="aggregate"``)
        the systems x measures table indexed by system, or (``kind="groups"``) the per-segment table."""
        import pandas as pd

        if kind == "aggregate":
            return pd.DataFrame.from_dict(self.aggregate, orient="index")[self.measure_names]
        if kind not in ("per_query", "groups"):
            raise ValueError(f"kind must be 'per_query', 'aggregate' or 'groups', got {kind!r}")
        return self._pandas(kind)

    def to_trec_eval(self, per_query: bool = False) -> str:
        """Each system's :meth:`EvaluationResult.to_trec_eval` text after a ``runid  all  <system>`` line."""
        return "".join(
            f"{'runid':<22}\tall\t{name}\n" + result.to_trec_eval(per_query) for name, result in self.results.items()
        )


def with_integer_ids(result: EvaluationResult) -> EvaluationResult:
    """``result`` with its query ids as integers (in numeric order), for input whose ids were integers.

    The core reads ids as their exact text; this turns ``'10'`` back into ``10``
    and orders the rows by number. The ``missing_query_ids`` and
    ``run_only_query_ids`` of the metadata are converted alike. Ids that are
    not the text of an integer, or beyond int64, leave the result unchanged
    (an id of the metadata that is not an integer's text stays text).

    >>> import rankmeter
    >>> res = rankmeter.evaluate({"10": {"a": 1}, "9": {"a": 1}}, {"10": {"a": 1.0}, "9": {"b": 1.0}}, "rr")
    >>> res.query_ids.tolist(), with_integer_ids(res).by_query("rr")
    (['10', '9'], {9: 0.0, 10: 1.0})
    """
    from rankmeter.ids.integers import integer_values

    ids = integer_values(np.asarray(result.query_ids))  # each id the exact text of an integer: a column at a time
    try:
        ids = np.array([int(q) for q in result.query_ids.tolist()], dtype=np.int64) if ids is None else ids
    except (ValueError, OverflowError, TypeError):
        return result
    meta = dict(result.metadata)
    for key in ("missing_query_ids", "run_only_query_ids"):
        if isinstance(meta.get(key), list):
            meta[key] = [_integer_or_text(q) for q in meta[key]]
    order = np.argsort(ids, kind="stable")
    rows: dict[str, Any] = {}  # every per-query array the result holds, in the new order
    if result.groups is not None:
        rows["groups"] = replace(result.groups, member=result.groups.member[order])
    if getattr(result, "pool_weights", None):  # per-query weights of pooled aggregates, where kept
        rows["pool_weights"] = {name: w[order] for name, w in result.pool_weights.items()}  # type: ignore[attr-defined]
    return replace(
        result,
        query_ids=ids[order],
        values=result.values[order],
        included=result.included[order],
        metadata=meta,
        **rows,
    )


def _integer_or_text(qid: Any) -> Any:
    """``int(qid)`` when ``qid`` is the text of an integer (as ``str`` writes it), else ``qid``.

    >>> _integer_or_text("-7"), _integer_or_text("07"), _integer_or_text("q1")
    (-7, '07', 'q1')
    """
    text = str(qid)
    try:
        number = int(text)
    except ValueError:
        return qid
    return number if str(number) == text else qid
