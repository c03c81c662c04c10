"""The bootstrap means of a sample, read exactly where an interval needs them.

An interval reads its bootstrap distribution in two ways only: how many means lie below a
threshold (BCa's bias term) and a few order statistics (the quantiles). :class:`ResampledMeans`
answers both from cheap approximate means and computes the exact mean (the mean of the gathered
values, as :func:`scipy.stats.bootstrap` takes it) only for the resamples close enough to the
threshold or order statistic to be decided by rounding.
"""

from __future__ import annotations

import numpy as np

#: Machine epsilon of float64 and its smallest subnormal (the absolute floor of a rounding error).
EPS = float(np.finfo(np.float64).eps)
TINY = float(np.finfo(np.float64).smallest_subnormal)


def counts_of(drawn: tuple[np.ndarray, ...], n: int) -> np.ndarray:
    """How often each of ``n`` values is drawn in each resample: ``(m, n)`` float64 (exact small integers).

    Parameters
    ----------
    drawn : tuple of ndarray of int64
        The resample indices, batch after batch (rows: resamples).
    n : int
        Number of values.

    Returns
    -------
    ndarray of float64

    Examples
    --------
    >>> counts_of((np.array([[0, 0, 2], [1, 2, 1]]),), 3).tolist()
    [[2.0, 0.0, 1.0], [0.0, 2.0, 1.0]]
    """
    parts = []
    for indices in drawn:
        rows = indices.shape[0]
        flat = (np.arange(rows, dtype=np.int64)[:, None] * n + indices).reshape(-1)
        parts.append(np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64))
    return np.concatenate(parts)


class ResampledMeans:
    """The ``m`` bootstrap means of ``values`` under ``drawn`` resample indices, exact where read.

    ``approx`` holds every mean computed another way, e.g. ``counts @ values / n`` (one matrix
    product for many samples at once). Summed in any order, a sum of ``n`` terms lies within
    :math:`\\gamma_n \\sum_i |t_i|` of the exact sum (:math:`\\gamma_n \\approx n\\,u`, :math:`u` the
    unit roundoff); the terms of a resample sum to at most :math:`n \\max_i |x_i|`, so after the
    division by ``n`` the approximate and the gathered mean differ by at most
    :math:`2 (n + 1) u \\max_i |x_i|` plus the rounding of the division. :attr:`slack` is four times
    that, :math:`4 (n + 2)\\,\\varepsilon \\max_i |x_i|` (:math:`\\varepsilon = 2u`), plus the
    subnormal floor. A mean further than :attr:`slack` from a threshold is on the side its
    approximation shows (the comparisons allow twice the slack, for the rounding of the comparisons
    themselves); the others are gathered and averaged as SciPy does (NumPy's mean of
    ``values[indices]`` along the resample's row), so every count and order statistic is SciPy's.

    With ``approx`` the exact means themselves and ``slack`` 0 (:meth:`of_array`) it is a plain
    bootstrap distribution.

    Parameters
    ----------
    values : ndarray of float64
        The sample.
    drawn : tuple of ndarray of int64
        Resample indices, batch after batch; every batch but the last has the same number of rows.
    approx : ndarray of float64
        Each resample's mean, within the bound above.
    slack : float, optional
        Largest difference between an approximate and an exact mean (default: the bound above).

    Examples
    --------
    >>> values = np.array([0.1, 0.4, 0.7])
    >>> drawn = (np.array([[0, 1, 2], [2, 2, 0], [1, 1, 1]]),)
    >>> means = ResampledMeans(values, drawn, counts_of(drawn, 3) @ values / 3)
    >>> means.count_below(0.4), means.order_statistics(np.array([0, 2])).tolist()
    ((1, 1), [0.39999999999999997, 0.5])
    """

    def __init__(
        self, values: np.ndarray, drawn: tuple[np.ndarray, ...], approx: np.ndarray, slack: float | None = None
    ):
        self.values = values
        self.drawn = drawn
        self.approx = approx
        self.size = int(approx.size)
        scale = float(np.max(np.abs(values))) if values.size else 0.0
        self.slack = 4 * (values.size + 2) * (EPS * scale + TINY) if slack is None else slack

    @classmethod
    def of_array(cls, means: np.ndarray) -> ResampledMeans:
        """The bootstrap distribution ``means`` itself (every mean exact).

        >>> ResampledMeans.of_array(np.array([0.3, 0.1, 0.2])).order_statistics(np.array([1])).tolist()
        [0.2]
        """
        rows = np.asarray(means, dtype=np.float64)
        return cls(rows, (np.arange(rows.size)[:, None],), rows, slack=0.0)

    def exact(self, rows: np.ndarray) -> np.ndarray:
        """The exact means of resamples ``rows``: NumPy's mean of the gathered values, row by row."""
        step = self.drawn[0].shape[0]
        found = np.empty(rows.size, dtype=np.float64)
        batches = rows // step
        for batch in np.unique(batches):
            chosen = batches == batch
            found[chosen] = np.mean(self.values[self.drawn[batch][rows[chosen] - batch * step]], axis=-1)
        return found

    def count_below(self, threshold: float) -> tuple[int, int]:
        """How many means are ``< threshold`` and how many ``<= threshold``."""
        margin = 2 * self.slack
        below = int(np.count_nonzero(self.approx < threshold - margin))
        near = self.exact(np.flatnonzero(np.abs(self.approx - threshold) <= margin))
        return below + int(np.count_nonzero(near < threshold)), below + int(np.count_nonzero(near <= threshold))

    def order_statistics(self, ranks: np.ndarray) -> np.ndarray:
        """The means of rank ``ranks`` (0-based) in ascending order.

        The rank-``j`` approximate mean :math:`A_j` is within :attr:`slack` :math:`s` of the exact one
        :math:`E_j`; a mean whose approximation lies below :math:`A_j - 2s` is below :math:`E_j`, one
        above :math:`A_j + 2s` above it, and :math:`E_j` is found among the exact means of the rest
        (the window is :math:`4s` wide each way, for the rounding of the comparisons; neighbouring ranks
        share one window, from the first one's low end to the last one's high end).
        """
        ranks = np.asarray(ranks, dtype=np.int64)
        if ranks.size == 0:
            return np.empty(0, dtype=np.float64)
        wanted = np.unique(ranks)
        approximate = np.partition(self.approx, wanted)
        found: dict[int, float] = {}
        # neighbouring ranks (a quantile reads two) share one window, from the first's low end to the last's high
        for group in np.split(wanted, np.flatnonzero(np.diff(wanted) > 1) + 1):
            low, high = approximate[group[0]] - 4 * self.slack, approximate[group[-1]] + 4 * self.slack
            below = int(np.count_nonzero(self.approx < low))
            near = np.sort(self.exact(np.flatnonzero((self.approx >= low) & (self.approx <= high))))
            found.update((rank, float(near[rank - below])) for rank in group.tolist())
        return np.array([found[rank] for rank in ranks.tolist()], dtype=np.float64)
