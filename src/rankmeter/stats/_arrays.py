"""Input checks shared by the statistics functions."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError

#: Upper bound on the number of float64 cells a resampling batch materialises (32 MiB).
BATCH_CELLS = 1 << 22

#: Relative tolerance used when comparing a resampled statistic to the observed one,
#: so that values equal in exact arithmetic but not in floating point count as ties
#: (the same rule as :func:`scipy.stats.permutation_test`).
REL_TOL = 100 * np.finfo(np.float64).eps


def vector(x: Any, name: str = "x") -> np.ndarray:
    """Return ``x`` as a finite 1-D float64 array, or raise :class:`InputFormatError`."""
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise InputFormatError(f"{name} must be a 1-D array of per-query values, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = np.flatnonzero(~np.isfinite(arr))
        raise InputFormatError(
            f"{name} contains {bad.size} non-finite value(s) (first at index {int(bad[0])}: {arr[bad[0]]!r})"
        )
    return arr


def paired(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return ``a`` and ``b`` as aligned finite float64 vectors of equal length."""
    x, y = vector(a, "a"), vector(b, "b")
    if x.shape != y.shape:
        raise InputFormatError(f"paired vectors must have the same length, got {x.size} (a) and {y.size} (b)")
    return x, y


def matrix(x: Any, name: str = "scores") -> np.ndarray:
    """Return ``x`` as a finite 2-D float64 array (queries x systems)."""
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 2:
        raise InputFormatError(f"{name} must be 2-D (queries x systems), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputFormatError(f"{name} contains non-finite values")
    return arr


def positive_int(n: int, name: str) -> int:
    """Check that ``n`` is an integer >= 1."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputFormatError(f"{name} must be a positive integer, got {n!r}")
    return int(n)


def batch_size(cells_per_resample: int, n_resamples: int) -> int:
    """How many resamples to draw at once so a batch stays under :data:`BATCH_CELLS`."""
    return max(1, min(n_resamples, BATCH_CELLS // max(1, cells_per_resample)))


def is_zero_spread(d: np.ndarray) -> bool:
    """True when all values of ``d`` are equal up to rounding noise.

    The spread counts as zero when ``max(d) - min(d) <= REL_TOL * max|d|``.
    """
    if d.size == 0:
        return True
    scale = float(np.max(np.abs(d)))
    return float(np.ptp(d)) <= REL_TOL * scale
