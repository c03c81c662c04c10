"""``rankmeter.dask.evaluate``: qrels + run as dask DataFrames, shuffled by query, rankmeter's kernels per partition.

The same shell as :mod:`rankmeter.spark`: the rows of both inputs become one
dask DataFrame of :data:`rankmeter.partitions.COLUMNS`, shuffled on the query
id so that each partition holds whole queries; every partition is evaluated by
:func:`rankmeter.partitions.evaluate_partition` and the driver (the client)
combines the per-query values.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter.core.options import DistributedKeywords, EvaluationOptions
from rankmeter.core.semantics import Semantics
from rankmeter.errors import InputFormatError, RankmeterError
from rankmeter.ids.booleans import check_engine_columns
from rankmeter.io.frames import find_columns
from rankmeter.io.id_types import integer_query_ids
from rankmeter.io.load import as_pairs, as_qrels, as_run, table_format
from rankmeter.io.tables import Qrels, Run
from rankmeter.measures import Measure
from rankmeter.partitions import (
    CANDIDATE,
    COLUMNS,
    EXCLUDE,
    QRELS,
    RUN,
    EngineResult,
    ListsJob,
    Sources,
    combine,
    driver_options,
    evaluate_partition,
    lists_job,
    tidy_table,
)
from rankmeter.pipeline import MeasuresArg, parse_measures
from rankmeter.results import EvaluationResult, with_integer_ids
from rankmeter.segments import GroupBy, segment_map, with_groups

if TYPE_CHECKING:
    from typing_extensions import Unpack

_LINE_STRIDE = 1 << 33  # without exact numbering: a row's key is partition * 2**33 + position + 1


@dataclass(frozen=True)
class DaskResult(EngineResult):
    """What :func:`evaluate` returns: the per-query values as a pandas DataFrame (``per_query``) and the whole
    local result (``result``), as :class:`EngineResult`."""


def evaluate(
    qrels: Any,
    run: Any,
    measures: MeasuresArg,
    *,
    semantics: Semantics | None = None,
    partitions: int | None = None,
    options: EvaluationOptions | None = None,
    **keywords: Unpack[DistributedKeywords],
) -> DaskResult:
    """Evaluate a run against qrels with dask: the values of :func:`rankmeter.evaluate`, whatever the partitioning.

    Parameters
    ----------
    qrels, run : dask DataFrame, path, or anything rankmeter.evaluate takes
        dask DataFrames (columns found as in :func:`rankmeter.evaluate`, or
        named by ``qrels_columns`` / ``run_columns``); paths read by dask:
        TREC text files (``.gz`` too; a file is read as one partition, then
        shuffled), Parquet, CSV/TSV; local tables, dicts, ``Qrels``/``Run``.
    measures : str, Measure or iterable of them
    semantics : Semantics, optional
        As for :func:`rankmeter.evaluate`.
    partitions : int, optional
        Partitions of the shuffle by query (default: the run's partitions).
    options : EvaluationOptions, optional
        The fields of :class:`rankmeter.EvaluationOptions` in
        :class:`rankmeter.core.options.DistributedKeywords` (which says how
        the engines read them); ``exclude`` and ``candidates`` may be a
        dask DataFrame, other forms are read here.
    **keywords
        Fields of :class:`~rankmeter.Semantics` and of those options given
        one by one, as for :func:`rankmeter.evaluate`.

    Returns
    -------
    DaskResult

    Notes
    -----
    The computation runs on dask's current scheduler: a
    ``dask.distributed.Client`` made before the call sends it to a cluster.
    """
    opts, sem = driver_options("rankmeter.dask.evaluate", semantics, options, keywords)
    qrels_columns, run_columns, group_by = opts.qrels_columns, opts.run_columns, opts.group_by
    parsed = parse_measures(measures)
    pairs = _pair_rows(opts.exclude, opts.candidates)
    tables = [("qrels", qrels, qrels_columns), ("run", run, run_columns)]
    segments = None if group_by is None else segment_map(_column_segments(group_by, tables), tables=tables)
    lists = lists_job(parsed, sem, opts.items, segments)
    call = (qrels, run, parsed, sem, qrels_columns, run_columns, partitions, pairs, lists)
    try:
        result, n = _evaluate(*call, exact_lines=False)
    except RankmeterError:  # number the rows exactly (one more pass) so the error names them as evaluate does
        result, n = _evaluate(*call, exact_lines=True)
    result.metadata.update({"engine": "dask", "partitions": n})
    if integer_query_ids(qrels, "qrels", qrels_columns):
        result = with_integer_ids(result)
    result = with_groups(result, segments, parsed)
    return DaskResult(tidy_table(result).to_pandas(), result)


def _evaluate(
    qrels: Any,
    run: Any,
    measures: list[Measure],
    sem: Semantics,
    qrels_columns: Mapping[str, str] | None,
    run_columns: Mapping[str, str] | None,
    partitions: int | None,
    pairs: tuple[list[Any], str | None],
    lists: ListsJob | None,
    *,
    exact_lines: bool,
) -> tuple[EvaluationResult, int]:
    import dask.dataframe as dd
    import pandas as pd

    q, q_name, q_text, q_cols = _rows(qrels, "qrels", qrels_columns, exact_lines)
    r, r_name, r_text, r_cols = _rows(run, "run", run_columns, exact_lines)
    sources = Sources(q_name, r_name, q_text, r_text, q_cols, r_cols, pairs[1])
    n = partitions or max(r.npartitions, 1)
    spread = dd.concat([q, r, *pairs[0]]).shuffle("query_id", npartitions=n)

    def evaluate_frame(frame: pd.DataFrame) -> pd.DataFrame:
        import pyarrow as pa

        payloads = []
        if len(frame):
            table = pa.Table.from_pandas(frame[list(COLUMNS)], schema=_arrow_schema(), preserve_index=False)
            payloads.append(evaluate_partition(table, measures, sem, sources, lists))
        return pd.DataFrame({"payload": pd.Series(payloads, dtype=object)})

    meta = pd.DataFrame({"payload": pd.Series([], dtype=object)})
    payloads = spread.map_partitions(evaluate_frame, meta=meta).compute()["payload"].tolist()
    return combine(payloads, measures, sem, sources, lists), n


def _pair_rows(exclude: Any, candidates: Any) -> tuple[list[Any], str | None]:
    """The rows of ``exclude=`` and ``candidates=`` (roles EXCLUDE, CANDIDATE) as dask DataFrames, and the choice."""
    import dask.dataframe as dd
    import pandas as pd

    frames, names = [], []
    for role, given, name in ((CANDIDATE, candidates, "candidates"), (EXCLUDE, exclude, "exclude")):
        if given is None:
            continue
        names.append("given" if role == CANDIDATE else name)
        if isinstance(given, dd.DataFrame):
            mapping = find_columns([str(c) for c in given.columns], "pairs", None, f"{name}_columns")
            check_engine_columns(given, mapping)

            def convert(part: pd.DataFrame, role: int = role, mapping: dict[str, str] = mapping) -> pd.DataFrame:
                return _pair_frame(part[mapping["query_id"]], part[mapping["doc_id"]], role)

            frames.append(given.map_partitions(convert, meta=_meta()))
        else:
            local = as_pairs(given, name)
            frames.append(dd.from_pandas(_pair_frame(local.query_ids.tolist(), local.doc_ids.tolist(), role), 1))
    return frames, (", ".join(names) if names else None)


def _pair_frame(users: Any, items: Any, role: int) -> Any:
    """(user, item) pairs as rows of :data:`COLUMNS` with the given role."""
    import pandas as pd

    n = len(users)
    return pd.DataFrame(
        {
            "role": np.full(n, role, dtype=np.int8),
            "query_id": pd.Series(users).astype(str).astype(object).to_numpy(),
            "doc_id": pd.Series(items).astype(str).astype(object).to_numpy(),
            "value": np.full(n, np.nan),
            "text": pd.array([None] * n, dtype=object),
            "line": np.arange(1, n + 1, dtype=np.int64),
        }
    )


def _arrow_schema() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("role", pa.int8()),
            ("query_id", pa.string()),
            ("doc_id", pa.string()),
            ("value", pa.float64()),
            ("text", pa.string()),
            ("line", pa.int64()),
        ]
    )


def _rows(obj: Any, kind: str, columns: Mapping[str, str] | None, exact: bool) -> tuple[Any, str, bool, Any]:
    """``(rows, source name, TREC text?, column mapping)``: ``obj`` as a dask DataFrame of :data:`COLUMNS`."""
    import dask.dataframe as dd

    role = QRELS if kind == "qrels" else RUN
    if isinstance(obj, str | os.PathLike):
        path = os.fspath(obj)
        fmt = table_format(path)
        if fmt is None:
            return _text_rows(path, role, exact), path, True, None
        if fmt == "parquet":
            frame = dd.read_parquet(path)
        elif fmt in ("csv", "tsv"):
            frame = dd.read_csv(path, sep="\t" if fmt == "tsv" else ",", dtype=str)
        else:
            raise InputFormatError(f"{path}: dask reads TREC text, Parquet, CSV and TSV files, not {fmt}")
        rows, mapping = _table_rows(frame, kind, columns, role, exact)
        return rows, path, False, mapping
    if isinstance(obj, dd.DataFrame):
        rows, mapping = _table_rows(obj, kind, columns, role, exact)
        return rows, f"<{kind} DataFrame>", False, mapping
    local: Qrels | Run = as_qrels(obj, columns) if kind == "qrels" else as_run(obj, columns)  # read here
    import pandas as pd

    n = len(local)
    frame = pd.DataFrame(
        {
            "role": np.full(n, role, dtype=np.int8),
            "query_id": pd.array(local.query_ids.tolist(), dtype=object),
            "doc_id": pd.array(local.doc_ids.tolist(), dtype=object),
            "value": local.relevance if isinstance(local, Qrels) else local.scores,
            "text": pd.array([None] * n, dtype=object),
            "line": local.lines if local.lines is not None else np.arange(1, n + 1),
        }
    )
    return dd.from_pandas(frame, npartitions=1), local.source or f"<{kind} table>", False, local.columns


def _table_rows(frame: Any, kind: str, columns: Mapping[str, str] | None, role: int, exact: bool) -> Any:
    """A table's rows with their row numbers; ids as text, the grade or score as float64."""
    import pandas as pd

    mapping = find_columns([str(c) for c in frame.columns], kind, columns, f"{kind}_columns")
    check_engine_columns(frame, mapping)
    value_role = "relevance" if kind == "qrels" else ("rank" if "rank" in mapping else "score")
    sign = -1.0 if value_role == "rank" else 1.0  # a ranked list: the score -rank (checked per user in the partitions)
    offsets = _offsets(frame) if exact else None

    def convert(part: pd.DataFrame, partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
        index = (partition_info or {}).get("number", 0)
        start = offsets[index] if offsets is not None else index * _LINE_STRIDE
        values = pd.to_numeric(part[mapping[value_role]], errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(np.isnan(values) & ~pd.isna(part[mapping[value_role]]).to_numpy())
        if len(bad):
            row = part.iloc[bad[0]]
            raise InputFormatError(
                f"{kind} column {mapping[value_role]!r}: query {str(row[mapping['query_id']])!r}, document "
                f"{str(row[mapping['doc_id']])!r}: {value_role} {row[mapping[value_role]]!r} is not a number"
            )
        return pd.DataFrame(
            {
                "role": np.full(len(part), role, dtype=np.int8),
                "query_id": part[mapping["query_id"]].astype(str).astype(object).to_numpy(),
                "doc_id": part[mapping["doc_id"]].astype(str).astype(object).to_numpy(),
                "value": sign * values,
                "text": pd.array([None] * len(part), dtype=object),
                "line": np.arange(start + 1, start + 1 + len(part), dtype=np.int64),
            }
        )

    return frame.map_partitions(convert, meta=_meta()), mapping


def _meta() -> Any:
    import pandas as pd

    return pd.DataFrame(
        {
            "role": pd.Series([], dtype=np.int8),
            "query_id": pd.Series([], dtype=object),
            "doc_id": pd.Series([], dtype=object),
            "value": pd.Series([], dtype=np.float64),
            "text": pd.Series([], dtype=object),
            "line": pd.Series([], dtype=np.int64),
        }
    )


def _offsets(frame: Any) -> list[int]:
    """The number of rows before each partition (one pass over the frame)."""
    lengths = frame.map_partitions(len).compute().tolist()
    return np.concatenate(([0], np.cumsum(lengths))).astype(int).tolist()


def _text_rows(path: str, role: int, exact: bool) -> Any:
    """A TREC file's lines (blank and ``#`` lines left out), numbered, with query ids, in blocks of lines.

    A plain file is cut into blocks of :data:`TEXT_BLOCK_BYTES` at line ends
    (``dask.bytes.read_bytes``); a ``.gz`` file is one block. Lines are
    numbered within their block, plus ``block * 2**33`` (the file's order), or
    exactly with ``exact`` (one more pass counting each block's lines).
    """
    import dask
    import dask.dataframe as dd
    from dask.bytes import read_bytes

    if not os.path.exists(path):
        raise InputFormatError(f"{path}: cannot read file: No such file or directory")
    gz = path.endswith(".gz")
    _, files = read_bytes(
        path, delimiter=b"\n", blocksize=None if gz else TEXT_BLOCK_BYTES, compression="gzip" if gz else None
    )
    blocks = files[0]
    if exact:
        counts = dask.compute(*[dask.delayed(_count_lines)(b) for b in blocks])
        starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(int).tolist()
    else:
        starts = [i * _LINE_STRIDE for i in range(len(blocks))]
    parts = [dask.delayed(_block_frame)(b, start, role) for b, start in zip(blocks, starts, strict=True)]
    return dd.from_delayed(parts, meta=_meta(), verify_meta=False)


TEXT_BLOCK_BYTES = 64 << 20
"""Bytes of a TREC text file per dask partition (before the shuffle by query)."""


def _count_lines(data: bytes) -> int:
    return len(data.split(b"\n")) - (1 if data.endswith(b"\n") or not data else 0)


def _block_frame(data: bytes, start: int, role: int) -> Any:
    """The kept lines of one block of a TREC file as rows of :data:`COLUMNS` (numbers from ``start + 1``)."""
    import pandas as pd

    lines = data.decode("utf-8", "surrogateescape").split("\n")
    if data.endswith(b"\n"):
        lines.pop()
    kept = [(start + i + 1, line) for i, line in enumerate(lines) if line.strip() and not line.startswith("#")]
    text = [line for _, line in kept]
    return pd.DataFrame(
        {
            "role": np.full(len(kept), role, dtype=np.int8),
            "query_id": pd.array([t.split(None, 1)[0] for t in text], dtype=object),
            "doc_id": pd.array([None] * len(kept), dtype=object),
            "value": np.full(len(kept), np.nan),
            "text": pd.array(text, dtype=object),
            "line": np.array([n for n, _ in kept], dtype=np.int64),
        }
    )


def _column_segments(group_by: Any, tables: list[tuple[str, Any, Any]]) -> Any:
    """``group_by`` naming a column of a dask DataFrame: its distinct (user, segment) pairs as a local table."""
    import dask.dataframe as dd

    if not isinstance(group_by, str):
        return group_by
    import pandas as pd

    frames = []
    for kind, frame, columns in tables:
        if isinstance(frame, dd.DataFrame) and group_by in frame.columns:
            user = find_columns([str(c) for c in frame.columns], kind, columns, f"{kind}_columns")["query_id"]
            pairs = frame[[user, group_by]].drop_duplicates().compute()
            frames.append(pd.DataFrame({"query_id": pairs[user].to_numpy(), "segment": pairs[group_by].to_numpy()}))
    return GroupBy(pd.concat(frames), key="query_id", segment="segment") if frames else group_by
