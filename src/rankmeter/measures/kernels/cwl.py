r"""C/W/L measures (Moffat et al.; Azzopardi, Thomas & Moffat, SIGIR 2019) as ``cwl_eval`` computes them.

A C/W/L user reads rank i and goes on to rank i + 1 with probability
:math:`C_i`. Over cwl_eval's horizon of :data:`HORIZON` ranks (the ranking
truncated or padded with gain-0 items), the weight of rank i is

.. math::

    W_i = \frac{\prod_{j<i} C_j}{\sum_{m=1}^{n} \prod_{j<m} C_j}, \qquad
    EU = \sum_{i=1}^{n} W_i\, g_i

(the expected utility per item, the number ir_measures reports). Gains are
the grades scaled into [0, 1] as ir_measures' cwl provider does:
:math:`g = (\min(\max(\max(r, 0), lo), hi) - lo) / (hi - lo)` with ``lo =
min_rel`` (default 0) and ``hi = max_rel`` (required); unjudged documents
have gain 0 (cwl_eval's lower bound). With :math:`G_i = \sum_{j \le i} g_j`
and T the desired gain:

=========  ========================================================================
family     :math:`C_i`
=========  ========================================================================
``insq``   :math:`((i + 2T - 1) / (i + 2T))^2`
``inst``   :math:`((i + T + T_i - 1) / (i + T + T_i))^2`, :math:`T_i = T - G_i`
``bpm``    1 while :math:`G_i < T` and :math:`i < k`, else 0 (static Bejewelled Player Model)
``nerr8``  :math:`1 - g_i` for :math:`i < k`, else 0
``nerr9``  :math:`\frac{i}{i+1}(1 - g_i)` for :math:`i < k`, else 0
``nerr10`` :math:`p\,(1 - g_i)`
``nerr11`` :math:`((i + 2T - 1) / (i + 2T))^2 (1 - g_i)`
=========  ========================================================================

The ranks past the ranking have gain 0, so their part of the denominator has
a closed form (telescoping products; trigamma and harmonic sums), and no
padded array is built. ``insq``'s weights do not depend on the gains, so it
is linear in them and exact under ``ties="expected"``; the others are ratios
of order-dependent sums and raise :class:`~rankmeter.errors.PolicyError`
there.
"""

from __future__ import annotations

import numpy as np

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.err import segment_cumprod
from rankmeter.measures.kernels.segments import segment_cumsum, segment_sum
from rankmeter.measures.kernels.trec._common import deterministic_only

HORIZON = 1000  # cwl_eval's max_n, as ir_measures' provider sets it


def scaled_gains(ctx: Context, measure: Measure) -> np.ndarray:
    """Gain of each ranked item in [0, 1]: the grade clipped to [min_rel, max_rel] and scaled; 0 when unjudged.

    Grades 3, 1, 0 with ``max_rel=3`` have gains 1, 1/3, 0; INSQ (T = 1) weighs rank i by
    :math:`(2 / (i + 1))^2` over 1000 ranks, whose sum is about 2.5757:

    >>> import rankmeter
    >>> res = rankmeter.evaluate_lists([[3, 1, 0]], [[3, 2, 1]], "insq(max_rel=3)", ties="stable")
    >>> round(res["insq(max_rel=3)"], 6), round((1 + 4 / 9 / 3) / sum((2 / (i + 1)) ** 2 for i in range(1, 1001)), 6)
    (0.445754, 0.445754)
    """
    lo, hi = float(measure.param("min_rel", 0.0)), measure.param("max_rel")
    if hi is None:
        raise MeasureSyntaxError(
            f"measure {str(measure)!r} needs max_rel, the grade whose gain is 1 "
            f"(e.g. {measure.family}(max_rel=3)); ir_measures requires it too"
        )
    if not lo < hi:
        raise MeasureSyntaxError(f"measure {str(measure)!r}: min_rel must be below max_rel, got {lo:g} and {hi:g}")
    grades = np.clip(np.maximum(ctx.ranked.grades, 0.0), lo, hi)
    return np.where(ctx.ranked.judged, (grades - lo) / (hi - lo), 0.0)


class _Lists:
    """The items within the horizon: gains, 1-based ranks, CSR offsets and each list's length."""

    def __init__(self, ctx: Context, measure: Measure) -> None:
        keep = ctx.positions < HORIZON
        gains = scaled_gains(ctx, measure)
        self.offsets = np.concatenate(([0], np.cumsum(segment_sum(keep, ctx.ranked.offsets)))).astype(np.int64)
        self.gains = gains[keep]
        self.rank = ctx.ranks[keep]
        self.length = np.diff(self.offsets).astype(np.float64)
        self.query = ctx.item_query[keep]

    @property
    def cum_gain(self) -> np.ndarray:
        """G_i, each list summed on its own as cwl_eval does (``bpm`` compares it with T exactly)."""
        return segment_cumsum(self.gains, self.offsets, per_segment=True)

    @property
    def total_gain(self) -> np.ndarray:
        return segment_sum(self.gains, self.offsets)

    def expected_utility(self, c: np.ndarray, tail: np.ndarray) -> np.ndarray:
        r"""EU from the continuation probability of each item and, per list, :math:`\sum_{i>L}\prod_{L<j<i} C_j`."""
        shifted = np.ones(len(c))
        shifted[1:] = c[:-1]
        shifted[self.offsets[:-1][self.length > 0]] = 1.0
        reach = segment_cumprod(shifted, self.offsets)  # prod_{j<i} C_j
        beyond = np.ones(len(self.length))  # prod over the whole list: reaching rank L + 1
        last = self.offsets[1:][self.length > 0] - 1
        beyond[self.length > 0] = reach[last] * c[last]
        beyond = np.where(self.length < HORIZON, beyond, 0.0)
        den = segment_sum(reach, self.offsets) + beyond * tail
        return segment_sum(reach * self.gains, self.offsets) / den


def _cutoffs(measure: Measure) -> list[int]:
    """The cutoffs of a family that requires one."""
    return list(measure.cutoffs or ())


def _trigamma_sum(start: np.ndarray, shift: np.ndarray) -> np.ndarray:
    r""":math:`\sum_{m=start}^{n-1} 1 / (m + shift)^2` (0 when start >= n), by the trigamma function."""
    from scipy.special import polygamma  # on first use: `rankmeter evaluate` imports no SciPy otherwise

    out = polygamma(1, start + shift) - polygamma(1, HORIZON + shift)
    return np.where(start < HORIZON, out, 0.0)


def _check_target(measure: Measure) -> float:
    return float(measure.param("t", 1.0))


def insq(ctx: Context, measure: Measure) -> np.ndarray:
    """INSQ (Moffat, Scholer & Thomas, ADCS 2012): C_i = ((i + 2T - 1) / (i + 2T))^2; exact under expected ties."""
    t = _check_target(measure)
    lists = _Lists(ctx, measure)
    if ctx.expected:  # W_i depends on i alone: the tie-group mean of the gains gives the expectation
        lists.gains = ctx.tie_mean(scaled_gains(ctx, measure))[ctx.positions < HORIZON]
    c = ((lists.rank + 2 * t - 1) / (lists.rank + 2 * t)) ** 2
    tail = (lists.length + 2 * t) ** 2 * _trigamma_sum(lists.length, np.full(len(lists.length), 2 * t))
    return lists.expected_utility(c, tail)[:, None]


def inst(ctx: Context, measure: Measure) -> np.ndarray:
    """INST (Moffat, Bailey, Scholer & Thomas, ADCS 2015): C_i = ((i + T + T_i - 1) / (i + T + T_i))^2."""
    deterministic_only(ctx, measure)
    t = _check_target(measure)
    lists = _Lists(ctx, measure)
    shift = 2 * t - lists.cum_gain  # T + T_i
    c = ((lists.rank + shift - 1) / (lists.rank + shift)) ** 2
    after = 2 * t - lists.total_gain  # T + T_L, the same for every rank past the list
    tail = (lists.length + after) ** 2 * _trigamma_sum(lists.length, after)
    return lists.expected_utility(c, tail)[:, None]


def nerr11(ctx: Context, measure: Measure) -> np.ndarray:
    """NERR eq. 11 (Azzopardi, Mackenzie & Moffat, ICTIR 2021): INSQ's C_i times (1 - g_i)."""
    deterministic_only(ctx, measure)
    t = _check_target(measure)
    lists = _Lists(ctx, measure)
    c = ((lists.rank + 2 * t - 1) / (lists.rank + 2 * t)) ** 2 * (1 - lists.gains)
    tail = (lists.length + 2 * t) ** 2 * _trigamma_sum(lists.length, np.full(len(lists.length), 2 * t))
    return lists.expected_utility(c, tail)[:, None]


def nerr10(ctx: Context, measure: Measure) -> np.ndarray:
    """NERR eq. 10: C_i = p (1 - g_i), to the horizon (RBP-like)."""
    deterministic_only(ctx, measure)
    p = float(measure.param("p", 0.9))
    lists = _Lists(ctx, measure)
    rest = HORIZON - lists.length
    tail = rest if p == 1.0 else (1.0 - np.power(p, rest)) / (1.0 - p)
    return lists.expected_utility(p * (1 - lists.gains), tail)[:, None]


def _harmonic(n: np.ndarray) -> np.ndarray:
    table = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, HORIZON + 1))))
    return table[np.clip(n, 0, HORIZON).astype(np.int64)]


def nerr8(ctx: Context, measure: Measure) -> np.ndarray:
    """NERR eq. 8: C_i = 1 - g_i for i < k, 0 from rank k on (ERR's cascade, truncated at k)."""
    deterministic_only(ctx, measure)
    lists = _Lists(ctx, measure)
    columns = []
    for k in _cutoffs(measure):
        c = np.where(lists.rank < k, 1 - lists.gains, 0.0)
        tail = np.maximum(min(k, HORIZON) - lists.length, 0.0)
        columns.append(lists.expected_utility(c, tail))
    return np.stack(columns, axis=1)


def nerr9(ctx: Context, measure: Measure) -> np.ndarray:
    """NERR eq. 9: C_i = i / (i + 1) (1 - g_i) for i < k, 0 from rank k on."""
    deterministic_only(ctx, measure)
    lists = _Lists(ctx, measure)
    columns = []
    for k in _cutoffs(measure):
        c = np.where(lists.rank < k, lists.rank / (lists.rank + 1) * (1 - lists.gains), 0.0)
        # past the list, prod_{L<j<i} j / (j + 1) = (L + 1) / i
        tail = (lists.length + 1) * np.maximum(_harmonic(np.full_like(lists.length, k)) - _harmonic(lists.length), 0)
        columns.append(lists.expected_utility(c, tail))
    return np.stack(columns, axis=1)


def bpm(ctx: Context, measure: Measure) -> np.ndarray:
    """Static BPM (Zhang et al., SIGIR 2017): G_s / s, the user stopping at s = min(first i with G_i >= T, k).

    Each rank costs 1, so cwl_eval's cost budget K is the cutoff k; within the
    horizon, s is never past it.
    """
    deterministic_only(ctx, measure)
    t = _check_target(measure)
    lists = _Lists(ctx, measure)
    cum = lists.cum_gain
    reached = cum >= t
    first = np.full(len(lists.length), np.inf)
    np.minimum.at(first, lists.query[reached], lists.rank[reached])
    columns = []
    for k in _cutoffs(measure):
        stop = np.minimum(np.minimum(first, float(k)), float(HORIZON))
        gain = segment_sum(np.where(lists.rank <= stop[lists.query], lists.gains, 0.0), lists.offsets)
        columns.append(gain / stop)
    return np.stack(columns, axis=1)
