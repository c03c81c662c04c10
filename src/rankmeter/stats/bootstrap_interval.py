"""Percentile, basic and BCa intervals of a mean from its bootstrap distribution.

The arithmetic of :func:`scipy.stats.bootstrap` (SciPy >= 1.15: Hyndman and
Fan's type 7 quantiles, Efron and Tibshirani's BCa with the jackknife
acceleration), written with NumPy and :mod:`scipy.special` so that the many
intervals of ``rankmeter compare`` do not import :mod:`scipy.stats`.
"""

from __future__ import annotations

import numpy as np

from rankmeter.stats.resampled_means import ResampledMeans


def _means(resampled: np.ndarray | ResampledMeans) -> ResampledMeans:
    return resampled if isinstance(resampled, ResampledMeans) else ResampledMeans.of_array(resampled)


def quantiles(values: np.ndarray | ResampledMeans, p: np.ndarray) -> np.ndarray:
    """The type 7 (``"linear"``) quantiles ``p`` of ``values``; NaN where ``p`` is NaN or outside [0, 1].

    With ``y`` the sorted values, :math:`h = p\\,n + 1 - p`, :math:`j = \\lfloor h \\rfloor`
    and :math:`g = h - j`, the quantile is :math:`(1 - g)\\,y_j + g\\,y_{j+1}` (``y`` counted from 1).

    Parameters
    ----------
    values : ndarray of float64 or ResampledMeans
        The sample (any order), or bootstrap means read where needed.
    p : ndarray of float64
        Quantile levels.

    Returns
    -------
    ndarray of float64
        One quantile per level.

    Examples
    --------
    >>> quantiles(np.array([4.0, 1.0, 3.0, 2.0]), np.array([0.0, 0.5, 0.9, 1.0, np.nan])).tolist()
    [1.0, 2.5, 3.7, 4.0, nan]
    """
    y = _means(values)
    n = float(y.size)
    outside = (p > 1) | (p < 0) | np.isnan(p)
    p = np.where(outside, 0.5, p)
    h = p * n + (1 - p)
    above = h // 1
    below = above - 1
    g = np.where(below < 0, 0.0, h % 1)
    below, above = np.clip(below, 0.0, n - 1), np.clip(above, 0.0, n - 1)
    ranks = y.order_statistics(np.concatenate([below, above]).astype(np.int64))
    found = (1 - g) * ranks[: p.size] + g * ranks[p.size :]
    return np.where(outside, np.nan, found)


def jackknife_means(values: np.ndarray, batch: int) -> np.ndarray:
    """The mean of ``values`` without value ``i``, for every ``i`` (``batch`` rows of ``n - 1`` values at a time).

    .. math:: \\bar x_{(i)} = \\frac{1}{n - 1} \\sum_{j \\ne i} x_j

    Each mean is NumPy's mean of the ``n - 1`` values (as SciPy's jackknife takes it), not the closed form.

    Parameters
    ----------
    values : ndarray of float64
        The sample.
    batch : int
        Rows gathered at once (memory: ``batch * n`` values).

    Returns
    -------
    ndarray of float64
        ``n`` means.

    Examples
    --------
    >>> jackknife_means(np.array([1.0, 2.0, 6.0]), batch=2).tolist()
    [4.0, 3.5, 1.5]
    """
    n = values.size
    means = []
    for start in range(0, n, batch):
        rows = min(batch, n - start)
        keep = np.ones((rows, n), dtype=bool)
        np.fill_diagonal(keep[:, start : start + rows], False)
        index = np.broadcast_to(np.arange(n), (rows, n))[keep].reshape(rows, n - 1)
        means.append(np.mean(values[index], axis=-1))
    return np.concatenate(means)


def bca_levels(values: np.ndarray, resampled: np.ndarray | ResampledMeans, alpha: float, batch: int) -> np.ndarray:
    """The two quantile levels of the BCa interval of the mean of ``values``.

    .. math:: \\hat z_0 = \\Phi^{-1}\\big((\\#\\{\\bar x^* < \\bar x\\} + \\#\\{\\bar x^* \\le \\bar x\\}) / 2B\\big),
              \\quad \\hat a = \\frac{\\sum_i U_i^3 / n^3}{6\\,(\\sum_i U_i^2 / n^2)^{3/2}},
              \\quad U_i = (n - 1)(\\bar x_{(\\cdot)} - \\bar x_{(i)}),

    :math:`\\alpha_{1,2} = \\Phi\\big(\\hat z_0 + \\frac{\\hat z_0 + z}{1 - \\hat a(\\hat z_0 + z)}\\big)` with
    :math:`z = \\Phi^{-1}(\\alpha)` and :math:`-\\Phi^{-1}(\\alpha)`, where :math:`\\bar x_{(i)}` is the mean
    without value ``i`` (:func:`jackknife_means`) and :math:`\\bar x_{(\\cdot)}` their mean.

    Parameters
    ----------
    values : ndarray of float64
        The sample.
    resampled : ndarray of float64 or ResampledMeans
        The bootstrap means :math:`\\bar x^*` (``B`` of them).
    alpha : float
        :math:`(1 - \\text{level}) / 2`.
    batch : int
        Jackknife rows gathered at once.

    Returns
    -------
    ndarray of float64
        :math:`(\\alpha_1, \\alpha_2)`; NaN when BCa is undefined (:math:`\\hat z_0` infinite).

    Examples
    --------
    >>> levels = bca_levels(np.array([0.0, 1.0]), np.array([0.0, 0.5, 0.5, 1.0]), 0.05, batch=2)
    >>> [round(float(x), 4) for x in levels]
    [0.05, 0.95]
    """
    from scipy.special import ndtr, ndtri

    estimate = np.mean(values, axis=-1)
    means = _means(resampled)
    share = sum(means.count_below(estimate)) / (2 * means.size)
    z0 = ndtri(np.float64(share))
    left_out = jackknife_means(values, batch)
    n = float(left_out.size)
    u = (n - 1) * (np.mean(left_out, axis=-1, keepdims=True) - left_out)
    with np.errstate(divide="ignore", invalid="ignore"):  # an undefined interval is NaN, told by the caller
        accel = 1 / 6 * (np.sum(u**3, axis=-1) / n**3) / (np.sum(u**2, axis=-1) / n**2) ** (3 / 2)
        z = float(ndtri(alpha))
        low, high = z0 + z, z0 - z
        return np.array([ndtr(z0 + low / (1 - accel * low)), ndtr(z0 + high / (1 - accel * high))])


def interval(
    values: np.ndarray, resampled: np.ndarray | ResampledMeans, level: float, method: str, batch: int
) -> tuple[float, float]:
    """The ``method`` (``"BCa"``, ``"percentile"`` or ``"basic"``) interval of the mean of ``values`` at ``level``.

    ``resampled`` holds the bootstrap means; percentile: their :math:`\\alpha/2` and :math:`1 - \\alpha/2`
    quantiles; basic: :math:`2\\bar x` minus those, swapped; BCa: their quantiles at :func:`bca_levels`
    (NaN when BCa is undefined).

    Parameters
    ----------
    values : ndarray of float64
        The sample.
    resampled : ndarray of float64 or ResampledMeans
        Its bootstrap means.
    level : float
        Confidence level in (0, 1).
    method : {"BCa", "percentile", "basic"}
        Interval method.
    batch : int
        Jackknife rows gathered at once (BCa).

    Returns
    -------
    tuple of float
        ``(low, high)``.

    Examples
    --------
    >>> interval(np.array([0.0, 1.0]), np.array([0.0, 0.5, 0.5, 1.0]), 0.5, "basic", batch=2)
    (0.375, 0.625)
    """
    alpha = (1 - level) / 2
    if method == "BCa":
        levels = bca_levels(values, resampled, alpha, batch)
    else:
        levels = np.array([alpha, 1 - np.float64(alpha)])
    low, high = quantiles(resampled, levels)
    if method == "basic":
        estimate = np.mean(values, axis=-1)
        low, high = 2 * estimate - high, 2 * estimate - low
    return float(low), float(high)
