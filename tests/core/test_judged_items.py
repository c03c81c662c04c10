"""Sparse ranked lists (``RankedLists.judged_items``): only judged items and tied groups are stored.

Every family allowed on them must give the same values as on the complete
lists, for every deterministic tie policy, on ragged, tie-heavy inputs with
unjudged, judged non-relevant and negatively graded documents; tie metadata
must not change either.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import parse
from rankmeter.core.join import align
from rankmeter.core.ties import ranking, straddling_queries, tie_group_starts, tied_items, tied_runs
from rankmeter.errors import PolicyError
from rankmeter.io.load import as_qrels, as_run
from rankmeter.measures import FAMILIES
from rankmeter.measures.kernels.context import Context
from rankmeter.pipeline import judged_items_suffice as _judged_items_suffice
from tests.core.families import CORE_FAMILIES

DETERMINISTIC = ["trec", "stable", "shuffle", "optimistic", "pessimistic"]
MEASURES = [
    "ndcg",
    "ndcg@[1,3,10]",
    "err@[1,3,10]",
    "err(gain={0:0.1,1:0.5,2:0.75,3:1})",
    "nerr@[2,5]",
    "ndcg(gain=exp)@[2,5]",
    "ndcg(discount=jarvelin(3))@4",
    "ndcg(gain={-1:-2,0:1,1:3,2:1})@[3,6]",
    "dcg@[2,7]",
    "idcg@3",
    "cg@4",
    "map",
    "map@[2,5]",
    "ap(min_rel=2)",
    "ap(min_rel=-1)@4",
    "wap@[3,8]",
    "p@[1,3,8]",
    "r",
    "p(min_rel=0)@5",
    "r@[1,4]",
    "r(min_rel=3)",
    "f1@[2,5]",
    "rr",
    "rr@2",
    "rprec",
    "rprec(min_rel=2)",
    "success@[1,3]",
    "judged@[1,5]",
    "judged@20",
    "acg@[2,6]",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
]


@st.composite
def judged_runs(draw):
    """Qrels and run dicts: a few judged documents among many retrieved ones, scores from a tiny set (ties)."""
    n_queries = draw(st.integers(1, 5))
    qrels, run = {}, {}
    for q in range(n_queries):
        n_docs = draw(st.integers(0, 25))
        docs = [f"d{i}" for i in range(n_docs)]
        grades = draw(st.lists(st.sampled_from([None, None, None, -1, 0, 1, 2, 3]), min_size=n_docs, max_size=n_docs))
        judged = {d: g for d, g in zip(docs, grades, strict=True) if g is not None}
        judged.update({f"x{i}": draw(st.integers(-1, 3)) for i in range(draw(st.integers(0, 3)))})  # not retrieved
        if judged:
            qrels[f"q{q}"] = judged
        scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0]), min_size=n_docs, max_size=n_docs))
        if docs:
            run[f"q{q}"] = dict(zip(docs, scores, strict=True))
    if not qrels:
        qrels["q0"] = {"d0": 1}
    return qrels, run


def _ranked(qrels, run, ties):
    return align(as_qrels(qrels), as_run(run), ties=ties, seed=3)[0]


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=judged_runs(), ties=st.sampled_from(DETERMINISTIC))
def test_every_allowed_family_has_the_same_values_on_the_sparse_lists(data, ties):
    ranked = _ranked(*data, ties)
    sparse = ranked.judged_items()
    full_ctx, sparse_ctx = Context(ranked), Context(sparse)
    for text in MEASURES:
        m = parse(text)
        kernel = FAMILIES[m.family].kernel
        np.testing.assert_allclose(kernel(sparse_ctx, m), kernel(full_ctx, m), rtol=1e-12, atol=0, err_msg=text)


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=judged_runs(), ties=st.sampled_from(DETERMINISTIC), cutoffs=st.lists(st.integers(1, 12), max_size=4))
def test_tie_metadata_is_unchanged_on_the_sparse_lists(data, ties, cutoffs):
    ranked = _ranked(*data, ties)
    sparse = ranked.judged_items()
    per_query = [Context(ranked).num_relevant(None)]
    full = straddling_queries(ranked.offsets, ranked.group_starts, cutoffs, per_query)
    kept = straddling_queries(sparse.offsets, sparse.group_starts, cutoffs, per_query, sparse.item_positions)
    np.testing.assert_array_equal(kept, full)
    tied = Context(ranked).group_query[Context(ranked).group_sizes > 1]
    sparse_tied = Context(sparse).group_query[Context(sparse).group_sizes > 1]
    np.testing.assert_array_equal(np.unique(sparse_tied), np.unique(tied))
    assert sparse.has_ties == ranked.has_ties
    np.testing.assert_array_equal(sparse.lengths, ranked.lengths)


def test_sparse_lists_keep_ranks_lengths_and_tied_groups():
    qrels = {"q": {"d1": 2, "d4": 0, "gone": 1}}
    run = {"q": {"d0": 5.0, "d1": 4.0, "d2": 3.0, "d3": 3.0, "d4": 1.0, "d5": 0.5}}
    sparse = _ranked(qrels, run, "trec").judged_items()
    assert sparse.positions.tolist() == [1, 2, 3, 4]  # d1, the tied d3/d2 pair, d4
    assert sparse.grades.tolist() == [2.0, 0.0, 0.0, 0.0]
    assert sparse.judged.tolist() == [True, False, False, True]
    assert sparse.lengths.tolist() == [6]
    assert sparse.segment_sizes.tolist() == [4]
    assert sparse.group_starts.tolist() == [0, 1, 3, 4]
    assert sparse.is_sparse


def test_evaluate_gives_the_values_of_the_complete_lists():
    """A run that is mostly unjudged takes the sparse path; the complete lists are evaluated the same."""
    rng = np.random.default_rng(7)
    run = {f"q{q}": {f"d{i}": float(rng.integers(0, 40)) for i in range(200)} for q in range(30)}
    qrels = {q: {f"d{i}": int(rng.integers(0, 4)) for i in rng.choice(200, 6, replace=False)} for q in run}
    measures = ["ndcg@10", "ndcg", "map", "p@10", "r@100", "rr", "rprec", "success@5", "num_ret"]
    ranked = _ranked(qrels, run, "trec")
    assert _judged_items_suffice(ranked, [parse(m) for m in measures])
    res = rankmeter.evaluate(qrels, run, measures)
    full_ctx = Context(ranked)
    for m in measures:
        expected = FAMILIES[parse(m).family].kernel(full_ctx, parse(m))[:, 0]
        np.testing.assert_allclose(res.values[:, res.measure_names.index(m)], expected, rtol=1e-12, atol=0)
    tied_queries = np.unique(full_ctx.group_query[full_ctx.group_sizes > 1]).size
    assert tied_queries > 0
    assert res.metadata["queries_with_ties"] == tied_queries


@pytest.mark.parametrize(
    ("ties", "measure", "allowed"),
    [
        ("trec", "ndcg@10", True),
        ("expected", "ndcg@10", False),
        ("trec", "ndcg(ideal=retrieved)@10", False),
        ("trec", "bpref", False),
        ("stable", "map", True),
    ],
)
def test_sparse_lists_only_when_every_measure_allows_them(ties, measure, allowed):
    assert _judged_items_suffice(ties, [parse(measure), parse("map")]) is allowed


def test_a_user_discount_keeps_the_complete_lists():
    assert not _judged_items_suffice("trec", [rankmeter.measures.measure("ndcg", discount=lambda r: 1.0 / r)])


def test_the_allowed_families_are_core_families():
    assert {name for name, f in FAMILIES.items() if f.traits.judged_items} <= set(CORE_FAMILIES)


def test_align_refuses_sparse_lists_under_expected_ties():
    with pytest.raises(PolicyError, match="judged_items lists need a deterministic tie policy"):
        align(as_qrels({"q": {"a": 1}}), as_run({"q": {"a": 1.0}}), ties="expected", judged_items=True)


@settings(max_examples=80, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=judged_runs(),
    ties=st.sampled_from(DETERMINISTIC),
    depth=st.sampled_from([None, 1, 3, 8]),
    judged_only=st.booleans(),
    missing=st.sampled_from(["zero", "skip"]),
    shuffle_rows=st.randoms(use_true_random=False),
    extra=st.booleans(),
)
def test_align_builds_the_sparse_lists_directly(data, ties, depth, judged_only, missing, shuffle_rows, extra):
    """Unsorted rows, run-only queries, repeated rows, depth and -J: the same lists as judged_items()."""
    qrels, run = data
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    if extra:
        rows += [("run-only", "d0", 1.0)] + rows[:2]  # a query without judgments and two repeated rows
    shuffle_rows.shuffle(rows)
    table = pd.DataFrame(rows or [("q0", "d0", 0.0)], columns=["query_id", "doc_id", "score"])
    options = {"ties": ties, "depth": depth, "judged_only": judged_only, "missing": missing, "seed": 5}
    options["duplicates"] = "first"
    full, full_info = align(as_qrels(qrels), as_run(table), **options)
    sparse, sparse_info = align(as_qrels(qrels), as_run(table), judged_items=True, **options)
    expected = full.judged_items()
    for name in ("offsets", "grades", "judged", "scores", "group_starts", "item_positions", "list_lengths",
                 "ideal_offsets", "ideal_grades", "query_ids"):  # fmt: skip
        np.testing.assert_array_equal(getattr(sparse, name), getattr(expected, name), err_msg=name)
    assert sparse_info == full_info


@settings(max_examples=100, deadline=None, database=None)
@given(
    query=st.lists(st.integers(0, 3), max_size=40).map(sorted),
    data=st.data(),
)
def test_tied_runs_are_the_groups_of_two_or_more(query, data):
    scores = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=len(query), max_size=len(query))))
    query = np.array(query, dtype=np.int64)
    items, sizes = tied_runs(query, scores)
    want_items, want_sizes = tied_items(tie_group_starts(query, scores))
    np.testing.assert_array_equal(items, want_items)
    np.testing.assert_array_equal(sizes, want_sizes)
    ranked = ranking(query, scores, ties="stable")
    np.testing.assert_array_equal(ranked.starts, tie_group_starts(query[ranked.order()], scores[ranked.order()]))
