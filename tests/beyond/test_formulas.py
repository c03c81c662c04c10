"""Beyond-accuracy measures against their formulas written out in plain Python, on random runs with tied
scores, users whose list is empty after ``exclude``, and items absent from training."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import rankmeter
from rankmeter.errors import InputFormatError, MeasureSyntaxError, PolicyError

N_ITEMS = 30
CATALOG = [f"i{j}" for j in range(N_ITEMS)]


def _case(seed: int) -> tuple[dict, dict, dict, np.ndarray]:
    """Training interactions over items 0..19 (20..29 unseen), scored runs with ties, features."""
    rng = np.random.default_rng(seed)
    train = {f"u{u}": sorted({f"i{j}" for j in rng.integers(0, 20, int(rng.integers(1, 6)))}) for u in range(12)}
    run = {}
    for u in range(15):  # u12..u14 have no training interactions
        items = rng.permutation(N_ITEMS)[: int(rng.integers(1, 12))]
        run[f"u{u}"] = {f"i{j}": float(rng.integers(0, 4)) for j in items}  # scores with ties
    run["u0"] = {item: 1.0 for item in train["u0"]}  # every item excluded: u0 has no list
    test = {u: {f"i{j}": 1 for j in rng.integers(0, N_ITEMS, 3)} for u in run}
    return train, run, test, rng.normal(size=(N_ITEMS, 4))


def _top(run: dict, train: dict, k: int) -> dict[str, list[str]]:
    """Each user's top k by score, ties by item id descending (trec), training items removed."""
    out = {}
    for u, scores in run.items():
        kept = [(s, d) for d, s in scores.items() if d not in train.get(u, [])]
        ranked = [d for s, d in sorted(kept, key=lambda t: (t[0], t[1]), reverse=True)]
        if ranked:
            out[u] = ranked[:k]
    return out


def _users(train: dict) -> dict[str, int]:
    counts: dict[str, int] = {}
    for items in train.values():
        for i in items:
            counts[i] = counts.get(i, 0) + 1
    return counts


MEASURES = ["catalog_coverage@5", "entropy@5", "gini@5", "personalization@5", "personalization(metric=jaccard)@5",
            "novelty@5", "ild@5", "ild(metric=euclidean)@5", "arp@5", "aplt@5", "aclt(tail_max=1)@5",
            "recbole_entropy@5", "ms_novelty@5"]  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_measure_equals_its_formula(seed: int) -> None:
    train, run, test, features = _case(seed)
    items = rankmeter.Items(interactions=train, features=features, catalog=CATALOG)
    res = rankmeter.evaluate(test, run, MEASURES, items=items, exclude=train)
    top = _top(run, train, 5)
    assert "u0" not in top and sorted(res.by_query("novelty@5")) == sorted(top)
    pop, n_users = _users(train), len(train)
    counts: dict[str, int] = {}
    for lst in top.values():
        for i in lst:
            counts[i] = counts.get(i, 0) + 1
    total = sum(counts.values())
    assert res["catalog_coverage@5"] == pytest.approx(len(counts) / N_ITEMS, abs=1e-12)
    assert res["entropy@5"] == pytest.approx(-sum(c / total * math.log2(c / total) for c in counts.values()), abs=1e-12)
    assert res["recbole_entropy@5"] == pytest.approx(
        -sum(c / total * math.log(c / total) for c in counts.values()) / len(counts), abs=1e-12
    )
    ordered = sorted([0] * (N_ITEMS - len(counts)) + list(counts.values()))
    gini = sum((2 * j - N_ITEMS - 1) * c for j, c in enumerate(ordered, start=1)) / (N_ITEMS * total)
    assert res["gini@5"] == pytest.approx(gini, abs=1e-12)
    sets = [set(v) for v in top.values()]
    pairs = list(itertools.combinations(sets, 2))
    cos = sum(len(a & b) / math.sqrt(len(a) * len(b)) for a, b in pairs) / len(pairs)
    jac = sum(len(a & b) / len(a | b) for a, b in pairs) / len(pairs)
    assert res["personalization@5"] == pytest.approx(1 - cos, abs=1e-12)
    assert res["personalization(metric=jaccard)@5"] == pytest.approx(1 - jac, abs=1e-12)
    rows = sum(len(v) for v in train.values())
    ms = sum(c * -math.log2(pop[i] / rows) for i, c in counts.items() if i in pop) / total
    assert res["ms_novelty@5"] == pytest.approx(ms, abs=1e-12)
    vec = {item: features[j] for j, item in enumerate(CATALOG)}
    ranked_pop = sorted((pop.get(i, 0) for i in CATALOG), reverse=True)
    head_min = max(ranked_pop[math.ceil(0.2 * N_ITEMS) - 1], 1)
    for u, lst in top.items():
        nov = sum(-math.log2(max(pop.get(i, 0), 1) / n_users) for i in lst) / len(lst)
        assert res.by_query("novelty@5")[u] == pytest.approx(nov, abs=1e-12)
        assert res.by_query("arp@5")[u] == pytest.approx(sum(pop.get(i, 0) for i in lst) / len(lst), abs=1e-12)
        assert res.by_query("aplt@5")[u] == pytest.approx(sum(pop.get(i, 0) < head_min for i in lst) / len(lst))
        assert res.by_query("aclt(tail_max=1)@5")[u] == sum(pop.get(i, 0) <= 1 for i in lst)
        pl = list(itertools.combinations(lst, 2))
        cosd = [1 - vec[a] @ vec[b] / np.linalg.norm(vec[a]) / np.linalg.norm(vec[b]) for a, b in pl]
        eucl = [np.linalg.norm(vec[a] - vec[b]) for a, b in pl]
        assert res.by_query("ild@5")[u] == pytest.approx(np.mean(cosd) if pl else 0.0, abs=1e-12)
        assert res.by_query("ild(metric=euclidean)@5")[u] == pytest.approx(np.mean(eucl) if pl else 0.0, abs=1e-12)
    assert res["novelty@5"] == pytest.approx(np.mean(list(res.by_query("novelty@5").values())), abs=1e-12)


def test_personalization_of_two_lists() -> None:
    # {a, b} and {b, c}: cos = 1 / sqrt(2 * 2) = 1/2, jaccard = |{b}| / |{a, b, c}| = 1/3; one list has no pair
    lists = {"u1": ["a", "b"], "u2": ["b", "c"]}
    names = ["personalization@2", "personalization(metric=jaccard)@2"]
    res = rankmeter.evaluate(None, lists, names, items=rankmeter.Items(catalog=["a", "b", "c"]))
    assert res["personalization@2"] == pytest.approx(1 - 1 / 2, abs=1e-15)
    assert res["personalization(metric=jaccard)@2"] == pytest.approx(1 - 1 / 3, abs=1e-15)
    one = rankmeter.evaluate(None, {"u1": ["a", "b"]}, names, items=rankmeter.Items(catalog=["a", "b", "c"]))
    assert all(math.isnan(one[name]) for name in names)


def test_jaccard_personalization_over_more_users_than_one_block() -> None:
    # 2050 users (past the 2048 users of one block of the pair product): 1025 lists {a, b}, 1025 lists {b, c};
    # pairs of one kind: jaccard 1 and cos 1, pairs across the kinds: 1/3 and 1/2
    lists = {f"u{u:04d}": ["a", "b"] if u % 2 else ["b", "c"] for u in range(2050)}
    res = rankmeter.evaluate(None, lists, ["personalization(metric=jaccard)@2", "personalization@2"],
                             items=rankmeter.Items(catalog=["a", "b", "c"]))  # fmt: skip
    pairs, same, across = math.comb(2050, 2), 2 * math.comb(1025, 2), 1025 * 1025
    assert res["personalization(metric=jaccard)@2"] == pytest.approx(1 - (same + across / 3) / pairs, abs=1e-12)
    assert res["personalization@2"] == pytest.approx(1 - (same + across / 2) / pairs, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_hamming_ild_counts_the_features_that_differ(seed: int) -> None:
    rng = np.random.default_rng(seed)
    features = rng.integers(0, 2, size=(N_ITEMS, 5)).astype(float)
    lists = {f"u{u}": list(rng.choice(CATALOG, int(rng.integers(1, 6)), replace=False)) for u in range(8)}
    lists["u0"] = ["i0", "i1", "i2"]  # the first item of the sorted universe is listed
    items = rankmeter.Items(features=features, catalog=CATALOG)
    res = rankmeter.evaluate(None, lists, "ild(metric=hamming)@4", items=items)
    vec = {item: features[j] for j, item in enumerate(CATALOG)}
    for u, lst in lists.items():
        pairs = list(itertools.combinations(lst[:4], 2))
        value = sum(int((vec[a] != vec[b]).sum()) for a, b in pairs) / len(pairs) if pairs else 0.0
        assert res.by_query("ild(metric=hamming)@4")[u] == pytest.approx(value, abs=1e-12), u


@pytest.mark.parametrize("head", [0.0, 0.05, 0.1, 0.2, 0.35, 0.5, 1.0])
def test_long_tail_head_share_against_its_definition(head: float) -> None:
    # training users per item: 4, 3, 3, 2, 1, 1 and 0 for the four unseen items of a catalogue of 10
    catalog = [f"c{j}" for j in range(10)]
    pop = dict(zip(catalog, [4, 3, 3, 2, 1, 1, 0, 0, 0, 0], strict=True))
    train = {f"t{t}": [i for i, n in pop.items() if n > t] for t in range(4)}
    lists = {"u1": ["c0", "c1", "c3", "c9"], "u2": ["c2", "c4", "c6"], "u3": ["c5"]}
    items = rankmeter.Items(interactions=train, catalog=catalog)
    res = rankmeter.evaluate(None, lists, [f"aplt(head={head})@4", f"aclt(head={head})@4"], items=items)
    size = math.ceil(head * len(catalog))  # the head: the `size` most popular items and those as popular as the last
    least = max(sorted(pop.values(), reverse=True)[size - 1], 1) if size else math.inf
    for u, lst in lists.items():
        tail = sum(pop[i] < least for i in lst)
        assert res.by_query(f"aclt(head={head})@4")[u] == tail
        assert res.by_query(f"aplt(head={head})@4")[u] == pytest.approx(tail / len(lst), abs=1e-15)


def test_novelty_without_training_users_is_zero() -> None:
    # every item unseen counts as seen by one user of max(N, 1) = 1: -log2(1 / 1) = 0
    res = rankmeter.evaluate(None, {"u1": ["a", "b"]}, ["novelty@2", "arp@2"], items=rankmeter.Items(interactions={}))
    assert res["novelty@2"] == 0.0 and res["arp@2"] == 0.0


def test_accuracy_and_beyond_in_one_call() -> None:
    train, run, test, features = _case(5)
    items = rankmeter.Items(interactions=train, features=features, catalog=CATALOG)
    both = rankmeter.evaluate(test, run, ["ndcg@5", "r@5", "novelty@5", "gini@5"], items=items, exclude=train)
    alone = rankmeter.evaluate(test, run, ["ndcg@5", "r@5"], exclude=train)
    assert both["ndcg@5"] == alone["ndcg@5"] and both["r@5"] == alone["r@5"]
    assert both.by_query("ndcg@5") == alone.by_query("ndcg@5")
    assert both.metadata["items"] == {"given": ["interactions", "features", "catalog"], "catalog": N_ITEMS,
                                      "training_users": 12, "training_interactions": sum(map(len, train.values())),
                                      "features": [N_ITEMS, 4], "groups": 0}  # fmt: skip
    assert both.metadata["list_set_measures"] == ["gini@5"] and both.measure_names == ["ndcg@5", "r@5", "novelty@5"]


def test_ranked_lists_and_scores_agree() -> None:
    train, run, test, features = _case(6)
    items = rankmeter.Items(interactions=train, features=features, catalog=CATALOG)
    lists = {u: lst for u, lst in _top(run, {}, 30).items()}
    a = rankmeter.evaluate(test, run, ["novelty@5", "gini@5", "ild@5"], items=items)
    b = rankmeter.evaluate(test, lists, ["novelty@5", "gini@5", "ild@5"], items=items)
    assert a.aggregate == pytest.approx(b.aggregate, abs=1e-12)


def test_several_runs() -> None:
    train, run, test, _ = _case(7)
    items = rankmeter.Items(interactions=train)
    res = rankmeter.evaluate(test, {"a": run, "b": _top(run, {}, 3)}, ["arp@3", "ndcg@3"], items=items)
    assert res["a"]["arp@3"] == pytest.approx(res["b"]["arp@3"], abs=1e-12)


def test_list_set_value_has_no_per_user_value() -> None:
    res = rankmeter.evaluate(None, {"u1": ["a"], "u2": ["b"]}, "gini@1", items=rankmeter.Items(catalog=["a", "b"]))
    assert res["gini@1"] == 0.0
    with pytest.raises(PolicyError, match=r"gini@1 is a list-set value .*result.aggregate\['gini@1'\]"):
        res.by_query("gini@1")


def test_ties_straddling_the_cutoff_under_expected() -> None:
    items = rankmeter.Items(catalog=["a", "b", "c"])
    run = {"u1": {"a": 2.0, "b": 1.0, "c": 1.0}}
    assert (
        rankmeter.evaluate(None, run, "catalog_coverage@1", items=items, ties="expected")["catalog_coverage@1"] == 1 / 3
    )
    with pytest.raises(PolicyError, match="user 'u1': tied items straddle the cutoff"):
        rankmeter.evaluate(None, run, "catalog_coverage@2", items=items, ties="expected")
    trec = rankmeter.evaluate(None, run, "catalog_coverage@2", items=items)  # a, then c before b (id descending)
    assert trec["catalog_coverage@2"] == 2 / 3


def test_recommended_item_without_features() -> None:
    items = rankmeter.Items(features=np.eye(2), catalog=["a", "b"])
    with pytest.raises(InputFormatError, match="measure 'ild@2', user 'u2': item 'zz' has no features"):
        rankmeter.evaluate(None, {"u1": ["a", "b"], "u2": ["a", "zz"]}, "ild@2", items=items)
    with pytest.raises(InputFormatError, match="measure 'ild@2', user 'u2': item '0' has no features"):
        rankmeter.evaluate(None, {"u1": ["a", "b"], "u2": ["0", "a"]}, "ild@2", items=items)  # "0" sorts first


def test_zero_feature_vector_under_cosine() -> None:
    items = rankmeter.Items(features=[[1.0, 0.0], [0.0, 0.0]], catalog=["a", "b"])
    with pytest.raises(InputFormatError, match="item 'b' has a zero feature vector"):
        rankmeter.evaluate(None, {"u1": ["a", "b"]}, "ild@2", items=items)
    first = rankmeter.Items(features=[[0.0, 0.0], [1.0, 0.0]], catalog=["a", "b"])  # the first item of the universe
    with pytest.raises(InputFormatError, match="item 'a' has a zero feature vector"):
        rankmeter.evaluate(None, {"u1": ["b", "a"]}, "ild@2", items=first)


def test_group_map_missing_an_item() -> None:
    items = rankmeter.Items(catalog=["a", "b"], groups={"a": "x"})
    with pytest.raises(InputFormatError, match="item 'b' has no group"):
        items.catalog_groups()


def test_groups_sequence_of_the_wrong_length() -> None:
    with pytest.raises(InputFormatError, match=r"groups given as a sequence must follow catalog \(2 items\), got 3"):
        rankmeter.Items(catalog=["a", "b"], groups=["x", "y", "z"])


def test_features_without_catalog() -> None:
    with pytest.raises(InputFormatError, match="features= needs catalog="):
        rankmeter.Items(features=np.eye(2))


def test_features_of_the_wrong_shape() -> None:
    with pytest.raises(InputFormatError, match=r"features must have shape \(len\(catalog\), d\) = \(3, d\)"):
        rankmeter.Items(features=np.eye(2), catalog=["a", "b", "c"])


def test_features_not_finite() -> None:
    with pytest.raises(InputFormatError, match="features of item 'b' are not all finite"):
        rankmeter.Items(features=[[0.0], [math.nan]], catalog=["a", "b"])


def test_catalog_with_a_repeated_item() -> None:
    with pytest.raises(InputFormatError, match="catalog lists item 'a' twice"):
        rankmeter.Items(catalog=["a", "b", "a"])


def test_measure_without_its_side_information() -> None:
    with pytest.raises(PolicyError, match=r"measure 'novelty@2' reads the item interactions: give it as Items\(inter"):
        rankmeter.evaluate(None, {"u1": ["a"]}, "novelty@2", items=rankmeter.Items(catalog=["a"]))


def test_items_of_the_wrong_type() -> None:
    with pytest.raises(InputFormatError, match="items= must be rankmeter.Items"):
        rankmeter.evaluate(None, {"u1": ["a"]}, "entropy@2", items={"a": 1})


def test_unknown_metric() -> None:
    with pytest.raises(MeasureSyntaxError, match="metric must be one of cosine, euclidean, hamming, got 'manhattan'"):
        rankmeter.parse("ild(metric=manhattan)@10")


def test_head_share_out_of_range() -> None:
    with pytest.raises(MeasureSyntaxError, match=r"head must be a number in \[0.0, 1.0\], got '2'"):
        rankmeter.parse("aplt(head=2)@10")


def test_coverage_without_a_catalogue() -> None:
    with pytest.raises(PolicyError, match=r"'gini@2' reads the item catalog: give it as Items\(catalog=...\) or"):
        rankmeter.evaluate(None, {"u1": ["a"]}, "gini@2")


def test_items_with_accuracy_measures_only() -> None:
    res = rankmeter.evaluate({"u1": {"a": 1}}, {"u1": ["b", "a"]}, "rr", items=rankmeter.Items(catalog=["a", "b"]))
    assert res["rr"] == 0.5 and res.metadata["items"]["catalog"] == 2


def test_per_user_measures_by_segment() -> None:
    items = rankmeter.Items(interactions={"x": ["a", "b"], "y": ["a"]}, catalog=["a", "b", "c"])
    res = rankmeter.evaluate({"u1": {"a": 1}, "u2": {"c": 1}, "u3": {"a": 1}},
                             {"u1": ["a", "c"], "u2": ["b", "c"], "u3": ["b", "a"]}, ["rr", "novelty@2", "gini@2"],
                             items=items, group_by={"u1": "warm", "u2": "cold", "u3": "warm"})  # fmt: skip
    # novelty: a seen by both training users (0 bits), b by one (1 bit), c unseen (as seen by one: 1 bit)
    assert res.by_group("novelty@2") == {"warm": (0.5 + 0.5) / 2, "cold": 1.0}
    assert res.by_group("rr") == {"warm": (1 + 0.5) / 2, "cold": 0.5}
    # gini of each segment's lists over the whole catalogue: warm counts (a, b, c) = (2, 1, 0 + 1), cold (0, 1, 1)
    gini = res.by_group("gini@2")
    assert math.isclose(gini["warm"], (-2 * 1 + 0 * 1 + 2 * 2) / 4 / 3) and math.isclose(gini["cold"], 2 / 2 / 3)
    with pytest.raises(PolicyError, match="gini@2 is a list-set value"):
        res.by_query("gini@2")


def test_integer_user_ids_stay_integers() -> None:
    items = rankmeter.Items(interactions={1: [5, 6], 2: [5]})
    res = rankmeter.evaluate({1: {5: 1}, 10: {6: 1}}, {1: [5, 7], 10: [6, 5]}, ["rr", "novelty@2"], items=items)
    # novelty: 5 seen by both training users (0 bits), 6 by one (1 bit), 7 unseen (1 bit)
    assert res.by_query("novelty@2") == {1: 0.5, 10: 0.5} and res.by_query("rr") == {1: 1.0, 10: 1.0}


def test_dense_entry_points_refuse_list_measures() -> None:
    with pytest.raises(PolicyError, match=r"novelty@2: a beyond-accuracy measure reads each user's top-k list"):
        rankmeter.evaluate_lists([[1, 0]], [[0.5, 0.2]], "novelty@2")
