r"""Corrected estimates of full-catalogue measures from sampled ranks (Krichene & Rendle, KDD 2020).

A protocol that ranks each held-out item against m sampled negatives gives
its *sampled rank* r̃ in 1..m+1; the full-catalogue rank r in 1..n (n the
items it competes with: itself and its n - 1 negatives) is unknown. The
measure of the sampled list, M(r̃), is a biased estimate of M(r), and the bias
depends on the model, enough to reverse the order of two models. Krichene &
Rendle (KDD 2020, the section on corrected metrics: corrections "obtained by
minimizing different criteria such as bias or mean squared error") replace
M(r̃) by a corrected value M̂(r̃), one number per sampled rank, chosen so that
its law given r matches M(r) over the ranks r:

.. math::

    \hat M = \arg\min_{x \in \mathbb{R}^{m+1}} \sum_{r=1}^{n} w_r
    \left[ \left(\mathbb{E}[x_{\tilde r} \mid r] - M(r)\right)^2
    + \gamma\, \operatorname{Var}[x_{\tilde r} \mid r] \right]

with :math:`A_{r\tilde r} = P(\tilde r \mid r)` and weights w (uniform by
default), whose solution is

.. math::

    \left[(1 - \gamma)\, A^\top W A + \gamma\, \operatorname{diag}(A^\top w)\right] \hat M = A^\top W M.

``gamma=0`` is their *minimal-bias* correction (weighted least squares,
solved by :func:`numpy.linalg.lstsq`); ``gamma=1`` minimises the expected
squared error, whose solution is the posterior mean
:math:`\hat M(\tilde r) = \sum_r w_r A_{r\tilde r} M(r) / \sum_r w_r A_{r\tilde r}`;
values in between are their bias-variance family.

:math:`P(\tilde r \mid r)`: ``replacement=False`` (default) the hypergeometric
law of uniform sampling without replacement, :math:`\tilde r - 1 \sim
\mathrm{Hypergeometric}(n - 1, r - 1, m)`, the protocol of
``evaluate_arrays(..., sampled_negatives=m)``; ``replacement=True`` the
binomial law of sampling with replacement, :math:`\tilde r - 1 \sim
\mathrm{Binomial}(m, (r - 1)/(n - 1))`.

Examples
--------
>>> import numpy as np
>>> est = correct([1, 1, 2, 5, 101], 100, 1000, "r@10", n_resamples=999)
>>> est.sampled  # recall@10 on the sampled lists: ranks 1, 1, 2 and 5 are in the top 10
0.8
>>> est.corrected < est.sampled
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, PolicyError
from rankmeter.measures import Measure, parse
from rankmeter.measures.kernels.sampled import check_sampled_measures, hypergeom_pmf, rank_values
from rankmeter.measures.params import discount_values, gain_values
from rankmeter.stats._types import ConfidenceInterval, Seed
from rankmeter.stats.bootstrap import mean_ci

__all__ = ["SampledEstimate", "correct", "correction", "single_item_values", "sampled_rank_law"]


def sampled_rank_law(n_negatives: int, catalog_size: int, *, replacement: bool = False) -> np.ndarray:
    r"""The matrix :math:`A_{r\tilde r} = P(\tilde r \mid r)`, shape ``(catalog_size, n_negatives + 1)``.

    Row r - 1 is the law of the sampled rank of an item at full rank r among
    ``catalog_size`` items when ``n_negatives`` of its ``catalog_size - 1``
    negatives are drawn uniformly (without replacement unless ``replacement``).

    >>> sampled_rank_law(2, 4).round(4).tolist()
    [[1.0, 0.0, 0.0], [0.3333, 0.6667, 0.0], [0.0, 0.6667, 0.3333], [0.0, 0.0, 1.0]]
    """
    r = np.arange(1, catalog_size + 1)[:, None]
    below = np.arange(n_negatives + 1)[None, :]
    if replacement:
        from scipy.stats import binom

        return np.asarray(binom.pmf(below, n_negatives, (r - 1) / max(catalog_size - 1, 1)))
    return hypergeom_pmf(catalog_size - 1, r[:, 0] - 1, n_negatives, n_negatives)


def single_item_values(measure: Measure, ranks: np.ndarray, length: int) -> np.ndarray:
    """The measure of a list of ``length`` items with one relevant item (grade 1) at each of ``ranks``.

    >>> single_item_values(parse("ndcg@3"), np.array([1, 3, 4]), 10).round(4).tolist()
    [1.0, 0.5, 0.0]
    """
    one = np.ones(1)
    gain = gain_values(measure.param("gain", "linear"), one)
    idcg = gain * discount_values(measure.param("discount", "log2"), one)
    ranks = np.asarray(ranks, dtype=np.float64)
    return rank_values(measure, np.ones_like(ranks), ranks, gain, one, np.array(float(length)), idcg)


def correction(
    measure: Measure | str,
    n_negatives: int,
    catalog_size: int,
    *,
    gamma: float = 0.01,
    replacement: bool = False,
    weights: Any = None,
) -> np.ndarray:
    r"""The corrected value :math:`\hat M(\tilde r)` of each sampled rank 1..m+1 (see the module's formula).

    ``weights``: :math:`w_r` over the full ranks 1..n (default uniform).

    >>> x = correction("r@1", 1, 3, gamma=1.0)  # posterior mean of [r = 1] given the sampled rank
    >>> x.round(6).tolist()  # r~ = 1: r = 1 (prob. 1) or r = 2 (prob. 1/2); r~ = 2: r = 2 or 3
    [0.666667, 0.0]
    """
    m = parse(measure) if isinstance(measure, str) else measure
    check_sampled_measures([m])
    _check_sizes(n_negatives, catalog_size)
    if not 0.0 <= gamma <= 1.0:
        raise PolicyError(f"gamma must lie in [0, 1] (0: minimal bias, 1: minimal squared error), got {gamma!r}")
    a = sampled_rank_law(n_negatives, catalog_size, replacement=replacement)
    target = single_item_values(m, np.arange(1, catalog_size + 1), catalog_size)
    w = np.full(catalog_size, 1.0 / catalog_size) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (catalog_size,) or (w < 0).any() or not w.sum() > 0:
        raise PolicyError(f"weights must be {catalog_size} non-negative numbers (one per full rank), not all 0")
    if gamma == 0.0:
        root = np.sqrt(w)[:, None]
        return np.asarray(np.linalg.lstsq(root * a, root[:, 0] * target, rcond=None)[0])
    lhs = (1.0 - gamma) * (a.T * w) @ a + gamma * np.diag(a.T @ w)
    return np.asarray(np.linalg.lstsq(lhs, (a.T * w) @ target, rcond=None)[0])


def _check_sizes(n_negatives: Any, catalog_size: Any) -> None:
    if isinstance(n_negatives, bool) or not isinstance(n_negatives, int | np.integer) or n_negatives < 1:
        raise PolicyError(f"n_negatives must be a positive integer, got {n_negatives!r}")
    if isinstance(catalog_size, bool) or not isinstance(catalog_size, int | np.integer):
        raise PolicyError(f"catalog_size must be an integer, got {catalog_size!r}")
    if catalog_size <= n_negatives:
        raise PolicyError(
            f"catalog_size={catalog_size} leaves {catalog_size - 1} negatives to sample from, fewer than "
            f"n_negatives={n_negatives}"
        )


@dataclass(frozen=True)
class SampledEstimate:
    """Sampled and corrected values of one measure over users.

    Attributes
    ----------
    measure : str
    sampled : float
        Mean over users of the measure on the sampled lists.
    corrected : float
        Mean over users of the corrected values.
    interval : ConfidenceInterval
        Bootstrap interval of ``corrected`` over users (:func:`rankmeter.stats.mean_ci`).
    users : ndarray
        The users, in the order of the per-user arrays.
    per_user_sampled, per_user_corrected : ndarray
    correction : ndarray
        M̂(r̃) for r̃ = 1..m+1.
    gamma : float
    n_negatives, catalog_size : int
    replacement : bool
    """

    measure: str
    sampled: float
    corrected: float
    interval: ConfidenceInterval
    users: np.ndarray
    per_user_sampled: np.ndarray
    per_user_corrected: np.ndarray
    correction: np.ndarray
    gamma: float
    n_negatives: int
    catalog_size: int
    replacement: bool


def correct(
    sampled_ranks: Any,
    n_negatives: int,
    catalog_size: int,
    measure: Measure | str,
    *,
    gamma: float = 0.01,
    replacement: bool = False,
    users: Any = None,
    weights: Any = None,
    level: float = 0.95,
    method: str = "BCa",
    n_resamples: int = 10_000,
    seed: Seed = 0,
) -> SampledEstimate:
    r"""The sampled value of a measure, its Krichene & Rendle correction and a bootstrap interval over users.

    Parameters
    ----------
    sampled_ranks : array-like of int
        The rank (1 = first) of each held-out item among itself and its
        ``n_negatives`` sampled negatives.
    n_negatives : int
        m, negatives sampled for each held-out item.
    catalog_size : int
        n, the items each held-out item competes with in the full ranking
        (itself and every negative it could have been ranked against).
    measure : str or Measure
        A measure of one relevant item: ``ndcg@k``, ``r@k``, ``p@k``, ``map``,
        ``rr``, ``success@k``, ... (the families whose ``sampled`` trait
        names a formula of :data:`rankmeter.measures.kernels.sampled.FORMULAS`).
    gamma : float, default 0.01
        Bias-variance trade-off in [0, 1]: 0 minimal bias, 1 minimal squared
        error (a choice, not a value the paper prescribes).
    replacement : bool, default False
        The law of the sampled rank: without replacement (hypergeometric) or with (binomial).
    users : array-like, optional
        The user of each rank: a user's value is the mean over their held-out
        items, and the bootstrap resamples users. Default: one user per rank.
    weights : array-like, optional
        w_r over the full ranks (default uniform).
    level, method, n_resamples, seed
        The bootstrap interval (:func:`rankmeter.stats.mean_ci`).

    Returns
    -------
    SampledEstimate
    """
    m = parse(measure) if isinstance(measure, str) else measure
    ranks = np.asarray(sampled_ranks)
    if ranks.ndim != 1 or len(ranks) == 0:
        raise InputFormatError(f"sampled_ranks must be a non-empty 1-D array of ranks, got shape {ranks.shape}")
    if not np.issubdtype(ranks.dtype, np.integer):
        if not np.issubdtype(ranks.dtype, np.floating) or not np.all(ranks == np.round(ranks)):
            raise InputFormatError("sampled_ranks must be whole numbers (1 = first)")
        ranks = ranks.astype(np.int64)
    vector = correction(m, n_negatives, catalog_size, gamma=gamma, replacement=replacement, weights=weights)
    bad = np.flatnonzero((ranks < 1) | (ranks > n_negatives + 1))
    if len(bad):
        i = int(bad[0])
        raise InputFormatError(
            f"sampled_ranks[{i}] is {ranks[i]}: a rank among 1 held-out item and {n_negatives} negatives lies in "
            f"1..{n_negatives + 1}"
        )
    sampled = single_item_values(m, ranks, n_negatives + 1)
    corrected = vector[ranks - 1]
    if users is None:
        labels = np.arange(len(ranks))
        per_sampled, per_corrected = sampled, corrected
    else:
        user_arr = np.asarray(users)
        if user_arr.shape != ranks.shape:
            raise InputFormatError(f"users has {user_arr.shape[0]} entries but sampled_ranks has {len(ranks)}")
        labels, code = np.unique(user_arr, return_inverse=True)
        count = np.bincount(code)
        per_sampled = np.bincount(code, weights=sampled) / count
        per_corrected = np.bincount(code, weights=corrected) / count
    ci = mean_ci(per_corrected, level=level, method=method, n_resamples=n_resamples, seed=seed)
    return SampledEstimate(
        str(m), float(per_sampled.mean()), float(per_corrected.mean()), ci, labels, per_sampled, per_corrected,
        vector, float(gamma), int(n_negatives), int(catalog_size), bool(replacement),
    )  # fmt: skip
