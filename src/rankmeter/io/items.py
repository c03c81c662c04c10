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
from rankmeter.ids.intern import encode


def _ids(values: Any, what: str) -> np.ndarray:
    """A 1-D array of string ids (each converted with ``str``)."""
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    arr = np.asarray(list(map(str, values)) if not isinstance(values, np.ndarray) else values.astype(str))
    if arr.ndim != 1:
        raise InputFormatError(f"Items: {what} must be one-dimensional, got shape {arr.shape}")
    return arr.astype(str)


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
        self._pop_users = np.zeros(0, dtype=np.int64)
        self._pop_rows = np.zeros(0, dtype=np.int64)
        self._pairs: np.ndarray | None = np.zeros((0, 2), dtype=str)  # written out from _pair_codes when read
        self._pair_codes: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
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
            distinct, counts = np.unique(self.catalog, return_counts=True)
            if len(distinct) < len(self.catalog):
                raise InputFormatError(f"Items: catalog lists item {str(distinct[counts > 1][0])!r} twice")
        else:
            self.catalog = self._pop_ids
        self._catalog_sorted = np.argsort(self.catalog, kind="stable")
        self.features = None if features is None else self._read_features(features)
        self.group_names, self._group_of = self._read_groups(groups)

    def _read_interactions(self, interactions: Any) -> None:
        from rankmeter.io.load import as_pairs

        pairs = as_pairs(interactions, "interactions")
        user_ids, user = encode(pairs.query_ids)  # the rows' codes: only distinct ids are read as text
        item_ids, item = encode(pairs.doc_ids)
        self.n_interactions = len(item)
        rows = np.bincount(item, minlength=len(item_ids))
        self._pop_ids, self._pop_rows = item_ids[rows > 0], rows[rows > 0].astype(np.int64)
        key = np.sort(user * len(item_ids) + item)  # (user, item) pairs by user then item: a sort, not np.unique
        distinct = key[np.r_[True, key[1:] != key[:-1]]] if len(key) else key  # (its hash is slow on many values)
        pair_user, pair_item = np.divmod(distinct, max(len(item_ids), 1))
        self.n_users = int(np.count_nonzero(pair_user[1:] != pair_user[:-1])) + 1 if len(pair_user) else 0
        self._pop_users = np.bincount(pair_item, minlength=len(item_ids))[rows > 0].astype(np.int64)
        if len(distinct):
            self._pairs, self._pair_codes = None, (user_ids, pair_user, item_ids, pair_item)

    @property
    def pairs(self) -> np.ndarray:
        """The distinct (user, item) training pairs as text, shape (n, 2), sorted by user (written out on first use).

        >>> Items(interactions={"u2": ["b"], "u1": ["b", "a", "b"]}).pairs.tolist()
        [['u1', 'a'], ['u1', 'b'], ['u2', 'b']]
        """
        if self._pairs is None:
            assert self._pair_codes is not None
            user_ids, pair_user, item_ids, pair_item = self._pair_codes
            self._pairs = np.stack([user_ids[pair_user], item_ids[pair_item]], axis=1)
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

    def users_of(self, ids: Any) -> np.ndarray:
        """Distinct training users of each item (0 for an item absent from the interactions)."""
        at = _lookup(self._pop_ids, _ids(ids, "ids"))
        return np.where(at >= 0, self._pop_users[at] if len(self._pop_users) else 0, 0)

    def rows_of(self, ids: Any) -> np.ndarray:
        """Training interactions (rows) of each item (0 for an item absent from them)."""
        at = _lookup(self._pop_ids, _ids(ids, "ids"))
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
