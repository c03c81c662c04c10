"""Random, tie-heavy, ragged qrels and runs shared by the Spark and Dask tests, and the measures they check."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tests.properties.test_properties import EVERYTHING

TIES = ["trec", "stable", "expected", "shuffle", "optimistic", "pessimistic"]
TREC_FAMILIES = [
    "bpref",
    "infap",
    "gm_map",
    "rbp",
    "iprec_at_recall(recall=0.5)",
    "set_f",
    "utility",
    "rndcg",
    "yaap",
    "unj@5",
]
MEASURES = EVERYTHING + TREC_FAMILIES
# expected ties are exact for the measures rankmeter defines with them; depth and judged_only go with the others
EXPECTED_MEASURES = EVERYTHING


def tables(seed: int = 0, n_queries: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Qrels and run frames: grades -1..3, scores from 4 values (many ties), lists of 0 to 30 documents.

    Some judged queries have no run rows (missing), some run queries no judgments (run-only), some
    queries no relevant document (empty).
    """
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for i in range(n_queries):
        q = f"q{i:03d}"
        docs = [f"d{j}" for j in rng.permutation(40)]
        if i % 9 != 8:  # run-only queries have no judgments
            for d in docs[: rng.integers(1, 15)]:
                grade = 0 if i % 7 == 3 else int(rng.integers(-1, 4))  # some queries with nothing relevant
                qrels.append((q, d, grade))
        if i % 11 != 5:  # missing queries have no run rows
            for d in docs[rng.integers(0, 10) : rng.integers(10, 35)]:
                run.append((q, d, float(rng.integers(0, 4)) / 2))
    q_frame = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    r_frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    return q_frame, r_frame


def trec_lines(qrels: pd.DataFrame, run: pd.DataFrame) -> tuple[str, str]:
    """The two frames as TREC qrels and run text."""
    q = "".join(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n" for r in qrels.itertuples())
    r = "".join(f"{r.query_id} Q0 {r.doc_id} 0 {r.score} tag\n" for r in run.itertuples())
    return q, r


def same_result(distributed: object, local: object, tol: float = 1e-12) -> None:
    """Per-query values, inclusion, aggregates and metadata (but where the rows came from) agree."""
    d, loc = distributed, local
    assert d.query_ids.tolist() == loc.query_ids.tolist()  # type: ignore[attr-defined]
    assert d.measure_names == loc.measure_names  # type: ignore[attr-defined]
    assert np.array_equal(d.included, loc.included)  # type: ignore[attr-defined]
    assert np.allclose(d.values, loc.values, rtol=0, atol=tol, equal_nan=True)  # type: ignore[attr-defined]
    for name, value in loc.aggregate.items():  # type: ignore[attr-defined]
        assert np.isclose(d.aggregate[name], value, rtol=0, atol=tol, equal_nan=True), name  # type: ignore[attr-defined]
    skip = {"qrels_source", "run_source", "engine", "partitions", "qrels_columns", "run_columns"}
    dm = {k: v for k, v in d.metadata.items() if k not in skip}  # type: ignore[attr-defined]
    lm = {k: v for k, v in loc.metadata.items() if k not in skip}  # type: ignore[attr-defined]
    assert dm == lm


def cli_engine_matches_local(engine: str, qrels: pd.DataFrame, run: pd.DataFrame, tmp_path, capsys) -> list[str]:  # type: ignore[no-untyped-def]
    """Assert ``rankmeter evaluate --engine ENGINE`` prints the local output and refuses ``--stream``.

    Writes the tables as TREC files under ``tmp_path``; returns the command line (without ``--engine``).
    """
    from rankmeter.cli.main import main

    q_text, r_text = trec_lines(qrels, run)
    (tmp_path / "q.txt").write_text(q_text)
    (tmp_path / "r.txt").write_text(r_text)
    argv = ["evaluate", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-m", "ndcg@5", "-m", "bpref", "--per-query"]
    assert main([*argv, "--format", "trec"]) == 0
    local = capsys.readouterr().out
    assert main([*argv, "--format", "trec", "--engine", engine, "--partitions", "3"]) == 0
    assert capsys.readouterr().out == local
    assert main([*argv, "--engine", engine, "--stream"]) == 2
    assert "--stream reads the run in this process" in capsys.readouterr().err
    return argv
