"""Per-evaluation cache of arrays that several kernels share."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from rankmeter.core.layout import RankedLists
from rankmeter.measures.kernels.segments import (
    segment_cumsum,
    segment_positions,
    segment_sum,
    sums_at_cutoffs,
)


class Context:
    """Shared, lazily computed views of one :class:`RankedLists`.

    Kernels ask the context for relevance vectors, running sums and tie-group
    statistics so that every measure family reads the same arrays.
    """

    def __init__(self, ranked: RankedLists) -> None:
        self.ranked = ranked
        self.expected = ranked.ties == "expected"
        self._cache: dict[object, np.ndarray] = {}

    # --- items -----------------------------------------------------------
    @cached_property
    def lengths(self) -> np.ndarray:
        return self.ranked.lengths

    @cached_property
    def positions(self) -> np.ndarray:
        return self.ranked.positions

    @cached_property
    def ranks(self) -> np.ndarray:
        """1-based rank of each item, as float64."""
        return self.positions.astype(np.float64) + 1.0

    @cached_property
    def item_query(self) -> np.ndarray:
        return self.ranked.item_query

    def cached(self, key: object, compute: object) -> np.ndarray:
        """A value shared by several measures of one evaluation, computed once."""
        if key not in self._cache:
            self._cache[key] = compute()  # type: ignore[operator]
        return self._cache[key]

    def discount_table(self, discount: object) -> np.ndarray:
        """Discount multiplier at ranks 1, 2, ... up to the longest list or ideal, computed once per discount."""
        from rankmeter.measures.params import discount_values

        key = ("discount", str(discount) if isinstance(discount, str) else id(discount))
        table = self._cache.get(key)
        longest = int(max(self.lengths.max(initial=0), np.diff(self.ranked.ideal_offsets).max(initial=0)))
        if table is None or len(table) < longest:
            table = discount_values(discount, np.arange(1, longest + 1, dtype=np.float64))
            self._cache[key] = table
        return table

    def discounts(self, discount: object) -> np.ndarray:
        """Discount multiplier at each item's rank (:meth:`discount_table` read at each position)."""
        return self.discount_table(discount)[self.positions]

    def relevant(self, min_rel: float | None) -> np.ndarray:
        """Binary relevance of each ranked item: judged and grade >= min_rel (grade > 0 by default)."""
        g = self.ranked.grades
        rel = g > 0 if min_rel is None else g >= min_rel
        return (rel & self.ranked.judged).astype(np.float64)

    def num_relevant(self, min_rel: float | None) -> np.ndarray:
        """Number of relevant judged documents of each query (retrieved or not); counted once per ``min_rel``.

        The array is shared by every measure of the evaluation, so it is read-only.
        """
        key = ("num_relevant", min_rel)
        if key not in self._cache:
            g = self.ranked.ideal_grades
            rel = g > 0 if min_rel is None else g >= min_rel
            counts = segment_sum(rel.astype(np.float64), self.ranked.ideal_offsets)
            counts.setflags(write=False)
            self._cache[key] = counts
        return self._cache[key]

    def graded(self) -> np.ndarray:
        """Non-negative grade of each ranked item (0 when unjudged or negative)."""
        return np.where(self.ranked.judged, np.maximum(self.ranked.grades, 0.0), 0.0)

    # --- cutoffs ---------------------------------------------------------
    def sums_at(self, values: np.ndarray, cutoffs: list[int | None | np.ndarray]) -> np.ndarray:
        """Per-query sums of ``values`` over the top k, for every cutoff."""
        ranked = self.ranked
        # sparse dense rows (rank_dense_positives) sum as their complete rows do, to the last bit
        lengths = self.lengths
        dense = ranked.is_sparse and ranked.ideal_is_list and len(lengths) and bool(np.all(lengths == lengths[0]))
        width = int(lengths[0]) if dense else None
        return sums_at_cutoffs(values, ranked.offsets, self.positions, cutoffs, width)

    def cutoff_sizes(self, cutoffs: list[int | None]) -> np.ndarray:
        """The k of each cutoff per query, ``None`` meaning the list length: shape (Q, C)."""
        cols = [self.lengths if k is None else np.full(len(self.lengths), k) for k in cutoffs]
        return np.stack(cols, axis=1).astype(np.float64)

    # --- tie groups --------------------------------------------------------
    @cached_property
    def group_starts(self) -> np.ndarray:
        return self.ranked.group_starts

    @cached_property
    def group_sizes(self) -> np.ndarray:
        return np.diff(self.group_starts)

    @cached_property
    def group_query(self) -> np.ndarray:
        return self.item_query[self.group_starts[:-1]]

    def group_sum(self, values: np.ndarray) -> np.ndarray:
        return segment_sum(values, self.group_starts)

    def per_item(self, group_values: np.ndarray) -> np.ndarray:
        return np.repeat(group_values, self.group_sizes)

    @cached_property
    def tied(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """Items of the tied groups with more than one item: (items, CSR offsets, sizes, group index)."""
        sizes = self.group_sizes
        multi = np.flatnonzero(sizes > 1)
        if not len(multi):
            return None
        lengths = sizes[multi]
        offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        items = np.repeat(self.group_starts[:-1][multi], lengths) + segment_positions(offsets, int(offsets[-1]))
        return items, offsets, lengths, multi

    def tie_mean(self, values: np.ndarray) -> np.ndarray:
        """Expected value at each position under ``expected`` ties: the mean over its tied group.

        For any other policy the values are returned unchanged. Only groups of
        two or more items are touched.
        """
        if not self.expected or self.tied is None:
            return values
        items, offsets, lengths, _ = self.tied
        out = np.array(values, dtype=np.float64, copy=True)
        out[items] = np.repeat(segment_sum(out[items], offsets) / lengths, lengths)
        return out

    def prefix_products(self, b: np.ndarray, g: np.ndarray) -> np.ndarray:
        r"""E[b_i * sum_{j<=i} g_j] at each position i.

        Deterministic orders give ``b_i * cumsum(g)_i``. Under ``expected`` ties,
        with i in a tied group of n items whose sums are B = sum b, G = sum g and
        BG = sum b*g, t the 0-based offset of i in the group and G_before the
        sum of g over earlier groups (McSherry & Najork's argument: the order in
        each group is uniform and independent of other groups):

        .. math:: E = \frac{B}{n} G_{before} + \frac{BG}{n} + t \frac{B G - BG}{n (n - 1)}

        AP uses b = g = relevance; WAP uses b = relevance, g = grade.
        """
        # dense rows, also when stored sparsely: each row's own running sum, as for its complete row
        running = segment_cumsum(g, self.ranked.offsets, per_segment=self.ranked.ideal_is_list)
        exact = b * running
        if not self.expected or self.tied is None:
            return exact
        items, offsets, lengths, multi = self.tied
        n = lengths.astype(np.float64)
        bi, gi = b[items], g[items]
        big_b, big_g, big_bg = segment_sum(bi, offsets), segment_sum(gi, offsets), segment_sum(bi * gi, offsets)
        first = self.group_starts[:-1][multi]
        g_before = running[first] - g[first]
        pair = (big_b * big_g - big_bg) / (n * (n - 1.0))
        t = segment_positions(offsets, len(items)).astype(np.float64)
        exact[items] = np.repeat(big_b / n * g_before + big_bg / n, lengths) + t * np.repeat(pair, lengths)
        return exact

    def first_hit(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r"""Distribution of the rank of the first relevant item of each query.

        Returns ``(query, rank, probability)`` triples. Deterministic orders
        give one triple per query that has a relevant item. Under ``expected``
        ties only the first tied group holding a relevant item matters: with
        n items, r relevant, starting at 0-based rank a, the first relevant
        item is at offset j (1-based) with probability

        .. math:: w_j = S_{j-1} \frac{r}{n - j + 1}, \quad
                  S_j = \prod_{t=0}^{j-1} \frac{n - r - t}{n - t}

        (S_j: none of the first j is relevant; hypergeometric).
        """
        if not self.expected:
            first = np.flatnonzero(b > 0)
            q = self.item_query[first]
            keep = np.concatenate(([True], q[1:] != q[:-1])) if len(q) else np.zeros(0, dtype=bool)
            first = first[keep]
            return self.item_query[first], self.ranks[first], np.ones(len(first))
        from scipy.special import gammaln

        r_group = self.group_sum(b)
        candidates = np.flatnonzero(r_group > 0)
        gq = self.group_query[candidates]
        keep = np.concatenate(([True], gq[1:] != gq[:-1])) if len(gq) else np.zeros(0, dtype=bool)
        groups = candidates[keep]
        n = self.group_sizes[groups]
        r = r_group[groups]
        start_rank = self.positions[self.group_starts[groups]].astype(np.float64)
        qs = self.group_query[groups]
        n_offsets = np.concatenate(([0], np.cumsum(n))).astype(np.int64)
        j = segment_positions(n_offsets, int(n_offsets[-1])).astype(np.float64) + 1.0
        nn = np.repeat(n, n).astype(np.float64)
        rr = np.repeat(r, n)
        jm1 = j - 1.0
        # log S_{j-1}; S_{j-1} = 0 when j - 1 > n - r
        valid = jm1 <= nn - rr
        safe = np.where(valid, jm1, 0.0)
        log_s = gammaln(nn - rr + 1) - gammaln(nn - rr - safe + 1) + gammaln(nn - safe + 1) - gammaln(nn + 1)
        s_prev = np.where(valid, np.exp(log_s), 0.0)
        prob = s_prev * rr / (nn - jm1)
        return np.repeat(qs, n), np.repeat(start_rank, n) + j, prob
