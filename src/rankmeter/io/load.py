"""Turn whatever the user passed (path, table, dict, Qrels/Run) into a :class:`Qrels` or :class:`Run`.

The readers of each format are imported when that format is first read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rankmeter.errors import InputFormatError

if TYPE_CHECKING:
    from rankmeter.io.tables import Qrels, Run


def as_qrels(obj: Any, columns: Mapping[str, str] | None = None) -> Qrels:
    """Qrels from a path, a pandas/polars/pyarrow table, a dict-of-dicts or a :class:`Qrels`."""
    from rankmeter.io.tables import Qrels

    if isinstance(obj, Qrels):
        return obj
    if isinstance(obj, str | os.PathLike):
        from rankmeter.io.trec import read_qrels

        return read_qrels(obj)
    from rankmeter.io.frames import is_frame, qrels_from_frame

    if is_frame(obj):
        return qrels_from_frame(obj, columns)
    if isinstance(obj, Mapping):
        from rankmeter.io.dicts import qrels_from_dict

        return qrels_from_dict(obj)
    raise InputFormatError(f"cannot read qrels from {type(obj).__name__}: pass a path, a table or a dict")


def as_run(obj: Any, columns: Mapping[str, str] | None = None) -> Run:
    """Run from a path, a pandas/polars/pyarrow table, a dict-of-dicts or a :class:`Run`."""
    from rankmeter.io.tables import Run

    if isinstance(obj, Run):
        return obj
    if isinstance(obj, str | os.PathLike):
        from rankmeter.io.trec import read_run

        return read_run(obj)
    from rankmeter.io.frames import is_frame, run_from_frame

    if is_frame(obj):
        return run_from_frame(obj, columns)
    if isinstance(obj, Mapping):
        from rankmeter.io.dicts import run_from_dict

        return run_from_dict(obj)
    raise InputFormatError(f"cannot read a run from {type(obj).__name__}: pass a path, a table or a dict")
