"""rankmeter.dask.evaluate on a real dask.distributed.LocalCluster (2 workers): rankmeter.evaluate's values."""

from __future__ import annotations

import gzip
from pathlib import Path

import dask.dataframe as dd
import numpy as np
import pytest
from dask.distributed import Client, LocalCluster

import rankmeter
from rankmeter.dask import evaluate
from rankmeter.errors import DuplicateEntryError, InputFormatError, InvalidScoreError, PolicyError
from tests.distributed.data import (
    EXPECTED_MEASURES,
    MEASURES,
    TIES,
    cli_engine_matches_local,
    same_result,
    tables,
    trec_lines,
)

QRELS, RUN = tables(seed=1)


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def frames(client):
    return dd.from_pandas(QRELS, npartitions=3), dd.from_pandas(RUN, npartitions=4)


@pytest.mark.parametrize("ties", TIES)
def test_values_equal_local_for_every_partitioning(frames, ties) -> None:
    measures = EXPECTED_MEASURES if ties == "expected" else MEASURES
    local = rankmeter.evaluate(QRELS, RUN, measures, ties=ties, seed=4)
    for n in (1, 2, 7, 64):
        result = evaluate(*frames, measures, ties=ties, seed=4, partitions=n)
        same_result(result.result, local)
        assert result.metadata["engine"] == "dask" and result.metadata["partitions"] == n


def test_row_order_and_input_partitions_do_not_matter(client) -> None:
    rng = np.random.default_rng(8)
    qrels = dd.from_pandas(QRELS.iloc[rng.permutation(len(QRELS))], npartitions=5)
    run = dd.from_pandas(RUN.iloc[rng.permutation(len(RUN))], npartitions=2)
    local = rankmeter.evaluate(QRELS, RUN, MEASURES, ties="shuffle", seed=9)
    same_result(evaluate(qrels, run, MEASURES, ties="shuffle", seed=9, partitions=3).result, local)


def test_per_query_frame_and_policies(frames) -> None:
    options = {"empty": "skip", "missing": "skip", "depth": 4, "judged_only": True}
    local = rankmeter.evaluate(QRELS, RUN, MEASURES, **options)
    result = evaluate(*frames, MEASURES, partitions=3, **options)
    same_result(result.result, local)
    rows = {(r.query_id, r.measure): r.value for r in result.per_query.itertuples()}
    expected = {(r["query_id"], r["measure"]): r["value"] for r in local.per_query}
    assert rows.keys() == expected.keys()
    assert all(np.isclose(rows[k], v, rtol=0, atol=1e-12, equal_nan=True) for k, v in expected.items())


def test_files_trec_gzip_and_parquet(client, tmp_path: Path) -> None:
    q_text, r_text = trec_lines(QRELS, RUN)
    (tmp_path / "q.txt").write_text("# judgments\n" + q_text)
    (tmp_path / "r.txt.gz").write_bytes(gzip.compress(r_text.encode()))
    RUN.rename(columns={"query_id": "qid"}).to_parquet(tmp_path / "r.parquet")
    for run in ("r.txt.gz", "r.parquet"):
        local = rankmeter.evaluate(str(tmp_path / "q.txt"), str(tmp_path / run), MEASURES)
        result = evaluate(str(tmp_path / "q.txt"), str(tmp_path / run), MEASURES, partitions=3)
        same_result(result.result, local)
    assert result.metadata["run_columns"] == {"query_id": "qid", "doc_id": "doc_id", "score": "score"}


@pytest.mark.parametrize("block_bytes", [40, 64 << 20])
def test_duplicate_in_a_run_file_names_both_lines(client, tmp_path: Path, monkeypatch, block_bytes) -> None:
    from rankmeter.dask import evaluation

    monkeypatch.setattr(evaluation, "TEXT_BLOCK_BYTES", block_bytes)  # blocks of two lines, or one block
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 a 1 1.0 t\n\nq2 Q0 b 1 1.0 t\nq1 Q0 a 2 0.5 t\n")
    with pytest.raises(DuplicateEntryError) as local:
        rankmeter.evaluate({"q1": {"a": 1}}, str(run), "map")
    with pytest.raises(DuplicateEntryError, match=r"r\.txt:4: .*query 'q1'.*document 'a'") as remote:
        evaluate({"q1": {"a": 1}}, str(run), "map", partitions=3)
    assert str(remote.value) == str(local.value)


def test_duplicate_in_a_dataframe_names_its_rows(client) -> None:
    frame = RUN.iloc[:5].copy()
    frame.loc[4] = [frame.query_id.iloc[0], frame.doc_id.iloc[0], 7.0]
    with pytest.raises(DuplicateEntryError) as local:
        rankmeter.evaluate(QRELS, frame, "map")
    with pytest.raises(DuplicateEntryError, match=r"<run DataFrame>:5: ") as remote:
        evaluate(QRELS, dd.from_pandas(frame, npartitions=2), "map", partitions=2)
    assert str(remote.value).split(": ", 1)[1] == str(local.value).split(": ", 1)[1]


def test_bad_score_in_a_file(client, tmp_path: Path) -> None:
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 a 1 1.0 t\nq2 Q0 b 1 high t\n")
    with pytest.raises(InvalidScoreError, match=r"r\.txt:2: query 'q2', document 'b': score 'high' is not a number"):
        evaluate({"q1": {"a": 1}}, str(run), "map")


def test_a_text_score_column_that_is_not_a_number(client, tmp_path: Path) -> None:
    (tmp_path / "r.csv").write_text("query_id,doc_id,score\nq1,a,1.0\nq1,b,lots\n")
    with pytest.raises(InputFormatError, match=r"run column 'score': query 'q1', document 'b': score 'lots'"):
        evaluate({"q1": {"a": 1}}, str(tmp_path / "r.csv"), "map")


def test_missing_error_names_the_missing_queries(frames) -> None:
    with pytest.raises(PolicyError, match=r"judged queries have no documents in the run <run DataFrame>: q005"):
        evaluate(*frames, "map", missing="error", partitions=7)


def test_cli_engine_gives_the_local_output(client, tmp_path: Path, capsys) -> None:
    from rankmeter.cli.main import main

    argv = cli_engine_matches_local("dask", QRELS, RUN, tmp_path, capsys)
    (tmp_path / "r2.txt").write_text(trec_lines(QRELS, RUN.assign(score=-RUN.score))[1])
    two = [*argv[:3], str(tmp_path / "r2.txt"), *argv[3:], "--format", "csv"]
    assert main(two) == 0
    local = capsys.readouterr().out
    assert main([*two, "--engine", "dask"]) == 0
    assert capsys.readouterr().out == local


def test_the_options_value_and_the_keywords_give_the_local_values(frames) -> None:
    seen = {q: [d] for q, d in zip(RUN["query_id"][:30], RUN["doc_id"][:30], strict=True)}
    segments = {q: f"s{int(q[1:]) % 3}" for q in QRELS["query_id"].unique()}
    local = rankmeter.evaluate(QRELS, RUN, ["map", "ndcg@10"], exclude=seen, group_by=segments)
    by_value = evaluate(
        *frames, ["map", "ndcg@10"], options=rankmeter.EvaluationOptions(exclude=seen, group_by=segments)
    )
    by_keyword = evaluate(*frames, ["map", "ndcg@10"], exclude=seen, group_by=segments)
    for result in (by_value, by_keyword):
        same_result(result.result, local)
        assert result.result.by_group("map") == pytest.approx(local.by_group("map"), rel=1e-12)
    with pytest.raises(PolicyError, match="rankmeter.dask.evaluate does not take threads="):
        evaluate(*frames, "map", options=rankmeter.EvaluationOptions(threads=2))
