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
"""Positions whose terms :func:`tau_ap` sums at a time."""

PAIRS_MAX = 256
"""Up to this many items, every pair is compared at once (faster than sorting for short vectors)."""


def _signs(values: np.ndarray) -> np.ndarray:
    """``sign(values[i] - values[j])`` for every pair, as int8 (equal infinities are tied)."""
    return (values[:, None] > values[None, :]).astype(np.int8) - (values[:, None] < values[None, :])


def greater_before(values: np.ndarray) -> np.ndarray:
    """For each position ``j``, the earlier positions ``i < j`` holding a strictly greater value.

    Bottom-up merge sort: at each level, sorted runs are merged in pairs and
    each item of a right run counts the items of its left run above it (one
    binary search for all runs at once), so the work is O(n log^2 n) in NumPy
    calls instead of the n(n-1)/2 comparisons of every pair (which short
    vectors, :data:`PAIRS_MAX` items at most, still make: they are faster).

    >>> greater_before(np.array([3.0, 1.0, 2.0, 3.0, 0.0])).tolist()
    [0, 1, 1, 0, 4]
    """
    n = len(values)
    if n <= PAIRS_MAX:
        return np.count_nonzero(np.tril(values[None, :] > values[:, None], -1), axis=1).astype(np.int64)
    _, rank = np.unique(values, return_inverse=True)  # dense integer ranks keep the order and the ties
    v = rank.reshape(-1).astype(np.int64)
    span = int(v.max(initial=0)) + 1
    counts = np.zeros(n, dtype=np.int64)
    where = np.arange(n)  # the item now at each slot
    slots = np.arange(n)
    width = 1
    while width < n:
        pair = slots // (2 * width)
        right = (slots // width) % 2 == 1
        keys = pair * span + v  # ascending over the left runs: pair first, each run sorted
        left = keys[~right]
        ends = np.searchsorted(left, (pair[right] + 1) * span)
        counts[where[right]] += ends - np.searchsorted(left, keys[right], side="right")
        order = np.argsort(keys, kind="stable")  # each pair of runs merged in its own slots
        v, where = v[order], where[order]
        width *= 2
    return counts


def _tied_pairs(values: np.ndarray) -> int:
    """Pairs of equal values."""
    _, counts = np.unique(values, return_counts=True)
    return int((counts * (counts - 1) // 2).sum())


def _pair_counts(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    """``(C - D, n_0, n_1, n_2)`` over all pairs, from the tied groups and one count of discordant pairs.

    Sorted by ``x`` (ties by ``y``), a pair is discordant where ``y`` falls:
    :func:`greater_before` counts them. With ``n_3`` the pairs tied in both,
    ``C + D = n_0 - n_1 - n_2 + n_3``. Short vectors (:data:`PAIRS_MAX`)
    compare every pair at once instead; the counts are the same integers.
    """
    n = len(x)
    if n <= PAIRS_MAX:
        sx, sy = _signs(x), _signs(y)
        tied_x, tied_y = np.count_nonzero(sx == 0) - n, np.count_nonzero(sy == 0) - n
        return float(np.sum(sx * sy)) / 2.0, n * (n - 1) / 2.0, tied_x / 2.0, tied_y / 2.0
    order = np.lexsort((y, x))
    discordant = int(greater_before(y[order]).sum())
    x_sorted, y_sorted = x[order], y[order]
    new = np.concatenate(([True], (x_sorted[1:] != x_sorted[:-1]) | (y_sorted[1:] != y_sorted[:-1]), [True]))
    runs = np.diff(np.flatnonzero(new))
    both = int((runs * (runs - 1) // 2).sum())
    n0, n1, n2 = n * (n - 1) // 2, _tied_pairs(x), _tied_pairs(y)
    return float(n0 - n1 - n2 + both - 2 * discordant), float(n0), float(n1), float(n2)


def kendall_tau(x: np.ndarray, y: np.ndarray, *, ties: str = "equal") -> float:
    r"""Kendall's :math:`\tau` of two value vectors: ``tau_b`` (``ties="equal"``) or the mean over tie orderings.

    NaN when fewer than two items, when a value is NaN, or (``tau_b``) when
    one vector is constant. O(n log^2 n): the tied groups and the discordant
    pairs are counted by sorting (:func:`greater_before`), never pair by pair.

    >>> x = np.array([4.0, 3.0, 2.0, 1.0]); y = np.array([4.0, 3.0, 3.0, 1.0])
    >>> round(kendall_tau(x, y), 6), round(kendall_tau(x, y, ties="expected"), 6)
    (0.912871, 0.833333)
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if len(x) < 2 or np.isnan(x).any() or np.isnan(y).any():
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
    correct = greater_before(ref[order])  # C(i): items above position i that the reference puts above it
    total = 0.0
    for lo in range(1, n, _BLOCK):
        hi = min(n, lo + _BLOCK)
        total += float(np.sum(correct[lo:hi] / np.arange(lo, hi)))
    return 2.0 / (n - 1) * total - 1.0
