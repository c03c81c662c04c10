"""rankmeter.spark.evaluate on a real local Spark session: the values of rankmeter.evaluate, whatever the partitioning."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter.errors import DuplicateEntryError, InputFormatError, InvalidScoreError, PolicyError
from rankmeter.spark import evaluate
from tests.distributed.data import (
    EXPECTED_MEASURES,
    MEASURES,
    TIES,
    cli_engine_matches_local,
    same_result,
    tables,
    trec_lines,
)

QRELS, RUN = tables()


@pytest.fixture(scope="module")
def frames(spark):
    return spark.createDataFrame(QRELS), spark.createDataFrame(RUN)


@pytest.mark.parametrize("ties", TIES)
def test_values_equal_local_for_every_partitioning(spark, frames, ties) -> None:
    measures = EXPECTED_MEASURES if ties == "expected" else MEASURES
    local = rankmeter.evaluate(QRELS, RUN, measures, ties=ties, seed=11)
    for n in (1, 2, 7, 64):
        result = evaluate(*frames, measures, ties=ties, seed=11, partitions=n, spark=spark)
        same_result(result.result, local)
        assert result.metadata["partitions"] == n


def test_row_order_does_not_matter(spark) -> None:
    rng = np.random.default_rng(5)
    qrels = QRELS.iloc[rng.permutation(len(QRELS))]
    run = RUN.iloc[rng.permutation(len(RUN))]
    local = rankmeter.evaluate(QRELS, RUN, MEASURES, ties="shuffle", seed=2)
    result = evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), MEASURES, ties="shuffle", seed=2)
    same_result(result.result, local)


def test_per_query_dataframe_holds_the_values(spark, frames) -> None:
    result = evaluate(*frames, ["ndcg@5", "map"], empty="skip", spark=spark)
    rows = {(r.query_id, r.measure): r.value for r in result.per_query.collect()}
    local = rankmeter.evaluate(QRELS, RUN, ["ndcg@5", "map"], empty="skip")
    expected = {(r["query_id"], r["measure"]): r["value"] for r in local.per_query}
    assert rows.keys() == expected.keys()
    assert all(np.isclose(rows[k], v, rtol=0, atol=1e-12) for k, v in expected.items())
    assert np.isclose(result["map"], local["map"], rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "options",
    [
        {"empty": "skip", "missing": "skip"},
        {"empty": "nan", "depth": 5},
        {"empty": "one", "judged_only": True},
        {"ties": "stable", "missing": "zero", "depth": 3},
    ],
)
def test_policies_and_metadata_equal_local(spark, frames, options) -> None:
    local = rankmeter.evaluate(QRELS, RUN, MEASURES, **options)
    same_result(evaluate(*frames, MEASURES, partitions=3, spark=spark, **options).result, local)


def test_trec_files_plain_and_gzip(spark, tmp_path: Path) -> None:
    q_text, r_text = trec_lines(QRELS, RUN)
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt.gz"
    qrels.write_text("# judgments\n" + q_text)
    run.write_bytes(gzip.compress(("\n" + r_text).encode()))
    local = rankmeter.evaluate(str(qrels), str(run), MEASURES)
    result = evaluate(str(qrels), str(run), MEASURES, partitions=5, spark=spark)
    same_result(result.result, local)
    assert result.metadata["run_name"] == "tag" and result.metadata["run_source"] == str(run)


def test_parquet_and_csv_with_column_names(spark, tmp_path: Path) -> None:
    qrels = QRELS.rename(columns={"query_id": "user", "doc_id": "item", "relevance": "rating"})
    qrels.to_csv(tmp_path / "q.csv", index=False)
    RUN.rename(columns={"query_id": "qid", "doc_id": "docno"}).to_parquet(tmp_path / "r.parquet")
    columns = {"query_id": "user", "doc_id": "item", "relevance": "rating"}
    local = rankmeter.evaluate(QRELS, RUN, ["ndcg@10", "map"])
    result = evaluate(
        str(tmp_path / "q.csv"), str(tmp_path / "r.parquet"), ["ndcg@10", "map"], qrels_columns=columns, spark=spark
    )
    same_result(result.result, local)
    assert result.metadata["qrels_columns"] == columns
    assert result.metadata["run_columns"] == {"query_id": "qid", "doc_id": "docno", "score": "score"}


def test_duplicates_first_keeps_the_first_line(spark, tmp_path: Path) -> None:
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 3.0 t\nq1 Q0 a 3 5.0 t\n")
    qrels = {"q1": {"a": 1, "b": 0}}
    for policy in ("first", "max"):
        local = rankmeter.evaluate(qrels, str(run), ["rr", "map"], duplicates=policy)
        result = evaluate(qrels, str(run), ["rr", "map"], duplicates=policy, partitions=2, spark=spark)
        same_result(result.result, local)


# --- errors: raised on the driver, located as rankmeter.evaluate locates them -----------------------------------
def test_duplicate_in_a_run_file_names_both_lines(spark, tmp_path: Path) -> None:
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 a 1 1.0 t\n\nq2 Q0 b 1 1.0 t\nq1 Q0 a 2 0.5 t\n")
    with pytest.raises(DuplicateEntryError, match=r"r\.txt:4: .*query 'q1'.*document 'a'") as local:
        rankmeter.evaluate({"q1": {"a": 1}}, str(run), "map")
    with pytest.raises(DuplicateEntryError) as remote:
        evaluate({"q1": {"a": 1}}, str(run), "map", partitions=3, spark=spark)
    assert str(remote.value) == str(local.value)


def test_malformed_line_names_its_file_and_line(spark, tmp_path: Path) -> None:
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 a 1 1.0 t\n# comment\nq2 Q0 b 1\nq3 Q0 c 1 2.0 t\n")
    with pytest.raises(InputFormatError, match=r"r\.txt:3: expected at least 6 whitespace-separated columns .*got 4"):
        evaluate({"q1": {"a": 1}}, str(run), "map", partitions=2, spark=spark)


def test_bad_score_in_a_file_names_line_query_and_document(spark, tmp_path: Path) -> None:
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 a 1 1.0 t\nq2 Q0 b 1 high t\n")
    with pytest.raises(InvalidScoreError, match=r"r\.txt:2: query 'q2', document 'b': score 'high' is not a number"):
        evaluate({"q1": {"a": 1}}, str(run), "map", spark=spark)


def test_nan_score_in_a_dataframe_is_an_error(spark) -> None:
    run = spark.createDataFrame([("q1", "a", 1.0), ("q1", "b", float("nan"))], ["query_id", "doc_id", "score"])
    with pytest.raises(InvalidScoreError, match="query 'q1'.*document 'b'"):
        evaluate({"q1": {"a": 1}}, run, "map", spark=spark)


def test_missing_error_names_every_missing_query(spark, frames) -> None:
    with pytest.raises(PolicyError, match=r"4 judged queries have no documents in the run .*q016, q027, q038"):
        evaluate(*frames, "map", missing="error", partitions=7, spark=spark)


def test_empty_error_is_raised_on_the_driver(spark, frames) -> None:
    with pytest.raises(PolicyError, match="no relevant"):
        evaluate(*frames, "map", empty="error", spark=spark)


def test_a_missing_column_is_named(spark) -> None:
    run = spark.createDataFrame([("q1", "a", 1.0)], ["query_id", "document", "score"])
    with pytest.raises(InputFormatError, match="doc_id"):
        evaluate({"q1": {"a": 1}}, run, "map", spark=spark)


def test_a_text_score_column_that_is_not_a_number(spark, tmp_path: Path) -> None:
    (tmp_path / "r.csv").write_text("query_id,doc_id,score\nq1,a,1.0\nq1,b,lots\n")
    with pytest.raises(InputFormatError, match=r"run column 'score': query 'q1', document 'b': score 'lots'"):
        evaluate({"q1": {"a": 1}}, str(tmp_path / "r.csv"), "map", spark=spark)


def test_a_missing_file_is_named(spark, tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match=r"nope\.txt: cannot read file"):
        evaluate({"q1": {"a": 1}}, str(tmp_path / "nope.txt"), "map", spark=spark)


def test_cli_engine_gives_the_local_output(spark, tmp_path: Path, capsys) -> None:
    cli_engine_matches_local("spark", QRELS, RUN, tmp_path, capsys)


# --- RankmeterEvaluator: RankingEvaluator's input and metric names ----------------------------------------------
def _ranking_rows(seed: int, min_labels: int, duplicates: bool = False) -> list[tuple[list[float], list[float]]]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(25):
        predicted = [float(x) for x in rng.permutation(30)[: rng.integers(1, 12)]]
        if duplicates and i % 3 == 0:
            predicted = predicted[:1] * 3 + predicted[1:]
        labels = [float(x) for x in rng.permutation(30)[: rng.integers(min_labels, 12)]]
        rows.append((predicted, labels))
    rows.append(([1.0, 2.0], []))  # no labels: 0 in Spark's mean
    return rows


def _local_value(rows: list, measure: str, grades: list | None = None) -> float:
    qrels = {
        str(i): {str(x): (grades[i][j] if grades else 1) for j, x in enumerate(lab)} for i, (_, lab) in enumerate(rows)
    }
    for i, (_, lab) in enumerate(rows):
        qrels[str(i)].setdefault("none", 0) if not lab else None
    run = {str(i): {} for i in range(len(rows))}
    for i, (pred, _) in enumerate(rows):
        for pos, x in enumerate(pred):
            run[str(i)].setdefault(str(x), -float(pos))
    return rankmeter.evaluate(qrels, {q: d for q, d in run.items() if d}, measure, ties="stable")[measure]


@pytest.mark.parametrize(
    ("metric", "k"),
    [("meanAveragePrecision", 10), ("precisionAtK", 5), ("recallAtK", 5), ("ndcgAtK", 5), ("ndcgAtK", 20),
     ("meanAveragePrecisionAtK", 12)],
)  # fmt: skip
def test_evaluator_agrees_with_sparks_ranking_evaluator(spark, metric, k) -> None:
    from pyspark.ml.evaluation import RankingEvaluator

    from rankmeter.spark import RankmeterEvaluator

    frame = spark.createDataFrame(_ranking_rows(3, min_labels=3), "prediction array<double>, label array<double>")
    ours = RankmeterEvaluator(metricName=metric, k=k, partitions=3).evaluate(frame)
    theirs = RankingEvaluator(metricName=metric, k=k).evaluate(frame)
    assert ours == pytest.approx(theirs, abs=1e-12)  # map@12: no label set holds more than 12 items, divisors agree


def test_evaluator_map_at_k_divides_by_min_of_labels_and_k(spark) -> None:
    from pyspark.ml.evaluation import RankingEvaluator

    from rankmeter.spark import RankmeterEvaluator

    rows = _ranking_rows(4, min_labels=1)
    assert any(len(set(lab)) > 8 for _, lab in rows)  # some label sets are larger than k
    frame = spark.createDataFrame(rows, "prediction array<double>, label array<double>")
    ours = RankmeterEvaluator(metricName="meanAveragePrecisionAtK", k=8).evaluate(frame)
    theirs = RankingEvaluator(metricName="meanAveragePrecisionAtK", k=8).evaluate(frame)
    assert ours == pytest.approx(theirs, abs=1e-12)
    assert ours == pytest.approx(_local_value(rows, "map(divisor=min)@8"), abs=1e-12)
    assert _local_value(rows, "map@8") < theirs  # trec_eval's map_cut divides by |labels| >= min(|labels|, k)


def test_evaluator_counts_a_duplicated_item_once(spark) -> None:
    from pyspark.ml.evaluation import RankingEvaluator

    from rankmeter.spark import RankmeterEvaluator

    rows = [([1.0, 1.0, 1.0, 2.0], [1.0])]
    frame = spark.createDataFrame(rows, "prediction array<double>, label array<double>")
    assert RankingEvaluator(metricName="ndcgAtK", k=3).evaluate(frame) > 1.0  # every copy is a hit in Spark
    assert RankmeterEvaluator(metricName="ndcgAtK", k=3).evaluate(frame) == 1.0
    with pytest.raises(DuplicateEntryError, match="document '1.0'"):
        RankmeterEvaluator(metricName="ndcgAtK", k=3, duplicates="error").evaluate(frame)


def test_evaluator_graded_ndcg_and_param_maps(spark) -> None:
    from rankmeter.spark import RankmeterEvaluator

    rows = _ranking_rows(5, min_labels=1)[:-1]
    grades = [[float(j % 3 + 1) for j in range(len(lab))] for _, lab in rows]
    frame = spark.createDataFrame(
        [(p, lab, g) for (p, lab), g in zip(rows, grades, strict=True)],
        "prediction array<double>, label array<double>, relevance array<double>",
    )
    evaluator = RankmeterEvaluator(metricName="ndcgAtK", k=4, relevanceCol="relevance")
    assert evaluator.measure() == "ndcg(gain=exp)@4" and evaluator.isLargerBetter()
    assert evaluator.evaluate(frame) == pytest.approx(_local_value(rows, "ndcg(gain=exp)@4", grades), abs=1e-12)
    p2 = evaluator.evaluate(frame, {evaluator.metricName: "precisionAtK", evaluator.k: 2})
    assert p2 == pytest.approx(_local_value(rows, "p@2"), abs=1e-12)
    assert evaluator.copy({evaluator.metricName: "bpref"}).measure() == "bpref"


def test_compare_on_per_query_values_from_spark(spark, frames) -> None:
    """Per-query values collected from Spark feed rankmeter.compare_per_query like local ones."""
    other = RUN.assign(score=-RUN.score)
    measures = ["ndcg@5", "map"]
    a = evaluate(*frames, measures, spark=spark).result
    b = evaluate(frames[0], spark.createDataFrame(other), measures, spark=spark).result
    remote = rankmeter.compare_per_query({s: (r.query_ids, r.measure_names, r.values) for s, r in (("a", a), ("b", b))})
    local = rankmeter.compare(QRELS, {"a": RUN, "b": other}, measures)
    for m in measures:
        assert remote.system("b", m).mean == pytest.approx(local.system("b", m).mean, abs=1e-12)
    for theirs, ours in zip(local.pairs, remote.pairs, strict=True):
        assert (ours.measure, ours.system) == (theirs.measure, theirs.system)
        assert ours.p_value == pytest.approx(theirs.p_value, abs=1e-12)


def test_evaluator_top_k_with_a_repeat_reads_the_whole_rows(spark) -> None:
    """``ndcgAtK`` sends only the first k items, unless a row repeats one there: the items after it move up."""
    from rankmeter.spark import RankmeterEvaluator

    rows = [([1.0, 1.0, 2.0, 3.0], [3.0]), ([4.0, 5.0, 6.0], [6.0, 7.0])]  # row 0: 3.0 moves from 4th to 3rd
    frame = spark.createDataFrame(rows, "prediction array<double>, label array<double>")
    assert RankmeterEvaluator(metricName="ndcgAtK", k=3).evaluate(frame) == pytest.approx(
        _local_value(rows, "ndcg@3"), abs=1e-12
    )
    assert RankmeterEvaluator(metricName="precisionAtK", k=3).evaluate(frame) == pytest.approx(1 / 3, abs=1e-12)


def test_evaluator_errors_are_raised_on_the_driver(spark) -> None:
    from rankmeter.spark import RankmeterEvaluator

    frame = spark.createDataFrame([(["a", "b"], ["b", None])], "prediction array<string>, label array<string>")
    with pytest.raises(InputFormatError, match=r"partition \d+, row 0: column 'label' holds a null item"):
        RankmeterEvaluator(metricName="recallAtK", k=2).evaluate(frame)
    with pytest.raises(PolicyError, match="duplicates must be 'first' or 'error', got 'max'"):
        RankmeterEvaluator(duplicates="max").evaluate(frame)


def test_the_options_value_and_the_keywords_give_the_local_values(spark, frames) -> None:
    seen = {q: [d] for q, d in zip(RUN["query_id"][:30], RUN["doc_id"][:30], strict=True)}
    segments = {q: f"s{int(q[1:]) % 3}" for q in QRELS["query_id"].unique()}
    local = rankmeter.evaluate(QRELS, RUN, ["map", "ndcg@10"], exclude=seen, group_by=segments)
    by_value = evaluate(
        *frames, ["map", "ndcg@10"], spark=spark, options=rankmeter.EvaluationOptions(exclude=seen, group_by=segments)
    )
    by_keyword = evaluate(*frames, ["map", "ndcg@10"], spark=spark, exclude=seen, group_by=segments)
    for result in (by_value, by_keyword):
        same_result(result.result, local)
        assert result.result.by_group("map") == pytest.approx(local.by_group("map"), rel=1e-12)
    with pytest.raises(PolicyError, match="rankmeter.spark.evaluate does not take workers="):
        evaluate(*frames, "map", spark=spark, options=rankmeter.EvaluationOptions(workers=2))
