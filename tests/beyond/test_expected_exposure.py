"""Expected exposure (Diaz et al., CIKM 2020) against its definition written out in plain Python:
every item's exposure averaged over the samples, the ideal stochastic ranker's exposure by brute force
over every permutation of each grade level."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import rankmeter
from rankmeter.errors import PolicyError

CATALOG = list("abcdefg")


def _target(grades: dict[str, int], k: int, gamma: float) -> dict[str, float]:
    """The ideal stochastic ranker's expected exposure: the mean over every ranking that orders items by grade."""
    levels = sorted({grades.get(i, 0) for i in CATALOG}, reverse=True)
    groups = [[i for i in CATALOG if grades.get(i, 0) == g] for g in levels]
    out = dict.fromkeys(CATALOG, 0.0)
    rankings = list(itertools.product(*[itertools.permutations(g) for g in groups]))
    for parts in rankings:
        for r, item in enumerate(itertools.chain(*parts)):
            out[item] += (gamma**r if r < k else 0.0) / len(rankings)
    return out


def _exposure(samples: list[dict[str, list[str]]], user: str, k: int, gamma: float) -> dict[str, float]:
    out = dict.fromkeys(CATALOG, 0.0)
    for s in samples:
        for r, item in enumerate(s.get(user, [])[:k]):
            out[item] += gamma**r / len(samples)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("gamma", [0.5, 0.8])
@pytest.mark.parametrize("k", [2, 3])
def test_expected_exposure_equals_its_definition(seed: int, gamma: float, k: int) -> None:
    rng = np.random.default_rng(seed)
    users = ["u1", "u2", "u3"]
    truth = {u: {str(i): int(rng.integers(0, 3)) for i in rng.choice(CATALOG, 3, replace=False)} for u in users}
    samples = [{u: list(rng.permutation(CATALOG)[: int(rng.integers(0, 5))]) for u in users} for _ in range(4)]
    samples[1].pop("u3")  # u3 absent from one sample: an empty list there
    names = [
        f"ee_loss(patience={gamma})@{k}",
        f"ee_disparity(patience={gamma})@{k}",
        f"ee_relevance(patience={gamma})@{k}",
    ]
    names = [str(rankmeter.parse(n)) for n in names]
    res = rankmeter.evaluate(truth, samples, names, items=rankmeter.Items(catalog=CATALOG))
    assert res.metadata["samples"] == 4
    for u in res.query_ids.tolist():
        eps, star = _exposure(samples, u, k, gamma), _target(truth[u], k, gamma)
        assert res.by_query(names[0])[u] == pytest.approx(sum((eps[i] - star[i]) ** 2 for i in CATALOG), abs=1e-12)
        assert res.by_query(names[1])[u] == pytest.approx(sum(eps[i] ** 2 for i in CATALOG), abs=1e-12)
        assert res.by_query(names[2])[u] == pytest.approx(2 * sum(eps[i] * star[i] for i in CATALOG), abs=1e-12)


def test_no_relevant_item_spreads_the_target_over_the_catalogue() -> None:
    # no relevant item: the ideal stochastic ranker exposes every item of the catalogue alike
    truth = {"u1": {"a": 0}, "u2": {"b": 0}}
    samples = [{"u1": ["a", "b"], "u2": ["c"]}, {"u1": ["d"], "u2": ["c", "a"]}]
    res = rankmeter.evaluate(truth, samples, "ee_loss(patience=0.5)@2", items=rankmeter.Items(catalog=CATALOG))
    for u in ("u1", "u2"):
        eps, star = _exposure(samples, u, 2, 0.5), _target({}, 2, 0.5)
        assert star == pytest.approx(dict.fromkeys(CATALOG, 1.5 / 7), abs=1e-15)
        assert res.by_query("ee_loss(patience=0.5)@2")[u] == pytest.approx(
            sum((eps[i] - star[i]) ** 2 for i in CATALOG), abs=1e-12
        )


def test_every_item_of_a_catalogue_shorter_than_k_is_relevant() -> None:
    # targets 0.75 = (1 + 0.5) / 2 for a and b, exposures 1 and 0.5, no non-relevant item to spread the rest on
    truth = {"u1": {"a": 1, "b": 1}}
    res = rankmeter.evaluate(truth, {"u1": ["a", "b"]}, ["ee_loss(patience=0.5)@3", "ee_disparity(patience=0.5)@3",
                             "ee_relevance(patience=0.5)@3"], items=rankmeter.Items(catalog=["a", "b"]))  # fmt: skip
    assert res["ee_loss(patience=0.5)@3"] == pytest.approx((1 - 0.75) ** 2 + (0.5 - 0.75) ** 2, abs=1e-15)
    assert res["ee_disparity(patience=0.5)@3"] == pytest.approx(1 + 0.25, abs=1e-15)
    assert res["ee_relevance(patience=0.5)@3"] == pytest.approx(2 * (0.75 + 0.5 * 0.75), abs=1e-15)


def test_one_run_is_one_sample() -> None:
    truth = {"u1": {"a": 1}}
    one = rankmeter.evaluate(truth, {"u1": ["a", "b"]}, "ee_loss@2", items=rankmeter.Items(catalog=CATALOG))
    listed = rankmeter.evaluate(truth, [{"u1": ["a", "b"]}], "ee_loss@2", items=rankmeter.Items(catalog=CATALOG))
    # a gets its target 1; b gets 0.5 where the six others share 0.5: 0.5^2 - ... written out
    expected = (0.5 - 0.5 / 6) ** 2 + 5 * (0.5 / 6) ** 2
    assert one["ee_loss@2"] == pytest.approx(expected, abs=1e-12) and listed["ee_loss@2"] == one["ee_loss@2"]


def test_several_samples_with_other_measures() -> None:
    with pytest.raises(PolicyError, match="ndcg@2: several sampled rankings per user are read by the expected"):
        rankmeter.evaluate({"u1": {"a": 1}}, [{"u1": ["a"]}, {"u1": ["b"]}], ["ee_loss@2", "ndcg@2"],
                           items=rankmeter.Items(catalog=CATALOG))  # fmt: skip
