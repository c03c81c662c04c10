"""Bootstrap confidence interval of a mean over queries (:func:`scipy.stats.bootstrap`)."""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from rankmeter.core.lists import map_blocks
from rankmeter.errors import PolicyError
from rankmeter.stats._arrays import BATCH_CELLS, batch_size, is_zero_spread, positive_int, vector
from rankmeter.stats._types import ConfidenceInterval, Seed
from rankmeter.stats.bootstrap_interval import interval
from rankmeter.stats.resampled_means import ResampledMeans, counts_of

#: CI methods of :func:`scipy.stats.bootstrap`, under their canonical spelling.
CI_METHODS = ("BCa", "percentile", "basic")

#: Cells of a block of resample counts (4 MiB of float64) in :func:`_approximate_means`.
COUNT_CELLS = 1 << 19


def _rng_keyword(func: Any) -> str:
    """``"rng"`` on SciPy >= 1.15, ``"random_state"`` before."""
    return "rng" if "rng" in inspect.signature(func).parameters else "random_state"


@functools.lru_cache(maxsize=1)
def _resample_indices(n: int, n_resamples: int, seed: int) -> tuple[np.ndarray, ...]:
    """The resample indices :func:`scipy.stats.bootstrap` draws for ``n`` values from ``default_rng(seed)``.

    One array per batch of :func:`~rankmeter.stats._arrays.batch_size` resamples, drawn in SciPy's
    order. They depend on ``n``, ``n_resamples`` and ``seed`` only, so the intervals of many systems
    and measures over the same queries (:func:`rankmeter.compare`) draw them once; the last set is
    kept (at most :data:`~rankmeter.stats._arrays.BATCH_CELLS` indices).

    >>> [i.shape for i in _resample_indices(3, 5, 0)]
    [(5, 3)]
    """
    rng = np.random.default_rng(seed)
    batch = batch_size(n, n_resamples)
    drawn = []
    for k in range(0, n_resamples, batch):
        indices = rng.integers(0, n, size=(min(batch, n_resamples - k), n), dtype=np.int64)
        indices.flags.writeable = False
        drawn.append(indices)
    return tuple(drawn)


def _shared_seed(n: int, n_resamples: int, seed: Seed) -> int | None:
    """The seed of the shared indices of an interval of ``n`` values (an integer seed, a batch-sized job); else None."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or n * n_resamples > BATCH_CELLS:
        return None
    return int(seed)


def _approximate_means(columns: Sequence[Any], n_resamples: int, seed: Seed) -> list[np.ndarray | None]:
    """Each column's resampled means from the counts (a matrix product per block of resamples), when every
    finite 1-D column has the same length and the intervals come from the shared indices; None for the others.

    >>> [a.shape for a in _approximate_means([[0.1, 0.5, 0.9], [0.2, 0.2, 0.4]], 5, 0)]
    [(5,), (5,)]
    """
    arrays = [np.asarray(x) for x in columns]
    usable = [
        k for k, a in enumerate(arrays) if a.ndim == 1 and a.size > 1 and a.dtype.kind in "iuf" and np.isfinite(a).all()
    ]
    found: list[np.ndarray | None] = [None] * len(arrays)
    sizes = {arrays[k].size for k in usable}
    valid = isinstance(n_resamples, int | np.integer) and not isinstance(n_resamples, bool) and n_resamples >= 1
    shared = _shared_seed(min(sizes), n_resamples, seed) if len(sizes) == 1 and valid else None
    if shared is None or shared < 0:  # another seed, or one NumPy refuses (raised by the interval itself)
        return found
    n = sizes.pop()
    table = np.column_stack([arrays[k].astype(np.float64) for k in usable])
    means = np.empty((n_resamples, table.shape[1]), dtype=np.float64)
    start = 0
    for indices in _resample_indices(n, n_resamples, shared):
        for block in np.array_split(indices, -(-indices.size // COUNT_CELLS)):
            means[start : start + len(block)] = counts_of((block,), n) @ table
            start += len(block)
    means /= n
    for j, k in enumerate(usable):
        found[k] = means[:, j]
    return found


def _bootstrap_distribution(
    values: np.ndarray, n_resamples: int, seed: Seed, approx: np.ndarray | None = None
) -> ResampledMeans | None:
    """The resampled means SciPy would compute for an integer ``seed``, from shared indices; else None.

    ``approx``: the means from the counts of each value in each resample (:func:`_approximate_means`);
    without it every mean is gathered.
    """
    shared = _shared_seed(values.size, n_resamples, seed)
    if shared is None:
        return None
    drawn = _resample_indices(values.size, n_resamples, shared)
    if approx is None or not np.all(np.isfinite(approx)):  # alone, or a sum that overflows: every mean gathered
        return ResampledMeans.of_array(np.concatenate([np.mean(values[i], axis=-1) for i in drawn]))
    return ResampledMeans(values, drawn, approx)


def canonical_ci_method(method: str) -> str:
    """Canonical spelling of a bootstrap CI method (case-insensitive).

    Examples
    --------
    >>> canonical_ci_method("bca")
    'BCa'
    """
    for name in CI_METHODS:
        if str(method).strip().lower() == name.lower():
            return name
    raise PolicyError(f"unknown CI method {method!r}; choose one of {', '.join(CI_METHODS)}")


def mean_ci(
    x: Any,
    *,
    level: float = 0.95,
    method: str = "BCa",
    n_resamples: int = 10_000,
    seed: Seed = 0,
) -> ConfidenceInterval:
    """Bootstrap confidence interval of the mean of per-query values.

    Calls :func:`scipy.stats.bootstrap` with ``statistic=np.mean`` on ``m``
    resamples of the ``n`` values. With an integer ``seed`` the resampled
    means are computed here from the indices SciPy would draw, drawn once for
    every call with the same ``n``, ``m`` and ``seed``, and the interval with
    SciPy's arithmetic (:mod:`rankmeter.stats.bootstrap_interval`, which spares
    importing :mod:`scipy.stats`): the same values. ``"percentile"`` takes the
    :math:`\\alpha/2` and :math:`1-\\alpha/2` quantiles of the resampled means
    :math:`\\bar x^*`; ``"BCa"`` (bias-corrected and accelerated) shifts those
    quantile levels by a bias term :math:`\\hat z_0 = \\Phi^{-1}(\\#\\{\\bar x^* < \\bar x\\}/m)`
    and an acceleration :math:`\\hat a` estimated by the jackknife, which makes
    it second-order accurate for skewed data (per-query scores often are).

    A constant sample (all values equal, including ``n = 1``) has the interval
    ``[value, value]``, reported with method ``"degenerate"`` and no warning.
    If BCa cannot be computed (SciPy returns NaN, e.g. when nearly all values
    are equal) the percentile interval is returned instead, with ``method``
    and ``note`` saying so.

    Parameters
    ----------
    x : array_like
        Per-query values.
    level : float, default 0.95
        Confidence level in (0, 1).
    method : {"BCa", "percentile", "basic"}, default "BCa"
        Interval method (case-insensitive).
    n_resamples : int, default 10_000
        Bootstrap resamples.
    seed : int, Generator, SeedSequence or None, default 0
        Seed of the :class:`numpy.random.Generator` handed to SciPy.

    Returns
    -------
    ConfidenceInterval
        ``estimate`` (the mean), ``low``, ``high``, ``level`` and the ``method`` used.

    Examples
    --------
    >>> ci = mean_ci([0.2, 0.5, 0.4, 0.9, 0.3, 0.6], n_resamples=999, seed=1)
    >>> ci.method, ci.low < ci.estimate < ci.high
    ('BCa', True)
    >>> mean_ci([0.5, 0.5, 0.5])
    ConfidenceInterval(estimate=0.5, low=0.5, high=0.5, level=0.95, method='degenerate', note=None)
    """
    return _mean_ci(x, level, method, n_resamples, seed, None)


def _mean_ci(
    x: Any, level: float, method: str, n_resamples: int, seed: Seed, approx: np.ndarray | None
) -> ConfidenceInterval:
    """:func:`mean_ci`, with the resampled means approximated beforehand (``approx``) or not."""
    values = vector(x, "x")
    if not 0.0 < level < 1.0:
        raise PolicyError(f"confidence level must be in (0, 1), got {level!r}")
    name = canonical_ci_method(method)
    m = positive_int(n_resamples, "n_resamples")
    if values.size == 0:
        return ConfidenceInterval(math.nan, math.nan, math.nan, level, name, note="no queries")
    if np.all(values == values[0]):  # exactly constant: the mean is the value, without rounding
        v = float(values[0])
        return ConfidenceInterval(v, v, v, level, "degenerate")
    estimate = float(np.mean(values))
    if is_zero_spread(values):
        return ConfidenceInterval(estimate, estimate, estimate, level, "degenerate")
    # SciPy's resampled means, from the indices every call with the same n, m and seed shares
    resampled = _bootstrap_distribution(values, m, seed, approx)

    def run(kind: str) -> tuple[float, float]:
        if resampled is not None:  # SciPy's arithmetic on the shared draws, without importing scipy.stats
            return interval(values, resampled, level, kind, batch_size(values.size, m))
        from scipy import stats

        with warnings.catch_warnings():
            # DegenerateDataWarning (a RuntimeWarning) and NaN arithmetic warnings of BCa:
            # handled below by the percentile fallback.
            warnings.simplefilter("ignore", RuntimeWarning)
            res = stats.bootstrap(
                (values,),
                np.mean,
                batch=batch_size(values.size, m),
                vectorized=True,
                confidence_level=level,
                method=kind,
                n_resamples=m,
                **{_rng_keyword(stats.bootstrap): np.random.default_rng(seed)},
            )
        return float(res.confidence_interval.low), float(res.confidence_interval.high)

    low, high = run(name)
    if name == "BCa" and not (math.isfinite(low) and math.isfinite(high)):
        low, high = run("percentile")
        return ConfidenceInterval(
            estimate, low, high, level, "percentile", note="BCa undefined for this sample; percentile used"
        )
    return ConfidenceInterval(estimate, low, high, level, name)


def mean_cis(
    columns: Sequence[Any],
    *,
    level: float = 0.95,
    method: str = "BCa",
    n_resamples: int = 10_000,
    seed: Seed = 0,
    threads: int | None = None,
) -> list[ConfidenceInterval]:
    """:func:`mean_ci` of every column, in order, on a thread per CPU when ``seed`` is an integer.

    With an integer seed every interval is computed from the shared draws (drawn before the intervals
    start) with NumPy, which releases the GIL: the intervals of many systems and measures
    (:func:`rankmeter.compare`) run side by side with the same values as one by one. When the columns
    have one length, the resampled means of all of them come first from the counts of each value in
    each resample (one matrix product per block of resamples; the columns in groups of at most
    :data:`~rankmeter.stats._arrays.BATCH_CELLS` means), and each interval gathers SciPy's mean only
    for the resamples that rounding could put on the other side of what it reads
    (:class:`~rankmeter.stats.resampled_means.ResampledMeans`): the same values, a fraction of the work.
    Another seed runs them one after the other.

    Parameters
    ----------
    columns : sequence of array_like
        Per-query values, one vector per interval.
    level, method, n_resamples, seed
        As for :func:`mean_ci`.
    threads : int, optional
        Intervals computed at once (default: one per CPU, at most 8).

    Returns
    -------
    list of ConfidenceInterval

    Examples
    --------
    >>> [ci.method for ci in mean_cis([[0.1, 0.5, 0.9], [0.5, 0.5]], n_resamples=999)]
    ['BCa', 'degenerate']
    """
    if not columns:
        return []

    def one(column: tuple[Any, np.ndarray | None]) -> ConfidenceInterval:
        return _mean_ci(column[0], level, method, n_resamples, seed, column[1])

    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        return [one((x, None)) for x in columns]
    # the approximate means of at most BATCH_CELLS cells at a time: a group of columns, then its intervals
    valid = isinstance(n_resamples, int | np.integer) and not isinstance(n_resamples, bool) and n_resamples >= 1
    step = max(1, BATCH_CELLS // int(n_resamples)) if valid else len(columns)
    found: list[ConfidenceInterval] = []
    for start in range(0, len(columns), step):
        group = list(
            zip(
                columns[start : start + step],
                _approximate_means(columns[start : start + step], n_resamples, seed),
                strict=True,
            )
        )
        if start == 0:  # the first alone: it draws the shared indices when no approximation did
            found.append(one(group.pop(0)))
        found.extend(map_blocks(one, group, threads))
    return found
