"""Boolean ids are refused by every reader: a boolean has no single text form.

Ids are exact text (:mod:`rankmeter.ids`), and ``True`` has two of them:
Python and NumPy write ``"True"``, Arrow, polars, Spark and JSON write
``"true"``. A qrels given as a dict and a run given as a pandas table would
then hold different ids for the same query and silently never match. So no
reader guesses: a boolean query or document id is an
:class:`~rankmeter.errors.InputFormatError` naming where it was found; cast
the column to ``int`` or ``str`` first, which states the ids' text.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError


def bool_ids_error(at: str, value: Any = None) -> InputFormatError:
    """The error for a boolean id ``value`` found at ``at`` (``"qrels dict: query"``, ``"column 'qid'"``...).

    >>> str(bool_ids_error("column 'qid'", False))
    "column 'qid': id False is a boolean; ids are text or integers ..."
    >>> str(bool_ids_error("column 'qid'"))
    "column 'qid': the ids are booleans; ids are text or integers ..."
    """
    found = "the ids are booleans" if value is None else f"id {value!r} is a boolean"
    return InputFormatError(
        f"{at}: {found}; ids are text or integers (a boolean has no single text form: "
        "Python writes 'True', Arrow and Spark 'true'); cast the ids to int or str first"
    )


def is_bool_column(values: Any) -> bool:
    """Whether ``values`` is a boolean NumPy, pandas, polars or pyarrow column (by its type, not its values).

    >>> import pyarrow as pa
    >>> is_bool_column(np.array([True])), is_bool_column(pa.array([False])), is_bool_column(np.array(["True"]))
    (True, True, False)
    """
    kind = getattr(values, "type", None)
    if kind is not None and type(values).__module__.startswith("pyarrow"):
        import pyarrow as pa

        value_type = kind.value_type if pa.types.is_dictionary(kind) else kind
        return bool(pa.types.is_boolean(value_type))
    dtype = getattr(values, "dtype", None)
    if dtype is not None and hasattr(dtype, "is_numeric"):  # polars
        return str(dtype) == "Boolean"
    return getattr(dtype, "kind", "") == "b"


def first_bool(values: Any, text: np.ndarray | None = None) -> int | None:
    """The position of the first Python or NumPy boolean among ``values`` (a list or object array), or None.

    ``text``, the ids already written as NumPy text, narrows the search to
    the rows that read ``"True"`` or ``"False"`` (no pass over the others);
    integer ``text`` (:func:`~rankmeter.ids.integers.python_ids` of ``int`` ids
    only) holds no boolean.

    >>> first_bool(["a", "True", True]), first_bool(["a", "True"]), first_bool([1, np.bool_(False)])
    (2, None, 1)
    """
    if text is None:
        rows: Any = range(len(values))
    elif text.dtype.kind == "U":
        rows = np.flatnonzero((text == "True") | (text == "False")).tolist()
    else:
        return None
    for row in rows:
        if isinstance(values[row], bool | np.bool_):
            return int(row)
    return None


def check_python_ids(values: Any, text: np.ndarray, at: str) -> None:
    """Raise :func:`bool_ids_error` for the first boolean among Python ``values`` whose text is ``text``.

    >>> check_python_ids(["q1", False], np.array(["q1", "False"]), "run dict: query")
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputFormatError: run dict: query: id False is a boolean; ...
    """
    row = first_bool(values, text)
    if row is not None:
        raise bool_ids_error(at, values[row])


def id_array(ids: Any, at: str) -> np.ndarray:
    """An id vector (array, Series or list): integers as they are, other ids as text, booleans refused.

    >>> id_array([3, 1], "users=").tolist(), id_array(np.array(["a", "b"]), "users=").tolist()
    ([3, 1], ['a', 'b'])
    >>> id_array(["a", True], "users=")
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputFormatError: users=: id True is a boolean; ...
    """
    values = np.asarray(ids).reshape(-1)
    if values.dtype.kind == "b":
        raise bool_ids_error(at, values[0].item() if len(values) else True)
    if values.dtype.kind in "iu":
        return values
    text = values.astype(str)
    if values.dtype == object or isinstance(ids, list | tuple):  # a list's booleans became text in np.asarray
        check_python_ids(values if values.dtype == object else list(ids), text, at)
    return text


def check_engine_columns(frame: Any, mapping: dict[str, str]) -> None:
    """Refuse a Spark or dask DataFrame whose query or document id column is boolean (read from its schema).

    >>> import pandas as pd
    >>> check_engine_columns(pd.DataFrame({"qid": ["q1"], "docno": [True]}), {"query_id": "qid", "doc_id": "docno"})
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputFormatError: column 'docno': the ids are booleans; ...
    """
    types = dict(frame.dtypes) if hasattr(frame, "rdd") else None  # Spark: (name, SQL type) pairs
    for role in ("query_id", "doc_id"):
        name = mapping.get(role)
        if name is not None and (types[name] == "boolean" if types is not None else is_bool_column(frame[name])):
            raise bool_ids_error(f"column {name!r}")
