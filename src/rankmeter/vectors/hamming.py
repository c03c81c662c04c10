r"""Tie-aware measures of Hamming ranking from distance-bucket counts, without sorting.

A Hamming distance between b-bit codes takes only b + 1 values, so ranking a
database by distance puts it into at most b + 1 tied groups (one per distance,
in ascending order). For ``ties="expected"`` every measure rankmeter computes
is a function of each group's size and of sums of functions of the grades of
its items (McSherry & Najork, "Computing Information Retrieval Performance
Measures Efficiently in the Presence of Tied Scores", ECIR 2008; He, Cakir,
Bargal & Sclaroff, "Hashing as Tie-Aware Learning to Rank", CVPR 2018). One
counting pass per block of queries gives them all:

.. math:: H_q[d, v] = \#\{i : \mathrm{dist}(q, i) = d,\ \mathrm{grade}(q, i) = v\}

(``np.bincount`` over the keys ``(q, d, v)``; grades are small integers such as
the number of shared labels). From H, in O(b * V) per query and cutoff
(b bits, V grade levels), with groups j = 0..b of size :math:`n_j`, start
:math:`a_j = \sum_{i<j} n_i` (0-based), :math:`t_j(k) = \mathrm{clip}(k - a_j, 0, n_j)`
positions inside the top k, and :math:`S_j(f) = \sum_v H[j, v] f(v)`:

- additive measures (P, R, F1, R-prec, ACG, CG, judged): the expected value at
  each position is its group's mean (linearity of expectation), so
  :math:`E[\sum_{i \le k} f(r_i)] = \sum_j S_j(f)\, t_j(k) / n_j`;
- DCG: with :math:`C(x) = \sum_{i=1}^{x} d(i)` the running sum of the discount,
  :math:`E[DCG@k] = \sum_j \frac{S_j(g)}{n_j} (C(a_j + t_j) - C(a_j))`; the
  ideal DCG uses the grade totals :math:`T_v = \sum_j H[j, v]` as groups of equal
  gain sorted by gain, :math:`IDCG@k = \sum_v g(v) (C(A_v + t_v) - C(A_v))`;
- AP and WAP: :math:`E[b_i \sum_{j \le i} g_j]` at offset t of group j is
  :math:`\alpha_j + \beta_j t` with
  :math:`\alpha_j = (B_j G^{<}_j + BG_j) / n_j` and
  :math:`\beta_j = (B_j G_j - BG_j) / (n_j (n_j - 1))` (B, G, BG: the group's sums
  of b, g and b g; :math:`G^{<}_j` the sum of g over earlier groups), exactly
  :meth:`rankmeter.measures.kernels.context.Context.prefix_products`. Dividing by
  the rank and summing over the t positions of the group in the top k, with
  harmonic numbers :math:`\mathcal{H}_x = \sum_{i=1}^{x} 1/i` and
  :math:`\Delta = \mathcal{H}_{a+t} - \mathcal{H}_a`:
  :math:`\sum_{s<t} \frac{\alpha + \beta s}{a + s + 1} = \alpha \Delta + \beta (t - (a + 1) \Delta)`.
  AP: b = g = relevance; WAP: b = relevance, g = grade. Both divided by R;
- RR and success: the first group holding a relevant item decides; with n items,
  r relevant, starting at a, the first relevant item is at a + j with the
  hypergeometric probability :math:`w_j = \binom{n-j}{r-1} / \binom{n}{r}`
  (:meth:`~rankmeter.measures.kernels.context.Context.first_hit`).

``optimistic`` and ``pessimistic`` ties order each distance group by grade
(descending / ascending): the ranking is then the sequence of sub-buckets
(d, v) in that order, each holding items of one grade, and the same formulas
applied to the sub-buckets give the exact deterministic values (a group of
equal grades has no uncertainty). The core orders grades <= 0 alike (by
index) for these two policies, so a block with negative grades takes the
sorting path instead. The values equal those of the general path
(sort, :func:`rankmeter.pipeline.evaluate_ranked`) to rounding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.measures import traits_of
from rankmeter.measures.base import Measure
from rankmeter.measures.params import discount_values, gain_values

BUCKET_TIES = ("expected", "optimistic", "pessimistic")


def bucket_histogram(
    dist: np.ndarray, levels: np.ndarray, n_buckets: int, n_levels: int, self_cols: np.ndarray | None = None
) -> np.ndarray:
    """Counts ``H[q, d, v]`` of database items at distance d with grade level v, per query of the block.

    Parameters
    ----------
    dist : ndarray of unsigned int, shape (b, N)
        Hamming distances (< ``n_buckets``).
    levels : ndarray of unsigned int, shape (b, N)
        Grade level of each item (< ``n_levels``).
    self_cols : ndarray of int, shape (b,), optional
        Database item to leave out for each query (``-1``: none): ``exclude_self``.

    Returns
    -------
    ndarray of int64, shape (b, n_buckets, n_levels)

    Examples
    --------
    >>> import numpy as np
    >>> h = bucket_histogram(np.array([[0, 1, 1]]), np.array([[1, 0, 2]]), 2, 3)
    >>> h[0].tolist()
    [[0, 1, 0], [1, 0, 1]]
    """
    b = dist.shape[0]
    size = n_buckets * n_levels
    # (d, v) key in the narrowest dtype, then the row offset: fewer bytes moved than int64 throughout
    narrow = np.uint16 if size <= 1 << 16 else np.intp
    key = dist.astype(narrow)
    key *= narrow(n_levels)
    key += levels.astype(narrow, copy=False)
    row_dtype = np.uint32 if b * size < 1 << 32 and narrow == np.uint16 else np.intp
    full = key + (np.arange(b, dtype=row_dtype) * row_dtype(size))[:, None]
    hist = np.bincount(full.reshape(-1), minlength=b * size).reshape(b, n_buckets, n_levels)
    if self_cols is not None:
        rows = np.flatnonzero(self_cols >= 0)
        cols = self_cols[rows]
        hist[rows, dist[rows, cols].astype(np.intp), levels[rows, cols].astype(np.intp)] -= 1
    return hist


def bucket_counts(
    dist: np.ndarray, relevant: np.ndarray, n_buckets: int, self_cols: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Items and relevant items per distance bucket: two arrays of shape (b, n_buckets).

    >>> import numpy as np
    >>> n, r = bucket_counts(np.array([[0, 1, 1]]), np.array([[True, False, True]]), 3)
    >>> n.tolist(), r.tolist()
    ([[1.0, 2.0, 0.0]], [[1.0, 1.0, 0.0]])
    """
    b = dist.shape[0]
    key = dist.astype(np.intp) + (np.arange(b, dtype=np.intp) * n_buckets)[:, None]
    valid = np.ones(dist.shape, dtype=bool)
    if self_cols is not None:
        rows = np.flatnonzero(self_cols >= 0)
        valid[rows, self_cols[rows]] = False
    n = np.bincount(key[valid], minlength=b * n_buckets).reshape(b, n_buckets)
    r = np.bincount(key[valid & relevant], minlength=b * n_buckets).reshape(b, n_buckets)
    return n.astype(np.float64), r.astype(np.float64)


def sum_last(x: np.ndarray) -> np.ndarray:
    """Sum over the last axis (groups or grade levels) strictly in order, first to last.

    Empty groups and absent grade levels contribute exact zeros, and adding 0.0
    never changes a float, so the result does not depend on how many groups a
    block spans (its code width, the grade range of the batch): values are
    bit-for-bit the same whatever the batch size or code packing. NumPy's
    ``sum`` adds pairwise along a contiguous axis and regroups the additions
    when the axis grows (and which axis is "contiguous" depends on the block's
    shape); a running sum (``cumsum``) is sequential by definition.

    >>> import numpy as np
    >>> sum_last(np.array([[1.0, 2.0, 0.0]])).tolist()
    [3.0]
    """
    if x.shape[-1] == 0:
        return np.zeros(x.shape[:-1])
    return np.cumsum(x, axis=-1)[..., -1]


def dot_levels(counts: np.ndarray, per_level: np.ndarray) -> np.ndarray:
    """``counts @ per_level`` over the last axis, added in order (see :func:`sum_last`)."""
    return sum_last(counts * per_level)


class PrefixTables:
    """Running sums over ranks 1..n shared by every block: discounts C(x) and harmonic numbers.

    >>> t = PrefixTables(3)
    >>> t.harmonic.tolist()
    [0.0, 1.0, 1.5, 1.8333333333333333]
    >>> t.discount("log2")[:3].tolist()
    [0.0, 1.0, 1.6309297535714575]
    """

    def __init__(self, n: int) -> None:
        self.n = n
        ranks = np.arange(1, n + 1, dtype=np.float64)
        self.harmonic = np.concatenate(([0.0], np.cumsum(1.0 / ranks)))
        self._discounts: dict[Any, np.ndarray] = {}

    def discount(self, discount: Any) -> np.ndarray:
        """:math:`C(x) = \\sum_{i=1}^{x} d(i)` for x = 0..n."""
        key = discount if isinstance(discount, str) else ("obj", id(discount), discount)
        table = self._discounts.get(key)
        if table is None:
            d = discount_values(discount, np.arange(1, self.n + 1, dtype=np.float64))
            table = np.concatenate(([0.0], np.cumsum(d)))
            self._discounts[key] = table
        return table


class BucketGroups:
    """The tied groups of a block of queries, from the bucket histogram.

    ``expected``: one group per distance (mixed grades). ``optimistic`` /
    ``pessimistic``: one group per (distance, grade), grades descending /
    ascending inside a distance.

    Attributes
    ----------
    n : ndarray of float64, shape (b, G)
        Group sizes in ranked order (empty groups have size 0).
    start : ndarray of int64, shape (b, G)
        0-based rank of each group's first item.
    length : ndarray of float64, shape (b,)
        Ranked list length of each query.
    totals : ndarray of float64, shape (b, V)
        Items of each grade level.
    """

    def __init__(self, hist: np.ndarray, grade_values: np.ndarray, ties: str) -> None:
        b, n_buckets, n_levels = hist.shape
        self.grade_values = np.asarray(grade_values, dtype=np.float64)
        self.n_buckets = n_buckets
        self.expected = ties == "expected"
        if self.expected:
            self._h = hist.astype(np.float64)
            n_int = hist.sum(axis=2)
            self._level_of: np.ndarray | None = None
        else:
            order = np.argsort(self.grade_values, kind="stable")
            if ties == "optimistic":
                order = order[::-1]
            n_int = hist[:, :, order].reshape(b, n_buckets * n_levels)
            self._level_of = np.tile(order, n_buckets)
        self.n_int = n_int.astype(np.int64)
        self.n = self.n_int.astype(np.float64)
        ends = np.cumsum(self.n_int, axis=1)
        self.start = ends - self.n_int
        self.length = ends[:, -1].astype(np.float64)
        self.inv_n = np.divide(1.0, self.n, out=np.zeros_like(self.n), where=self.n > 0)
        self.totals_int = hist.sum(axis=1).astype(np.int64)
        self.n_bucket = hist.sum(axis=2).astype(np.float64)  # items per distance (exact integer sums)
        self.totals = self.totals_int.astype(np.float64)

    def sums(self, per_level: np.ndarray) -> np.ndarray:
        """:math:`S_j(f)`: sum over each group of a function given by its value at every grade level."""
        if self._level_of is None:
            return dot_levels(self._h, per_level)
        return self.n * per_level[self._level_of]

    def count(self, per_level: np.ndarray) -> np.ndarray:
        """Sum over each query's whole list (e.g. R, the number of relevant items)."""
        return dot_levels(self.totals, per_level)

    def reduce(self, x: np.ndarray) -> np.ndarray:
        """Sum over the groups of each query, in ranked order (see :func:`sum_last`)."""
        return sum_last(x)

    def taken(self, k: int | np.ndarray | None) -> np.ndarray:
        """:math:`t_j(k)`: number of items of each group inside the top k (``None``: all)."""
        if k is None:
            return self.n_int
        kk = k[:, None] if isinstance(k, np.ndarray) else k
        return np.clip(kk - self.start, 0, self.n_int)

    def top_sum(self, s: np.ndarray, k: int | np.ndarray | None) -> np.ndarray:
        """Expected sum over the top k of a quantity whose group sums are ``s``."""
        if k is None:
            return self.reduce(s)
        return self.reduce(s * (self.taken(k) * self.inv_n))


def _cutoffs(measure: Measure) -> list[int | None]:
    return list(measure.cutoffs) if measure.cutoffs is not None else [None]


def _relevant_levels(gr: BucketGroups, min_rel: float | None) -> np.ndarray:
    v = gr.grade_values
    return (v > 0 if min_rel is None else v >= min_rel).astype(np.float64)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _sizes(gr: BucketGroups, k: int | None) -> np.ndarray:
    return gr.length if k is None else np.full(len(gr.length), float(k))


def _dcg(gr: BucketGroups, gains: np.ndarray, cum: np.ndarray, k: int | None) -> np.ndarray:
    mean = gr.sums(gains) * gr.inv_n
    a = gr.start
    return gr.reduce(mean * (cum[a + gr.taken(k)] - cum[a]))


def _idcg(gr: BucketGroups, gains: np.ndarray, cum: np.ndarray, k: int | None) -> np.ndarray:
    order = np.argsort(-gains, kind="stable")
    n = gr.totals_int[:, order]
    a = np.cumsum(n, axis=1) - n
    t = n if k is None else np.clip(k - a, 0, n)
    return sum_last(gains[order] * (cum[a + t] - cum[a]))


def _ap_like(
    gr: BucketGroups, b: np.ndarray, g: np.ndarray, harmonic: np.ndarray, cutoffs: list[int | None]
) -> np.ndarray:
    big_b, big_g, big_bg = gr.sums(b), gr.sums(g), gr.sums(b * g)
    n = gr.n
    g_before = np.cumsum(big_g, axis=1) - big_g
    alpha = (big_b * g_before + big_bg) * gr.inv_n
    pairs = n * (n - 1.0)
    beta = np.divide(big_b * big_g - big_bg, pairs, out=np.zeros_like(n), where=pairs > 0)
    a = gr.start
    out = np.empty((len(n), len(cutoffs)))
    for c, k in enumerate(cutoffs):
        t = gr.taken(k)
        dh = harmonic[a + t] - harmonic[a]
        out[:, c] = gr.reduce(alpha * dh + beta * (t - (a + 1.0) * dh))
    return _ratio(out, gr.count(b)[:, None])


def _first_hit(gr: BucketGroups, b: np.ndarray, max_rank: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query, rank, probability) of the first relevant item; ranks beyond ``max_rank`` are not listed."""
    from scipy.special import gammaln

    r_group = gr.sums(b)
    has = r_group > 0
    queries = np.flatnonzero(has.any(axis=1))
    first = np.argmax(has[queries], axis=1)
    n = gr.n[queries, first]
    r = r_group[queries, first]
    a = gr.start[queries, first].astype(np.float64)
    terms = np.rint(n - r + 1.0).astype(np.int64)
    if max_rank is not None:
        terms = np.clip(np.minimum(terms, max_rank - a.astype(np.int64)), 0, None)
    offsets = np.concatenate(([0], np.cumsum(terms)))
    total = int(offsets[-1])
    j = (np.arange(total) - np.repeat(offsets[:-1], terms)).astype(np.float64) + 1.0
    nn, rr = np.repeat(n, terms), np.repeat(r, terms)
    jm1 = j - 1.0
    log_s = gammaln(nn - rr + 1) - gammaln(nn - rr - jm1 + 1) + gammaln(nn - jm1 + 1) - gammaln(nn + 1)
    prob = np.exp(log_s) * rr / (nn - jm1)
    return np.repeat(queries, terms), np.repeat(a, terms) + j, prob


def bucket_measure(gr: BucketGroups, measure: Measure, tables: PrefixTables) -> np.ndarray:
    """Values of one measure (all its cutoffs) for every query of the block: shape (b, n_cutoffs).

    Undefined values (no relevant item, IDCG = 0) are NaN, as the core kernels give them.
    """
    fam = traits_of(measure).hamming
    cutoffs = _cutoffs(measure)
    n_q = len(gr.length)
    out = np.empty((n_q, len(cutoffs)))
    if traits_of(measure).graded:
        gains = gain_values(measure.param("gain", "linear"), gr.grade_values)
        if fam == "cg":
            s = gr.sums(gains)
            for c, k in enumerate(cutoffs):
                out[:, c] = gr.top_sum(s, k)
            return out
        cum = tables.discount(measure.param("discount", "log2"))
        for c, k in enumerate(cutoffs):
            num = _dcg(gr, gains, cum, k) if fam != "idcg" else None
            den = _idcg(gr, gains, cum, k) if fam != "dcg" else None
            if fam == "dcg":
                out[:, c] = num
            elif fam == "idcg":
                out[:, c] = den
            else:
                assert num is not None and den is not None
                out[:, c] = _ratio(num, den)
        return out
    b = _relevant_levels(gr, measure.param("min_rel"))
    if fam == "map":
        return _ap_like(gr, b, b, tables.harmonic, cutoffs)
    if fam == "wap":
        return _ap_like(gr, b, np.maximum(gr.grade_values, 0.0), tables.harmonic, cutoffs)
    if fam == "rr" or fam == "success":
        finite = [k for k in cutoffs if k is not None]
        max_rank = None if len(finite) < len(cutoffs) else max(finite)
        query, rank, prob = _first_hit(gr, b, max_rank)
        w = prob / rank if fam == "rr" else prob
        for c, k in enumerate(cutoffs):
            wk = w if k is None else np.where(rank <= k, w, 0.0)
            out[:, c] = np.bincount(query, weights=wk, minlength=n_q)
        return out
    big_r = gr.count(b)
    counts = {"num_q": np.ones(n_q), "num_ret": gr.length, "num_rel": big_r, "num_rel_ret": big_r}
    if fam in counts:
        return np.asarray(counts[fam], dtype=np.float64)[:, None]
    if fam == "rprec":
        return _ratio(gr.top_sum(gr.sums(b), big_r), big_r)[:, None]
    if fam == "acg":
        s = gr.sums(np.maximum(gr.grade_values, 0.0))
    elif fam == "judged":
        s = gr.n
    else:
        s = gr.sums(b)
    for c, k in enumerate(cutoffs):
        num = gr.top_sum(s, k)
        sizes = _sizes(gr, k)
        if fam == "p" or fam == "acg" or fam == "judged":
            out[:, c] = np.divide(num, sizes, out=np.zeros_like(sizes), where=sizes > 0)
        elif fam == "r":
            out[:, c] = _ratio(num, big_r)
        elif fam == "f1":
            col = _ratio(2.0 * num, sizes + big_r)
            col[big_r == 0] = np.nan
            out[:, c] = col
        else:  # pragma: no cover - the families' hamming trait names these formulas only
            raise KeyError(fam)
    return out


def radius_values(
    n_bucket: np.ndarray, rel_bucket: np.ndarray, radius: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Precision and recall within Hamming radius r, and the number of items within it.

    .. math:: P_r = \frac{\#\{i : d_i \le r, rel_i\}}{\#\{i : d_i \le r\}}, \qquad
              R_r = \frac{\#\{i : d_i \le r, rel_i\}}{R}

    The ball is a union of whole distance groups, so the values do not depend
    on the tie policy. P_r is 0 when the ball is empty (the convention of the
    hashing literature's "precision within Hamming radius 2"); R_r is NaN when
    R = 0 (then the ``empty`` policy applies).

    >>> import numpy as np
    >>> p, r, n = radius_values(np.array([[1.0, 2.0, 5.0]]), np.array([[1.0, 1.0, 2.0]]), 1)
    >>> p.tolist(), r.tolist(), n.tolist()
    ([0.6666666666666666], [0.5], [3.0])
    """
    upto = min(radius, n_bucket.shape[1] - 1)
    inside = n_bucket[:, : upto + 1].sum(axis=1)
    hits = rel_bucket[:, : upto + 1].sum(axis=1)
    total = rel_bucket.sum(axis=1)
    precision = np.divide(hits, inside, out=np.zeros_like(hits), where=inside > 0)
    return precision, _ratio(hits, total), inside


def bucket_tie_stats(
    n_bucket: np.ndarray, cutoffs: list[int], per_query_cutoffs: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Per query: has a tied group (distance shared by > 1 item); does one straddle a cutoff.

    >>> import numpy as np
    >>> t, s = bucket_tie_stats(np.array([[1.0, 3.0, 0.0]]), [2], [])
    >>> t.tolist(), s.tolist()
    ([True], [True])
    """
    multi = n_bucket > 1
    ties: np.ndarray = np.asarray(multi.any(axis=1))
    a = np.cumsum(n_bucket, axis=1) - n_bucket
    end = a + n_bucket
    straddle = np.zeros(len(n_bucket), dtype=bool)
    for k in cutoffs:
        straddle |= (multi & (a < k) & (k < end)).any(axis=1)
    for ks in per_query_cutoffs:
        kk = ks[:, None]
        straddle |= (multi & (a < kk) & (kk < end)).any(axis=1)
    return ties, straddle
