"""``sampling="recbole_uni"``: RecBole's ``uniN`` protocol, the closed form against every draw and against its sampler.

RecBole 1.2.1 (``recbole/sampler/sampler.py``: ``Sampler._uni_sampling`` draws ``np.random.randint`` and
``AbstractSampler.sample_by_key_ids`` redraws any item the user interacted with) draws R n negatives for a
user with R test items, with replacement; ``Trainer._neg_sample_batch_eval`` writes the scores into a
users x items matrix, so a negative drawn twice is one candidate, and every test item of the user is
ranked against the distinct negatives drawn. The references below never use the closed form: every set
of distinct negatives with its probability (small catalogues), and that sampler written out (10^5 draws).
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest
import scipy.sparse

import rankmeter

MEASURES = ["ndcg@3", "dcg@2", "cg@3", "map@3", "map(divisor=min)@2", "ap(divisor=k)@3", "p@3", "r@2", "f1@3",
            "rr@2", "success@1", "success@3", "rprec", "ndcg(gain=exp,discount=jarvelin(3))@4"]  # fmt: skip


def onto(draws: int, size: int) -> int:
    """Sequences of ``draws`` draws that hit every one of ``size`` items and no other (surjections)."""
    return sum((-1) ** i * comb(size, i) * (size - i) ** draws for i in range(size + 1))


def every_draw(y: np.ndarray, s: np.ndarray, keep: np.ndarray, n: int, ties: str) -> np.ndarray:
    """Each row's value: the mean over every set of distinct negatives, weighted by its probability."""
    width = len(rankmeter.evaluate_arrays([[1]], [[1.0]], MEASURES).measure_names)
    values = np.zeros((y.shape[0], width))
    for row in range(y.shape[0]):
        pos = [c for c in range(y.shape[1]) if keep[row, c] and y[row, c] > 0]
        neg = [c for c in range(y.shape[1]) if keep[row, c] and y[row, c] <= 0]
        draws = n * len(pos)
        for size in range(1, min(draws, len(neg)) + 1):
            weight = onto(draws, size) / len(neg) ** draws
            for drawn in itertools.combinations(neg, size):
                cols = np.array(sorted(pos + list(drawn)))
                res = rankmeter.evaluate_arrays(y[row, cols], s[row, cols], MEASURES, ties=ties)
                values[row] += weight * res.values[0]
    return values


@pytest.mark.parametrize("ties", ["expected", "stable", "trec", "optimistic", "pessimistic"])
def test_closed_form_equals_the_mean_over_every_set_of_distinct_negatives(ties: str) -> None:
    rng = np.random.default_rng(5)
    y = rng.choice([0.0, 0.0, 0.0, 1.0, 2.0, -1.0], size=(6, 8))
    y[:, 0] = np.maximum(y[:, 0], 1.0)  # a relevant item in each row
    s = rng.integers(0, 3, size=(6, 8)).astype(np.float64)  # few levels: ties everywhere
    keep = rng.random((6, 8)) > 0.15
    keep[:, 0] = True
    rows = ((y > 0) & keep).sum(axis=1) <= 3  # at most 3 * n draws to enumerate
    for n in (1, 2):
        got = rankmeter.evaluate_arrays(y[rows], s[rows], MEASURES, mask=keep[rows], sampled_negatives=n,
                                        sampling="recbole_uni", ties=ties)  # fmt: skip
        want = every_draw(y[rows], s[rows], keep[rows], n, ties)
        np.testing.assert_allclose(got.values, want, rtol=0, atol=1e-12)
    assert got.metadata["sampled"]["replacement"] is True


def test_closed_form_against_recboles_sampler_written_out() -> None:
    """RecBole's draws for one user: randint over the items, redrawn while the item is one the user has."""
    rng = np.random.default_rng(9)
    n_items, n = 60, 5
    scores = rng.standard_normal(n_items)
    test_items = np.array([3, 17, 40])
    used = np.r_[test_items, 5, 6, 7]  # the test items and the training items
    y = np.zeros(n_items)
    y[test_items] = 1.0
    seen = np.zeros(n_items, dtype=bool)
    seen[[5, 6, 7]] = True
    got = rankmeter.evaluate_arrays(y[None], scores[None], ["ndcg@10", "r@5"], exclude=seen[None],
                                    sampled_negatives=n, sampling="recbole_uni")  # fmt: skip

    trials = 100_000
    drawn = rng.integers(0, n_items, size=(trials, n * len(test_items)))
    bad = np.isin(drawn, used)
    while bad.any():  # redrawn until no drawn item is one the user interacted with
        drawn[bad] = rng.integers(0, n_items, size=int(bad.sum()))
        bad = np.isin(drawn, used)
    hit = np.zeros((trials, n_items), dtype=bool)
    hit[np.arange(trials)[:, None], drawn] = True  # a negative drawn twice is one candidate
    above = scores[None, :] > scores[test_items][:, None]  # (test item, item)
    negatives_above = hit.astype(np.int64) @ above.T.astype(np.int64)  # (trial, test item)
    ranks = 1 + above[:, test_items].sum(axis=1)[None, :] + negatives_above
    ideal = sum(1 / np.log2(np.arange(2, len(test_items) + 2)))
    ndcg = np.where(ranks <= 10, 1 / np.log2(ranks + 1), 0).sum(axis=1) / ideal
    recall = (ranks <= 5).sum(axis=1) / len(test_items)
    for sample, name in ((ndcg, "ndcg@10"), (recall, "r@5")):
        se = sample.std(ddof=1) / np.sqrt(trials)
        assert abs(sample.mean() - got[name]) <= 3 * se, (name, sample.mean(), got[name], se)


def test_one_draw_per_relevant_item_written_out() -> None:
    # one relevant item below 3 of its 5 negatives, n = 2: two draws with replacement. No negative above
    # it: both draws among the 2 below, (2/5)^2; two above: two different items of the 3 above, 3 * 2 / 25;
    # one above: the rest
    y = np.array([[0.0, 0, 0, 1, 0, 0]])
    s = np.array([[0.9, 0.8, 0.7, 0.5, 0.2, 0.1]])
    none = (2 / 5) ** 2
    two = 3 * 2 / 25  # two different items of the 3 above, in either order
    one = 1 - none - two
    res = rankmeter.evaluate_arrays(y, s, ["rr@3", "success@1"], sampled_negatives=2, sampling="recbole_uni")
    assert res["rr@3"] == pytest.approx(none + one / 2 + two / 3, abs=1e-12)
    assert res["success@1"] == pytest.approx(none, abs=1e-12)


def test_a_measure_without_a_cutoff_is_refused() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"rr: sampling='recbole_uni' draws the negatives with replac"):
        rankmeter.evaluate_arrays([[1, 0]], [[0.5, 0.2]], "rr", sampled_negatives=2, sampling="recbole_uni")


def test_precision_over_the_list_length_is_refused() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"p\(divisor=min\)@3: sampling='recbole_uni' .* for p, divisor=k"):
        rankmeter.evaluate_arrays([[1, 0]], [[0.5, 0.2]], "p(divisor=min)@3", sampled_negatives=2,
                                  sampling="recbole_uni")  # fmt: skip


def test_a_user_without_negatives_is_refused() -> None:
    with pytest.raises(rankmeter.PolicyError, match=r"user 0: sampling='recbole_uni' draws its negatives .* has none"):
        rankmeter.evaluate_arrays([[1, 0]], [[0.5, 0.2]], "r@1", sampled_negatives=5, sampling="recbole_uni",
                                  exclude=np.array([[False, True]]))  # fmt: skip


def test_more_draws_than_negatives_are_allowed() -> None:
    # 1 negative, 5 draws: it is always drawn, so the list is the two items (the full ranking)
    res = rankmeter.evaluate_arrays([[1, 0]], [[0.2, 0.5]], "rr@2", sampled_negatives=5, sampling="recbole_uni")
    assert res["rr@2"] == 0.5 == res.metadata["full_catalogue"]["rr@2"]


def test_embeddings_equal_evaluate_arrays_on_the_materialised_scores() -> None:
    rng = np.random.default_rng(4)
    users = rng.integers(-2, 3, (25, 3)).astype(float)  # integer vectors: many exact ties
    items = rng.integers(-2, 3, (30, 3)).astype(float)
    truth = scipy.sparse.csr_array((rng.random((25, 30)) < 0.15).astype(float))
    seen = scipy.sparse.csr_array((rng.random((25, 30)) < 0.2).astype(float))
    measures = ["ndcg@5", "map@10", "rr@3", "p@4"]
    got = rankmeter.evaluate_embeddings(users, items, truth, measures, exclude=seen, sampled_negatives=8,
                                        sampling="recbole_uni", batch_size=6)  # fmt: skip
    want = rankmeter.evaluate_arrays(truth.toarray(), users @ items.T, measures, exclude=seen, sampled_negatives=8,
                                     sampling="recbole_uni")  # fmt: skip
    np.testing.assert_array_equal(got.values, want.values)
    assert got.metadata["sampled"]["sampling"] == "recbole_uni"
