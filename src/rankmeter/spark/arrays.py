"""Ranked lists from Arrow list arrays of predicted and relevant items: ``RankingEvaluator``'s rows, a batch at a time.

Each row is one query: its predicted items, best first, and its relevant
items (with an optional grade each). :func:`ranked_from_arrays` turns a whole
Arrow batch of such rows into rankmeter's :class:`~rankmeter.core.layout.RankedLists`
with vectorised Arrow and NumPy operations (no Python per row): the list
arrays are flattened, every item gets an integer code (one hash pass over
the batch's items), ``(row, item)`` pairs become int64 keys, and hash
look-ups find the first copy of each predicted item and the grade of each
predicted item that is a label. The kernels of :func:`rankmeter.pipeline.evaluate_ranked`
then compute the measures, exactly as for any other input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.core.layout import RankedLists
from rankmeter.errors import DuplicateEntryError, InputFormatError


def ranked_from_arrays(
    prediction: Any,
    label: Any,
    relevance: Any = None,
    duplicates: str = "first",
    names: tuple[str, str] = ("prediction", "label"),
    where: str = "",
    *,
    first_row: int = 0,
) -> RankedLists:
    """One ranked list per row: the predicted items in the given order, judged by the row's labels.

    Parameters
    ----------
    prediction : pyarrow.ListArray
        The ranked items of each row, best first (null: no items).
    label : pyarrow.ListArray
        The relevant items of each row (null: none).
    relevance : pyarrow.ListArray of float64, optional
        A grade per label (default 1 each).
    duplicates : {"first", "error"}
        An item listed twice in a row's predictions (or labels): keep the
        first copy (later copies are dropped, the items after move up), or raise.
    names : (str, str)
        The prediction and label columns' names, for messages.
    where : str
        Where the batch's rows are (``"partition 3, "``), for messages.
    first_row : int
        The number of the batch's first row (its query id and the row named in messages).

    Returns
    -------
    RankedLists
        Query ids are the row numbers (from ``first_row``); item i of a row has score -i (tie
        policy ``stable``, no ties); the ideal holds each row's labels and
        their grades; a predicted item that is not a label is unjudged.

    Raises
    ------
    InputFormatError
        A null item, or a relevance array whose length is not the label array's.
    DuplicateEntryError
        Under ``duplicates="error"``, an item listed twice in a row.

    Examples
    --------
    >>> import pyarrow as pa
    >>> r = ranked_from_arrays(pa.array([[3.0, 1.0, 3.0, 2.0], [5.0]]), pa.array([[2.0, 3.0], []]))
    >>> r.offsets.tolist(), r.grades.tolist(), r.judged.tolist()
    ([0, 3, 4], [1.0, 0.0, 1.0, 0.0], [True, False, True, False])
    >>> r.ideal_offsets.tolist(), r.scores.tolist()
    ([0, 2, 2], [-0.0, -1.0, -2.0, -0.0])
    """
    import pyarrow.compute as pc

    n = len(prediction)
    p_items, l_items = _common_type(pc.list_flatten(prediction), pc.list_flatten(label))
    p_rows = pc.list_parent_indices(prediction).to_numpy().astype(np.int64, copy=False)
    l_rows = pc.list_parent_indices(label).to_numpy().astype(np.int64, copy=False)
    if relevance is None:
        grades = np.ones(len(l_rows))
    else:
        lengths = [pc.fill_null(pc.list_value_length(a), 0).to_numpy(zero_copy_only=False) for a in (relevance, label)]
        if not np.array_equal(*lengths):
            row = int(np.flatnonzero(lengths[0] != lengths[1])[0])
            raise InputFormatError(
                f"{where}row {first_row + row}: {lengths[0][row]} relevance values for {lengths[1][row]} labels; "
                "give one per label"
            )
        grades = pc.list_flatten(relevance).to_numpy(zero_copy_only=False).astype(np.float64)
    for items, rows, column in ((p_items, p_rows, names[0]), (l_items, l_rows, names[1])):
        if items.null_count:
            at = int(np.flatnonzero(items.is_null().to_numpy(zero_copy_only=False))[0])
            raise InputFormatError(f"{where}row {first_row + rows[at]}: column {column!r} holds a null item")
    found = _matched_by_row(p_items, p_rows, l_items, l_rows, grades, n)
    if found is not None:  # no item twice in a row: every item kept
        p_first, l_first = np.ones(len(p_rows), dtype=bool), np.ones(len(l_rows), dtype=bool)
        item_grades, item_judged = found
    else:
        p_first, l_first, item_grades, item_judged = _matched_by_key(p_items, p_rows, l_items, l_rows, grades)
    if duplicates == "error":
        for first, rows, items, column in ((p_first, p_rows, p_items, names[0]), (l_first, l_rows, l_items, names[1])):
            if not first.all():
                at = int(np.flatnonzero(~first)[0])
                raise DuplicateEntryError(
                    f"{where}row {first_row + rows[at]}: column {column!r} lists document '{items[at].as_py()}' "
                    "twice; pass duplicates='first' to keep the first copy"
                )
    counts = np.bincount(p_rows[p_first], minlength=n)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    position = np.arange(int(offsets[-1])) - np.repeat(offsets[:-1], counts)
    ideal_counts = np.bincount(l_rows[l_first], minlength=n)
    return RankedLists(
        query_ids=(np.arange(n) + first_row).astype(str),
        offsets=offsets,
        grades=item_grades[p_first],
        judged=item_judged[p_first],
        scores=-position.astype(np.float64),
        group_starts=np.arange(len(position) + 1, dtype=np.int64),
        ideal_offsets=np.concatenate(([0], np.cumsum(ideal_counts))).astype(np.int64),
        ideal_grades=grades[l_first],
        ties="stable",
    )


def _matched_by_key(
    p_items: Any, p_rows: np.ndarray, l_items: Any, l_rows: np.ndarray, grades: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """First copies of the predicted items and of the labels, and each predicted item's grade and judgement.

    Any item type: items get integer codes (one hash pass), ``(row, code)``
    pairs int64 keys; a stable sort of the predictions' keys finds their
    repeats, and a binary search there each label's first predicted copy.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(pa.concat_arrays([p_items, l_items]))
    codes = encoded.indices.to_numpy().astype(np.int64, copy=False)
    width = max(len(encoded.dictionary), 1)
    p_keys, l_keys = p_rows * width + codes[: len(p_rows)], l_rows * width + codes[len(p_rows) :]
    p_order, p_sorted, p_first = _sorted_keys(p_keys)
    l_first = _sorted_keys(l_keys)[2]
    label_keys, label_grades = l_keys[l_first], grades[l_first]
    at = np.searchsorted(p_sorted, label_keys)  # the leftmost equal key: the first copy (the sort is stable)
    hit = at < len(p_sorted)
    hit[hit] = p_sorted[at[hit]] == label_keys[hit]
    item_grades = np.zeros(len(p_keys))
    item_judged = np.zeros(len(p_keys), dtype=bool)
    item_grades[p_order[at[hit]]] = label_grades[hit]
    item_judged[p_order[at[hit]]] = True
    return p_first, l_first, item_grades, item_judged


MAX_LABELS_BY_ROW = 16
"""Most labels in a row for :func:`_matched_by_row` (it compares every prediction with each label column)."""


def _matched_by_row(
    p_items: Any, p_rows: np.ndarray, l_items: Any, l_rows: np.ndarray, grades: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Each predicted item's grade and judgement, comparing numbers row by row; None where this does not apply.

    The common case of ``RankingEvaluator``'s input: numbers (exact as
    float64), rows of similar lengths, a few labels a row, no item twice in a
    row. Predictions and labels become two padded matrices (NaN pads equal
    nothing) and each label column is compared with every prediction of its
    row at once. Anything else (text, ragged rows, many labels, repeats, NaN)
    returns None.

    >>> import pyarrow as pa
    >>> rows = np.array([0, 0, 1])
    >>> grade, judged = _matched_by_row(pa.array([4, 5, 4]), rows, pa.array([5.0, 4.0]), np.array([0, 1]),
    ...                                 np.array([2.0, 1.0]), 2)
    >>> grade.tolist(), judged.tolist()
    ([0.0, 2.0, 1.0], [False, True, True])
    >>> _matched_by_row(pa.array([4, 4]), np.array([0, 0]), pa.array([4]), np.array([0]), np.ones(1), 1) is None
    True
    """
    import pyarrow as pa

    numbers = []
    for items in (p_items, l_items):
        if not (pa.types.is_integer(items.type) or pa.types.is_floating(items.type)):
            return None
        values = items.to_numpy(zero_copy_only=False)
        if pa.types.is_integer(items.type) and len(values) and np.abs(values).max() >= 2**53:
            return None
        values = values.astype(np.float64, copy=False)
        if np.isnan(values).any():
            return None
        numbers.append(values)
    labels, l_at = _padded(numbers[1], l_rows, n)
    if labels is None or labels.shape[1] > MAX_LABELS_BY_ROW or _repeats(labels):
        return None
    predicted, p_at = _padded(numbers[0], p_rows, n)
    if predicted is None or _repeats(predicted):
        return None
    label_grades = grades.reshape(labels.shape) if l_at is None else np.zeros(labels.shape)
    if l_at is not None:
        label_grades[l_rows, l_at] = grades
    grade = np.zeros(predicted.shape)
    judged = np.zeros(predicted.shape, dtype=bool)
    for j in range(labels.shape[1]):
        match = predicted == labels[:, j : j + 1]
        judged |= match
        np.copyto(grade, label_grades[:, j : j + 1], where=match)  # one label at most: no repeats
    if p_at is None:  # rows of one length: the matrix is the items in order
        return grade.ravel(), judged.ravel()
    return grade[p_rows, p_at], judged[p_rows, p_at]


def _padded(values: np.ndarray, rows: np.ndarray, n: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Row ``r``'s values as row ``r`` of a matrix (NaN pads after them), and each value's column (None: no pads).

    None for the matrix when it would be mostly pads.

    >>> m, at = _padded(np.array([1.0, 2.0, 3.0]), np.array([0, 0, 1]), 2)
    >>> m.tolist(), at.tolist()
    ([[1.0, 2.0], [3.0, nan]], [0, 1, 0])
    """
    counts = np.bincount(rows, minlength=n)
    width = int(counts.max()) if n else 0
    if n * width == len(values):
        return values.reshape(n, width), None
    if n * width > 2 * len(values) + n:
        return None, None
    at = np.arange(len(values)) - np.repeat(np.cumsum(counts) - counts, counts)
    matrix = np.full((n, width), np.nan)
    matrix[rows, at] = values
    return matrix, at


def _repeats(matrix: np.ndarray) -> bool:
    """Whether a row of ``matrix`` holds a value twice (NaN pads never equal).

    >>> _repeats(np.array([[1.0, 2.0], [3.0, 3.0]])), _repeats(np.array([[1.0, np.nan, np.nan]]))
    (True, False)
    """
    ordered = np.sort(matrix, axis=1)
    return bool((ordered[:, 1:] == ordered[:, :-1]).any())


def _common_type(a: Any, b: Any) -> tuple[Any, Any]:
    """The two arrays in one type: as they are, both float64 (numbers), or both text.

    >>> import pyarrow as pa
    >>> [x.type for x in _common_type(pa.array([1]), pa.array([2.5]))]
    [DataType(double), DataType(double)]
    >>> [x.type for x in _common_type(pa.array([1]), pa.array(["1"]))]
    [DataType(string), DataType(string)]
    """
    import pyarrow as pa

    if a.type == b.type:
        return a, b
    numeric = all(pa.types.is_integer(x.type) or pa.types.is_floating(x.type) for x in (a, b))
    common = pa.float64() if numeric else pa.string()
    return a.cast(common), b.cast(common)


def _sorted_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stable order of ``keys``, the sorted keys, and where each key appears for the first time.

    >>> order, ordered, first = _sorted_keys(np.array([7, 3, 7, 9, 3]))
    >>> order.tolist(), ordered.tolist(), first.tolist()
    ([1, 4, 0, 2, 3], [3, 3, 7, 7, 9], [True, True, False, True, False])
    """
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    first = np.ones(len(keys), dtype=bool)
    first[order[1:][ordered[1:] == ordered[:-1]]] = False
    return order, ordered, first
