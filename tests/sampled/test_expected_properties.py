"""``sampled_negatives=``: properties, embeddings, and every bad input with its message."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter

MONOTONE = ["ndcg@3", "ndcg", "map", "map@4", "r@2", "rr", "success@2", "dcg@3", "rprec"]


@st.composite
def rows(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n_rows = draw(st.integers(1, 4))
    cols = draw(st.integers(3, 12))
    y = np.array(draw(st.lists(st.sampled_from([0.0, 0.0, 1.0, 2.0, -1.0]), min_size=n_rows * cols,
                               max_size=n_rows * cols))).reshape(n_rows, cols)  # fmt: skip
    s = np.array(draw(st.lists(st.integers(0, 4), min_size=n_rows * cols, max_size=n_rows * cols)), dtype=float)
    return y, s.reshape(n_rows, cols)


@settings(max_examples=60, deadline=None)
@given(rows(), st.sampled_from(["expected", "stable", "optimistic", "pessimistic"]))
def test_all_negatives_give_the_full_value_and_more_negatives_never_raise_a_value(
    case: tuple[np.ndarray, np.ndarray], ties: str
) -> None:
    y, s = case
    fewest = int((y <= 0).sum(axis=1).min())
    if fewest == 0:
        return
    shared = [rankmeter.evaluate_arrays(y, s, MONOTONE, sampled_negatives=n, sampling="shared", ties=ties).values
              for n in range(1, fewest + 1)]  # fmt: skip
    for lower, higher in zip(shared, shared[1:], strict=False):
        assert np.all(higher <= lower + 1e-12)
    each = [rankmeter.evaluate_arrays(y, s, MONOTONE, sampled_negatives=n, ties=ties).values
            for n in range(1, fewest + 1)]  # fmt: skip
    for lower, higher in zip(each, each[1:], strict=False):
        assert np.all(higher <= lower + 1e-12)
    full = rankmeter.evaluate_arrays(y, s, MONOTONE, ties=ties).values
    exact_rows = (y <= 0).sum(axis=1) == fewest
    np.testing.assert_allclose(shared[-1][exact_rows], full[exact_rows], rtol=0, atol=1e-12)
    one_relevant = exact_rows & ((y > 0).sum(axis=1) == 1)  # one relevant item: both protocols are one list
    np.testing.assert_allclose(each[-1][one_relevant], full[one_relevant], rtol=0, atol=1e-12)


def test_expected_ties_lie_between_pessimistic_and_optimistic() -> None:
    rng = np.random.default_rng(2)
    y = rng.choice([0.0, 1.0, 2.0], size=(6, 15), p=[0.7, 0.2, 0.1])
    s = rng.integers(0, 3, size=(6, 15)).astype(float)
    got = {t: rankmeter.evaluate_arrays(y, s, MONOTONE, sampled_negatives=4, sampling="shared", ties=t).values
           for t in ("pessimistic", "expected", "optimistic")}  # fmt: skip
    assert np.all(got["pessimistic"] <= got["expected"] + 1e-12)
    assert np.all(got["expected"] <= got["optimistic"] + 1e-12)
    assert np.any(got["pessimistic"] < got["optimistic"] - 1e-3)


@pytest.mark.parametrize("sampling", ["per_positive", "shared"])
def test_embeddings_equal_evaluate_arrays_on_the_materialised_scores(sampling: str) -> None:
    rng = np.random.default_rng(4)
    users = rng.integers(-2, 3, (25, 3)).astype(float)  # integer vectors: many exact ties
    items = rng.integers(-2, 3, (30, 3)).astype(float)
    truth = scipy.sparse.csr_array((rng.random((25, 30)) < 0.15).astype(float))
    seen = scipy.sparse.csr_array((rng.random((25, 30)) < 0.2).astype(float))
    measures = ["ndcg@5", "map", "rr@3", "p@4"]
    got = rankmeter.evaluate_embeddings(users, items, truth, measures, exclude=seen, sampled_negatives=8,
                                        sampling=sampling, batch_size=6)  # fmt: skip
    want = rankmeter.evaluate_arrays(truth.toarray(), users @ items.T, measures, exclude=seen, sampled_negatives=8,
                                     sampling=sampling)  # fmt: skip
    np.testing.assert_array_equal(got.values, want.values)
    assert got.metadata["full_catalogue"] == want.metadata["full_catalogue"]
    assert got.metadata["semantics"]["sampled_negatives"] == 8


Y = np.array([[1.0, 0, 0, 0, 0], [0.0, 1, 1, 0, 0]])
S = np.array([[0.5, 0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4, 0.5]])


def test_more_negatives_than_a_user_has_names_the_user_and_both_numbers() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"user 1: sampled_negatives=4 is more than its 3 non-relevant"):
        rankmeter.evaluate_arrays(Y, S, "ndcg@3", sampled_negatives=4)


def test_excluded_items_are_not_available_negatives() -> None:
    seen = np.zeros(Y.shape, dtype=bool)
    seen[0, 1:3] = True
    with pytest.raises(rankmeter.PolicyError, match=r"user 0: sampled_negatives=3 is more than its 2 non-relevant"):
        rankmeter.evaluate_arrays(Y, S, "ndcg@3", sampled_negatives=3, exclude=seen)


@pytest.mark.parametrize("n", [0, -2, 1.5, True])
def test_sampled_negatives_below_one_or_not_an_integer(n: object) -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"sampled_negatives must be a positive integer .* got "):
        rankmeter.evaluate_arrays(Y, S, "ndcg@3", sampled_negatives=n)  # type: ignore[arg-type]


def test_a_measure_without_a_sampled_closed_form() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"err@10: sampled_negatives= gives .* err is not one of them"):
        rankmeter.evaluate_arrays(Y, S, ["ndcg@3", "err@10"], sampled_negatives=2)


def test_a_relevance_threshold_is_refused() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"r\(min_rel=2\)@3: parameter min_rel= is not available"):
        rankmeter.evaluate_arrays(Y, S, "r(min_rel=2)@3", sampled_negatives=2)


def test_an_unknown_sampling_protocol() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"unknown sampling policy 'uni100'; choose one of per_positive"):
        rankmeter.evaluate_arrays(Y, S, "ndcg@3", sampled_negatives=2, sampling="uni100")


def test_shuffled_ties_are_refused() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"ties='shuffle' is not available with sampled_negatives="):
        rankmeter.evaluate_arrays(Y, S, "ndcg@3", sampled_negatives=2, ties="shuffle", seed=1)


def test_sample_weight_is_refused() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"sampled_negatives= does not take sample_weight"):
        rankmeter.evaluate_arrays(Y, S, "ndcg@3", sampled_negatives=2, sample_weight=[1.0, 2.0])


def test_with_one_negative_every_measure_is_a_function_of_the_auc() -> None:
    # Krichene & Rendle: for very small samples the sampled measures collapse to AUC
    rng = np.random.default_rng(8)
    y = (rng.random((7, 30)) < 0.2).astype(float)
    y[:, 0] = 1.0
    s = rng.integers(0, 6, (7, 30)).astype(float)
    res = rankmeter.evaluate_arrays(y, s, ["success@1", "ndcg@10", "rr", "map"], sampled_negatives=1)
    auc = []
    for row_y, row_s in zip(y, s, strict=True):
        pos, neg = row_s[row_y > 0], row_s[row_y <= 0]
        below = (pos[:, None] > neg[None, :]).sum(axis=1) + 0.5 * (pos[:, None] == neg[None, :]).sum(axis=1)
        auc.append(np.mean(below / len(neg)))
    auc_arr = np.array(auc)
    np.testing.assert_allclose(res.values[:, 0], auc_arr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.values[:, 1], auc_arr + (1 - auc_arr) / np.log2(3), rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.values[:, 2], auc_arr + (1 - auc_arr) / 2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.values[:, 3], res.values[:, 2], rtol=0, atol=1e-12)


def test_group_by_and_empty_users_with_sampled_negatives() -> None:
    y = np.array([[1.0, 0, 0, 0, 0], [0.0, 0, 0, 0, 0], [0.0, 1, 1, 0, 0]])
    s = np.array([[0.5, 0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4, 0.5], [0.1, 0.2, 0.3, 0.4, 0.5]])
    res = rankmeter.evaluate_arrays(y, s, "rr", sampled_negatives=3, group_by=["a", "b", "a"], empty="skip")
    # row 2: each relevant item has 2 of the 3 negatives above it: rank 3 whatever the draw of all 3
    assert res.by_query("rr") == {"0": 1.0, "2": pytest.approx(1 / 3)}
    assert res.by_group("rr")["a"] == pytest.approx((1 + 1 / 3) / 2)


@pytest.mark.parametrize("ties", ["expected", "stable", "trec", "optimistic", "pessimistic"])
def test_counting_by_comparison_and_by_sorting_agree(ties: str) -> None:
    from rankmeter.negatives import counts_by_comparison, counts_by_sorting, positive_counts

    rng = np.random.default_rng(12)
    y = rng.choice([0.0, 0.0, 1.0, 2.0, 3.0, -1.0], size=(9, 60))
    y[0, :30] = rng.integers(1, 3, 30)  # rows with more than FEW_POSITIVES relevant items: sorted
    s = rng.integers(0, 5, size=(9, 60)).astype(float)
    keep = rng.random((9, 60)) > 0.1

    def table(c: object) -> list[tuple[float, ...]]:
        fields = ("user", "grade", "above_pos", "tied_pos", "above_neg", "tied_neg")
        return sorted(zip(*(getattr(c, f).tolist() for f in fields), strict=True))

    by_sorting = counts_by_sorting(y, s, keep, ties)
    assert table(counts_by_comparison(y, s, keep, ties)) == table(by_sorting)
    mixed = positive_counts(y, s, keep, ties)
    assert table(mixed) == table(by_sorting)
    assert mixed.n_positives.tolist() == by_sorting.n_positives.tolist()
    assert mixed.n_negatives.tolist() == by_sorting.n_negatives.tolist()


def test_items_are_refused_with_sampled_negatives() -> None:
    items = rankmeter.Items(catalog=[0, 1, 2, 3, 4])
    with pytest.raises(rankmeter.PolicyError, match=r"sampled_negatives= does not take items="):
        rankmeter.evaluate_arrays(Y, S, "ndcg@3", sampled_negatives=2, items=items)
    with pytest.raises(rankmeter.PolicyError, match=r"sampled_negatives= does not take items="):
        rankmeter.evaluate_embeddings(np.eye(2), np.ones((5, 2)), scipy.sparse.csr_array(Y), "ndcg@3",
                                      sampled_negatives=2, items=items)  # fmt: skip


def test_rows_evaluated_in_blocks_of_one_give_the_same_values(monkeypatch: pytest.MonkeyPatch) -> None:
    # a block holds EVALUATION_BLOCK_ITEMS // (columns) rows, and at least one when a row is longer than that
    rng = np.random.default_rng(2)
    y = (rng.random((5, 8)) < 0.3).astype(np.float64)
    y[:, 0] = 1.0
    s = rng.integers(0, 4, (5, 8)).astype(np.float64)
    whole = rankmeter.evaluate_arrays(y, s, ["ndcg@3", "rr"], sampled_negatives=2, sampling="shared")
    monkeypatch.setattr(importlib.import_module("rankmeter.negatives"), "EVALUATION_BLOCK_ITEMS", 3)
    rows = rankmeter.evaluate_arrays(y, s, ["ndcg@3", "rr"], sampled_negatives=2, sampling="shared")
    assert rows.values.tolist() == whole.values.tolist() and rows.aggregate == whole.aggregate
