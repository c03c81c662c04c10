"""Exact interning of string ids to integer codes (never hashed).

Codes follow the ids' string order (code-point order, which for UTF-8 text is
the byte order ``strcmp`` uses), so sorting by code sorts by id.
"""

from __future__ import annotations

import numpy as np


def intern(*columns: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Intern several id columns into one shared, sorted vocabulary.

    Parameters
    ----------
    *columns : ndarray of str
        Id columns that must share codes (e.g. the doc ids of qrels and run).

    Returns
    -------
    vocabulary : ndarray of str
        Sorted unique ids; ``vocabulary[code]`` is the id.
    codes : list of ndarray of int64
        One code array per input column.

    Examples
    --------
    >>> import numpy as np
    >>> vocab, (a, b) = intern(np.array(["d2", "d10"]), np.array(["d2", "d1"]))
    >>> vocab.tolist(), a.tolist(), b.tolist()
    (['d1', 'd10', 'd2'], [2, 1], [2, 0])
    """
    arrays = [np.asarray(c).astype(str, copy=False) for c in columns]
    joined = np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
    vocabulary, inverse = np.unique(joined, return_inverse=True)
    inverse = inverse.astype(np.int64, copy=False).reshape(-1)
    codes = []
    start = 0
    for a in arrays:
        codes.append(inverse[start : start + len(a)])
        start += len(a)
    return vocabulary, codes
