"""Differential properties: the same random valid input through every entry point that takes it gives the same values.

Files (plain, .gz), streaming in blocks, threads 1/2/4 (the parallel path forced on small inputs),
pandas, polars, Arrow and dicts; ragged lists and dense arrays where judgments are complete. Row order,
query order and id renaming change nothing; an unjudged document appended below every list keeps
nDCG and AP.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.core import join as join_module
from tests.properties.test_properties import collections_

SETTINGS = settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))
MEASURES = ["ndcg", "ndcg@[1,3,5]", "ndcg(gain=exp)@3", "map", "map@3", "p@[1,3]", "r@3", "rr", "rprec", "num_rel_ret"]


def _per_query(res: rankmeter.EvaluationResult) -> dict[tuple[str, str], float]:
    return {(q, m): v for m in res.measure_names for q, v in res.by_query(m).items()}


def _assert_same(a: dict, b: dict, what: str) -> None:
    assert a.keys() == b.keys(), what
    for key in a:
        assert a[key] == pytest.approx(b[key], abs=1e-12, nan_ok=True), (what, key)


def _trec(qrels_rows, run_rows) -> tuple[str, str]:
    qrels = "".join(f"{q} 0 {d} {g:g}\n" for q, d, g in qrels_rows)
    # grouped by query (streaming needs it), scores written exactly
    order = sorted(range(len(run_rows)), key=lambda i: run_rows[i][0])
    run = "".join(f"{run_rows[i][0]} Q0 {run_rows[i][1]} {r} {run_rows[i][2]!r} t\n" for r, i in enumerate(order, 1))
    return qrels, run


def _nested(rows) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for q, d, v in rows:
        out.setdefault(q, {})[d] = v
    return out


@SETTINGS
@given(data=collections_(), ties=st.sampled_from(["trec", "expected"]))
def test_every_door_gives_the_same_values(tmp_path_factory, monkeypatch, data, ties) -> None:
    qrels_rows, run_rows = data
    if not run_rows:
        return
    tmp: Path = tmp_path_factory.mktemp("diff")
    qrels_text, run_text = _trec(qrels_rows, run_rows)
    (tmp / "q.txt").write_text(qrels_text)
    (tmp / "r.txt").write_text(run_text)
    (tmp / "q.txt.gz").write_bytes(gzip.compress(qrels_text.encode()))
    (tmp / "r.txt.gz").write_bytes(gzip.compress(run_text.encode()))
    q_df = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    r_df = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    want = _per_query(rankmeter.evaluate(str(tmp / "q.txt"), str(tmp / "r.txt"), MEASURES, ties=ties))
    doors = {
        "gz": lambda: rankmeter.evaluate(str(tmp / "q.txt.gz"), str(tmp / "r.txt.gz"), MEASURES, ties=ties),
        "stream": lambda: rankmeter.evaluate_stream(
            str(tmp / "q.txt"), str(tmp / "r.txt"), MEASURES, ties=ties, block_bytes=24
        ),
        "stream-gz": lambda: rankmeter.evaluate_stream(
            str(tmp / "q.txt"), str(tmp / "r.txt.gz"), MEASURES, ties=ties, block_bytes=40
        ),
        "pandas": lambda: rankmeter.evaluate(q_df, r_df, MEASURES, ties=ties),
        "polars": lambda: rankmeter.evaluate(pl.from_pandas(q_df), pl.from_pandas(r_df), MEASURES, ties=ties),
        "arrow": lambda: rankmeter.evaluate(
            pa.Table.from_pandas(q_df), pa.Table.from_pandas(r_df), MEASURES, ties=ties
        ),
        "dicts": lambda: rankmeter.evaluate(_nested(qrels_rows), _nested(run_rows), MEASURES, ties=ties),
    }
    for name, call in doors.items():
        _assert_same(_per_query(call()), want, name)
    monkeypatch.setattr(join_module, "PARALLEL_MIN_ROWS", 1)
    for threads in (1, 2, 4):
        got = rankmeter.evaluate(q_df, r_df, MEASURES, ties=ties, threads=threads)
        _assert_same(_per_query(got), want, f"threads={threads}")


@st.composite
def complete_lists(draw):
    """Ragged lists where every document is judged: (grades, scores) per query."""
    n_queries = draw(st.integers(1, 4))
    grades = [draw(st.lists(st.integers(0, 3), min_size=1, max_size=6)) for _ in range(n_queries)]
    scores = [draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=len(g), max_size=len(g))) for g in grades]
    return grades, scores


@SETTINGS
@given(data=complete_lists())
def test_lists_and_dense_arrays_agree_with_tables(data) -> None:
    grades, scores = data
    measures = ["ndcg", "ndcg@3", "map", "p@2", "rr", "r@2"]
    qrels = {f"q{i}": {f"d{j}": float(g) for j, g in enumerate(gs)} for i, gs in enumerate(grades)}
    run = {f"q{i}": {f"d{j}": s for j, s in enumerate(ss)} for i, ss in enumerate(scores)}
    table = rankmeter.evaluate(qrels, run, measures, ties="expected")
    lists = rankmeter.evaluate_lists(grades, scores, measures, ties="expected")
    width = max(map(len, grades))
    y = np.zeros((len(grades), width))
    s = np.zeros((len(grades), width))
    mask = np.zeros((len(grades), width), bool)
    for i, (gs, ss) in enumerate(zip(grades, scores, strict=True)):
        y[i, : len(gs)], s[i, : len(ss)], mask[i, : len(gs)] = gs, ss, True
    dense = rankmeter.evaluate_arrays(y, s, measures, mask=mask, ties="expected")
    for m in measures:
        want = [table.by_query(m)[f"q{i}"] for i in range(len(grades))]
        assert list(lists.by_query(m).values()) == pytest.approx(want, abs=1e-12), ("lists", m)
        assert list(dense.by_query(m).values()) == pytest.approx(want, abs=1e-12), ("dense", m)


_ODD = ["a,b", 'q"uote', "t\tab", "<script>", "50%_&$#{}", "é", "x y"]


@SETTINGS
@given(data=collections_(), salt=st.sampled_from(_ODD))
def test_renaming_ids_and_reordering_change_nothing(data, salt) -> None:
    qrels_rows, run_rows = data
    if not run_rows:
        return
    rename = {}

    def new(name: str) -> str:
        return rename.setdefault(name, f"{salt}{len(rename)}")

    # ties="expected" does not look at ids; "trec" breaks ties by docno, so renaming may reorder there
    a = rankmeter.evaluate(_nested(qrels_rows), _nested(run_rows), MEASURES, ties="expected")
    rows_q = [(new("Q" + q), new(d), g) for q, d, g in reversed(qrels_rows)]
    rows_r = [(new("Q" + q), new(d), v) for q, d, v in reversed(run_rows)]
    b = rankmeter.evaluate(_nested(rows_q), _nested(rows_r), MEASURES, ties="expected")
    renamed = {(new("Q" + q), m): v for (q, m), v in _per_query(a).items()}
    _assert_same(renamed, _per_query(b), "renamed")


@SETTINGS
@given(data=collections_(), ties=st.sampled_from(["trec", "expected", "optimistic", "pessimistic"]))
def test_an_unjudged_document_below_every_list_keeps_ndcg_and_ap(data, ties) -> None:
    qrels_rows, run_rows = data
    if not run_rows:
        return
    measures = ["ndcg", "ndcg@[1,5,10]", "map", "map@[1,5,10]", "ndcg(gain=exp)"]
    lowest = min(v for _, _, v in run_rows) - 1.0
    longer = run_rows + [(q, "zz-unjudged", lowest) for q in sorted({q for q, _, _ in run_rows})]
    a = rankmeter.evaluate(_nested(qrels_rows), _nested(run_rows), measures, ties=ties)
    b = rankmeter.evaluate(_nested(qrels_rows), _nested(longer), measures, ties=ties)
    _assert_same(_per_query(a), _per_query(b), "appended")
