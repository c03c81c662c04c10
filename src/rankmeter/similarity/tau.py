r"""Kendall's :math:`\tau` and Yilmaz, Aslam & Robertson's :math:`\tau_{AP}` (SIGIR 2008) of two orderings.

Both take two value vectors over the same items (higher ranks first; equal
values are tied). With ``C`` and ``D`` the concordant and discordant pairs,
``n_0 = n(n-1)/2`` and ``n_1``, ``n_2`` the pairs tied in each ordering:

.. math::

    \tau_b = \frac{C - D}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}, \qquad
    \tau_{exp} = \frac{C - D}{n_0}, \qquad
    \tau_{AP} = \frac{2}{n-1} \sum_{i=2}^{n} \frac{C(i)}{i - 1} - 1

``tau_b`` is scipy's ``kendalltau`` (ties are equal); ``tau_exp`` is the
exact mean of :math:`\tau` over every ordering of the tied items (a tied pair
is concordant in half of them). In :math:`\tau_{AP}`, ``i`` runs over the
positions of the second ordering and ``C(i)`` counts the items above
position ``i`` there that the first (reference) ordering also puts above it.
"""

from __future__ import annotations

import math

import numpy as np

from rankmeter.errors import PolicyError

_BLOCK = 1024
"""Rows of the pair matrices built at once."""


def _pair_counts(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    """``(C - D, n_0, n_1, n_2)`` over all pairs, in blocks of rows."""
    n = len(x)
    diff = tied_x = tied_y = 0.0
    for lo in range(0, n, _BLOCK):
        hi = min(n, lo + _BLOCK)
        sx = np.sign(x[lo:hi, None] - x[None, :])
        sy = np.sign(y[lo:hi, None] - y[None, :])
        diff += float(np.sum(sx * sy))
        tied_x += float(np.sum(sx == 0)) - (hi - lo)
        tied_y += float(np.sum(sy == 0)) - (hi - lo)
    return diff / 2.0, n * (n - 1) / 2.0, tied_x / 2.0, tied_y / 2.0


def kendall_tau(x: np.ndarray, y: np.ndarray, *, ties: str = "equal") -> float:
    r"""Kendall's :math:`\tau` of two value vectors: ``tau_b`` (``ties="equal"``) or the mean over tie orderings.

    NaN when fewer than two items, or (``tau_b``) when one vector is constant.

    >>> x = np.array([4.0, 3.0, 2.0, 1.0]); y = np.array([4.0, 3.0, 3.0, 1.0])
    >>> round(kendall_tau(x, y), 6), round(kendall_tau(x, y, ties="expected"), 6)
    (0.912871, 0.833333)
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if len(x) < 2:
        return math.nan
    diff, n0, n1, n2 = _pair_counts(x, y)
    if ties != "equal":
        return diff / n0
    denom = math.sqrt((n0 - n1) * (n0 - n2))
    return diff / denom if denom > 0 else math.nan


def tau_ap(reference: np.ndarray, other: np.ndarray, *, where: str = "") -> float:
    r""":math:`\tau_{AP}` of ``other`` against ``reference`` (both strict: a tie raises :class:`PolicyError`).

    NaN when fewer than two items.

    >>> round(tau_ap(np.array([3.0, 2.0, 1.0]), np.array([3.0, 1.0, 2.0])), 6)
    0.5
    """
    ref = np.asarray(reference, dtype=np.float64)
    oth = np.asarray(other, dtype=np.float64)
    n = len(ref)
    if n < 2:
        return math.nan
    for values, name in ((ref, "first"), (oth, "second")):
        if len(np.unique(values)) < n:
            raise PolicyError(
                f"{where}tau_ap needs strict orderings and the {name} one ties some items; "
                "break the ties (ties='trec', 'stable' or 'shuffle') or use kendall_tau"
            )
    order = np.argsort(-oth, kind="stable")
    ref_in_order = ref[order]
    total = 0.0
    for lo in range(1, n, _BLOCK):
        hi = min(n, lo + _BLOCK)
        above = np.arange(n)[None, :] < np.arange(lo, hi)[:, None]
        correct = (ref_in_order[None, :] > ref_in_order[lo:hi, None]) & above
        total += float(np.sum(correct.sum(axis=1) / np.arange(lo, hi)))
    return 2.0 / (n - 1) * total - 1.0
