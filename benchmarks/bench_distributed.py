"""Distributed evaluation: rankmeter on Spark (``local[2]``) and on a 2-worker dask cluster, in one process.

Usage: ``python benchmarks/bench_distributed.py [--queries N] [--copies 1 3 10] [--operators] [--ranking-evaluator]``

* Scaling: W1 (MS MARCO-like, 1,000 documents a query) cut to its first
  ``--queries`` queries, written ``copies`` times under new query ids (so the
  aggregates stay those of the cut), evaluated by ``rankmeter.evaluate_stream``
  (this process), ``rankmeter.spark.evaluate`` and ``rankmeter.dask.evaluate``
  from the same TREC files; values checked equal to evaluate_stream's (1e-12).
* ``--operators``: the per-partition operator: repartition by query +
  ``mapInArrow`` (what rankmeter.spark uses), + ``mapInPandas``, and
  ``groupBy(query).applyInPandas`` (one call per query), each calling the same
  :func:`rankmeter.partitions.evaluate_partition`.
* ``--ranking-evaluator``: Spark's ``RankingEvaluator`` (ndcgAtK, meanAveragePrecision)
  against ``RankmeterEvaluator`` on the same DataFrame of prediction/label arrays.

Times are wall seconds of each call once the session / cluster is up (their
start is reported apart). The machine is shared: compare ratios within one run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads  # noqa: E402
from harness import agree  # noqa: E402

import rankmeter  # noqa: E402

MEASURES = ["ndcg@10", "ndcg", "map", "p@10", "r@100", "rr"]


def w1_cut(n_queries: int, copies: int) -> tuple[str, str]:
    """W1's first ``n_queries`` queries, written ``copies`` times with query ids prefixed ``0.``, ``1.``, ...

    All of W1 (6,980 queries): ``workloads.w1_copies`` (``w1x3.run``, ``w1x10.run``; W1 itself for one copy).
    """
    if n_queries >= 6980:
        paths = workloads.w1() if copies == 1 else workloads.w1_copies(copies)
        return str(paths[0]), str(paths[1])
    qrels_path = workloads.DATA / f"w1q{n_queries}x{copies}.qrels"
    run_path = workloads.DATA / f"w1q{n_queries}x{copies}.run"
    if not (qrels_path.exists() and run_path.exists()):
        keep = {str(1000 + i) for i in range(n_queries)}
        for src, dst in zip(workloads.w1(), (qrels_path, run_path), strict=True):
            with open(src) as fh:
                lines = [line for line in fh if line.split(" ", 1)[0] in keep]
            with open(dst.with_suffix(".partial"), "w") as out:
                for k in range(copies):
                    out.writelines(f"{k}.{line}" for line in lines)
            dst.with_suffix(".partial").rename(dst)
    return str(qrels_path), str(run_path)


def print_table(title: str, rows: list) -> None:
    """Rows of (label, seconds, ratio text, note) as a markdown table."""
    print(f"\n## {title}\n")
    print("| variant | s | | values |")
    print("|---|---:|---|---|")
    for label, seconds, ratio, note in rows:
        print(f"| {label} | {seconds:.2f} | {ratio} | {note} |")


def timed(call):  # noqa: ANN001, ANN201
    start = time.perf_counter()
    value = call()
    return value, time.perf_counter() - start


class PeakMemory:
    """Peak resident memory of this process's children, sampled every 0.2 s while a call runs (psutil).

    Spark ``local[2]``: the JVM (driver and executor in one) and its Python workers
    (``pyspark.daemon`` and the workers it forks); dask: each worker process.
    """

    def __init__(self) -> None:
        import threading

        self.peaks: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        import psutil

        me = psutil.Process()
        while not self._stop.wait(0.2):
            now: dict[str, float] = {}
            for child in me.children(recursive=True):
                try:
                    rss = child.memory_info().rss / 2**20
                    line = " ".join(child.cmdline())
                except psutil.Error:
                    continue
                if "java" in child.name():
                    key = "spark JVM"
                elif "pyspark" in line:
                    key = "spark Python workers (sum)"
                else:
                    now[f"dask worker {child.pid}"] = rss
                    continue
                now[key] = now.get(key, 0.0) + rss
            for key, value in now.items():
                self.peaks[key] = max(self.peaks.get(key, 0.0), value)

    def text(self, prefix: str) -> str:
        """The peaks (MiB) of the processes whose label starts with ``prefix``; dask workers: the largest."""
        found = {k: v for k, v in self.peaks.items() if k.startswith(prefix)}
        if prefix == "dask":
            return f"max dask worker {max(found.values(), default=0):.0f} MiB"
        return ", ".join(f"{k} {v:.0f} MiB" for k, v in sorted(found.items()))


def scaling(spark, copies: list[int], n_queries: int, partitions: int, per_partition: int) -> None:  # noqa: ANN001
    from rankmeter.dask import evaluate as on_dask
    from rankmeter.spark import evaluate as on_spark

    rows = []
    base: dict[str, float] = {}
    warm = w1_cut(min(n_queries, 300), 1)  # one call each first: Python workers started
    on_spark(*warm, MEASURES, partitions=2, spark=spark)
    on_dask(*warm, MEASURES, partitions=2)
    for k in copies:
        qrels, run = w1_cut(n_queries, k)
        n_rows = n_queries * 1000 * k
        n_parts = partitions or max(2, -(-n_rows // per_partition))
        local, t_local = timed(lambda: rankmeter.evaluate_stream(qrels, run, MEASURES))  # noqa: B023
        with PeakMemory() as spark_memory:
            spark_res, t_spark = timed(lambda: on_spark(qrels, run, MEASURES, partitions=n_parts, spark=spark))  # noqa: B023
        with PeakMemory() as dask_memory:
            dask_res, t_dask = timed(lambda: on_dask(qrels, run, MEASURES, partitions=n_parts))  # noqa: B023
        same_spark = agree(local.aggregate, spark_res.aggregate, tol=1e-12)
        same_dask = agree(local.aggregate, dask_res.aggregate, tol=1e-12)
        exact = np.allclose(local.values, spark_res.result.values, rtol=0, atol=1e-12) and np.allclose(
            local.values, dask_res.result.values, rtol=0, atol=1e-12
        )
        base = base or {"local": t_local, "spark": t_spark, "dask": t_dask}
        note = f"spark {same_spark}, dask {same_dask}, per-query values equal: {exact}"
        rows.append(
            (f"x{k} ({n_rows / 1e6:.2f}M rows): evaluate_stream", t_local, f"{t_local / base['local']:.2f} x x1", "")
        )
        rows.append(
            (
                f"x{k}: rankmeter.spark, local[2], {n_parts} partitions",
                t_spark,
                f"{t_spark / base['spark']:.2f} x x1",
                spark_memory.text("spark"),
            )
        )
        rows.append(
            (
                f"x{k}: rankmeter.dask, 2 workers, {n_parts} partitions",
                t_dask,
                f"{t_dask / base['dask']:.2f} x x1",
                f"{dask_memory.text('dask')}; {note}",
            )
        )
        print_table(f"Scaling: W1's first {n_queries} queries x copies (peak resident memory in the last column)", rows)


def operators(spark, n_queries: int, partitions: int, repeats: int) -> None:  # noqa: ANN001
    """mapInArrow vs mapInPandas vs applyInPandas around the same per-partition evaluation."""
    import pyarrow as pa

    from rankmeter.core.semantics import Semantics
    from rankmeter.partitions import Sources, combine, evaluate_partition
    from rankmeter.pipeline import parse_measures
    from rankmeter.spark import evaluate as on_spark
    from rankmeter.spark.evaluation import _rows

    qrels, run = w1_cut(n_queries, 1)
    measures = parse_measures(MEASURES)
    sem = Semantics.build(None, "qrels")
    sources = Sources(qrels, run, True, True)
    q = _rows(spark, qrels, "qrels", None, False)[0]
    r = _rows(spark, run, "run", None, False)[0]
    both = q.unionByName(r)
    schema = "payload binary"

    def arrow_batches(batches):  # noqa: ANN001, ANN202
        full = [b for b in batches if b.num_rows]
        if full:
            payload = evaluate_partition(pa.Table.from_batches(full), measures, sem, sources)
            yield pa.RecordBatch.from_pydict({"payload": [payload]})

    def pandas_frames(frames):  # noqa: ANN001, ANN202
        import pandas as pd

        parts = [f for f in frames if len(f)]
        if parts:
            table = pa.Table.from_pandas(pd.concat(parts), preserve_index=False)
            yield pd.DataFrame({"payload": [evaluate_partition(table, measures, sem, sources)]})

    def per_query(frame):  # noqa: ANN001, ANN202
        import pandas as pd

        table = pa.Table.from_pandas(frame, preserve_index=False)
        return pd.DataFrame({"payload": [evaluate_partition(table, measures, sem, sources)]})

    spread = both.repartition(partitions, "query_id")
    variants = [
        ("repartition + mapInArrow (rankmeter.spark)", lambda: spread.mapInArrow(arrow_batches, schema)),
        ("repartition + mapInPandas", lambda: spread.mapInPandas(pandas_frames, schema)),
        ("groupBy(query_id).applyInPandas", lambda: both.groupBy("query_id").applyInPandas(per_query, schema)),
    ]
    variants.append(
        ("rankmeter.spark.evaluate (the whole call)", lambda: on_spark(qrels, run, MEASURES, partitions=partitions))
    )
    reference = rankmeter.evaluate_stream(qrels, run, MEASURES).aggregate
    times: list[list[float]] = [[] for _ in variants]
    notes = [""] * len(variants)
    for _ in range(repeats):  # round-robin, so that the machine's load falls on every variant alike
        for i, (_, make) in enumerate(variants):
            start = time.perf_counter()
            made = make()
            if i < 3:
                payloads = made.toArrow().column("payload").to_pylist()
                notes[i] = agree(reference, combine(payloads, measures, sem, sources).aggregate, 1e-12)
            else:
                notes[i] = agree(reference, made.aggregate, 1e-12)
            times[i].append(time.perf_counter() - start)
    medians = [float(np.median(t)) for t in times]
    rows = [
        (label, m, f"{m / medians[0]:.2f} x mapInArrow", notes[i])
        for i, ((label, _), m) in enumerate(zip(variants, medians, strict=True))
    ]
    print_table(
        f"Spark operators: W1's first {n_queries} queries ({n_queries}k rows), local[2], median of {repeats} rounds",
        rows,
    )


def ranking_evaluator(spark, n_queries: int, partitions: int, repeats: int) -> None:  # noqa: ANN001
    """Spark's RankingEvaluator against rankmeter on the same data, in turns, median of ``repeats`` rounds.

    Arrays (RankingEvaluator's input: one row of 100 predicted items and 5 labels
    per query): ``RankingEvaluator`` vs ``RankmeterEvaluator``. Long rows (one row
    per (query, item), as a run and qrels): Spark's ``groupBy`` into those arrays +
    ``RankingEvaluator`` vs ``rankmeter.spark.evaluate``.
    """
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql import functions as F

    from rankmeter.spark import RankmeterEvaluator
    from rankmeter.spark import evaluate as on_spark

    rng = np.random.default_rng(7)
    rows, run_rows, qrels_rows = [], [], []
    for q in range(n_queries):
        predicted = rng.permutation(100_000)[:100].astype(float).tolist()
        labels = rng.choice(predicted + list(range(100_000, 100_010)), size=5, replace=False).astype(float).tolist()
        rows.append((predicted, labels))
        run_rows.extend((f"q{q}", d, -float(i)) for i, d in enumerate(predicted))
        qrels_rows.extend((f"q{q}", d, 1) for d in labels)
    frame = spark.createDataFrame(rows, "prediction array<double>, label array<double>").cache()
    run = spark.createDataFrame(run_rows, "query_id string, doc_id double, score double").cache()
    qrels = spark.createDataFrame(qrels_rows, "query_id string, doc_id double, relevance int").cache()
    frame.count(), run.count(), qrels.count()

    def grouped():  # noqa: ANN202 - Spark's own way from long rows to RankingEvaluator's input
        ranked = F.array_sort(F.collect_list(F.struct((-F.col("score")).alias("s"), F.col("doc_id").alias("d"))))
        predicted = run.groupBy("query_id").agg(F.transform(ranked, lambda x: x.getField("d")).alias("prediction"))
        labels = qrels.groupBy("query_id").agg(F.collect_list("doc_id").alias("label"))
        return predicted.join(labels, "query_id", "left").select(
            "prediction", F.coalesce("label", F.array()).alias("label")
        )

    import pyarrow as pa

    def count_rows(batches):  # noqa: ANN001, ANN202 - the floor of any evaluator on Python workers
        yield pa.RecordBatch.from_pydict({"n": [sum(b.num_rows for b in batches)]})

    spread = qrels.select("query_id", "doc_id", F.col("relevance").cast("double").alias("value"))
    spread = spread.unionByName(run.select("query_id", "doc_id", F.col("score").alias("value")))
    floors = [
        ("arrays: Spark's count of the rows (JVM only)", frame.count),
        ("arrays: the arrays to Python workers alone (mapInArrow counting rows)",
         lambda: frame.mapInArrow(count_rows, "n long").toArrow()),
        ("long rows: repartition by query + the rows to Python workers alone",
         lambda: spread.repartition(partitions, "query_id").mapInArrow(count_rows, "n long").toArrow()),
    ]  # fmt: skip
    table = []
    for metric, measure in (("ndcgAtK", "ndcg@10"), ("meanAveragePrecision", "map")):
        variants = [
            ("arrays: Spark RankingEvaluator", lambda m=metric: RankingEvaluator(metricName=m, k=10).evaluate(frame)),
            ("arrays: RankmeterEvaluator", lambda m=metric: RankmeterEvaluator(metricName=m, k=10).evaluate(frame)),
            (
                "long rows: Spark groupBy + RankingEvaluator",
                lambda m=metric: RankingEvaluator(metricName=m, k=10).evaluate(grouped()),
            ),
            (
                "long rows: rankmeter.spark.evaluate",
                lambda m=measure: on_spark(qrels, run, m, partitions=partitions, spark=spark)[m],
            ),
        ]
        for _, call in variants:  # warm: Python workers started, plans compiled
            call()
        times: list[list[float]] = [[] for _ in variants]
        values = [0.0] * len(variants)
        for _ in range(repeats):
            for i, (_, call) in enumerate(variants):
                values[i], seconds = timed(call)
                times[i].append(seconds)
        medians = [float(np.median(t)) for t in times]
        for i, (label, _) in enumerate(variants):
            ratio = "" if i % 2 == 0 else f"{medians[i] / medians[i - 1]:.2f} x Spark"
            table.append((f"{metric} (k=10): {label}", medians[i], ratio, f"{values[i]:.12f}"))
    for label, call in floors:
        call()
        seconds = float(np.median([timed(call)[1] for _ in range(repeats)]))
        table.append((f"floor: {label}", seconds, "", ""))
    print_table(
        f"Spark's RankingEvaluator vs rankmeter: {n_queries} queries of 100 predictions, 5 labels, "
        f"median of {repeats} rounds in turns",
        table,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=6980, help="W1's first N queries (default: all 6,980)")
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 3, 10])
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument(
        "--scale-partitions",
        type=int,
        default=0,
        help="partitions of the scaling runs (default: by --rows-per-partition)",
    )
    parser.add_argument("--rows-per-partition", type=int, default=1_000_000)
    parser.add_argument("--operators", action="store_true")
    parser.add_argument("--ranking-evaluator", action="store_true")
    parser.add_argument("--no-scaling", action="store_true")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the operator comparison (median)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from dask.distributed import Client, LocalCluster

    from rankmeter.spark import local_session

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark, t_spark = timed(lambda: local_session("local[2]", partitions=args.partitions))
    spark.sparkContext.setLogLevel("ERROR")
    (cluster, client), t_dask = timed(
        lambda: (c := LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None), Client(c))
    )
    print(f"Spark local[2] session: {t_spark:.1f} s to start; dask 2-worker LocalCluster: {t_dask:.1f} s")
    try:
        if not args.no_scaling:
            scaling(spark, args.copies, args.queries, args.scale_partitions, args.rows_per_partition)
        if args.operators:
            operators(spark, args.queries, args.partitions, args.repeats)
        if args.ranking_evaluator:
            ranking_evaluator(spark, args.queries, args.partitions, args.repeats)
    finally:
        client.close()
        cluster.close()
        spark.stop()


if __name__ == "__main__":
    main()
