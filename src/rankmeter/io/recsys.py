"""Recommender inputs: ranked id lists without scores, and ground truth as sets, long tables or sparse matrices.

A ranked list is a run whose order is the ranking: each item gets the score
``-rank`` (rank 1 = top), so that ranking by score descending gives the list's
own order back and no two items of a user tie. Forms read here:

* ``{user: [item, ...]}`` (:func:`run_from_lists`), in rank order;
* a table with a rank column and no score column (:func:`check_ranks` checks
  that each user's ranks run 1, 2, 3, ... without gaps or repeats);
* a 2-D array of item ids, one row per user (:func:`ranked_lists`);
* a table with a user column and a list column of items (:func:`run_from_list_column`).

Ground truth as ``{user: {item, ...}}`` or lists (:func:`qrels_from_sets`,
every item grade 1) and as a ``scipy.sparse`` user x item matrix
(:func:`interactions`) are read into :class:`~rankmeter.io.tables.Qrels`.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from itertools import chain
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, where
from rankmeter.ids.booleans import bool_ids_error, check_python_ids, id_array, is_bool_column
from rankmeter.ids.integers import integer_text as integer_ids  # noqa: F401  (the writer of integer ids' text)
from rankmeter.ids.integers import python_ids
from rankmeter.io.tables import Qrels, Run

LIST_TYPES = (list, tuple, np.ndarray, Set)
"""What a dict value may be to read the dict as lists of items: a run's ranked list, or a user's relevant items."""
RANKED_COLUMNS = {"query_id": "<user>", "doc_id": "<item>", "rank": "<position in the list>"}
"""The ``columns`` recorded for a run read from lists (``metadata["run_columns"]``): its scores are ``-rank``."""


def is_lists(mapping: Mapping[Any, Any]) -> bool:
    """Whether a dict maps its keys to sequences or sets of items (not to ``{item: value}`` dicts).

    >>> is_lists({"u1": ["a", "b"]}), is_lists({"u1": {"a": 1.0}}), is_lists({})
    (True, False, False)
    """
    first = next(iter(mapping.values()), None)
    return isinstance(first, LIST_TYPES) and not isinstance(first, Mapping)


def _flatten_lists(mapping: Mapping[Any, Any], what: str, ordered: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(user ids, item ids, 1-based position)`` of every item of a dict of lists, in the dict's order."""
    values = list(mapping.values())
    for user, items in mapping.items():
        if not isinstance(items, LIST_TYPES) or isinstance(items, Mapping):
            raise InputFormatError(
                f"{what}: user {str(user)!r} maps to {type(items).__name__}, expected a list of items like the others"
            )
        if ordered and isinstance(items, Set):
            raise InputFormatError(
                f"{what}: user {str(user)!r} maps to a set, which has no order; a ranked list is a list or tuple"
            )
    counts = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    user_keys, item_keys = list(mapping), list(chain.from_iterable(values))
    users, items = python_ids(user_keys), python_ids(item_keys)
    check_python_ids(user_keys, users, f"{what}: user")
    check_python_ids(item_keys, items, f"{what}: item")
    users = np.repeat(users, counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return users, items, np.arange(len(items)) - starts + 1


def run_from_lists(mapping: Mapping[Any, Any], source: str = "<run lists>") -> Run:
    """A run from ``{user: [item, ...]}``: each list in rank order, first item on top (score ``-rank``).

    An item listed twice for a user is a duplicate (``duplicates=`` decides:
    an error by default; ``"first"`` or ``"max"`` keep its first place).

    >>> run = run_from_lists({"u1": ["b", "a"], 7: [3]})
    >>> run.query_ids.tolist(), run.doc_ids.tolist(), run.scores.tolist()
    (['u1', 'u1', '7'], ['b', 'a', '3'], [-1.0, -2.0, -1.0])
    """
    users, items, ranks = _flatten_lists(mapping, "run", ordered=True)
    return Run(users, items, -ranks.astype(np.float64), source=source, columns=dict(RANKED_COLUMNS))


def qrels_from_sets(mapping: Mapping[Any, Any], source: str = "<qrels sets>") -> Qrels:
    """Binary ground truth from ``{user: {item, ...}}`` (sets, lists or tuples): every item listed is relevant, grade 1.

    >>> q = qrels_from_sets({"u1": {"a"}, "u2": ["b", "c"]})
    >>> q.query_ids.tolist(), q.doc_ids.tolist(), q.relevance.tolist()
    (['u1', 'u2', 'u2'], ['a', 'b', 'c'], [1.0, 1.0, 1.0])
    """
    users, items, _ = _flatten_lists(mapping, "qrels", ordered=False)
    return Qrels(users, items, np.ones(len(items)), source=source)


def ranked_lists(items: Any, users: Any = None, *, item_ids: Any = None, pad: Any = -1) -> Run:
    """A run from a 2-D array of item ids, one row per user in rank order (column 0 = rank 1).

    Parameters
    ----------
    items : array-like, shape (n_users, k)
        Item ids (integers or strings), or with ``item_ids`` indices into it.
        Floats are refused: ids are never rounded.
    users : array-like, shape (n_users,), optional
        The user id of each row. None: row ``i`` is user ``i``.
    item_ids : array-like, optional
        When given, ``items`` holds indices into it (for example the columns
        of a score matrix) and the items are ``item_ids[items]``.
    pad : scalar or None, default -1
        The value that fills the end of a row shorter than ``k`` (a user with
        fewer recommendations). Pads must all come after the row's items; they
        are not ranked. None: no value is a pad.

    Returns
    -------
    Run
        Scores ``-rank``; takes the place of a run in :func:`rankmeter.evaluate`.

    Raises
    ------
    InputFormatError
        ``items`` is not 2-D or holds floats; ``users`` has not one id per row;
        a pad comes before an item of its row; an index is outside ``item_ids``.

    Examples
    --------
    >>> run = ranked_lists([[3, 1], [2, -1]], users=["u1", "u2"])
    >>> run.query_ids.tolist(), run.doc_ids.tolist(), run.scores.tolist()
    (['u1', 'u1', 'u2'], ['3', '1', '2'], [-1.0, -2.0, -1.0])
    """
    arr = np.asarray(items)
    if arr.ndim != 2:
        raise InputFormatError(f"ranked_lists: items must be 2-D (users x k), got shape {arr.shape}")
    if arr.dtype.kind in "fc":
        raise InputFormatError(f"ranked_lists: items holds {arr.dtype} values; item ids are integers or strings")
    if arr.dtype.kind == "b":  # (before the pads: -1 as a boolean is True)
        raise bool_ids_error("ranked_lists: items", arr.flat[0].item() if arr.size else True)
    n, k = arr.shape
    user_text = np.arange(n) if users is None else id_array(users, "ranked_lists: users=")
    if len(user_text) != n:
        raise InputFormatError(f"ranked_lists: items has {n} rows but users= has {len(user_text)} ids")
    valid = np.ones(arr.shape, dtype=bool) if pad is None else arr != np.asarray(pad, dtype=arr.dtype)
    late = valid[:, 1:] & ~valid[:, :-1]
    if late.any():
        row, col = (int(x) for x in np.argwhere(late)[0])
        raise InputFormatError(
            f"ranked_lists: row {row} (user {str(user_text[row])!r}): item {arr[row, col + 1].item()!r} at rank "
            f"{col + 2} follows the pad {pad!r}; pads fill the end of a row only"
        )
    counts = valid.sum(axis=1)
    flat = arr[valid]
    if item_ids is not None:
        vocab = id_array(item_ids, "ranked_lists: item_ids=")
        outside = (flat < 0) | (flat >= len(vocab)) if flat.dtype.kind in "iu" else np.ones(len(flat), dtype=bool)
        if outside.any():
            at = int(np.argmax(outside))
            row = int(np.searchsorted(np.cumsum(counts), at, side="right"))
            raise InputFormatError(
                f"ranked_lists: row {row} (user {str(user_text[row])!r}): {flat[at].item()!r} is not an index "
                f"into item_ids (0 to {len(vocab) - 1})"
            )
        text: Any = vocab[flat]
    else:
        text = id_array(flat, "ranked_lists: items")  # integers are coded without text
    ranks = np.broadcast_to(np.arange(1, k + 1), arr.shape)[valid]
    repeated = np.repeat(user_text, counts)
    return Run(
        repeated,
        text,
        -ranks.astype(np.float64),
        source="<ranked lists>",
        columns={"query_id": "users", "doc_id": "items", "rank": "<column + 1>"},
    )


def interactions(matrix: Any, users: Any = None, items: Any = None, *, source: str = "<interactions>") -> Qrels:
    """A ``scipy.sparse`` user x item matrix as qrels: each non-zero entry a (user, item) pair with its value as grade.

    Serves as ground truth (a binary matrix: every interaction relevant) and
    as ``exclude=`` / ``candidates=`` (the pairs only). Entries stored with
    the value 0 are no interaction, as everywhere in ``scipy.sparse``.

    Parameters
    ----------
    matrix : scipy.sparse matrix or array (CSR, CSC, COO, ...), shape (n_users, n_items)
    users : array-like, shape (n_users,), optional
        The id of each row; None: row ``i`` is user ``i``.
    items : array-like, shape (n_items,), optional
        The id of each column; None: column ``j`` is item ``j``.

    Raises
    ------
    InputFormatError
        ``matrix`` is not sparse, or an id vector's length differs from the matrix's shape.

    Examples
    --------
    >>> from scipy.sparse import csr_matrix
    >>> q = interactions(csr_matrix([[0, 1, 0], [2, 0, 1]]), users=["u1", "u2"], items=["a", "b", "c"])
    >>> q.query_ids.tolist(), q.doc_ids.tolist(), q.relevance.tolist()
    (['u1', 'u2', 'u2'], ['b', 'a', 'c'], [1.0, 2.0, 1.0])
    """
    if not hasattr(matrix, "tocoo") or not hasattr(matrix, "nnz"):
        raise InputFormatError(f"{source}: expected a scipy.sparse matrix, got {type(matrix).__name__}")
    coo = matrix.tocsr().tocoo()  # canonical: row-major, repeated entries summed
    rows, cols, values = np.asarray(coo.row), np.asarray(coo.col), np.asarray(coo.data, dtype=np.float64)
    keep = values != 0
    n_users, n_items = matrix.shape
    user_text = _id_vector(users, n_users, "users", "rows", source)
    item_text = _id_vector(items, n_items, "items", "columns", source)
    integer_users = users is None or np.asarray(users).dtype.kind in "iu"
    return Qrels(user_text[rows[keep]], item_text[cols[keep]], values[keep], source=source, integer_ids=integer_users)


def _id_vector(ids: Any, size: int, name: str, axis: str, source: str) -> np.ndarray:
    """``ids`` (integers as they are, others as text), checked to hold one id per row (column); None: the positions."""
    if ids is None:
        return np.arange(size)
    text = id_array(ids, f"{source}: {name}=")
    if len(text) != size:
        raise InputFormatError(f"{source}: the matrix has {size} {axis} but {name}= has {len(text)} ids")
    return text


def check_ranks(run: Run, ranks: np.ndarray, column: str) -> None:
    """Raise unless each user's ranks run 1, 2, 3, ... (in any row order), naming the user, item and row.

    >>> run = Run(np.array(["u", "u"]), np.array(["a", "b"]), np.array([-1.0, -3.0]), source="recs.csv")
    >>> check_ranks(run, np.array([1.0, 3.0]), "rank")
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputFormatError: recs.csv:2: user 'u', item 'b': rank 3 follows rank 1; ... (column 'rank')
    """
    whole = np.isfinite(ranks) & (ranks == np.round(ranks))
    if not whole.all():
        row = int(np.argmin(whole))
        raise InputFormatError(
            f"{_at(run, row)}user {run.query_ids[row]!r}, item {run.doc_ids[row]!r}: {column} {float(ranks[row])!r} "
            "is not a whole number (ranks are 1, 2, 3, ...)"
        )
    codes = run.query_ids.codes
    if _ranked_in_place(codes, ranks):
        return
    order = np.lexsort((ranks, codes))
    c, r = codes[order], ranks[order]
    n = len(r)
    head = np.ones(n, dtype=bool)
    if n > 1:
        np.not_equal(c[1:], c[:-1], out=head[1:])
    first = np.maximum.accumulate(np.where(head, np.arange(n), 0))
    bad = np.flatnonzero(r != np.arange(n) - first + 1)
    if not len(bad):
        return
    b = int(bad[0])
    row = int(order[b])
    user, item, rank = run.query_ids[row], run.doc_ids[row], int(r[b])
    if head[b]:
        problem = f"rank {rank} is the user's first; ranks start at 1"
    elif r[b] == r[b - 1]:
        other = int(order[b - 1])
        problem = f"rank {rank} is given twice (also to item {run.doc_ids[other]!r}); a rank holds one item"
    else:
        problem = f"rank {rank} follows rank {int(r[b - 1])}; ranks run 1, 2, 3, ... without gaps"
    raise InputFormatError(f"{_at(run, row)}user {user!r}, item {item!r}: {problem} (column {column!r})")


def _ranked_in_place(codes: np.ndarray, ranks: np.ndarray) -> bool:
    """Whether each user's rows are together and ranked 1, 2, 3, ... in row order (no sort needed to check).

    >>> _ranked_in_place(np.array([0, 0, 1]), np.array([1.0, 2.0, 1.0])), _ranked_in_place(np.array([0, 1, 0]),
    ...                                                                                      np.array([1.0, 1.0, 2.0]))
    (True, False)
    """
    n = len(codes)
    head = np.ones(n, dtype=bool)
    if n > 1:
        np.not_equal(codes[1:], codes[:-1], out=head[1:])
    if int(head.sum()) != np.count_nonzero(np.bincount(codes)):  # a user's rows in more than one block
        return False
    starts = np.flatnonzero(head)
    position = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
    return bool((ranks == position + 1).all())


def _at(run: Run, row: int) -> str:
    """``source:line: `` of a run row (the 1-based row of a table)."""
    return where(*run.location(row))


def run_from_rank_frame(qids: Any, dids: Any, ranks: np.ndarray, mapping: dict[str, str], source: str) -> Run:
    """A run from a table's user, item and rank columns, the ranks checked (:func:`check_ranks`), scores ``-rank``."""
    run = Run(qids, dids, -ranks, source=source, columns=mapping)
    check_ranks(run, ranks, mapping["rank"])
    return run


def list_column(names: list[str], types: list[Any], columns: Mapping[str, str] | None) -> str | None:
    """The name of a table's list-typed column of items, or None when the table has none (or names a score column).

    ``columns={"doc_id": name}`` picks it among several.

    >>> import pyarrow as pa
    >>> list_column(["user_id", "items"], [pa.string(), pa.list_(pa.int64())], None)
    'items'
    """
    import pyarrow as pa

    lists = [n for n, t in zip(names, types, strict=True) if pa.types.is_list(t) or pa.types.is_large_list(t)]
    given = (columns or {}).get("doc_id")
    if given is not None:
        return given if given in lists else None
    if len(lists) > 1:
        raise InputFormatError(
            f"table has several list columns of items: {', '.join(map(repr, lists))}; pass run_columns={{'doc_id': "
            "'<name>'}}"
        )
    return lists[0] if lists else None


def run_from_list_column(table: Any, user_column: str, items_column: str, source: str) -> Run:
    """A run from a pyarrow table with one row per user and a list column of items in rank order.

    >>> import pyarrow as pa
    >>> t = pa.table({"user_id": [1, 2], "items": [[5, 3], [4]]})
    >>> run = run_from_list_column(t, "user_id", "items", "<recs>")
    >>> run.query_ids.tolist(), run.doc_ids.tolist(), run.scores.tolist()
    (['1', '1', '2'], ['5', '3', '4'], [-1.0, -2.0, -1.0])
    """
    import pyarrow as pa

    from rankmeter.ids.arrow import combined

    col = combined(table.column(items_column))
    users = combined(table.column(user_column))
    if col.null_count or users.null_count:
        nulls = np.asarray(col.is_null().to_numpy(zero_copy_only=False)) | np.asarray(
            users.is_null().to_numpy(zero_copy_only=False)
        )
        row = int(np.argmax(nulls))
        raise InputFormatError(f"{source}: row {row}: user or list of items missing (columns {user_column!r}, "
                               f"{items_column!r})")  # fmt: skip
    offsets = np.asarray(col.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)
    counts = np.diff(offsets)
    values = col.flatten()
    if values.null_count:
        at = int(np.argmax(np.asarray(values.is_null().to_numpy(zero_copy_only=False))))
        row = int(np.searchsorted(offsets, at, side="right")) - 1
        raise InputFormatError(f"{source}: row {row}: user {users[row].as_py()!r}: the list has a missing item")
    if pa.types.is_floating(values.type):
        raise InputFormatError(f"{source}: column {items_column!r} holds {values.type} values; item ids are "
                               "integers or strings")  # fmt: skip
    for name, ids in ((user_column, users), (items_column, values)):
        if is_bool_column(ids):
            raise bool_ids_error(f"{source}: column {name!r}", ids[0].as_py() if len(ids) else True)
    user_text = np.asarray(users.cast(pa.string()).to_pylist(), dtype=str) if len(users) else np.zeros(0, str)
    item_text = np.asarray(values.cast(pa.string()).to_pylist(), dtype=str) if len(values) else np.zeros(0, str)
    ranks = np.arange(len(item_text)) - np.repeat(offsets[:-1] - offsets[0], counts) + 1
    return Run(
        np.repeat(user_text, counts),
        item_text,
        -ranks.astype(np.float64),
        source=source,
        columns={"query_id": user_column, "doc_id": items_column, "rank": "<position in the list>"},
    )
