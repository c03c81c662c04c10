"""Any reader's id column as an :class:`~rankmeter.ids.column.IdColumn`: where the kind of a column is decided, once."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.ids.arrow import arrow_ids, is_arrow
from rankmeter.ids.booleans import bool_ids_error, is_bool_column
from rankmeter.ids.column import IdColumn
from rankmeter.ids.integers import integer_column


def as_ids(col: Any, *, coded: bool = False) -> IdColumn:
    """Any reader's id column (pyarrow or NumPy strings or integers, or an :class:`IdColumn`) as an :class:`IdColumn`.

    With ``coded`` the result has codes (query ids: a pyarrow dictionary
    column's codes are taken as they are, other columns are encoded once).
    Integers are coded by value (:func:`~rankmeter.ids.integers.integer_column`).

    Raises
    ------
    ValueError
        A pyarrow column with nulls (ids must be present).

    Examples
    --------
    >>> import pyarrow as pa
    >>> as_ids(pa.array(["a", "bc"])).tolist(), as_ids(np.array([3, 1]), coded=True).codes.tolist()
    (['a', 'bc'], [1, 0])
    """
    if is_bool_column(col):  # every reader refuses them first, naming where (rankmeter.ids.booleans)
        raise bool_ids_error("id column")
    if isinstance(col, IdColumn):
        ids = col
    elif is_arrow(col):
        ids = arrow_ids(col, coded)
    else:
        values = np.asarray(col).reshape(-1)
        if values.dtype.kind in "iu":
            return integer_column(values)
        ids = IdColumn(text=values.astype(str, copy=False))
    return ids.coded() if coded else ids
