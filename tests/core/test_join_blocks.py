"""Large runs are aligned in blocks of queries on several threads: the result must not depend on it.

The block path starts at ``PARALLEL_MIN_ROWS`` rows per thread; the tests
lower that bound so small, tie-heavy, ragged inputs go through it, and
compare every array of the ranked lists and every count of the alignment
with the one-pass result, for every tie policy, sparse and full lists,
depth cuts, judged-only runs, run-only and missing queries, runs whose
queries are not in id order, and ids from dicts (NumPy) and TREC text (Arrow).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.core import join as join_module
from rankmeter.core import lists as lists_module
from rankmeter.core.join import _query_blocks, align
from rankmeter.errors import DuplicateEntryError, PolicyError
from rankmeter.io.load import as_qrels, as_run
from rankmeter.io.tables import Qrels, Run
from rankmeter.io.trec import parse_run_bytes

POLICIES = ["trec", "stable", "expected", "optimistic", "pessimistic", "shuffle"]


@pytest.fixture
def small_blocks(monkeypatch):
    """Let runs of a handful of rows take the block path."""
    monkeypatch.setattr(join_module, "PARALLEL_MIN_ROWS", 1)


def _same_lists(a, b) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype, f.name
            np.testing.assert_array_equal(x, y, err_msg=f.name)
        else:
            assert x == y, f.name


@st.composite
def qrels_and_run(draw):
    """Qrels and run dicts with run-only and missing queries, tiny score sets (ties) and ragged lists."""
    n_queries = draw(st.integers(1, 12))
    qrels, run = {}, {}
    for _ in range(n_queries):
        name = f"q{draw(st.integers(0, 40))}"
        n_docs = draw(st.integers(0, 15))
        docs = [f"d{draw(st.integers(0, 30))}x{i}" for i in range(n_docs)]
        if draw(st.booleans()):  # judged query (some judged documents not retrieved)
            pool = docs + [f"u{i}" for i in range(3)]
            picked = draw(st.lists(st.sampled_from(pool), max_size=8, unique=True)) if pool else []
            qrels[name] = {d: draw(st.integers(-1, 3)) for d in picked} or {"u0": 1}
        if docs and draw(st.integers(0, 4)):  # retrieved (else: a missing query when judged)
            scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n_docs, max_size=n_docs))
            run[name] = dict(zip(docs, scores, strict=True))
    if not qrels:
        qrels["q0"] = {"d0": 1}
    return qrels, run


def _trec_text(run: dict) -> bytes:
    """The run as TREC text, queries in reverse id order (so a block's rows are not one slice)."""
    lines = [f"{q} Q0 {d} 0 {s} tag\n" for q in sorted(run, reverse=True) for d, s in run[q].items()]
    return "".join(lines).encode()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=qrels_and_run(), ties=st.sampled_from(POLICIES), sparse=st.booleans(), threads=st.integers(2, 5),
       depth=st.sampled_from([None, 1, 3]), judged_only=st.booleans(), missing=st.sampled_from(["zero", "skip"]),
       arrow=st.booleans())  # fmt: skip
def test_blocks_give_the_one_pass_result(small_blocks, data, ties, sparse, threads, depth, judged_only, missing, arrow):
    qrels_dict, run_dict = data
    if ties == "expected":
        sparse, depth = False, None
    qrels = as_qrels(qrels_dict)
    run = parse_run_bytes(_trec_text(run_dict), "run.txt", 1) if arrow and run_dict else as_run(run_dict)
    options = dict(ties=ties, judged_items=sparse, depth=depth, judged_only=judged_only, missing=missing, seed=3)
    one, one_info = align(qrels, run, threads=1, **options)
    many, many_info = align(qrels, run, threads=threads, **options)
    _same_lists(one, many)
    assert one_info == many_info


def test_blocks_split_large_runs_by_query_code():
    rq = np.repeat(np.arange(10), [5, 1, 1, 1, 1, 1, 5, 5, 0, 0])
    assert _query_blocks(rq, 10, threads=1) is None  # one thread: one pass
    assert _query_blocks(rq, 10, threads=2) is None  # under 2 * PARALLEL_MIN_ROWS rows


def test_block_bounds_balance_rows(small_blocks):
    rq = np.repeat(np.arange(10), [5, 1, 1, 1, 1, 1, 5, 5, 0, 0])  # 20 rows
    blocks = _query_blocks(rq, 10, threads=2)
    assert blocks == [(0, 6), (6, 10)]  # 10 rows each
    rows = [int(((rq >= a) & (rq < b)).sum()) for a, b in blocks]
    assert rows == [10, 10]


def test_blocks_report_the_first_duplicate_in_file_order(small_blocks):
    # the duplicate of q1 comes first in the file, but q1 falls in the last block of query codes
    text = b"q9 Q0 a 1 1.0 t\nq9 Q0 b 2 0.5 t\nq1 Q0 c 1 1.0 t\nq1 Q0 c 2 0.5 t\nq0 Q0 d 1 1 t\nq0 Q0 d 2 1 t\n"
    run = parse_run_bytes(text, "run.txt", 1)
    qrels = as_qrels({"q0": {"d": 1}, "q1": {"c": 1}, "q9": {"a": 1}})
    with pytest.raises(DuplicateEntryError, match=r"run\.txt:4: query 'q1', document 'c' appears twice"):
        align(qrels, run, threads=3)


def test_blocks_report_every_missing_query(small_blocks):
    qrels = as_qrels({f"q{i}": {"d": 1} for i in range(6)})
    run = as_run({"q0": {"d": 1.0, "e": 0.5}, "q5": {"d": 1.0, "e": 0.5}})
    with pytest.raises(PolicyError, match=r"4 judged queries have no documents in the run .*q1, q2, q3, q4"):
        align(qrels, run, missing="error", threads=3)


def test_evaluate_on_blocks_matches_one_pass(small_blocks):
    rng = np.random.default_rng(7)
    run = {f"q{q}": {f"d{i}": float(rng.integers(0, 4)) for i in range(30)} for q in range(9)}
    qrels = {f"q{q}": {f"d{i}": int(rng.integers(0, 3)) for i in rng.choice(40, 10, replace=False)} for q in range(11)}
    measures = ["ndcg@[1,5,10]", "map", "p@5", "rr", "bpref"]
    one = rankmeter.evaluate(qrels, run, measures)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lists_module, "usable_cpus", lambda: 4)
        many = rankmeter.evaluate(qrels, run, measures)
    np.testing.assert_array_equal(one.values, many.values)
    assert one.aggregate == many.aggregate
    assert one.metadata == many.metadata


def _chunked(col, cuts):
    """A pyarrow string column split into chunks at the given row positions."""
    import pyarrow as pa

    arr = pa.array(list(col), type=pa.string())
    bounds = [0, *sorted(set(cuts)), len(arr)]
    return pa.chunked_array(
        [arr.slice(a, b - a) for a, b in zip(bounds[:-1], bounds[1:], strict=True)], type=pa.string()
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=qrels_and_run(), ties=st.sampled_from(POLICIES), sparse=st.booleans(), threads=st.integers(1, 4),
       cuts=st.lists(st.integers(0, 200), max_size=6), qcuts=st.lists(st.integers(0, 40), max_size=3))  # fmt: skip
def test_chunked_id_columns_give_the_combined_result(small_blocks, data, ties, sparse, threads, cuts, qcuts):
    """Readers hand over pyarrow columns in chunks (the CSV reader's blocks); no chunk boundary may matter."""
    import pyarrow as pa

    qrels_dict, run_dict = data
    if ties == "expected":
        sparse = False
    run = as_run(run_dict) if run_dict else None
    if run is None:
        return
    qrels = as_qrels(qrels_dict)
    n = len(run)
    combined = Run(run.query_ids, pa.array(list(run.doc_ids), type=pa.string()), run.scores, "run.txt")
    chunked = Run(run.query_ids, _chunked(run.doc_ids, [c % (n + 1) for c in cuts]), run.scores, "run.txt")
    chunked_qrels = Qrels(qrels.query_ids, _chunked(qrels.doc_ids, [c % (len(qrels) + 1) for c in qcuts]),
                          qrels.relevance, "qrels.txt")  # fmt: skip
    options = dict(ties=ties, judged_items=sparse, seed=5)
    one, one_info = align(qrels, combined, threads=1, **options)
    other, other_info = align(chunked_qrels, chunked, threads=threads, **options)
    _same_lists(one, other)
    assert one_info == other_info


def test_chunked_run_reports_duplicates_like_a_combined_one():
    import pyarrow as pa

    qids = np.array(["q1", "q1", "q1", "q2"])
    docs = pa.chunked_array([["a", "b"], ["a"], ["c"]], type=pa.string())
    run = Run(qids, docs, np.array([3.0, 2.0, 1.0, 1.0]), "run.txt")
    with pytest.raises(DuplicateEntryError, match=r"run\.txt:3: query 'q1', document 'a' appears twice in the run"):
        align(as_qrels({"q1": {"a": 1}}), run)
    ranked, info = align(as_qrels({"q1": {"a": 1}}), run, duplicates="first")
    assert info.duplicates_dropped == 1 and ranked.grades.tolist() == [1.0, 0.0]
