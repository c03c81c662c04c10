"""All-pairs comparisons of many systems: Tukey's HSD (SciPy) and a randomized Tukey HSD."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError
from rankmeter.stats._arrays import batch_size, matrix, positive_int
from rankmeter.stats._types import Seed, monte_carlo_error
from rankmeter.stats.resampling import count_extreme, resampled_pvalue


@dataclass(frozen=True)
class TukeyResult:
    """Pairwise results for ``k`` systems.

    Attributes
    ----------
    test : str
        ``"tukey"`` or ``"randomized-tukey"``.
    statistic : ndarray, shape (k, k)
        ``statistic[i, j] = mean_i - mean_j`` (the convention of
        :func:`scipy.stats.tukey_hsd`).
    p_value : ndarray, shape (k, k)
        Family-wise adjusted p-value of each pair (symmetric, 1 on the diagonal).
    n_resamples : int or None
        Resamples of the randomized version.
    mc_error : ndarray or None
        Monte Carlo standard error of each p-value (randomized version).
    """

    test: str
    statistic: np.ndarray = field(repr=False)
    p_value: np.ndarray = field(repr=False)
    n_resamples: int | None = None
    mc_error: np.ndarray | None = field(default=None, repr=False)


def _scores(scores: Any) -> np.ndarray:
    x = matrix(scores)
    if x.shape[1] < 2:
        raise InputFormatError(f"need at least 2 systems (columns), got {x.shape[1]}")
    if x.shape[0] < 2:
        raise InputFormatError(f"need at least 2 queries (rows), got {x.shape[0]}")
    return x


def tukey_hsd(scores: Any) -> TukeyResult:
    """Tukey's honestly significant difference test over systems (:func:`scipy.stats.tukey_hsd`).

    Each system's per-query values form one group; for systems ``i``, ``j``

    .. math:: q_{ij} = \\frac{|\\bar x_i - \\bar x_j|}{\\sqrt{\\mathrm{MSE} / n}}

    is referred to the studentized range distribution with ``k`` groups and
    ``k (n - 1)`` degrees of freedom, so the p-values are already adjusted for
    all ``k (k - 1) / 2`` pairs.

    SciPy's test treats the systems as *independent* groups: the pairing of
    values by query is ignored, so query difficulty inflates ``MSE`` and the
    test is conservative for IR data. :func:`randomized_tukey_hsd` keeps the
    pairing. Zero within-group variance is answered without NaN: equal means
    give ``p = 1``.

    Parameters
    ----------
    scores : array_like, shape (n_queries, k_systems)
        Aligned per-query values, one column per system.

    Returns
    -------
    TukeyResult

    Examples
    --------
    >>> x = [[0.2, 0.3, 0.6], [0.4, 0.5, 0.9], [0.1, 0.3, 0.5], [0.3, 0.2, 0.7]]
    >>> res = tukey_hsd(x)
    >>> round(float(res.statistic[2, 0]), 3), bool(res.p_value[2, 0] < 0.01)
    (0.425, True)
    """
    from scipy import stats

    x = _scores(scores)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 when every group is constant
        res = stats.tukey_hsd(*(x[:, j] for j in range(x.shape[1])))
    statistic = np.asarray(res.statistic, dtype=np.float64)
    p = np.asarray(res.pvalue, dtype=np.float64).copy()
    p[np.isnan(p) & (statistic == 0.0)] = 1.0
    np.fill_diagonal(p, 1.0)
    return TukeyResult("tukey", statistic, p)


def randomized_tukey_hsd(scores: Any, *, n_resamples: int = 10_000, seed: Seed = 0) -> TukeyResult:
    """Randomized Tukey HSD: a permutation test of all system pairs at once.

    Under the null hypothesis that all systems are equivalent, the system
    labels are exchangeable *within each query*. Each resample permutes the
    ``k`` values of every query (row) independently and records the range of
    the system means, :math:`R^* = \\max_i \\bar x^*_i - \\min_i \\bar x^*_i`.
    Comparing every pair with the same maximum statistic controls the
    family-wise error over all pairs:

    .. math:: p_{ij} = \\frac{\\#\\{R^* \\ge |\\bar x_i - \\bar x_j|\\} + 1}{m + 1}

    Parameters
    ----------
    scores : array_like, shape (n_queries, k_systems)
        Aligned per-query values, one column per system.
    n_resamples : int, default 10_000
        Number of within-query permutations ``m``.
    seed : int, Generator, SeedSequence or None, default 0
        Seed of the :class:`numpy.random.Generator`.

    Returns
    -------
    TukeyResult
        With ``mc_error[i, j] = sqrt(p_ij (1 - p_ij) / m)``.

    Examples
    --------
    >>> x = [[0.2, 0.3, 0.6], [0.4, 0.5, 0.9], [0.1, 0.3, 0.5], [0.3, 0.2, 0.7]]
    >>> res = randomized_tukey_hsd(x, n_resamples=999, seed=0)
    >>> bool(res.p_value[0, 2] > 0), float(res.p_value[1, 1])
    (True, 1.0)
    """
    x = _scores(scores)
    m = positive_int(n_resamples, "n_resamples")
    n, k = x.shape
    means = x.mean(axis=0)
    observed = means[:, None] - means[None, :]
    rng = np.random.default_rng(seed)
    ranges: list[np.ndarray] = []
    step = batch_size(n * k, m)
    for start in range(0, m, step):
        block = np.broadcast_to(x, (min(step, m - start), n, k))
        permuted_means = rng.permuted(block, axis=2).mean(axis=1)
        ranges.append(permuted_means.max(axis=1) - permuted_means.min(axis=1))
    null = np.concatenate(ranges)
    p = np.ones((k, k))
    se = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            p[i, j] = p[j, i] = resampled_pvalue(count_extreme(null, float(observed[i, j])), m)
            se[i, j] = se[j, i] = monte_carlo_error(p[i, j], m)
    return TukeyResult("randomized-tukey", observed, p, n_resamples=m, mc_error=se)
