"""Results per segment: which segment each query (user) belongs to, and each measure aggregated per segment.

``group_by=`` of the entry points (:func:`rankmeter.evaluate`,
:func:`rankmeter.evaluate_arrays`, ...) takes

* a mapping ``{query_id: segment}`` (a pandas Series too: index -> value);
* a table (pandas, polars, pyarrow) with a query id column (``query_id``,
  ``user_id``, ``qid`` or ``q_id``) and a ``segment`` (or ``group``) column,
  or any two columns named with :class:`GroupBy` (``key=``, ``segment=``);
* the name of a column of the qrels or run table: each query's rows must all
  hold the same value there (two values for one query is an error naming the
  query, the values and their rows);
* a path to a CSV, TSV, Parquet or Feather file holding such a table;
* for dense and ragged input and vectors, whose queries are rows, a sequence
  with one segment per row;
* a :class:`GroupBy`, which also chooses what happens to queries without a
  segment (``missing=``).

Ids are matched by their text (``str(id)``), so ``{7: "cold"}`` finds query
``"7"`` of a file and query ``7`` of a dict. Every measure is aggregated over
the included queries of each segment exactly as the overall value is over all
queries (:func:`rankmeter.aggregate.aggregate_column`: the mean, the sum of
counting measures, the geometric mean of ``gm_*``), in query order.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ParamSpec, TypeVar

import numpy as np

from rankmeter.aggregate import aggregate_column
from rankmeter.errors import InputFormatError, PolicyError
from rankmeter.io.frames import KNOWN_COLUMNS, is_frame
from rankmeter.io.load import read_table, table_format
from rankmeter.measures import FAMILIES, Measure, parse
from rankmeter.results import EvaluationResult, SystemResults, segment_text

MISSING_POLICIES = ("error", "skip", "none")
"""What happens to an evaluated query without a segment: an error naming it; left out of every segment
(it still counts in the overall values); or put in a segment of its own whose label is ``None``."""

KEY_COLUMNS = KNOWN_COLUMNS["qrels"]["query_id"]
SEGMENT_COLUMNS = ("segment", "group")


@dataclass(frozen=True)
class GroupBy:
    """Where the segment of each query comes from, and what to do with queries that have none.

    Parameters
    ----------
    by : mapping, table, str, path or sequence
        Any form ``group_by=`` takes (see :mod:`rankmeter.segments`).
    key, segment : str, optional
        The query id and segment columns of a table (default: the one
        column named ``query_id``, ``user_id``, ``qid`` or ``q_id``, and
        ``segment`` or ``group``).
    missing : {"error", "skip", "none"}, default "error"
        An evaluated query without a segment: raise, naming it; leave it
        out of every segment (it still counts in the overall values); or
        put it in the segment ``None`` (written ``(none)`` in text).

    Examples
    --------
    >>> import rankmeter
    >>> qrels = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"c": 1}}
    >>> run = {"u1": {"a": 1.0}, "u2": {"x": 1.0, "b": 0.5}, "u3": {"c": 1.0}}
    >>> res = rankmeter.evaluate(qrels, run, "rr", group_by=GroupBy({"u1": "cold", "u2": "cold"}, missing="none"))
    >>> res.by_group("rr")
    {'cold': 0.75, None: 1.0}
    """

    by: Any
    key: str | None = None
    segment: str | None = None
    missing: str = "error"

    def __post_init__(self) -> None:
        if self.missing not in MISSING_POLICIES:
            raise PolicyError(
                f"group_by: unknown missing={self.missing!r} for queries without a segment; "
                f"choose one of {', '.join(MISSING_POLICIES)}"
            )


@dataclass(frozen=True)
class SegmentMap:
    """The segment of each query id (by its text), the segments in display order, and the missing policy."""

    of: dict[str, Any]
    segments: list[Any]
    source: str
    missing: str
    rows: int | None = None  # a sequence's length: one segment per row, as many as the rows evaluated


@dataclass(frozen=True)
class Groups:
    """Every measure aggregated per segment, for one evaluation.

    Attributes
    ----------
    segments : list
        Segment labels in display order (sorted when they can be; ``None``,
        the segment of queries without one under ``missing="none"``, last).
    member : ndarray of int64, shape (Q,)
        Index into ``segments`` of each evaluated query, -1 for none.
    values : ndarray of float64, shape (S, M)
        Aggregate of each measure in each segment, as the overall one is
        aggregated; NaN for a segment without evaluated queries.
    counts : ndarray of int64, shape (S, M)
        Queries whose value takes part in each aggregate.
    queries : ndarray of int64, shape (S,)
        Evaluated queries of each segment.
    metadata : dict
        ``source``, ``missing`` policy, queries per segment, queries without
        a segment, segments without queries.
    list_sets : dict of str to ndarray, shape (S,)
        Each list-set measure (coverage, Gini, ...) over the lists of each
        segment's users (:func:`rankmeter.beyond.segment_list_sets`).
    lists : ndarray of int64, shape (S,)
        Users with a list in each segment (what ``list_sets`` read).
    """

    segments: list[Any]
    member: np.ndarray = field(repr=False)
    values: np.ndarray
    counts: np.ndarray
    queries: np.ndarray
    metadata: dict[str, Any]
    list_sets: dict[str, np.ndarray] = field(default_factory=dict)
    lists: np.ndarray | None = None


def _ordered(labels: list[Any]) -> list[Any]:
    """Distinct labels, sorted when they are all of one sortable type, else in order of first appearance.

    >>> _ordered(["warm", "cold", "warm"]), _ordered([2, "a", 2])
    (['cold', 'warm'], [2, 'a'])
    """
    distinct = list({_hashable(x): x for x in labels}.values())
    if len({type(x) for x in distinct}) == 1:
        try:
            return sorted(distinct)
        except TypeError:
            pass
    return distinct


def _checked_pairs(keys: list[Any], segments: list[Any], where: str) -> dict[str, Any]:
    """``{str(key): segment}`` from rows of (key, segment); nulls skipped; two segments for one key: an error.

    Each distinct (key, segment) pair is looked at once (a table has a row per interaction, a query's
    pair repeats); rows are counted only to name them in the error.

    >>> _checked_pairs([1, 1, 2], ["a", "a", None], "table")
    {'1': 'a'}
    """
    try:
        distinct = list(dict.fromkeys(zip(keys, segments, strict=True)))
    except TypeError:
        raise InputFormatError(f"group_by: {where}: segment labels must be hashable (text, numbers)") from None
    out: dict[str, Any] = {}
    for key, segment in distinct:
        if segment is None or key is None or (isinstance(segment, float) and segment != segment):
            continue
        text = str(key)
        if text in out and out[text] != segment:
            rows = [i for i, k in enumerate(keys) if str(k) == text]
            first = next(i for i in rows if segments[i] == out[text])
            second = next(i for i in rows if segments[i] == segment)
            raise InputFormatError(
                f"group_by: {where}: query {text!r} has two segments: {out[text]!r} (row {first}) "
                f"and {segment!r} (row {second}); a query belongs to one segment"
            )
        out[text] = segment
    return out


def _python_values(values: Any) -> list[Any]:
    """A sequence (list, NumPy, polars or pyarrow) as a list of Python values (``np.int64(1)`` -> ``1``).

    >>> _python_values(np.array([1, 2])), _python_values(("a", None))
    ([1, 2], ['a', None])
    """
    for method in ("to_pylist", "to_list", "tolist"):
        if hasattr(values, method):
            return list(getattr(values, method)())
    return list(values)


def _column_values(frame: Any, name: str) -> list[Any]:
    """A column of a pandas / polars / pyarrow table as a list of Python values."""
    return _python_values(frame.column(name) if hasattr(frame, "column_names") else frame[name])


def _names(frame: Any) -> list[str]:
    return [str(c) for c in (frame.column_names if hasattr(frame, "column_names") else frame.columns)]


def _pick(names: list[str], given: str | None, candidates: tuple[str, ...], role: str, option: str) -> str:
    if given is not None:
        if given not in names:
            raise InputFormatError(f"group_by: the table has no column {given!r} (columns: {', '.join(names)})")
        return given
    present = [c for c in candidates if c in names]
    if len(present) != 1:
        what = "no column" if not present else "several columns"
        raise InputFormatError(
            f"group_by: the table has {what} for the {role} (looked for {', '.join(map(repr, candidates))}; "
            f"columns: {', '.join(names)}); name it with rankmeter.GroupBy(table, {option}='<column>')"
        )
    return present[0]


def _from_table(frame: Any, spec: GroupBy, where: str) -> dict[str, Any]:
    names = _names(frame)
    key = _pick(names, spec.key, KEY_COLUMNS, "query id", "key")
    segment = _pick(names, spec.segment, SEGMENT_COLUMNS, "segment", "segment")
    return _checked_pairs(_column_values(frame, key), _column_values(frame, segment), where)


def _as_table(obj: Any) -> Any:
    """A frame as it is, a path to a table file read, else None."""
    if is_frame(obj):
        return obj
    if isinstance(obj, str | os.PathLike) and table_format(obj) is not None and os.path.exists(obj):
        return read_table(obj, table_format(obj) or "", KEY_COLUMNS)
    return None


def _query_column(frame: Any, kind: str, columns: Mapping[str, str] | None) -> str | None:
    names = _names(frame)
    if columns and "query_id" in columns:
        return columns["query_id"] if columns["query_id"] in names else None
    present = [c for c in KNOWN_COLUMNS[kind]["query_id"] if c in names]
    return present[0] if len(present) == 1 else None


def _from_column(
    name: str, tables: Sequence[tuple[str, Any, Mapping[str, str] | None]], spec: GroupBy
) -> dict[str, Any] | None:
    """The segments of a column ``name`` of the qrels and / or run tables; None when neither has it."""
    keys: list[Any] = []
    values: list[Any] = []
    found = []
    for kind, obj, columns in tables:
        frame = _as_table(obj)
        if frame is None or name not in _names(frame):
            continue
        key = spec.key or _query_column(frame, kind, columns)
        if key is None:
            raise InputFormatError(f"group_by {name!r}: cannot tell the query id column of the {kind} table")
        keys += _column_values(frame, key)
        values += _column_values(frame, name)
        found.append(kind)
    if not found:
        return None
    return _checked_pairs(keys, values, f"column {name!r} of the {' and '.join(found)} table")


def segment_map(
    group_by: Any,
    *,
    tables: Sequence[tuple[str, Any, Mapping[str, str] | None]] = (),
    positional: bool = False,
) -> SegmentMap:
    """Resolve any form of ``group_by=`` into the segment of each query id (by text).

    Parameters
    ----------
    group_by : any form of :mod:`rankmeter.segments`, GroupBy, or SegmentMap (returned as it is)
    tables : list of (kind, table, columns)
        The ``("qrels", qrels, qrels_columns)`` and ``("run", run,
        run_columns)`` of the call, whose columns a column name refers to.
    positional : bool
        Whether the queries are rows ``0 .. n-1`` (dense and ragged input,
        vectors), so that a sequence gives one segment per row.

    Examples
    --------
    >>> segment_map({1: "cold", 2: "warm", 3: "cold"}).of
    {'1': 'cold', '2': 'warm', '3': 'cold'}
    >>> segment_map(["b", "a", "b"], positional=True).segments
    ['a', 'b']
    """
    if isinstance(group_by, SegmentMap):
        return group_by
    spec = group_by if isinstance(group_by, GroupBy) else GroupBy(group_by)
    by = spec.by
    if isinstance(by, Mapping):
        of, source = _checked_pairs(list(by.keys()), list(by.values()), "mapping"), "mapping"
    elif type(by).__module__.startswith("pandas") and hasattr(by, "index") and not is_frame(by):  # a pandas Series
        of, source = _checked_pairs(by.index.tolist(), by.tolist(), "series"), "series"
    elif isinstance(by, str | os.PathLike) and not is_frame(by):
        column = _from_column(os.fspath(by), tables, spec) if isinstance(by, str) else None
        table = None if column is not None else _as_table(by)
        if column is not None:
            of, source = column, f"column {by!r}"
        elif table is not None:
            of, source = _from_table(table, spec, os.fspath(by)), os.fspath(by)
        elif os.path.isfile(by):
            raise InputFormatError(
                f"group_by {os.fspath(by)!r}: a segments file is read as a table by its suffix (.csv, .tsv, "
                ".parquet, .feather, .arrow, .ipc; .gz for CSV and TSV)"
            )
        else:
            raise InputFormatError(
                f"group_by {os.fspath(by)!r}: no column of that name in the qrels or run tables, and no "
                "CSV, TSV, Parquet or Feather file of that name"
            )
    elif is_frame(by):
        of, source = _from_table(by, spec, "table"), "table"
    elif isinstance(by, Sequence | np.ndarray) or type(by).__module__.split(".")[0] in ("polars", "pyarrow"):
        if not positional:
            raise InputFormatError(
                "group_by: a sequence gives one segment per row of dense or ragged input; for qrels and runs "
                "pass a mapping {query_id: segment} or a table with query_id and segment columns"
            )
        rows = _python_values(by)
        of = {str(i): x for i, x in enumerate(rows) if x is not None and not (isinstance(x, float) and x != x)}
        return SegmentMap(of, _ordered(list(of.values())), "sequence", spec.missing, len(rows))
    else:
        raise InputFormatError(
            f"group_by: cannot read segments from {type(by).__name__}; pass a mapping {{query_id: segment}}, "
            "a table, a column name or a path"
        )
    return SegmentMap(of, _ordered(list(of.values())), source, spec.missing)


def aggregation_kinds(measures: list[Measure]) -> dict[str, str]:
    """Each single measure's aggregation (``mean``, ``sum`` or ``gmean``), by canonical name.

    >>> from rankmeter.measures import parse
    >>> aggregation_kinds([parse("ndcg@[5,10]"), parse("num_q")])
    {'ndcg@5': 'mean', 'ndcg@10': 'mean', 'num_q': 'sum'}
    """
    return {
        str(s): FAMILIES[s.family].aggregate if s.family in FAMILIES else "mean" for m in measures for s in m.expand()
    }


def group_values(
    query_ids: np.ndarray,
    values: np.ndarray,
    included: np.ndarray,
    kinds: list[str],
    segments: SegmentMap,
    weights: list[np.ndarray | None] | None = None,
) -> Groups:
    r"""Aggregate every measure column per segment.

    For segment :math:`s` and a mean measure, the value is
    :math:`\frac{1}{|I_s|}\sum_{q \in I_s} v_q` over the included queries
    :math:`I_s` of the segment with a value (not NaN); a ``sum`` measure
    adds them up, a ``gmean`` one is the geometric mean with trec_eval's
    floor; a segment whose queries all lie outside the aggregate gets what
    the overall value would (NaN for a mean, 0 for a sum) and a count of 0.
    A segment without any evaluated query gets NaN for every measure.

    Examples
    --------
    >>> seg = segment_map({"a": "x", "b": "y", "c": "x"})
    >>> g = group_values(np.array(["a", "b", "c"]), np.array([[1.0], [0.5], [0.0]]),
    ...                  np.ones((3, 1), dtype=bool), ["mean"], seg)
    >>> g.segments, g.values[:, 0].tolist(), g.counts[:, 0].tolist()
    (['x', 'y'], [0.5, 0.5], [2, 1])
    """
    labels = list(segments.segments)
    if segments.rows is not None and segments.rows != len(query_ids):
        raise InputFormatError(
            f"group_by: a sequence of {segments.rows} segments for {len(query_ids)} rows; give one segment per row"
        )
    index: dict[Any, int] = {}
    for i, label in enumerate(labels):
        index.setdefault(_hashable(label), i)
    code = {key: index[_hashable(label)] for key, label in segments.of.items()}  # id text -> segment index
    text = query_ids.tolist() if query_ids.dtype.kind == "U" else [str(q) for q in query_ids.tolist()]
    member = np.fromiter(map(code.get, text, itertools.repeat(-1)), dtype=np.int64, count=len(text))
    without = np.flatnonzero(member < 0).tolist()
    if without and segments.missing == "error":
        shown = ", ".join(repr(query_ids[i].item() if hasattr(query_ids[i], "item") else query_ids[i])
                          for i in without[:5])  # fmt: skip
        raise InputFormatError(
            f"group_by: {len(without)} evaluated queries have no segment ({shown}"
            f"{' ...' if len(without) > 5 else ''}); give them one, or pass "
            "rankmeter.GroupBy(..., missing='none') or missing='skip'"
        )
    if without and segments.missing == "none":
        labels.append(None)
        member[without] = len(labels) - 1
    n_s, n_m = len(labels), values.shape[1]
    out = np.full((n_s, n_m), np.nan)
    counts = np.zeros((n_s, n_m), dtype=np.int64)
    order = np.argsort(member, kind="stable")  # each segment's queries together, in query order
    bounds = np.searchsorted(member[order], np.arange(n_s + 1))
    counted = included & ~np.isnan(values)
    for s in range(n_s):
        rows = order[bounds[s] : bounds[s + 1]]
        for j in range(n_m):
            counts[s, j] = int(counted[rows, j].sum())
            if rows.size:  # as the overall value: NaN for a mean of nothing, 0 for a sum of nothing
                w = None if weights is None or weights[j] is None else weights[j][rows]  # type: ignore[index]
                out[s, j] = aggregate_column(values[rows, j], included[rows, j], weights=w, kind=kinds[j])
    queries = np.bincount(member[member >= 0], minlength=n_s).astype(np.int64)
    metadata = {
        "source": segments.source,
        "missing": segments.missing,
        "segments": labels,
        "queries_per_segment": dict(zip(map(segment_text, labels), queries.tolist(), strict=True)),
        "queries_without_segment": len(without),
        "segments_without_queries": [s for s, n in zip(labels, queries.tolist(), strict=True) if n == 0],
    }
    return Groups(labels, member, out, counts, queries, metadata)


def _hashable(segment: Any) -> Any:
    """A dict key for a segment label that tells ``1`` from ``True`` and ``1.0``."""
    return (type(segment).__name__, segment)


def grouped_result(result: EvaluationResult, segments: SegmentMap, measures: list[Measure]) -> EvaluationResult:
    """``result`` with its per-segment aggregates (:class:`Groups`) and ``metadata["groups"]``.

    Weighted dense input (``sample_weight``) is refused: its per-list weights
    are not kept in the result.
    """
    if result.metadata.get("weighted"):
        raise PolicyError("group_by: per-segment values of weighted input (sample_weight) are not supported")
    kinds = aggregation_kinds(measures)
    pools = getattr(result, "pool_weights", None) or {}  # per-query weights of pooled aggregates, where kept
    groups = group_values(
        result.query_ids, result.values, result.included, [kinds.get(n, "mean") for n in result.measure_names],
        segments, [pools.get(n) for n in result.measure_names],
    )  # fmt: skip
    if result.list_sets is not None:  # list-set values of each segment's lists
        values, lists = result.list_sets(groups.segments, groups.member, result.query_ids)
        groups = replace(groups, list_sets=values, lists=lists)
    return replace(result, metadata={**result.metadata, "groups": groups.metadata}, groups=groups)


def with_groups(
    result: EvaluationResult | SystemResults,
    group_by: Any,
    measures: list[Measure],
    *,
    tables: Sequence[tuple[str, Any, Mapping[str, str] | None]] = (),
    positional: bool = False,
) -> Any:
    """``result`` (one evaluation or several systems) with per-segment aggregates; unchanged without ``group_by``."""
    if group_by is None:
        return result
    segments = segment_map(group_by, tables=tables, positional=positional)
    if isinstance(result, SystemResults):
        return SystemResults.of({name: grouped_result(r, segments, measures) for name, r in result.items()})
    return grouped_result(result, segments, measures)


P = ParamSpec("P")
R = TypeVar("R")


def rows_grouped(function: Callable[P, R]) -> Callable[P, R]:
    """Give an entry point whose queries are rows (dense, ragged, vectors) its ``group_by=`` keyword.

    The entry point takes ``group_by`` (as a keyword or in ``options=``) and
    ignores it; the wrapper takes the segments from it (a sequence: one per row; a mapping or table: by row
    index) and aggregates the result per segment. ``measures`` is the third
    argument.
    """

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        result = function(*args, **kwargs)
        group_by = kwargs.get("group_by")
        if group_by is None and kwargs.get("options") is not None:  # an EvaluationOptions value
            group_by = getattr(kwargs["options"], "group_by", None)
        if group_by is None:
            return result
        given = kwargs["measures"] if "measures" in kwargs else args[2]
        measures = [parse(m) for m in ([given] if isinstance(given, str | Measure) else list(given))]  # type: ignore[call-overload]
        grouped: R = with_groups(result, group_by, measures, positional=True)  # type: ignore[arg-type]
        return grouped

    return wrapper
