"""``rankmeter.spark.evaluate``: qrels + run on Spark, each query's rows on one partition, rankmeter's kernels there.

The qrels and run rows are put into one DataFrame of
:data:`rankmeter.partitions.COLUMNS`, repartitioned by query id and handed
to :func:`rankmeter.partitions.evaluate_partition` through ``mapInArrow``;
each partition sends back its per-query values (a few bytes per query and
measure), and the driver computes the aggregates from all of them.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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

_SCHEMA = "role tinyint, query_id string, doc_id string, value double, text string, line long"


@dataclass(frozen=True)
class SparkResult(EngineResult):
    """What :func:`evaluate` returns: the per-query values as a Spark DataFrame (``per_query``) and the whole
    local result (``result``, which ``rankmeter.compare_per_query`` takes), as :class:`EngineResult`."""


def evaluate(
    qrels: Any,
    run: Any,
    measures: MeasuresArg,
    *,
    semantics: Semantics | None = None,
    partitions: int | None = None,
    spark: Any = None,
    options: EvaluationOptions | None = None,
    **keywords: Unpack[DistributedKeywords],
) -> SparkResult:
    """Evaluate a run against qrels on Spark: the values of :func:`rankmeter.evaluate`, whatever the partitioning.

    Parameters
    ----------
    qrels, run : pyspark.sql.DataFrame, path, or anything rankmeter.evaluate takes
        Spark DataFrames (column names found as in :func:`rankmeter.evaluate`:
        ``query_id``/``qid``/``user_id``..., or given by ``qrels_columns`` /
        ``run_columns``); paths read by Spark: TREC text files (``.gz`` too,
        line numbers kept for messages), Parquet, CSV/TSV with a header;
        local tables, dicts and ``Qrels``/``Run`` are read on the driver and
        sent to Spark.
    measures : str, Measure or iterable of them
    semantics : Semantics, optional
        As for :func:`rankmeter.evaluate` (ties, empty, missing, duplicates,
        depth, judged_only, seed). A shuffle without a seed draws one on the
        driver (recorded in ``metadata["seed"]``).
    partitions : int, optional
        Partitions of the repartition by query (default: Spark's
        ``spark.sql.shuffle.partitions``). Values do not depend on it.
    spark : SparkSession, optional
        Default: the active session, else a new one.
    options : EvaluationOptions, optional
        The fields of :class:`rankmeter.EvaluationOptions` in
        :class:`rankmeter.core.options.DistributedKeywords` (which says how
        the engines read them); ``exclude`` and ``candidates`` may be a
        Spark DataFrame, other forms are read on the driver.
    **keywords
        Fields of :class:`~rankmeter.Semantics` and of those options given
        one by one, as for :func:`rankmeter.evaluate`.

    Returns
    -------
    SparkResult

    Raises
    ------
    RankmeterError
        On the driver, as :func:`rankmeter.evaluate` raises it: the file and
        line Spark read a malformed line, a duplicate or a bad score from,
        with its query and document.

    Notes
    -----
    What crosses the network: each row once, in the repartition by query
    (the query id, the document id and the value, or a TREC line as text);
    back to the driver, one float per query and measure. A partition needs the
    memory of its queries' rows, so memory per task is bounded by
    ``rows / partitions`` and never less than the largest query.
    """
    from pyspark.sql import SparkSession

    opts, sem = driver_options("rankmeter.spark.evaluate", semantics, options, keywords)
    qrels_columns, run_columns, group_by = opts.qrels_columns, opts.run_columns, opts.group_by
    parsed = parse_measures(measures)
    pandas_warning_once()
    session = spark or SparkSession.getActiveSession() or local_session()
    n = partitions or int(str(session.conf.get("spark.sql.shuffle.partitions")))
    pairs = _pair_rows(session, opts.exclude, opts.candidates)
    tables = [("qrels", qrels, qrels_columns), ("run", run, run_columns)]
    segments = None if group_by is None else segment_map(_column_segments(group_by, tables), tables=tables)
    lists = lists_job(parsed, sem, opts.items, segments)
    call = (session, qrels, run, parsed, sem, qrels_columns, run_columns, n, pairs, lists)
    try:
        result = _evaluate(*call, exact_lines=False)
    except RankmeterError:
        # rows were numbered by position in their input partition (no extra job); number them exactly, so
        # that the error names the line (or row) the way rankmeter.evaluate does, and raise that
        result = _evaluate(*call, exact_lines=True)
    result.metadata.update({"engine": "spark", "partitions": n})
    if integer_query_ids(qrels, "qrels", qrels_columns):
        result = with_integer_ids(result)
    result = with_groups(result, segments, parsed)
    per_query = session.createDataFrame(tidy_table(result))
    return SparkResult(per_query, result)


def _evaluate(
    session: Any,
    qrels: Any,
    run: Any,
    measures: list[Measure],
    sem: Semantics,
    qrels_columns: Mapping[str, str] | None,
    run_columns: Mapping[str, str] | None,
    n: int,
    pairs: tuple[Any, str | None],
    lists: ListsJob | None,
    *,
    exact_lines: bool,
) -> EvaluationResult:
    """One pass: rows numbered, repartitioned by query, evaluated per partition, combined on the driver."""
    q, q_name, q_text, q_cols = _rows(session, qrels, "qrels", qrels_columns, exact_lines)
    r, r_name, r_text, r_cols = _rows(session, run, "run", run_columns, exact_lines)
    sources = Sources(q_name, r_name, q_text, r_text, q_cols, r_cols, pairs[1])
    rows = q.unionByName(r) if pairs[0] is None else q.unionByName(r).unionByName(pairs[0])
    spread = rows.repartition(n, "query_id")

    def evaluate_batches(batches: Any) -> Any:
        import pyarrow as pa

        full = [b for b in batches if b.num_rows]
        if full:
            table = pa.Table.from_batches(full)
            payload = evaluate_partition(table, measures, sem, sources, lists)
            yield pa.RecordBatch.from_pydict({"payload": [payload]}, schema=pa.schema([("payload", pa.binary())]))

    payloads = spread.mapInArrow(evaluate_batches, "payload binary").toArrow().column("payload").to_pylist()
    return combine(payloads, measures, sem, sources, lists)


def _pair_rows(session: Any, exclude: Any, candidates: Any) -> tuple[Any, str | None]:
    """The rows of ``exclude=`` and ``candidates=`` (roles EXCLUDE, CANDIDATE) as one DataFrame, and the choice."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    frames, names = [], []
    for role, given, name in ((EXCLUDE, exclude, "exclude"), (CANDIDATE, candidates, "candidates")):
        if given is None:
            continue
        names.append("given" if role == CANDIDATE else name)
        if isinstance(given, DataFrame):
            mapping = find_columns(list(given.columns), "pairs", None, f"{name}_columns")
            check_engine_columns(given, mapping)
            frame = given.select(
                F.col(mapping["query_id"]).cast("string").alias("query_id"),
                F.col(mapping["doc_id"]).cast("string").alias("doc_id"),
            )
        else:
            import pyarrow as pa

            local = as_pairs(given, name)
            ids = {"query_id": local.query_ids.tolist(), "doc_id": local.doc_ids.tolist()}
            frame = session.createDataFrame(pa.table({k: pa.array(v, pa.string()) for k, v in ids.items()}))
        frames.append(
            frame.select(
                F.lit(role).cast("tinyint").alias("role"),
                "query_id",
                "doc_id",
                F.lit(None).cast("double").alias("value"),
                F.lit(None).cast("string").alias("text"),
                F.monotonically_increasing_id().alias("line"),
            )
        )
    if not frames:
        return None, None
    rows = frames[0] if len(frames) == 1 else frames[0].unionByName(frames[1])
    return rows, ", ".join(sorted(names, key=lambda n: n != "given"))


PANDAS_WARNING = "PySpark does not yet fully support pandas"
"""The start of PySpark 4.x's warning about pandas >= 3, which it repeats from module to module."""

PANDAS_WARNING_FILTER = f"ignore:{PANDAS_WARNING}:FutureWarning"
"""The ``PYTHONWARNINGS`` entry that silences that warning in the Python workers."""

_warned: list[bool] = []


def pandas_warning_once() -> None:
    """Say once per process what PySpark repeats (its own warning is silenced by ``import rankmeter.spark``)."""
    import pandas as pd

    if not _warned and int(pd.__version__.split(".")[0]) >= 3:
        _warned.append(True)
        warnings.warn(
            f"pandas {pd.__version__}: PySpark does not fully support pandas >= 3.0.0 yet (PySpark's warning, "
            "shown once)",
            FutureWarning,
            stacklevel=3,
        )


def local_session(master: str = "local[2]", partitions: int = 8) -> Any:
    """A local Spark session whose Python workers run this interpreter (no cluster needed).

    ``spark.sql.shuffle.partitions`` is set to ``partitions`` (Spark's 200
    is meant for clusters); Arrow batches are enabled. PySpark's warning that
    it does not fully support pandas >= 3 shows once (in this process), not
    once per Python worker.
    """
    from pyspark.sql import SparkSession

    pandas_warning_once()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    # PySpark 4.x warns about pandas >= 3 in every Python worker it starts; the driver's warning is enough
    worker_warnings = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"), PANDAS_WARNING_FILTER]))
    return (
        SparkSession.builder.master(master)
        .appName("rankmeter")
        .config("spark.executorEnv.PYTHONWARNINGS", worker_warnings)
        .config("spark.sql.shuffle.partitions", str(partitions))
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )


def _rows(
    session: Any, obj: Any, kind: str, columns: Mapping[str, str] | None, exact: bool
) -> tuple[Any, str, bool, Any]:
    """``(rows, source name, TREC text?, column mapping)``: ``obj`` as a DataFrame of :data:`COLUMNS`."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    role = F.lit(QRELS if kind == "qrels" else RUN).cast("tinyint")
    if isinstance(obj, str | os.PathLike):
        path = os.fspath(obj)
        fmt = table_format(path)
        if fmt is None:
            return _text_rows(session, path, role, exact), path, True, None
        if fmt == "parquet":
            frame = session.read.parquet(path)
        elif fmt in ("csv", "tsv"):
            frame = session.read.csv(path, header=True, sep="\t" if fmt == "tsv" else ",", inferSchema=False)
        else:
            raise InputFormatError(f"{path}: Spark reads TREC text, Parquet, CSV and TSV files, not {fmt}")
        rows, mapping = _table_rows(session, frame, kind, columns, role, exact)
        return rows, path, False, mapping
    if isinstance(obj, DataFrame):
        rows, mapping = _table_rows(session, obj, kind, columns, role, exact)
        return rows, f"<{kind} DataFrame>", False, mapping
    local: Qrels | Run = as_qrels(obj, columns) if kind == "qrels" else as_run(obj, columns)  # read on the driver
    import pyarrow as pa

    n = len(local)
    values = local.relevance if isinstance(local, Qrels) else local.scores
    lines = local.lines if local.lines is not None else range(1, n + 1)
    table = pa.table(
        {
            "role": pa.array([QRELS if kind == "qrels" else RUN] * n, pa.int8()),
            "query_id": pa.array(local.query_ids.tolist(), pa.string()),
            "doc_id": pa.array(local.doc_ids.tolist(), pa.string()),
            "value": pa.array(values, pa.float64()),
            "text": pa.nulls(n, pa.string()),
            "line": pa.array(lines, pa.int64()),
        }
    )
    return session.createDataFrame(table), local.source or f"<{kind} table>", False, local.columns


def _table_rows(session: Any, frame: Any, kind: str, columns: Mapping[str, str] | None, role: Any, exact: bool) -> Any:
    """A table's rows with their row numbers; ids as text, the grade or score as a double."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import NumericType, StringType

    mapping = find_columns(list(frame.columns), kind, columns, f"{kind}_columns")
    check_engine_columns(frame, mapping)
    value_role = "relevance" if kind == "qrels" else ("rank" if "rank" in mapping else "score")
    value_type = frame.schema[mapping[value_role]].dataType
    value = F.col(mapping[value_role])
    if isinstance(value_type, StringType):  # CSV text: a value that is not a number is an error, not a null
        value = F.expr(f"try_cast(`{mapping[value_role]}` as double)")
        bad = frame.filter(value.isNull()).limit(1).collect()
        if bad:
            row = bad[0]
            raise InputFormatError(
                f"{kind} column {mapping[value_role]!r}: query {row[mapping['query_id']]!r}, document "
                f"{row[mapping['doc_id']]!r}: {value_role} {row[mapping[value_role]]!r} is not a number"
            )
    elif not isinstance(value_type, NumericType):
        raise InputFormatError(f"{kind} column {mapping[value_role]!r} holds {value_type.simpleString()}, not numbers")
    if value_role == "rank":  # a ranked list: the score -rank (checked per user in the partitions)
        value = -value.cast("double")
    rows = frame.select(
        role.alias("role"),
        F.col(mapping["query_id"]).cast("string").alias("query_id"),
        F.col(mapping["doc_id"]).cast("string").alias("doc_id"),
        value.cast("double").alias("value"),
        F.lit(None).cast("string").alias("text"),
    )
    return _numbered(rows, exact), mapping


def _text_rows(session: Any, path: str, role: Any, exact: bool) -> Any:
    """A TREC file's lines (blank and ``#`` lines left out) with their line numbers and query ids."""
    from pyspark.sql import functions as F

    if not os.path.exists(path) and "://" not in path:
        raise InputFormatError(f"{path}: cannot read file: No such file or directory")
    lines = _numbered(session.read.text(path).withColumnRenamed("value", "text"), exact)
    kept = lines.filter((F.trim("text") != "") & ~F.col("text").startswith("#"))
    first = F.split(F.trim("text"), r"\s+").getItem(0)
    return kept.select(
        role.alias("role"),
        first.alias("query_id"),
        F.lit(None).cast("string").alias("doc_id"),
        F.lit(None).cast("double").alias("value"),
        "text",
        "line",
    )


def _numbered(frame: Any, exact: bool) -> Any:
    """``frame`` with ``line``: a number per row that follows the source's order (partition, then position).

    ``exact``: the 1-based row (line) number, from one small job counting the
    rows of each input partition; otherwise the position in the partition
    plus the partition's index times 2**33 (no job; the same order, and the
    same numbers for a source Spark reads as one partition, as a ``.gz`` file).
    """
    from pyspark.sql import functions as F

    tagged = frame.withColumn("_pid", F.spark_partition_id()).withColumn("_mid", F.monotonically_increasing_id())
    if not exact:
        return tagged.withColumn("line", F.col("_mid") + F.lit(1)).drop("_pid", "_mid")
    counts = dict(tagged.groupBy("_pid").count().collect())
    offsets, total = {}, 0
    for pid in sorted(counts):
        offsets[pid], total = total, total + counts[pid]
    start = F.create_map([F.lit(x) for pid in offsets for x in (pid, offsets[pid])]) if offsets else None
    position = F.col("_mid").bitwiseAND(F.lit((1 << 33) - 1))
    line = (start[F.col("_pid")] if start is not None else F.lit(0)) + position + F.lit(1)
    return tagged.withColumn("line", line.cast("long")).drop("_pid", "_mid")


def _column_segments(group_by: Any, tables: list[tuple[str, Any, Any]]) -> Any:
    """``group_by`` naming a column of a Spark DataFrame: its distinct (user, segment) pairs as a local table."""
    from pyspark.sql import DataFrame

    if not isinstance(group_by, str):
        return group_by
    import pandas as pd

    frames = []
    for kind, frame, columns in tables:
        if isinstance(frame, DataFrame) and group_by in frame.columns:
            user = find_columns(list(frame.columns), kind, columns, f"{kind}_columns")["query_id"]
            rows = frame.select(user, group_by).distinct().collect()
            frames.append(pd.DataFrame({"query_id": [r[0] for r in rows], "segment": [r[1] for r in rows]}))
    return GroupBy(pd.concat(frames), key="query_id", segment="segment") if frames else group_by
