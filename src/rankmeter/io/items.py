"""Side information about the items, for the beyond-accuracy measures: :class:`Items`.

Training interactions give each item's popularity (novelty, ARP, the long tail), item features or
embeddings give distances (intra-list diversity, serendipity), a catalogue gives the set coverage and
the Gini index are taken over, and a group map gives the groups that exposure is shared between.

>>> items = Items(interactions={"u1": ["a", "b"], "u2": ["a"]}, groups={"a": "head", "b": "tail", "c": "tail"})
>>> items.users_of(["a", "b", "zz"]).tolist(), items.n_users, items.catalog_size
([2, 1, 0], 2, 2)
>>> items.describe()["groups"]
2
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, PolicyError
from rankmeter.ids.booleans import bool_ids_error, check_python_ids, is_bool_column
from rankmeter.ids.column import IdColumn
from rankmeter.ids.intern import encode
from rankmeter.ids.text import first_of_runs


def _ids(values: Any, what: str) -> np.ndarray:
    """A 1-D array of string ids (each converted with ``str``)."""
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    arr = np.asarray(list(map(str, values)) if not isinstance(values, np.ndarray) else values.astype(str))
    if arr.ndim != 1:
        raise InputFormatError(f"Items: {what} must be one-dimensional, got shape {arr.shape}")
    return arr.astype(str)


def distinct_pairs(user: np.ndarray, item: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (user, item) pairs of two code columns (codes from 0; item codes below ``n_items``), by item.

    Returns each pair's user, the pairs ordered by item, and the pairs of each item (its distinct users),
    so that the pairs' items are ``np.repeat(np.arange(n_items), per_item)``.

    Pairs repeat when a user interacted with an item twice. When the rows come in user order (grouped or
    sorted by user, as training logs usually are) and the item codes fit 16 bits, the rows ordered by item
    (a radix sort, which keeps their order within each item) have the repeats of a pair next to each
    other, and one pass drops them. Otherwise the pairs' keys ``item * n_users + user`` are sorted.

    >>> users, per_item = distinct_pairs(np.array([0, 0, 1, 1, 1]), np.array([2, 0, 2, 0, 2]), 4)
    >>> users.tolist(), per_item.tolist()  # item 0: users 0 and 1; item 2: users 0 and 1 (twice)
    ([0, 1, 0, 1], [2, 0, 2, 0])
    >>> [a.tolist() for a in distinct_pairs(np.array([1, 0, 1, 0]), np.array([0, 0, 0, 0]), 1)]  # users not in order
    [[0, 1], [2]]
    """
    user, item = np.asarray(user, dtype=np.int64), np.asarray(item, dtype=np.int64)
    if not len(item):
        return user, np.zeros(n_items, dtype=np.int64)
    if n_items <= 1 << 16 and bool((user[1:] >= user[:-1]).all()):
        its_user = user[np.argsort(item.astype(np.uint16), kind="stable")]  # users still in order within each item
        rows = np.bincount(item, minlength=n_items)
        starts = (np.cumsum(rows) - rows)[rows > 0]  # where each item's rows begin (item codes sorted)
        first = np.ones(len(item), dtype=bool)
        np.not_equal(its_user[1:], its_user[:-1], out=first[1:])
        first[starts] = True
        per_item = np.zeros(n_items, dtype=np.int64)
        per_item[rows > 0] = np.add.reduceat(first, starts, dtype=np.int64)
        return its_user[first], per_item
    n = int(user.max()) + 1
    key = item * n + user
    if n_items <= (1 << 32) // n:  # keys below 2**32: a sort of half the bytes
        key = key.astype(np.uint32)
    key = np.sort(key)
    key = key[first_of_runs(key)].astype(np.int64)
    return key % n, np.bincount(key // n, minlength=n_items)


def _lookup(sorted_ids: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The position of each id of ``ids`` in ``sorted_ids`` (-1 where absent)."""
    if not len(sorted_ids):
        return np.full(len(ids), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(sorted_ids, ids), len(sorted_ids) - 1)
    return np.where(sorted_ids[at] == ids, at, -1).astype(np.int64)


class Items:
    """What the beyond-accuracy measures know about the items, given once as ``items=``.

    Parameters
    ----------
    interactions : table, dict, path or Qrels, optional
        Training interactions (``user_id, item_id`` rows, ``{user: [item, ...]}``, ...; what
        ``exclude=`` takes). An item's popularity is the number of distinct training users that
        interacted with it; its interaction count, the number of rows (the two agree when no pair repeats).
    features : array-like, shape (n_catalog, d), optional
        Item feature vectors or embeddings, row ``i`` for ``catalog[i]`` (needs ``catalog``).
    catalog : sequence of item ids, optional
        Every item that could be recommended. Default: the items of ``interactions``.
    groups : mapping or sequence, optional
        ``{item: group}``, or one group per ``catalog`` entry (a sequence in the order of
        ``catalog=``, which must then be given: the default catalogue's order, the interactions'
        items as sorted text, is no order to count on).

    Examples
    --------
    >>> import numpy as np
    >>> items = Items(features=np.eye(3), catalog=["a", "b", "c"])
    >>> items.feature_rows(["c", "a"]).tolist()
    [2, 0]
    """

    def __init__(
        self,
        interactions: Any = None,
        features: Any = None,
        catalog: Any = None,
        groups: Any = None,
    ) -> None:
        self.n_users = 0
        self.n_interactions = 0
        self._pop_ids = np.zeros(0, dtype=str)
        self._pop_rows = np.zeros(0, dtype=np.int64)
        self._training: tuple[IdColumn, np.ndarray, np.ndarray, np.ndarray] | None = None  # users, codes, items
        self._distinct: tuple[np.ndarray, np.ndarray] | None = None  # found when a measure reads distinct users
        self._pairs: np.ndarray | None = None  # the distinct pairs as text, written out on first use
        self.given = [name for name, v in (("interactions", interactions), ("features", features),
                                           ("catalog", catalog), ("groups", groups)) if v is not None]  # fmt: skip
        if interactions is not None:
            self._read_interactions(interactions)
        if catalog is not None:
            self.catalog = _ids(catalog, "catalog")
            given = catalog.to_numpy() if hasattr(catalog, "to_numpy") else catalog
            if is_bool_column(given):  # item ids, as every reader reads them (rankmeter.ids.booleans)
                raise bool_ids_error("Items: catalog")
            check_python_ids(given if isinstance(given, np.ndarray) else list(given), self.catalog, "Items: catalog")
        else:
            self.catalog = self._pop_ids
        self._catalog_sorted = np.argsort(self.catalog, kind="stable")
        ordered = self.catalog[self._catalog_sorted]
        twice = np.flatnonzero(ordered[1:] == ordered[:-1])  # (the interactions' items are distinct)
        if len(twice):
            raise InputFormatError(f"Items: catalog lists item {str(ordered[twice[0]])!r} twice")
        self.features = None if features is None else self._read_features(features)
        self.group_names, self._group_of = self._read_groups(groups)

    def _read_interactions(self, interactions: Any) -> None:
        from rankmeter.io.load import as_pairs

        pairs = as_pairs(interactions, "interactions")
        user = pairs.query_ids.codes  # codes into the users' dictionary: their text is written out only for .pairs
        item_ids, item = encode(pairs.doc_ids)
        self.n_interactions = len(item)
        rows = np.bincount(item, minlength=len(item_ids))
        self._pop_ids, self._pop_rows = item_ids[rows > 0], rows[rows > 0].astype(np.int64)
        self.n_users = int(np.count_nonzero(np.bincount(user))) if len(user) else 0
        self._training = (pairs.query_ids.dictionary, user, item, item_ids)

    def _distinct_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`distinct_pairs` of the training interactions (each pair's user; each item's pairs), found once."""
        if self._distinct is None:
            if self._training is None:
                return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
            _, user, item, item_ids = self._training
            self._distinct = distinct_pairs(user, item, len(item_ids))
        return self._distinct

    def __getstate__(self) -> dict[str, Any]:
        """What pickling keeps (for Spark and Dask workers): the distinct pairs found, not the training rows' codes.

        >>> import pickle
        >>> items = pickle.loads(pickle.dumps(Items(interactions={"u1": ["a", "b", "a"], "u2": ["a"]})))
        >>> items.users_of(["a", "b"]).tolist(), items.pairs.tolist()
        ([2, 1], [['u1', 'a'], ['u1', 'b'], ['u2', 'a']])
        """
        state = dict(self.__dict__)
        state.pop("_last_lookup", None)  # a cache of the last ids looked up: not worth shipping to workers
        if self._training is not None:
            state["_distinct"] = self._distinct_pairs()
            users, _, _, item_ids = self._training
            state["_training"] = (users, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), item_ids)
        return state

    @property
    def _pop_users(self) -> np.ndarray:
        """Distinct training users of each item of the interactions (in the order of ``_pop_ids``)."""
        per_item = self._distinct_pairs()[1]
        return per_item[per_item > 0]  # (an item with rows has a pair; the others are no interactions' items)

    @property
    def pairs(self) -> np.ndarray:
        """The distinct (user, item) training pairs as text, shape (n, 2), sorted by user (written out on first use).

        >>> Items(interactions={"u2": ["b"], "u1": ["b", "a", "b"]}).pairs.tolist()
        [['u1', 'a'], ['u1', 'b'], ['u2', 'b']]
        """
        if self._pairs is None:
            if self._training is None:
                return np.zeros((0, 2), dtype=str)
            users, _, _, item_ids = self._training
            pair_user, per_item = self._distinct_pairs()
            if not len(pair_user):
                return np.zeros((0, 2), dtype=str)
            pair_item = np.repeat(np.arange(len(item_ids)), per_item)
            user_ids, user_code = encode(IdColumn(codes=pair_user, dictionary=users))
            order = np.lexsort((pair_item, user_code))
            self._pairs = np.stack([user_ids[user_code[order]], item_ids[pair_item[order]]], axis=1)
        return self._pairs

    def _read_features(self, features: Any) -> np.ndarray:
        if not self.given.count("catalog"):
            raise InputFormatError("Items: features= needs catalog= (row i of features is catalog[i])")
        arr = np.asarray(features, dtype=np.float64)
        if arr.ndim != 2 or arr.shape[0] != len(self.catalog):
            raise InputFormatError(
                f"Items: features must have shape (len(catalog), d) = ({len(self.catalog)}, d), got {arr.shape}"
            )
        if not np.isfinite(arr).all():
            row = int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])
            raise InputFormatError(f"Items: features of item {str(self.catalog[row])!r} are not all finite")
        return arr

    def _read_groups(self, groups: Any) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
        if groups is None:
            return np.zeros(0, dtype=str), None
        if hasattr(groups, "to_dict") and hasattr(groups, "index"):
            groups = groups.to_dict()
        if isinstance(groups, Mapping):
            ids, labels = _ids(list(groups), "groups"), _ids(list(groups.values()), "groups")
        else:
            labels = _ids(groups, "groups")
            if "catalog" not in self.given:  # (the training items as text sort "10" before "9")
                raise InputFormatError(
                    "Items: groups given as a sequence follow catalog=, which is not given; pass catalog= (the "
                    "item of each group, in order) or groups as {item: group}"
                )
            if len(labels) != len(self.catalog):
                raise InputFormatError(
                    f"Items: groups given as a sequence must follow catalog ({len(self.catalog)} items), "
                    f"got {len(labels)}"
                )
            ids = self.catalog
        order = np.argsort(ids, kind="stable")
        names, codes = np.unique(labels, return_inverse=True)
        return names, (ids[order], codes[order].astype(np.int64))

    def with_catalog(self, ids: Any) -> Items:
        """These items with ``ids`` as the catalogue (for scores whose columns are the catalogue).

        Groups stay with their items: they are keyed by item id (a sequence of groups needs
        ``catalog=``, whose ids it is read against), never by position in the new catalogue.

        >>> Items(interactions={"u": ["a"]}).with_catalog(["a", "b"]).catalog_size
        2
        """
        out = copy.copy(self)
        out.catalog = _ids(ids, "catalog")
        out._catalog_sorted = np.argsort(out.catalog, kind="stable")
        return out

    @property
    def catalog_size(self) -> int:
        """Items in the catalogue (the training items when no catalogue was given)."""
        return len(self.catalog)

    def _training_at(self, ids: Any) -> np.ndarray:
        """The position of each item among the interactions' items (-1 where absent).

        The last ids looked up are kept with their positions (a copy, compared whole), for the popularity
        measures that read both counts of one set of items.
        """
        ids = _ids(ids, "ids")
        last = self.__dict__.get("_last_lookup")
        if last is not None and last[0].shape == ids.shape and np.array_equal(last[0], ids):
            return np.asarray(last[1])
        at = _lookup(self._pop_ids, ids)
        self._last_lookup = (ids.copy(), at)
        return at

    def users_of(self, ids: Any) -> np.ndarray:
        """Distinct training users of each item (0 for an item absent from the interactions)."""
        at = self._training_at(ids)
        return np.where(at >= 0, self._pop_users[at] if len(self._pop_users) else 0, 0)

    def rows_of(self, ids: Any) -> np.ndarray:
        """Training interactions (rows) of each item (0 for an item absent from them)."""
        at = self._training_at(ids)
        return np.where(at >= 0, self._pop_rows[at] if len(self._pop_rows) else 0, 0)

    def training_rows(self) -> np.ndarray:
        """Training interactions (rows) of every item of the interactions."""
        return self._pop_rows

    def in_catalog(self, ids: Any) -> np.ndarray:
        """Whether each item is in the catalogue."""
        return _lookup(self.catalog[self._catalog_sorted], _ids(ids, "ids")) >= 0

    def feature_rows(self, ids: Any, who: Any = None, role: str = "item") -> np.ndarray:
        """The row of ``features`` of each item; an item outside the catalogue is an error naming it.

        ``who``: the user of each item, named in the error; ``role``: what the
        items are, named in the error (``"training item"`` for a user's history).
        """
        if self.features is None:
            raise PolicyError("this measure reads item features: give Items(features=..., catalog=...)")
        ids = _ids(ids, "ids")
        at = _lookup(self.catalog[self._catalog_sorted], ids)
        if (at < 0).any():
            bad = int(np.flatnonzero(at < 0)[0])
            where = "" if who is None else f"user {str(who[bad])!r}: "
            raise InputFormatError(f"{where}{role} {str(ids[bad])!r} has no features (not in catalog)")
        return self._catalog_sorted[at].astype(np.int64)

    def group_codes_or_missing(self, ids: Any) -> np.ndarray:
        """The group of each item (an index into :attr:`group_names`), -1 for an item without one."""
        if self._group_of is None:
            return np.full(len(ids), -1, dtype=np.int64)
        at = _lookup(self._group_of[0], _ids(ids, "ids"))
        return np.where(at >= 0, self._group_of[1][np.maximum(at, 0)] if len(at) else 0, -1)

    def group_codes(self, ids: Any, who: Any = None) -> np.ndarray:
        """The group of each item (an index into :attr:`group_names`); an item with no group is an error."""
        if self._group_of is None:
            raise PolicyError("this measure reads item groups: give Items(groups=...)")
        ids = _ids(ids, "ids")
        at = _lookup(self._group_of[0], ids)
        if (at < 0).any():
            bad = int(np.flatnonzero(at < 0)[0])
            where = "" if who is None else f"user {str(who[bad])!r}: "
            raise InputFormatError(f"{where}item {str(ids[bad])!r} has no group in Items(groups=...)")
        return self._group_of[1][at]

    def catalog_groups(self) -> np.ndarray:
        """The group code of every catalogue item (each must have one)."""
        return self.group_codes(self.catalog)

    def describe(self) -> dict[str, Any]:
        """What was given and its sizes (``metadata["items"]``).

        >>> Items(catalog=["a", "b"]).describe()["given"], Items(catalog=["a", "b"]).describe()["catalog"]
        (['catalog'], 2)
        """
        return {
            "given": list(self.given),
            "catalog": self.catalog_size,
            "training_users": self.n_users,
            "training_interactions": self.n_interactions,
            "features": None if self.features is None else list(self.features.shape),
            "groups": len(self.group_names),
        }

    def needs(self, what: str, measure: str) -> None:
        """Raise PolicyError when ``measure`` needs ``what`` (interactions, features, groups, catalog) and lacks it."""
        have = {"interactions": self.n_interactions > 0 or "interactions" in self.given,
                "features": self.features is not None, "groups": self._group_of is not None,
                "catalog": self.catalog_size > 0}  # fmt: skip
        if not have[what]:
            give = "Items(catalog=...) or Items(interactions=...)" if what == "catalog" else f"Items({what}=...)"
            raise PolicyError(f"measure {measure!r} reads the item {what}: give it as {give}")
