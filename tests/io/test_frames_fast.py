"""In-memory tables reach the core without a Python-object pass, with the values of the TREC files.

Every table form of one random, tie-heavy qrels + run pair -- pandas with
object, Arrow-backed and categorical id columns, polars with String and
Categorical ids, Arrow tables with plain and dictionary-encoded ids (chunked
too) -- gives exactly the result of the same data read from TREC files, for
every tie policy (``trec`` orders tied documents by their id string, so a
categorical column's codes must order as its strings do).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import rankmeter
from rankmeter.ids.convert import as_ids
from rankmeter.ids.hashing import document_keys
from rankmeter.ids.order import string_sort_keys

MEASURES = ["ndcg@10", "ndcg", "map", "p@5", "rr", "r@20", "success@3"]


def tables(seed: int, n_queries: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Qrels and run with coarse scores (many ties), ids of different lengths, unjudged and unretrieved docs."""
    rng = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in range(n_queries):
        qid = f"q{q * 7 % 13}-{q}"
        docs = [f"d{int(x)}" + "x" * int(rng.integers(0, 12)) for x in rng.choice(400, size=60, replace=False)]
        scores = rng.integers(0, 6, size=len(docs)) / 2
        runs += [(qid, d, float(s)) for d, s in zip(docs, scores, strict=True)]
        judged = rng.choice(len(docs), size=20, replace=False)
        qrels += [(qid, docs[j], int(rng.integers(-1, 4))) for j in judged]
        qrels.append((qid, f"unretrieved-{q}", 2))
    run = pd.DataFrame(runs, columns=["query_id", "doc_id", "score"]).sample(frac=1.0, random_state=seed)
    qr = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    return qr, run


def write_trec(qrels: pd.DataFrame, run: pd.DataFrame, where: Path) -> tuple[Path, Path]:
    qp, rp = where / "q.txt", where / "r.txt"
    qp.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False)))
    rp.write_text("".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, d, s in run.itertuples(index=False)))
    return qp, rp


def forms(qrels: pd.DataFrame, run: pd.DataFrame) -> dict[str, tuple]:
    ids = ["query_id", "doc_id"]

    def with_ids(frame: pd.DataFrame, dtype: object) -> pd.DataFrame:
        return frame.astype({c: dtype for c in ids})

    def arrow(frame: pd.DataFrame, encode: bool, chunks: int = 1) -> pa.Table:
        table = pa.Table.from_pandas(with_ids(frame, object), preserve_index=False)
        if encode:
            table = table.set_column(0, "query_id", table["query_id"].dictionary_encode())
            table = table.set_column(1, "doc_id", table["doc_id"].dictionary_encode())
        if chunks > 1:
            step = -(-len(frame) // chunks)
            table = pa.concat_tables([table.slice(i, step) for i in range(0, len(frame), step)])
        return table

    return {
        "pandas object": (with_ids(qrels, object), with_ids(run, object)),
        "pandas str (Arrow-backed)": (with_ids(qrels, "string[pyarrow]"), with_ids(run, "string[pyarrow]")),
        "pandas categorical": (with_ids(qrels, "category"), with_ids(run, "category")),
        "polars String": (pl.from_pandas(with_ids(qrels, object)), pl.from_pandas(with_ids(run, object))),
        "polars Categorical": (
            pl.from_pandas(with_ids(qrels, object)).with_columns(pl.col(ids).cast(pl.Categorical)),
            pl.from_pandas(with_ids(run, object)).with_columns(pl.col(ids).cast(pl.Categorical)),
        ),
        "arrow": (arrow(qrels, False), arrow(run, False)),
        "arrow dictionary": (arrow(qrels, True), arrow(run, True)),
        "arrow dictionary, chunked": (arrow(qrels, True, 3), arrow(run, True, 4)),
    }


@pytest.mark.parametrize("ties", ["trec", "stable", "expected", "optimistic", "pessimistic"])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_table_form_gives_the_files_values(ties: str, seed: int, tmp_path: Path) -> None:
    qrels, run = tables(seed)
    ref = rankmeter.evaluate(*write_trec(qrels, run, tmp_path), MEASURES, ties=ties)
    for name, (q, r) in forms(qrels, run).items():
        res = rankmeter.evaluate(q, r, MEASURES, ties=ties)
        assert res.query_ids.tolist() == ref.query_ids.tolist(), name
        assert np.array_equal(res.values, ref.values, equal_nan=True), name
        assert res.aggregate == ref.aggregate, name
        for key in ("queries_with_ties", "queries_with_ties_at_cutoff", "queries_evaluated", "unjudged_retrieved"):
            assert res.metadata.get(key) == ref.metadata.get(key), (name, key)


def test_categorical_ids_arrive_as_codes() -> None:
    from rankmeter.io.frames import run_from_frame

    qrels, run = tables(5)
    for name in ("pandas categorical", "polars Categorical", "arrow dictionary", "arrow dictionary, chunked"):
        table = run_from_frame(forms(qrels, run)[name][1])
        assert as_ids(table.query_ids).is_coded and as_ids(table.doc_ids).is_coded, name
    assert not as_ids(run_from_frame(forms(qrels, run)["arrow"][1]).doc_ids).is_coded


def test_duplicates_are_found_in_categorical_columns() -> None:
    qrels, run = tables(2)
    run = pd.concat([run, run.iloc[[5]]])
    for name, (q, r) in forms(qrels, run).items():
        with pytest.raises(rankmeter.errors.DuplicateEntryError, match=str(run.iloc[5]["doc_id"])):
            rankmeter.evaluate(q, r, "map")
        assert rankmeter.evaluate(q, r, "map", duplicates="first")["map"] == pytest.approx(
            rankmeter.evaluate(qrels, run, "map", duplicates="first")["map"], abs=0
        ), name


def test_coded_columns_are_keyed_and_ordered_through_their_dictionary() -> None:
    values = ["b", "a", "ab", "b", "", "a"]
    coded = as_ids(pa.array(values).dictionary_encode())
    plain = as_ids(pa.array(values))
    assert coded.is_coded and not plain.is_coded
    assert np.array_equal(document_keys(coded), document_keys(plain))
    rows = np.array([0, 1, 2, 4, 5])
    ranks = string_sort_keys(coded, rows)
    assert len(ranks) == 1 and np.argsort(ranks[0], kind="stable").tolist() == [3, 1, 4, 2, 0]  # "", a, a, ab, b


def test_numeric_categories_are_read_as_their_text(tmp_path: Path) -> None:
    qrels, run = tables(3, n_queries=10)
    codes = {q: i for i, q in enumerate(sorted(set(qrels["query_id"])))}
    qrels["query_id"], run["query_id"] = qrels["query_id"].map(codes), run["query_id"].map(codes)
    ref = rankmeter.evaluate(*write_trec(qrels, run, tmp_path), MEASURES)
    res = rankmeter.evaluate(qrels.astype({"query_id": "category"}), run.astype({"query_id": "category"}), MEASURES)
    assert res.query_ids.tolist() == ref.query_ids.tolist()
    assert np.array_equal(res.values, ref.values, equal_nan=True)


def test_large_dictionaries_are_read_as_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rankmeter.io.frames as frames

    monkeypatch.setattr(frames, "LARGE_DICTIONARY", 3)
    qrels, run = tables(4)
    ref = rankmeter.evaluate(*write_trec(qrels, run, tmp_path), MEASURES)
    for name in ("pandas categorical", "polars Categorical", "arrow dictionary, chunked"):
        q, r = forms(qrels, run)[name]
        assert not as_ids(frames.run_from_frame(r).doc_ids).is_coded, name
        res = rankmeter.evaluate(q, r, MEASURES)
        assert np.array_equal(res.values, ref.values, equal_nan=True), name
