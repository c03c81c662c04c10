"""Which inputs carry integer query ids, so that results can give them back as integers.

The core reads every id as its exact text (:mod:`rankmeter.ids`); a dict
keyed by ``int`` or a table whose query id column has an integer type tells
that the user's ids are integers, and the result turns the text back into
them (:func:`rankmeter.results.with_integer_ids`). Files are text: their ids
stay strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from rankmeter.io.frames import KNOWN_COLUMNS, is_frame
from rankmeter.io.tables import Qrels


def _integer_keys(keys: Any) -> bool:
    """Whether every key is an integer (``bool`` is not) and there is at least one."""
    found = False
    for key in keys:
        if isinstance(key, bool) or not isinstance(key, int | np.integer):
            return False
        found = True
    return found


def _integer_column(frame: Any, name: str) -> bool:
    if hasattr(frame, "rdd"):  # a Spark DataFrame: its dtypes are (name, SQL type) pairs
        return dict(frame.dtypes)[name] in ("tinyint", "smallint", "int", "bigint")
    if hasattr(frame, "column_names"):  # pyarrow
        import pyarrow as pa

        return bool(pa.types.is_integer(frame.schema.field(name).type))
    dtype = frame.schema[name] if hasattr(frame, "schema") else frame[name].dtype
    if hasattr(dtype, "is_integer"):  # polars
        return bool(dtype.is_integer())
    return getattr(dtype, "kind", "") in ("i", "u")


def _engine_frame(obj: Any) -> bool:
    """Whether ``obj`` is a Spark or dask DataFrame (their modules are not imported to tell)."""
    return type(obj).__module__.split(".")[0] in ("pyspark", "dask")


def integer_query_ids(obj: Any, kind: str, columns: Mapping[str, str] | None = None) -> bool:
    """Whether ``obj`` (qrels or a run, ``kind``) holds integer query ids: dict keys or a table's id column.

    Parameters
    ----------
    obj : anything the readers take
    kind : {"qrels", "run"}
    columns : mapping, optional
        The ``qrels_columns`` / ``run_columns`` of the call.

    Examples
    --------
    >>> integer_query_ids({1: {"a": 1}, 2: {"b": 1}}, "qrels"), integer_query_ids({"1": {"a": 1}}, "qrels")
    (True, False)
    >>> import pandas as pd
    >>> integer_query_ids(pd.DataFrame({"user_id": [3], "item_id": [1], "rating": [5]}), "qrels")
    True
    >>> integer_query_ids("run.txt", "run")
    False
    """
    if is_frame(obj) or _engine_frame(obj):
        names = [str(c) for c in (obj.column_names if hasattr(obj, "column_names") else obj.columns)]
        given = (columns or {}).get("query_id")
        present = [given] if given in names else [c for c in KNOWN_COLUMNS[kind]["query_id"] if c in names]
        return len(present) == 1 and _integer_column(obj, str(present[0]))
    if isinstance(obj, Mapping):
        return _integer_keys(obj.keys())
    return bool(getattr(obj, "integer_ids", False)) if isinstance(obj, Qrels) else False
