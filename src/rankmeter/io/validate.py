"""Checks shared by every reader: numeric values must be finite."""

from __future__ import annotations

import numpy as np

from rankmeter.errors import InvalidScoreError, where
from rankmeter.io.tables import id_at


def check_finite(
    values: np.ndarray,
    what: str,
    query_ids: np.ndarray,
    doc_ids: np.ndarray,
    source: str | None,
    lines: np.ndarray | None,
) -> None:
    """Raise :class:`InvalidScoreError` at the first NaN or infinite value.

    >>> import numpy as np
    >>> check_finite(np.array([1.0, np.nan]), "score", np.array(["q1", "q1"]),
    ...              np.array(["d1", "d2"]), "run.txt", np.array([1, 2]))
    Traceback (most recent call last):
    ...
    rankmeter.errors.InvalidScoreError: run.txt:2: query 'q1', document 'd2': score is nan; ...
    """
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        line = int(lines[row]) if lines is not None else row + 1
        raise InvalidScoreError(
            f"{where(source, line)}query '{id_at(query_ids, row)}', document '{id_at(doc_ids, row)}': "
            f"{what} is {values[row]}; scores and grades must be finite numbers"
        )
