"""Items' training popularity: each item's distinct users, whatever the order and repeats of the training rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.io.items import Items, distinct_pairs


def _by_python(user: list[int], item: list[int]) -> list[tuple[int, int]]:
    return sorted(set(zip(user, item, strict=True)), key=lambda p: (p[1], p[0]))


def _pairs(user: np.ndarray, item: np.ndarray, n_items: int) -> list[tuple[int, int]]:
    """distinct_pairs' answer as (user, item) pairs in its order (by item), users within an item sorted."""
    users, per_item = distinct_pairs(user, item, n_items)
    assert len(per_item) == n_items and per_item.sum() == len(users)
    items = np.repeat(np.arange(n_items), per_item)
    assert (np.diff(items) >= 0).all()
    return sorted(zip(users.tolist(), items.tolist(), strict=True), key=lambda p: (p[1], p[0]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 4)), min_size=1, max_size=40), st.booleans())
def test_distinct_pairs_are_the_set_of_pairs(rows: list[tuple[int, int]], by_user: bool) -> None:
    rows = sorted(rows, key=lambda r: r[0]) if by_user else rows  # users in order: the one-pass path
    user, item = (list(c) for c in zip(*rows, strict=True))
    assert _pairs(np.array(user), np.array(item), 5) == _by_python(user, item)


@pytest.mark.parametrize("n_items", [70_000, 1 << 20])  # item codes beyond 16 bits: the pairs' keys sorted
def test_distinct_pairs_of_many_items(n_items: int) -> None:
    rng = np.random.default_rng(0)
    user, item = rng.integers(0, 50, 3000), rng.integers(0, n_items, 3000)
    item[:100] = n_items - 1
    user = np.concatenate([user, user[:500]])  # every pair of the first 500 rows twice
    item = np.concatenate([item, item[:500]])
    assert _pairs(user, item, n_items) == _by_python(user.tolist(), item.tolist())


def test_popularity_counts_distinct_users_and_rows_with_repeats_in_any_order() -> None:
    train = pd.DataFrame({"user_id": [3, 1, 3, 2, 1, 3, 1], "item_id": [10, 10, 10, 11, 11, 12, 10]})
    items = Items(interactions=train)
    assert items.users_of([10, 11, 12, 13]).tolist() == [2, 2, 1, 0]  # 10: users 1 and 3 (3 and 1 twice)
    assert items.rows_of([10, 11, 12, 13]).tolist() == [4, 2, 1, 0]
    assert items.n_users == 3 and items.n_interactions == 7
    assert items.pairs.tolist() == [["1", "10"], ["1", "11"], ["2", "11"], ["3", "10"], ["3", "12"]]


def test_a_pickled_items_keeps_the_distinct_pairs_and_not_the_rows() -> None:
    import pickle

    train = pd.DataFrame({"user_id": [3, 1, 3, 2, 1, 3, 1], "item_id": [10, 10, 10, 11, 11, 12, 10]})
    items = pickle.loads(pickle.dumps(Items(interactions=train)))
    assert items.users_of([10, 11, 12]).tolist() == [2, 2, 1] and items.n_users == 3
    assert items.pairs.tolist() == [["1", "10"], ["1", "11"], ["2", "11"], ["3", "10"], ["3", "12"]]
    assert items._training is not None and not len(items._training[1])  # the rows' codes were not pickled


def test_counts_of_items_looked_up_again_after_the_ids_changed_in_place() -> None:
    items = Items(interactions={"u1": ["a", "b"], "u2": ["a"]})
    ids = np.array(["a", "zz"])
    assert items.users_of(ids).tolist() == [2, 0] and items.rows_of(ids).tolist() == [2, 0]
    ids[1] = "b"
    assert items.rows_of(ids).tolist() == [2, 1] and items.users_of(ids).tolist() == [2, 1]
    assert items.rows_of(np.array(["b"])).tolist() == [1]


def test_pickling_drops_the_cache_of_the_last_lookup_and_keeps_the_counts() -> None:
    import pickle

    from rankmeter.io.items import Items

    items = Items(interactions={"u1": ["a", "b", "a"], "u2": ["a"]})
    assert items.users_of(["a", "b"]).tolist() == [2, 1]
    copy = pickle.loads(pickle.dumps(items))
    assert "_last_lookup" not in copy.__dict__
    assert copy.users_of(["a", "b"]).tolist() == [2, 1] and copy.rows_of(["a", "b"]).tolist() == [3, 1]
