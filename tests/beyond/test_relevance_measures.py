"""Serendipity, popularity-stratified recall and group exposure against their formulas in plain Python."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankmeter
from rankmeter.errors import InputFormatError, PolicyError

CATALOG = [f"i{j}" for j in range(20)]
GROUPS = {item: ("big" if j < 5 else "small") for j, item in enumerate(CATALOG)}


def _case(seed: int) -> tuple[dict, dict, dict]:
    rng = np.random.default_rng(seed)
    train = {f"u{u}": sorted({f"i{j}" for j in rng.integers(0, 15, 4)}) for u in range(8)}
    lists = {f"u{u}": [f"i{j}" for j in rng.permutation(20)[: int(rng.integers(1, 8))]] for u in range(10)}
    truth = {u: {f"i{j}": int(rng.integers(0, 3)) for j in rng.integers(0, 20, 5)} for u in lists}
    lists["u9"], truth["u9"] = ["i0", "i1"], {"i0": 2, "i1": 1}  # the first item of the sorted universe, relevant
    truth["w0"] = {"i3": 1}  # a held-out user without a list, after every listed user
    return train, lists, truth


def _pop(train: dict) -> dict[str, int]:
    out: dict[str, int] = {}
    for items in train.values():
        for i in items:
            out[i] = out.get(i, 0) + 1
    return out


def _attention(model: str, lst: list[str], rel: dict[str, int], p: float = 0.8) -> list[float]:
    if model == "ndcg":
        return [1 / math.log2(r + 2) for r in range(len(lst))]
    if model == "rbp":
        return [p**r for r in range(len(lst))]
    out, a = [], 1.0
    for item in lst:
        out.append(a)
        a *= p * (1 - (rel.get(item, 0) > 0))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("model", ["ndcg", "rbp", "cascade"])
def test_exposure_and_its_disparity(seed: int, model: str) -> None:
    train, lists, truth = _case(seed)
    items = rankmeter.Items(interactions=train, catalog=CATALOG, groups=GROUPS)
    names = [f"exposure(attention={model},group=big)@5", f"exposure_ratio(attention={model})@5",
             f"exposure_diff(attention={model})@5"]  # fmt: skip
    res = rankmeter.evaluate(truth, lists, names, items=items)
    total = {"big": 0.0, "small": 0.0}
    for u, lst in lists.items():
        a = _attention(model, lst[:5], truth[u])
        mine = sum(x for x, item in zip(a, lst[:5], strict=True) if GROUPS[item] == "big")
        assert res.by_query(str(rankmeter.parse(names[0])))[u] == pytest.approx(mine, abs=1e-12)
        for x, item in zip(a, lst[:5], strict=True):
            total[GROUPS[item]] += x
    big, small = total["big"] / (5 * len(lists)), total["small"] / (15 * len(lists))
    assert res[names[1]] == pytest.approx(min(big, small) / max(big, small), abs=1e-12)
    assert res[names[2]] == pytest.approx(max(big, small) - min(big, small), abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pop_recall(seed: int) -> None:
    train, lists, truth = _case(seed)
    pop = _pop(train)
    res = rankmeter.evaluate(truth, lists, ["pop_recall@5", "pop_recall(gamma=0)@5", "r@5"],
                             items=rankmeter.Items(interactions=train))  # fmt: skip
    for u, lst in lists.items():
        relevant = [i for i, g in truth[u].items() if g > 0]
        if not relevant:
            assert u not in res.by_query("pop_recall@5")
            continue
        w = {i: max(pop.get(i, 0), 1) ** -0.5 for i in relevant}
        expected = sum(w[i] for i in lst[:5] if i in w) / sum(w.values())
        assert res.by_query("pop_recall@5")[u] == pytest.approx(expected, abs=1e-12)
        assert res.by_query("pop_recall(gamma=0)@5")[u] == pytest.approx(res.by_query("r@5")[u], abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_rectools_serendipity(seed: int) -> None:
    train, lists, truth = _case(seed)
    rows = _pop(train)  # distinct pairs: rows = users
    ranks = {c: r for r, c in enumerate(sorted(set(rows.values()), reverse=True), start=1)}
    res = rankmeter.evaluate(truth, lists, "rectools_serendipity@5", items=rankmeter.Items(interactions=train,
                                                                                           catalog=CATALOG))  # fmt: skip
    n = len(CATALOG)
    for u, lst in lists.items():
        values = []
        for r, item in enumerate(lst[:5], start=1):
            any_user = (n + 1 - ranks[rows[item]]) / n if item in rows else 0.0
            values.append(max((n + 1 - r) / n - any_user, 0.0) * (truth[u].get(item, 0) > 0))
        assert res.by_query("rectools_serendipity@5")[u] == pytest.approx(sum(values) / len(values), abs=1e-12)


def test_item_outside_the_catalog_has_no_feature_row() -> None:
    items = rankmeter.Items(features=np.eye(2), catalog=["a", "b"])
    assert items.feature_rows(["b", "a"]).tolist() == [1, 0]
    with pytest.raises(InputFormatError, match=r"^item 'zz' has no features \(not in catalog\)$"):
        items.feature_rows(["a", "zz"])


def test_ms_serendipity_written_out() -> None:
    # features a = (1, 0), b = (0, 1), c = (1, 1); cosine(b, a) = 0, cosine(c, a) = 1 / sqrt 2, cosine(c, b) = 1 / sqrt 2
    items = rankmeter.Items(
        interactions={"u1": ["a"], "u2": ["a", "b"]},
        features=[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        catalog=["a", "b", "c"],
    )
    truth = {"u1": {"b": 1, "c": 1}, "u2": {"c": 1}, "u3": {"a": 1}}
    run = {"u1": ["b", "c"], "u2": ["b", "c"], "u3": ["a"]}
    res = rankmeter.evaluate(truth, run, "ms_serendipity@2", items=items)
    # serendipity(u, i) = (1 - mean over u's training items j of cosine(i, j)) * rel(u, i), averaged over u's list
    u1 = ((1 - 0.0) * 1 + (1 - 1 / math.sqrt(2)) * 1) / 2
    u2 = ((1 - (0 + 1) / 2) * 0 + (1 - (1 / math.sqrt(2) + 1 / math.sqrt(2)) / 2) * 1) / 2
    got = res.by_query("ms_serendipity@2")
    assert got["u1"] == pytest.approx(u1, abs=1e-15) and got["u2"] == pytest.approx(u2, abs=1e-15)
    # u3 has no training item: its value is undefined, left out of the mean and counted
    assert "u3" not in got
    assert res["ms_serendipity@2"] == pytest.approx((u1 + u2) / 2, abs=1e-15)
    assert res.metadata["queries_undefined"] == {"ms_serendipity@2": 1}


def test_exposure_of_a_group_of_one_item() -> None:
    # group x = {a}, group y = {b, c}; ndcg attention 1 / log2(r + 1); a group's mean over its items and the 2 users
    items = rankmeter.Items(catalog=["a", "b", "c"], groups={"a": "x", "b": "y", "c": "y"})
    res = rankmeter.evaluate(
        None, {"u1": ["a", "b"], "u2": ["c"]}, ["exposure_ratio@2", "exposure_diff@2"], items=items
    )
    x, y = 1 / (1 * 2), (1 / math.log2(3) + 1) / (2 * 2)
    assert res["exposure_ratio@2"] == pytest.approx(y / x, abs=1e-15)
    assert res["exposure_diff@2"] == pytest.approx(x - y, abs=1e-15)


def test_item_without_a_group_is_located() -> None:
    items = rankmeter.Items(catalog=["a", "b"], groups={"a": "x", "b": "y"})
    with pytest.raises(InputFormatError, match="measure 'exposure_ratio@2', user 'u2': item 'c' has no group"):
        rankmeter.evaluate(None, {"u1": ["a", "b"], "u2": ["b", "c"]}, "exposure_ratio@2", items=items)
    with pytest.raises(InputFormatError, match="measure 'exposure_ratio@2', user 'u2': item '0' has no group"):
        rankmeter.evaluate(None, {"u1": ["a", "b"], "u2": ["b", "0"]}, "exposure_ratio@2", items=items)  # sorts first


def test_unknown_group() -> None:
    items = rankmeter.Items(catalog=["a"], groups={"a": "x"})
    with pytest.raises(PolicyError, match="group must be one of x, got 'zz'"):
        rankmeter.evaluate(None, {"u1": ["a"]}, "exposure(group=zz)@2", items=items)


def test_relevance_measures_need_qrels() -> None:
    with pytest.raises(PolicyError, match="reads the held-out interactions"):
        rankmeter.evaluate(None, {"u1": ["a"]}, "pop_recall@2", items=rankmeter.Items(interactions={"x": ["a"]}))


def test_ties_inside_the_top_k_for_positions() -> None:
    items = rankmeter.Items(catalog=["a", "b", "c"], groups={"a": "x", "b": "y", "c": "y"})
    run = {"u1": {"a": 1.0, "b": 1.0, "c": 0.0}}
    with pytest.raises(PolicyError, match="user 'u1': tied items lie inside the top k"):
        rankmeter.evaluate(None, run, "exposure(group=x)@3", items=items, ties="expected")
    # the set of the top 2 does not depend on the order of a and b
    assert (
        rankmeter.evaluate(None, run, "catalog_coverage@2", items=items, ties="expected")["catalog_coverage@2"] == 2 / 3
    )


def test_training_item_without_features_names_its_user() -> None:
    items = rankmeter.Items(interactions={"t1": ["a"], "t2": ["zz"]}, features=np.eye(2), catalog=["a", "b"])
    with pytest.raises(InputFormatError, match="user 't2': training item 'zz' has no features"):
        rankmeter.evaluate({"t1": {"a": 1}, "t2": {"b": 1}}, {"t1": ["a", "b"], "t2": ["b"]}, "ms_serendipity@2",
                           items=items)  # fmt: skip


def test_ties_for_positions_are_checked_user_by_user_inside_the_top_k_only() -> None:
    items = rankmeter.Items(catalog=["a", "b", "c", "d"], groups={"a": "x", "b": "y", "c": "y", "d": "x"})
    # u1: c and d tie below the top 2, which is a then b (the lists are read to 4 for the coverage)
    u1 = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 1.0}
    names = ["exposure(group=x)@2", "catalog_coverage@4"]
    res = rankmeter.evaluate(None, {"u1": u1}, names, items=items, ties="expected")
    assert res.by_query("exposure(group=x)@2") == {"u1": 1.0}  # a at rank 1: attention 1 / log2(2)
    assert res["catalog_coverage@4"] == 1.0
    # u1 without a tie, u2 with a and b tied inside its top 3: u2 is named
    run = {"u1": {**u1, "d": 0.0}, "u2": {"a": 1.0, "b": 1.0, "c": 0.5, "d": 0.2}}
    with pytest.raises(PolicyError, match="measure 'exposure\\(group=x\\)@3', user 'u2': tied items lie inside"):
        rankmeter.evaluate(None, run, "exposure(group=x)@3", items=items, ties="expected")
