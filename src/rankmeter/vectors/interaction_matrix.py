"""User x item interactions (ground truth, seen items) as a CSR matrix whose rows and columns are embeddings' rows.

Three forms are read:

* a ``scipy.sparse`` matrix (CSR, COO, ...) of shape ``(n_users, n_items)``:
  row i is ``user_vectors[i]``, column j is ``item_vectors[j]``;
* a long table (pandas, polars, pyarrow) with a user column (``user_id``,
  ``user``, ``userId``), an item column (``item_id``, ``item``, ``itemId``)
  and, for the ground truth, an optional grade column (``rating``,
  ``relevance``, ``grade``, ``label``; 1 when absent), whose ids are found in
  ``user_ids`` / ``item_ids``;
* a dict ``{user: {item: grade}}`` or ``{user: [item, ...]}`` (grade 1), ids
  found the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError
from rankmeter.io.exclude import is_sparse
from rankmeter.io.frames import is_frame

USER_COLUMNS = ("user_id", "user", "userId")
ITEM_COLUMNS = ("item_id", "item", "itemId")
GRADE_COLUMNS = ("rating", "relevance", "grade", "label")


@dataclass(frozen=True)
class Interactions:
    """A CSR matrix of interactions and what reading it dropped."""

    matrix: Any  # scipy.sparse.csr_array, float64
    unknown_rows: int = 0  # table or dict entries whose user or item has no embedding (exclude= only)


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python value it holds (as messages show ids)."""
    return value.item() if isinstance(value, np.generic) else value


class IdIndex:
    """Where each id of ``ids`` sits (ids compared as NumPy compares them: ``1`` and ``"1"`` differ).

    >>> IdIndex(np.array(["b", "a", "c"]), "user_ids").find(np.array(["a", "c", "x"])).tolist()
    [1, 2, -1]
    """

    def __init__(self, ids: Any, name: str) -> None:
        self.ids = np.asarray(ids)
        if self.ids.ndim != 1:
            raise InputFormatError(f"{name} must be one-dimensional, got shape {self.ids.shape}")
        self.order = np.argsort(self.ids, kind="stable")
        self.sorted = self.ids[self.order]
        same = np.flatnonzero(self.sorted[1:] == self.sorted[:-1])
        if len(same):
            raise InputFormatError(f"{name} holds {_plain(self.sorted[same[0]])!r} twice")

    def find(self, values: np.ndarray) -> np.ndarray:
        """The index of each value in the ids, -1 where it is not one of them."""
        if not len(self.sorted) or not len(values):
            return np.full(len(values), -1, dtype=np.int64)
        try:
            at = np.searchsorted(self.sorted, values).clip(max=len(self.sorted) - 1)
            found = self.sorted[at] == values
        except TypeError:  # ids of another kind (text against numbers): none of them
            return np.full(len(values), -1, dtype=np.int64)
        return np.where(found, self.order[at], -1).astype(np.int64)


def _column(frame: Any, names: tuple[str, ...], what: str, name: str, required: bool = True) -> np.ndarray | None:
    columns = [str(c) for c in (frame.column_names if hasattr(frame, "column_names") else frame.columns)]
    found = next((c for c in names if c in columns), None)
    if found is None:
        if not required:
            return None
        raise InputFormatError(
            f"{name}: table has no {what} column (looked for {', '.join(names)}; columns: {', '.join(columns)})"
        )
    col = frame.column(found) if hasattr(frame, "column_names") else frame[found]
    values = col.to_numpy(zero_copy_only=False) if hasattr(frame, "column_names") else col.to_numpy()
    return np.asarray(values)


def _triples(data: Any, name: str, grades: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(users, items, grades) of a table or dict."""
    if is_frame(data):
        users = _column(data, USER_COLUMNS, "user", name)
        items = _column(data, ITEM_COLUMNS, "item", name)
        assert users is not None and items is not None
        values = _column(data, GRADE_COLUMNS, "grade", name, required=False) if grades else None
        return users, items, np.ones(len(users)) if values is None else np.asarray(values, dtype=np.float64)
    users_l: list[Any] = []
    items_l: list[Any] = []
    grades_l: list[float] = []
    for user, entries in data.items():
        pairs = entries.items() if isinstance(entries, Mapping) else ((item, 1.0) for item in entries)
        for item, grade in pairs:
            users_l.append(user)
            items_l.append(item)
            grades_l.append(float(grade))
    return np.asarray(users_l), np.asarray(items_l), np.asarray(grades_l, dtype=np.float64)


def read_interactions(
    data: Any,
    name: str,
    shape: tuple[int, int],
    user_ids: IdIndex | None,
    item_ids: IdIndex | None,
    *,
    grades: bool,
) -> Interactions:
    """``data`` (sparse matrix, table or dict) as a CSR matrix of ``shape`` (rows: users, columns: items).

    ``grades``: the ground truth (a table's grade column is read, a pair
    given twice is an error, an unknown user or item is an error); otherwise
    seen items (entries are 1, repeats count once, unknown ids are counted in
    :attr:`Interactions.unknown_rows` and left out).

    >>> import scipy.sparse
    >>> m = read_interactions({"u2": ["b"], "u1": {"a": 3}}, "truth", (2, 2), IdIndex(["u1", "u2"], "user_ids"),
    ...                       IdIndex(["a", "b"], "item_ids"), grades=True).matrix
    >>> m.toarray().tolist()
    [[3.0, 0.0], [0.0, 1.0]]
    """
    import scipy.sparse

    if is_sparse(data):
        if tuple(data.shape) != shape:
            raise InputFormatError(
                f"{name} has shape {tuple(data.shape)}, expected {shape} (rows of user_vectors, rows of item_vectors)"
            )
        return _finite(Interactions(scipy.sparse.csr_array(data, dtype=np.float64)), name, grades)
    if not (is_frame(data) or isinstance(data, Mapping)):
        raise InputFormatError(
            f"{name} must be a scipy.sparse matrix, a table (user_id, item_id[, rating]) or a dict, "
            f"got {type(data).__name__}"
        )
    if user_ids is None or item_ids is None:
        raise InputFormatError(
            f"{name} names users and items by id: pass user_ids= and item_ids= (the ids of the rows of "
            "user_vectors and of item_vectors)"
        )
    users, items, values = _triples(data, name, grades)
    rows, cols = user_ids.find(users), item_ids.find(items)
    unknown = (rows < 0) | (cols < 0)
    if grades and unknown.any():
        at = int(np.flatnonzero(unknown)[0])
        user, item = _plain(users[at]), _plain(items[at])
        what = f"user {user!r} is not in user_ids" if rows[at] < 0 else f"item {item!r} is not in item_ids"
        raise InputFormatError(f"{name} row {at}: {what}")
    rows, cols, values = rows[~unknown], cols[~unknown], values[~unknown]
    flat = rows * shape[1] + cols
    order = np.argsort(flat, kind="stable")
    repeated = np.flatnonzero(flat[order][1:] == flat[order][:-1])
    if grades and len(repeated):
        first, again = (int(i) for i in np.sort(order[repeated[0] : repeated[0] + 2]))
        raise InputFormatError(
            f"{name} rows {first} and {again}: user {_plain(users[first])!r}, item {_plain(items[first])!r} "
            "is given twice"
        )
    if not grades:
        values = np.ones(len(values))
    matrix = scipy.sparse.coo_array((values, (rows, cols)), shape=shape).tocsr()
    if not grades:
        matrix.data[:] = 1.0  # an item seen twice is removed once
    return _finite(Interactions(matrix, int(unknown.sum())), name, grades)


def _finite(read: Interactions, name: str, grades: bool) -> Interactions:
    """``read``, once every grade is known to be finite (the error names the first that is not)."""
    data = read.matrix.data
    if grades and not np.isfinite(data).all():
        at = int(np.flatnonzero(~np.isfinite(data))[0])
        row = int(np.searchsorted(read.matrix.indptr, at, side="right") - 1)
        raise InvalidScoreError(
            f"{name}: user row {row}, item column {int(read.matrix.indices[at])}: grade {data[at]}; "
            "grades must be finite numbers"
        )
    return read
