"""Turn whatever the user passed (path, table, dict, Qrels/Run) into a :class:`Qrels` or :class:`Run`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from rankmeter.errors import InputFormatError
from rankmeter.io.dicts import qrels_from_dict, run_from_dict
from rankmeter.io.frames import is_frame, qrels_from_frame, run_from_frame
from rankmeter.io.tables import Qrels, Run
from rankmeter.io.trec import read_qrels, read_run


def as_qrels(obj: Any, columns: Mapping[str, str] | None = None) -> Qrels:
    """Qrels from a path, a pandas/polars/pyarrow table, a dict-of-dicts or a :class:`Qrels`."""
    if isinstance(obj, Qrels):
        return obj
    if isinstance(obj, str | os.PathLike):
        return read_qrels(obj)
    if is_frame(obj):
        return qrels_from_frame(obj, columns)
    if isinstance(obj, Mapping):
        return qrels_from_dict(obj)
    raise InputFormatError(f"cannot read qrels from {type(obj).__name__}: pass a path, a table or a dict")


def as_run(obj: Any, columns: Mapping[str, str] | None = None) -> Run:
    """Run from a path, a pandas/polars/pyarrow table, a dict-of-dicts or a :class:`Run`."""
    if isinstance(obj, Run):
        return obj
    if isinstance(obj, str | os.PathLike):
        return read_run(obj)
    if is_frame(obj):
        return run_from_frame(obj, columns)
    if isinstance(obj, Mapping):
        return run_from_dict(obj)
    raise InputFormatError(f"cannot read a run from {type(obj).__name__}: pass a path, a table or a dict")
