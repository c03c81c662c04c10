"""Multiple-testing corrections of p-values: Holm, Bonferroni, Benjamini–Hochberg.

NaN p-values (tests that were undefined, e.g. on fewer than two queries) are
*excluded*: they stay NaN in the output and do not count in the number of tests
``k``. They can therefore never turn the other adjusted p-values into NaN, a
bug known from other toolkits where one NaN poisons the sorted cumulative
maximum / minimum.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.errors import PolicyError

CORRECTIONS = ("holm", "bonferroni", "bh", "none")

_ALIASES = {
    "holm": "holm",
    "holm-bonferroni": "holm",
    "bonferroni": "bonferroni",
    "bh": "bh",
    "fdr_bh": "bh",
    "benjamini-hochberg": "bh",
    "none": "none",
}


def canonical_correction(method: str | None) -> str:
    """Canonical name of a correction (``None`` means ``"none"``).

    Examples
    --------
    >>> canonical_correction("fdr_bh"), canonical_correction(None)
    ('bh', 'none')
    """
    if method is None:
        return "none"
    key = str(method).strip().lower()
    if key not in _ALIASES:
        raise PolicyError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    return _ALIASES[key]


def _pvalue_vector(p: Any) -> np.ndarray:
    arr = np.array(p, dtype=np.float64, ndmin=1)
    if arr.ndim != 1:
        raise PolicyError(f"p-values must be a 1-D array, got shape {arr.shape}")
    ok = ~np.isnan(arr)
    if np.any((arr[ok] < 0) | (arr[ok] > 1)):
        raise PolicyError("p-values must lie in [0, 1]")
    return arr


def bonferroni(p: Any) -> np.ndarray:
    """Bonferroni-adjusted p-values.

    .. math:: \\tilde p_i = \\min(1, k\\, p_i)

    where ``k`` is the number of non-NaN p-values.

    Parameters
    ----------
    p : array_like
        Raw p-values; NaN entries are skipped and returned as NaN.

    Returns
    -------
    ndarray
        Adjusted p-values, same shape as ``p``.

    Examples
    --------
    >>> bonferroni([0.01, 0.04, float("nan"), 0.5]).tolist()
    [0.03, 0.12, nan, 1.0]
    """
    arr = _pvalue_vector(p)
    out = arr.copy()
    ok = ~np.isnan(arr)
    out[ok] = np.minimum(1.0, arr[ok] * np.count_nonzero(ok))
    return out


def holm(p: Any) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control).

    With the ``k`` non-NaN p-values sorted increasingly, :math:`p_{(1)} \\le \\dots \\le p_{(k)}`,

    .. math:: \\tilde p_{(i)} = \\min\\Bigl(1,\\; \\max_{j \\le i}\\, (k - j + 1)\\, p_{(j)}\\Bigr)

    Parameters
    ----------
    p : array_like
        Raw p-values; NaN entries are skipped and returned as NaN.

    Returns
    -------
    ndarray
        Adjusted p-values, same shape and order as ``p``.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, float("nan")]).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    arr = _pvalue_vector(p)
    out = arr.copy()
    idx = np.flatnonzero(~np.isnan(arr))
    k = idx.size
    if k == 0:
        return out
    order = np.argsort(arr[idx], kind="stable")
    ranked = arr[idx][order] * (k - np.arange(k))
    adjusted = np.minimum(1.0, np.maximum.accumulate(ranked))
    out[idx[order]] = adjusted
    return out


def benjamini_hochberg(p: Any) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (false discovery rate control).

    With the ``k`` non-NaN p-values sorted increasingly,

    .. math:: \\tilde p_{(i)} = \\min\\Bigl(1,\\; \\min_{j \\ge i}\\, \\frac{k}{j}\\, p_{(j)}\\Bigr)

    Parameters
    ----------
    p : array_like
        Raw p-values; NaN entries are skipped and returned as NaN.

    Returns
    -------
    ndarray
        Adjusted p-values, same shape and order as ``p``.

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03, float("nan")]).round(12).tolist()
    [0.03, 0.04, 0.04, nan]
    """
    arr = _pvalue_vector(p)
    out = arr.copy()
    idx = np.flatnonzero(~np.isnan(arr))
    k = idx.size
    if k == 0:
        return out
    order = np.argsort(arr[idx], kind="stable")
    ranked = arr[idx][order] / (np.arange(1, k + 1) / k)
    adjusted = np.minimum(1.0, np.minimum.accumulate(ranked[::-1])[::-1])
    out[idx[order]] = adjusted
    return out


bh = benjamini_hochberg


def adjust(p: Any, method: str | None = "holm") -> np.ndarray:
    """Adjust p-values for multiple testing.

    Parameters
    ----------
    p : array_like
        Raw p-values. NaN entries are excluded from the family (they stay NaN).
    method : {"holm", "bonferroni", "bh", "none"} or None
        The correction (``"fdr_bh"`` and ``"benjamini-hochberg"`` are accepted
        aliases of ``"bh"``; ``None`` means ``"none"``).

    Returns
    -------
    ndarray
        Adjusted p-values, each >= the raw one.

    Examples
    --------
    >>> adjust([0.01, 0.02, 0.04], "bonferroni").tolist()
    [0.03, 0.06, 0.12]
    >>> adjust([0.01, 0.02], None).tolist()
    [0.01, 0.02]
    """
    name = canonical_correction(method)
    if name == "holm":
        return holm(p)
    if name == "bonferroni":
        return bonferroni(p)
    if name == "bh":
        return benjamini_hochberg(p)
    return _pvalue_vector(p).copy()
