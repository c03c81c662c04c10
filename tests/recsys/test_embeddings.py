"""``evaluate_embeddings``: equal to materialising the score matrix and calling ``evaluate_arrays(exclude=)``.

Integer-valued embeddings make every inner product exact (and tie often), so
the blocks' products equal the whole matrix's to the last bit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.errors import InputFormatError, InvalidScoreError, PolicyError

TIES = ["expected", "stable", "trec", "optimistic", "pessimistic"]
MEASURE_SETS = [
    ["ndcg@10", "r@20", "map@10", "success@10"],  # cutoffs only: the top of each row
    ["ndcg", "map", "rr", "r@3"],  # the relevant items at their exact ranks (expected), else whole rows
    ["ndcg@[1,5]", "fall_out", "auroc", "judged@4", "rprec"],  # whole rows
]


def _split(seed: int, n: int = 30, m: int = 25, dim: int = 3) -> tuple[np.ndarray, ...]:
    """Integer embeddings (many ties), graded test interactions and seen (training) items; they may overlap."""
    rng = np.random.default_rng(seed)
    users = rng.integers(-2, 3, (n, dim)).astype(np.float64)
    items = rng.integers(-2, 3, (m, dim)).astype(np.float64)
    truth = rng.integers(1, 4, (n, m)) * (rng.random((n, m)) < 0.15)
    seen = rng.random((n, m)) < 0.2
    seen[:, 0] = False  # every user keeps an item (a user with none has a test of its own)
    seen[4] = truth[4] > 0  # a user whose relevant items are all seen
    return users, items, truth.astype(np.float64), seen


def _reference(users, items, truth, seen, measures, **kwargs):
    return rankmeter.evaluate_arrays(truth, users @ items.T, measures, exclude=scipy.sparse.csr_array(seen), **kwargs)


def _same(a: np.ndarray, b: np.ndarray) -> None:
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert np.allclose(np.nan_to_num(a), np.nan_to_num(b), rtol=0, atol=1e-12)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("measures", MEASURE_SETS)
@pytest.mark.parametrize("batch_size", [1, 7, None])
def test_equals_the_materialised_score_matrix(ties: str, measures: list[str], batch_size: int | None) -> None:
    users, items, truth, seen = _split(1)
    ref = _reference(users, items, truth, seen, measures, ties=ties, empty="nan")
    res = rankmeter.evaluate_embeddings(
        users, items, scipy.sparse.csr_array(truth), measures, exclude=scipy.sparse.coo_array(seen),
        ties=ties, empty="nan", batch_size=batch_size,
    )  # fmt: skip
    assert res.measure_names == ref.measure_names
    _same(res.values, ref.values)
    assert res.aggregate == pytest.approx(ref.aggregate, abs=1e-12, nan_ok=True)
    for key in ("items_excluded", "queries_relevant_all_excluded", "queries_empty", "queries_with_ties"):
        assert res.metadata[key] == ref.metadata[key], key
    assert res.metadata["queries_relevant_all_excluded"] >= 1
    assert res.metadata["semantics"]["candidates"] == "exclude"


def test_float32_embeddings_and_no_exclusion() -> None:
    users, items, truth, _ = _split(2)
    u32, i32 = users.astype(np.float32), items.astype(np.float32)
    res = rankmeter.evaluate_embeddings(u32, i32, scipy.sparse.csr_array(truth), ["ndcg@5", "map"], batch_size=4)
    ref = rankmeter.evaluate_arrays(truth, u32 @ i32.T, ["ndcg@5", "map"])
    _same(res.values, ref.values)
    assert res.metadata["semantics"]["candidates"] == "all"


def test_cosine_ranks_by_the_angle() -> None:
    """Axis-aligned vectors of different lengths: their cosines are exactly 0, 1 or -1 (and 0 for a zero vector)."""
    rng = np.random.default_rng(3)
    axes = np.eye(3)[rng.integers(0, 3, 20)] * rng.choice([-3.0, -1.0, 2.0, 5.0], (20, 1))
    users, items = axes[:8], axes[8:]
    items[0] = 0.0
    truth = (rng.random((8, 12)) < 0.3).astype(np.float64)
    unit = np.sign(axes)
    ref = rankmeter.evaluate_arrays(truth, unit[:8] @ unit[8:].T, ["ndcg", "rr", "p@3"])
    res = rankmeter.evaluate_embeddings(
        users, items, scipy.sparse.csr_array(truth), ["ndcg", "rr", "p@3"], metric="cosine"
    )
    _same(res.values, ref.values)
    inner = rankmeter.evaluate_embeddings(users, items, scipy.sparse.csr_array(truth), ["ndcg", "rr", "p@3"])
    assert not np.allclose(inner.values, res.values)  # the lengths change the inner products' order


def test_tables_and_dicts_with_ids_equal_the_sparse_form() -> None:
    users, items, truth, seen = _split(4, n=12, m=10)
    user_ids = np.array([f"u{i}" for i in range(12)])[::-1].copy()  # ids in an order of their own
    item_ids = np.arange(100, 110)
    r, c = np.nonzero(truth)
    sr, sc = np.nonzero(seen)
    measures = ["ndcg@3", "map", "r@5"]
    ref = rankmeter.evaluate_embeddings(
        users, items, scipy.sparse.csr_array(truth), measures, exclude=scipy.sparse.csr_array(seen)
    )
    truth_pd = pd.DataFrame({"user_id": user_ids[r], "item_id": item_ids[c], "rating": truth[r, c]})
    seen_pl = pl.DataFrame({"user": user_ids[sr], "item": item_ids[sc]})
    truth_dict = {u: {int(item_ids[j]): truth[i, j] for j in np.flatnonzero(truth[i])} for i, u in enumerate(user_ids)}
    seen_dict = {u: [int(item_ids[j]) for j in np.flatnonzero(seen[i])] for i, u in enumerate(user_ids)}
    for t, e in ((truth_pd, seen_pl), (truth_dict, seen_dict), (truth_pd.to_dict("list") and truth_pd, seen_dict)):
        res = rankmeter.evaluate_embeddings(users, items, t, measures, exclude=e, user_ids=user_ids, item_ids=item_ids)
        _same(res.values, ref.values)
        assert res.query_ids.tolist() == user_ids.tolist()
        assert res.metadata["exclude_unknown"] == 0
    binary = pd.DataFrame({"user_id": user_ids[r], "item_id": item_ids[c]})  # no grade column: grade 1
    res = rankmeter.evaluate_embeddings(users, items, binary, ["r@5"], user_ids=user_ids, item_ids=item_ids)
    ref = rankmeter.evaluate_arrays((truth > 0).astype(float), users @ items.T, ["r@5"])
    _same(res.values, ref.values)


def test_a_user_with_every_item_excluded_weighs_nothing() -> None:
    users, items, truth, seen = _split(5, n=9, m=6)
    seen[2] = True
    for measures in (["ndcg@3"], ["ndcg", "map"]):
        ref = _reference(users, items, truth, seen, measures)
        res = rankmeter.evaluate_embeddings(
            users, items, scipy.sparse.csr_array(truth), measures, exclude=scipy.sparse.csr_array(seen), batch_size=2
        )
        _same(res.values, ref.values)
        assert res.aggregate == pytest.approx(ref.aggregate, abs=1e-12)
        assert (
            res.metadata["weighted"]
            and res.metadata["queries_relevant_all_excluded"] == (ref.metadata["queries_relevant_all_excluded"])
        )


def test_exact_ranks_at_any_cutoff() -> None:
    """A relevant item ranked 900th of 1,000 counts at @900 and not at @899 (nothing is cut at a top K)."""
    items = np.arange(1000, dtype=np.float64)[::-1, None].copy()  # item j scores 999 - j for user [1]
    truth = scipy.sparse.csr_array(([1.0], ([0], [899])), shape=(1, 1000))
    seen = scipy.sparse.csr_array(([1], ([0], [5])), shape=(1, 1000))  # one item above it removed
    res = rankmeter.evaluate_embeddings([[1.0]], items, truth, ["r@898", "r@899", "rr", "ndcg"], exclude=seen)
    assert res.values.tolist() == [[0.0, 1.0, 1 / 899, 1 / np.log2(900)]]


def _random_split(
    seed: int, share: float
) -> tuple[np.random.Generator, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Integer embeddings of up to 9 users and 13 items, interactions split into train (a ``share``) and test."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 10)), int(rng.integers(2, 14))
    users = rng.integers(-1, 2, (n, 2)).astype(np.float64)
    items = rng.integers(-1, 2, (m, 2)).astype(np.float64)
    interactions = rng.random((n, m)) < 0.5
    train = interactions & (rng.random((n, m)) < share)
    return rng, users, items, train, (interactions & ~train).astype(np.float64)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), share=st.floats(0.1, 0.6), ties=st.sampled_from(TIES))
def test_property_random_splits_agree_on_dense_scores_embeddings_and_by_hand(
    seed: int, share: float, ties: str
) -> None:
    """Random interactions split into train (excluded) and test (the truth): three routes give the same values."""
    rng, users, items, train, test = _random_split(seed, share)
    n = len(users)
    train[np.arange(n), rng.integers(0, items.shape[0], n)] = False  # every user keeps an item
    test = test * ~train
    measures = ["ndcg@3", "r@2", "map", "success@1", "rr"]
    scores = users @ items.T
    dense = rankmeter.evaluate_arrays(
        test, scores, measures, exclude=scipy.sparse.csr_array(train), ties=ties, empty="nan"
    )
    emb = rankmeter.evaluate_embeddings(
        users, items, scipy.sparse.csr_array(test), measures, exclude=scipy.sparse.csr_array(train),
        ties=ties, empty="nan", batch_size=int(rng.integers(1, 4)),
    )  # fmt: skip
    by_hand = np.concatenate(
        [
            rankmeter.evaluate_arrays(test[i, ~train[i]][None], scores[i, ~train[i]][None], measures, ties=ties,
                                      empty="nan").values
            for i in range(n)
        ]
    )  # fmt: skip
    _same(dense.values, by_hand)
    _same(emb.values, by_hand)


def test_bad_inputs_are_located() -> None:
    u, v = np.zeros((2, 3)), np.zeros((4, 3))
    truth = scipy.sparse.csr_array((2, 4))
    with pytest.raises(InputFormatError, match=r"user_vectors have 3 dimensions \(shape \(2, 3\)\) but item_vectors"):
        rankmeter.evaluate_embeddings(u, np.zeros((4, 2)), truth, "rr")
    with pytest.raises(InputFormatError, match=r"truth has shape \(2, 5\), expected \(2, 4\) \(rows of user_vectors"):
        rankmeter.evaluate_embeddings(u, v, scipy.sparse.csr_array((2, 5)), "rr")
    with pytest.raises(InputFormatError, match=r"exclude has shape \(3, 4\), expected \(2, 4\)"):
        rankmeter.evaluate_embeddings(u, v, truth, "rr", exclude=scipy.sparse.csr_array((3, 4)))
    table = pd.DataFrame({"user_id": ["a", "b", "z"], "item_id": [1, 2, 3]})
    with pytest.raises(InputFormatError, match=r"truth names users and items by id: pass user_ids= and item_ids="):
        rankmeter.evaluate_embeddings(u, v, table, "rr")
    ids = {"user_ids": ["a", "b"], "item_ids": [1, 2, 3, 4]}
    with pytest.raises(InputFormatError, match=r"^truth row 2: user 'z' is not in user_ids$"):
        rankmeter.evaluate_embeddings(u, v, table, "rr", **ids)
    with pytest.raises(InputFormatError, match=r"^truth row 1: item 7 is not in item_ids$"):
        rankmeter.evaluate_embeddings(u, v, {"a": [1], "b": [7]}, "rr", **ids)
    twice = pd.DataFrame({"user_id": ["a", "b", "a"], "item_id": [1, 2, 1]})
    with pytest.raises(InputFormatError, match=r"^truth rows 0 and 2: user 'a', item 1 is given twice$"):
        rankmeter.evaluate_embeddings(u, v, twice, "rr", **ids)
    with pytest.raises(InputFormatError, match=r"truth: table has no item column \(looked for item_id, item, itemId"):
        rankmeter.evaluate_embeddings(u, v, pd.DataFrame({"user_id": ["a"], "movie": [1]}), "rr", **ids)
    with pytest.raises(InputFormatError, match=r"^user_ids has 3 ids but user_vectors has 2 rows$"):
        rankmeter.evaluate_embeddings(u, v, truth, "rr", user_ids=["a", "b", "c"])
    with pytest.raises(InputFormatError, match=r"^item_ids holds 2 twice$"):
        rankmeter.evaluate_embeddings(u, v, truth, "rr", item_ids=[1, 2, 2, 3])
    with pytest.raises(InputFormatError, match=r"truth must be a scipy.sparse matrix, a table .* got ndarray"):
        rankmeter.evaluate_embeddings(u, v, np.zeros((2, 4)), "rr")
    with pytest.raises(InvalidScoreError, match=r"^item_vectors\[1, 2\] is nan; features must be finite numbers$"):
        rankmeter.evaluate_embeddings(u, np.where(np.arange(12).reshape(4, 3) == 5, np.nan, 0.0), truth, "rr")
    with pytest.raises(InvalidScoreError, match=r"^the scores of users 0-1 are not all finite"):
        rankmeter.evaluate_embeddings(np.full((2, 3), 1e300), np.full((4, 3), 1e300), truth, "rr")
    with pytest.raises(PolicyError, match=r"ties='shuffle' is not available for embeddings"):
        rankmeter.evaluate_embeddings(u, v, truth, "rr", ties="shuffle")
    with pytest.raises(PolicyError, match=r"unknown metric 'dot'; choose one of inner, cosine"):
        rankmeter.evaluate_embeddings(u, v, truth, "rr", metric="dot")
    with pytest.raises(PolicyError, match=r"batch_size must be a positive integer, got 0"):
        rankmeter.evaluate_embeddings(u, v, truth, "rr", batch_size=0)


def test_exclude_pairs_without_an_embedding_are_counted() -> None:
    u, v = np.eye(2), np.eye(2)
    truth = {"a": [1], "b": [2]}
    seen = pd.DataFrame({"user_id": ["a", "ghost", "b"], "item_id": [2, 1, 99]})
    res = rankmeter.evaluate_embeddings(u, v, truth, "rr", exclude=seen, user_ids=["a", "b"], item_ids=[1, 2])
    assert res.metadata["exclude_unknown"] == 2
    assert res.metadata["items_excluded"] == 1
    assert res.values[:, 0].tolist() == [1.0, 1.0]


def test_a_grade_that_is_not_finite_is_named() -> None:
    truth = scipy.sparse.csr_array(([1.0, np.nan], ([0, 1], [2, 3])), shape=(2, 4))
    with pytest.raises(InvalidScoreError, match=r"^truth: user row 1, item column 3: grade nan; grades must be finite"):
        rankmeter.evaluate_embeddings(np.eye(2, 3), np.eye(4, 3), truth, "rr")
    table = pd.DataFrame({"user_id": [0, 1], "item_id": [2, 3], "rating": [1.0, np.inf]})
    with pytest.raises(InvalidScoreError, match=r"^truth: user row 1, item column 3: grade inf"):
        rankmeter.evaluate_embeddings(np.eye(2, 3), np.eye(4, 3), table, "rr", user_ids=[0, 1], item_ids=[0, 1, 2, 3])


def test_fractional_grades_are_kept_exactly() -> None:
    """Grades that float32 cannot hold (0.1) are read as float64."""
    users, items, truth, seen = _split(6, n=6, m=8)
    truth = truth * 0.1
    ref = _reference(users, items, truth, seen, ["ndcg", "ndcg@3"])
    res = rankmeter.evaluate_embeddings(
        users, items, scipy.sparse.csr_array(truth), ["ndcg", "ndcg@3"], exclude=scipy.sparse.csr_array(seen)
    )
    assert res.values.tolist() == ref.values.tolist()


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    share=st.floats(0.1, 0.6),
    ties=st.sampled_from(["expected", "optimistic", "pessimistic"]),
)
def test_property_random_splits_agree_on_the_long_format_dense_scores_and_embeddings(
    seed: int, share: float, ties: str
) -> None:
    """The same split as long tables (``evaluate(test, run, exclude=train)``), dense scores and embeddings.

    Tie policies that do not read the ids' order (``trec`` orders by id text, ``stable`` by input order,
    which the two worlds lay out differently); users without a test item are run-only users in the long
    format, so they are compared where they have one.
    """
    _, users, items, train, test = _random_split(seed, share)
    n, m = test.shape
    train[0, 0], test[0, 0] = False, 1.0  # a test item at least (empty qrels are an error)
    measures = ["ndcg@3", "r@2", "map", "success@1", "rr"]
    scores = users @ items.T
    u_test, i_test = np.nonzero(test)
    u_train, i_train = np.nonzero(train)
    u_all, i_all = np.nonzero(np.ones((n, m), dtype=bool))
    long = rankmeter.evaluate(
        pd.DataFrame({"user_id": u_test, "item_id": i_test}),
        pd.DataFrame({"user_id": u_all, "item_id": i_all, "score": scores[u_all, i_all]}),
        measures,
        exclude=pd.DataFrame({"user_id": u_train, "item_id": i_train}),
        ties=ties,
    )
    dense = rankmeter.evaluate_arrays(
        test, scores, measures, exclude=scipy.sparse.csr_array(train), ties=ties, empty="nan"
    )
    emb = rankmeter.evaluate_embeddings(
        users, items, scipy.sparse.csr_array(test), measures, exclude=scipy.sparse.csr_array(train), ties=ties,
        empty="nan",
    )  # fmt: skip
    judged = np.unique(u_test)
    assert long.query_ids.tolist() == judged.tolist()  # integer users, the users with a test item
    _same(long.values, dense.values[judged])
    _same(long.values, emb.values[judged])
