r"""Diversity (novelty and intent-aware) measures over :class:`~rankmeter.core.intents.IntentLists`.

A ranked document covers intent j when its judgment for j is relevant
(grade > 0, or >= ``min_rel``; binary, as NIST's ``ndeval`` reads them). Let
c_j(i) be the number of documents above rank i that cover j, w_j the weight
of intent j (uniform 1/A over the A intents with a relevant document, or the
user's weights normalised to sum 1 over them) and, for ``alpha``,

.. math:: s(i) = \sum_j w_j \, rel_j(i) \, (1 - \alpha)^{c_j(i)}

the novelty-discounted gain at rank i (1-based). With the ideal gain
sequence s*(i) of the greedy ideal ranking (below):

* ``alpha_dcg@k`` = :math:`\sum_{i \le k} s(i)/\log_2(i+1)` / :math:`\sum_{i \le k} (1-\alpha)^{i-1}/\log_2(i+1)`
  (ndeval's ``alpha-DCG``: normalised by the "ideal ideal", every intent covered at every rank);
  ``alpha_ndcg@k`` = the same sum over the same sum of s*(i) (Clarke et al., SIGIR 2008);
* ``err_ia@k`` / ``nerr_ia@k``: the same with the discount 1/i (ndeval's ``ERR-IA`` / ``nERR-IA``;
  the Chapelle et al. 2009 cascade per intent with stop probability alpha, up to the factor alpha);
* ``nrbp`` = :math:`(1 - (1-\alpha)\beta) \sum_i \beta^{i-1} s(i)` over the whole list, ``nnrbp`` the
  same over its ideal (Clarke et al., ICTIR 2009);
* ``p_ia@k`` = :math:`\sum_j w_j P_j@k` (Agrawal et al., WSDM 2009), ``map_ia`` = :math:`\sum_j w_j AP_j`
  (AP_j over the whole list, divided by the number of documents relevant to j);
* ``strec@k``: share of the A intents covered in the top k (subtopic recall, Zhai et al. 2003);
* ``ndcg_ia@k`` = :math:`\sum_j w_j \, nDCG_j@k` with the intent's grades as gains (linear, log2
  discount) and each intent's ideal from all its judged documents.

The ideal ranking maximising alpha-DCG is NP-hard; like ndeval, rankmeter
builds it greedily from every judged document: at each rank the document
with the largest gain s(i) given the documents already placed, ties going
to the larger document id (``strcmp``), as ndeval does. This is the one
loop of the family: it runs once per rank of the longest ideal list, each
step vectorised over every query at once (never a loop over queries); it
stops at the largest cutoff asked for unless NRBP needs the whole list.

With uniform weights the arithmetic follows ndeval's (gains multiplied
step by step, sums in intent order, the normaliser A applied last), so
values agree with it to the last bits. Queries with no relevant judgment
get 0 (the empty-query policy decides what counts).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from rankmeter.core.intents import IntentLists
from rankmeter.errors import InputFormatError, MeasureSyntaxError
from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.segments import segment_positions, segment_sum, sums_at_cutoffs


class Hits(NamedTuple):
    """The (ranked item, intent) pairs where a ranked document covers an intent, in rank order."""

    item: np.ndarray  # index of the ranked item
    query: np.ndarray
    position: np.ndarray  # 0-based rank
    intent: np.ndarray  # global intent index
    before: np.ndarray  # documents above that already cover the intent
    weight: np.ndarray  # w_j (1.0 under uniform weights: A is divided out last)


class Ideal(NamedTuple):
    """Per query, the gain s*(i) of each rank of the greedy ideal ranking (CSR)."""

    offsets: np.ndarray
    scores: np.ndarray


def _powers(base: float, n: int) -> np.ndarray:
    """base^0, base^1, ... base^(n-1) multiplied step by step (as ndeval updates its gains)."""
    steps = np.full(max(n, 1), base, dtype=np.float64)
    steps[0] = 1.0
    return np.cumprod(steps)[:n]


def _cutoff_list(measure: Measure) -> list[int | None | np.ndarray]:
    return list(measure.cutoffs) if measure.cutoffs is not None else [None]


IDEAL_FAMILIES = ("alpha_ndcg", "nerr_ia", "nnrbp")
"""Families normalised by the greedy ideal ranking (``nnrbp`` reads all of it)."""


def ideal_depth(measures: list[Measure]) -> int | None | bool:
    """How deep the greedy ideal must go for ``measures``: None for all of it, False when none needs it.

    >>> from rankmeter.measures import parse
    >>> ideal_depth([parse("alpha_ndcg@[5,20]"), parse("nerr_ia@10")]), ideal_depth([parse("nnrbp")])
    (20, None)
    """
    needed = [m for m in measures if m.family in IDEAL_FAMILIES]
    if not needed:
        return False
    if any(m.cutoffs is None for m in needed):
        return None
    return max(max(m.cutoffs or (1,)) for m in needed)


class IntentContext:
    """Arrays of one :class:`IntentLists` that several diversity measures share, computed once."""

    def __init__(self, lists: IntentLists, ideal_depth: int | None | bool = False) -> None:
        """``ideal_depth``: how deep the measures of the call need the greedy ideal (None: whole; False: unknown),
        so that it is built once for all of them."""
        self.lists = lists
        self.ideal_depth = ideal_depth
        self._cache: dict[object, Any] = {}
        self.item_query = np.repeat(np.arange(lists.n_queries), np.diff(lists.offsets))
        self.positions = segment_positions(lists.offsets, len(lists.item_doc))
        self.intent_query = np.repeat(np.arange(lists.n_queries), np.diff(lists.intent_offsets))

    @property
    def n_queries(self) -> int:
        return self.lists.n_queries

    def _cached(self, key: object, compute: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def relevant(self, min_rel: float | None) -> np.ndarray:
        """Which judgments are relevant (grade > 0, or >= min_rel)."""
        g = self.lists.pair_grade
        return g > 0 if min_rel is None else g >= min_rel

    def intent_relevant(self, min_rel: float | None) -> np.ndarray:
        """Number of documents relevant to each intent (ndeval's ``nrelSub``)."""

        def compute() -> np.ndarray:
            rel = self.relevant(min_rel)
            return np.bincount(self.lists.pair_intent[rel], minlength=len(self.lists.intent_ids)).astype(np.float64)

        return self._cached(("intent_relevant", min_rel), compute)  # type: ignore[no-any-return]

    def n_intents(self, min_rel: float | None) -> np.ndarray:
        """A: intents with at least one relevant document, per query."""
        return segment_sum((self.intent_relevant(min_rel) > 0).astype(np.float64), self.lists.intent_offsets)

    def intent_weights(self, min_rel: float | None) -> np.ndarray:
        """w_j: 1 under uniform weights (A is divided out by :meth:`normaliser`), else the user's, normalised."""
        return self._cached(("weights", min_rel), lambda: self._weights(min_rel))

    def _weights(self, min_rel: float | None) -> np.ndarray:
        has_rel = self.intent_relevant(min_rel) > 0
        raw = self.lists.intent_weights
        if raw is None:
            return has_rel.astype(np.float64)
        w = np.where(has_rel, raw, 0.0)
        total = segment_sum(w, self.lists.intent_offsets)
        zero = np.flatnonzero((total == 0) & (self.n_intents(min_rel) > 0))
        if len(zero):
            raise InputFormatError(
                f"intent_weights: query '{self.lists.query_ids[zero[0]]}' gives weight 0 to every intent "
                "with a relevant document"
            )
        return np.divide(w, total[self.intent_query], out=np.zeros_like(w), where=total[self.intent_query] > 0)

    def normaliser(self, min_rel: float | None) -> np.ndarray:
        """What s(i) is divided by: A under uniform weights, 1 with user weights (0 without relevant intents)."""
        a = self.n_intents(min_rel)
        return a if self.lists.intent_weights is None else (a > 0).astype(np.float64)

    def hits(self, min_rel: float | None) -> Hits:
        """Every (ranked item, relevant intent) pair with how many items above cover the same intent."""
        return self._cached(("hits", min_rel), lambda: self._hits(min_rel))

    def _hits(self, min_rel: float | None) -> Hits:
        lists = self.lists
        rel = self.relevant(min_rel)
        rel_pairs = np.flatnonzero(rel)  # by document, then intent
        per_doc = segment_sum(rel.astype(np.float64), lists.pair_offsets).astype(np.int64)
        doc_start = np.concatenate(([0], np.cumsum(per_doc)))[:-1]
        judged = np.flatnonzero(lists.item_doc >= 0)
        doc = lists.item_doc[judged]
        n = per_doc[doc]
        item = np.repeat(judged, n)
        offsets = np.concatenate(([0], np.cumsum(n))).astype(np.int64)
        pair = rel_pairs[np.repeat(doc_start[doc], n) + segment_positions(offsets, len(item))]
        intent = lists.pair_intent[pair]
        by_intent = np.argsort(intent, kind="stable")  # rank order inside each intent
        sorted_intent = intent[by_intent]
        starts = np.concatenate(([True], sorted_intent[1:] != sorted_intent[:-1]))
        group_start = np.maximum.accumulate(np.where(starts, np.arange(len(item)), 0))
        count = np.empty(len(item), dtype=np.int64)
        count[by_intent] = np.arange(len(item)) - group_start
        query = self.item_query[item]
        return Hits(item, query, self.positions[item], intent, count, self.intent_weights(min_rel)[intent])

    def ideal(self, alpha: float, min_rel: float | None, depth: int | None) -> Ideal:
        """The greedy ideal ranking's gains, to ``depth`` ranks (``None``: until no document adds gain)."""
        if self.ideal_depth is not False:
            depth = None if depth is None or self.ideal_depth is None else max(depth, int(self.ideal_depth))
        key = ("ideal", alpha, min_rel)
        known = self._cache.get(key)
        if known is not None and (known[0] is None or (depth is not None and known[0] >= depth)):
            return known[1]  # type: ignore[no-any-return]
        ideal = greedy_ideal(self.lists, self.relevant(min_rel), self.intent_weights(min_rel), alpha, depth)
        self._cache[key] = (depth, ideal)
        return ideal


def greedy_ideal(
    lists: IntentLists, relevant: np.ndarray, weights: np.ndarray, alpha: float, depth: int | None
) -> Ideal:
    """ndeval's greedy ideal ranking, one rank per step for every query at once.

    At each step every query places the judged document with the largest
    gain :math:`\\sum_j w_j g_j` (g_j = (1-alpha)^(documents placed covering j),
    updated by multiplication), the largest document id among equal gains;
    a query stops when no document adds gain.

    A document's gain depends only on the set of intents it covers, so the
    steps run over the query's distinct intent sets (at most 2^A - 1 of them,
    each holding its documents by descending id) rather than over every
    judged document: the same choices and the same sums, added in the same
    (intent) order, as a step over every judged document
    would (tests/diversity/reference.py keeps that plain version to check this one against).

    >>> from rankmeter.io.intents import intent_qrels_from_dict
    >>> from rankmeter.core.intents import align_intents
    >>> from rankmeter.io.tables import Run
    >>> q = intent_qrels_from_dict({"1": {"1": {"a": 1, "b": 1}, "2": {"b": 1, "c": 1}}})
    >>> lists, _ = align_intents(q, Run(np.array(["1"]), np.array(["a"]), np.array([1.0])))
    >>> ctx = IntentContext(lists)
    >>> greedy_ideal(lists, ctx.relevant(None), ctx.intent_weights(None), 0.5, None).scores.tolist()
    [2.0, 0.5, 0.5]
    """
    n_q = lists.n_queries
    rel_count = segment_sum(relevant.astype(np.float64), lists.pair_offsets).astype(np.int64)
    docs = np.flatnonzero(rel_count > 0)  # by (query, document id)
    if not len(docs):
        return ideal_from_steps([], [], n_q)
    rel_pairs = np.flatnonzero(relevant)  # by document, then intent
    counts = rel_count[docs]
    pair_offsets = np.concatenate(([0], np.cumsum(counts)))
    # each document's intent set as a row of intents (ascending), padded with -1
    sets = np.full((len(docs), int(counts.max())), -1, dtype=np.int64)
    sets[np.repeat(np.arange(len(docs)), counts), segment_positions(pair_offsets, len(rel_pairs))] = lists.pair_intent[
        rel_pairs
    ]
    doc_query = lists.doc_query[docs]
    # groups: (query, intent set); inside a group the documents by descending id (docs are in id order)
    order = np.lexsort((-np.arange(len(docs)), *sets.T[::-1], doc_query))
    sets, doc_query = sets[order], doc_query[order]
    new = np.concatenate(([True], (doc_query[1:] != doc_query[:-1]) | (sets[1:] != sets[:-1]).any(axis=1)))
    group_start = np.flatnonzero(new)
    group_end = np.append(group_start[1:], len(docs))
    group_query = doc_query[group_start]
    group_docs = order  # index into docs: larger means a larger document id inside the query
    # the intents of each group, in intent order (the order ndeval adds a document's gains in)
    rep = sets[group_start]
    member = rep >= 0
    pair_group = np.repeat(np.arange(len(group_start)), member.sum(axis=1))
    pair_intent = rep[member]
    uniform = lists.intent_weights is None
    w = weights[pair_intent]
    gains = np.ones(len(lists.intent_ids), dtype=np.float64)
    keep_factor = 1.0 - alpha
    pointer = group_start.copy()
    alive = np.ones(len(group_start), dtype=bool)
    first = np.concatenate(([True], group_query[1:] != group_query[:-1]))
    starts = np.flatnonzero(first)
    query_of_group = np.cumsum(first) - 1  # index into starts
    out_query: list[np.ndarray] = []
    out_score: list[np.ndarray] = []
    step = 0
    while alive.any() and (depth is None or step < depth):
        g = gains[pair_intent] if uniform else w * gains[pair_intent]
        score = np.bincount(pair_group, weights=g, minlength=len(group_start))  # sequential, in intent order
        score[~alive] = -np.inf
        best = np.maximum.reduceat(score, starts)
        candidate = np.where(score == best[query_of_group], group_docs[np.minimum(pointer, len(docs) - 1)], -1)
        pick_doc = np.maximum.reduceat(candidate, starts)
        gaining = best > 0
        winner = np.flatnonzero((candidate == pick_doc[query_of_group]) & gaining[query_of_group])
        out_query.append(group_query[winner])
        out_score.append(best[gaining])
        placed = np.zeros(len(group_start), dtype=bool)
        placed[winner] = True
        gains[pair_intent[placed[pair_group]]] *= keep_factor
        pointer[winner] += 1
        alive &= (pointer < group_end) & gaining[query_of_group]
        step += 1
    return ideal_from_steps(out_query, out_score, n_q)


def ideal_from_steps(step_query: list[np.ndarray], step_score: list[np.ndarray], n_queries: int) -> Ideal:
    """The :class:`Ideal` of greedy steps: per step, the queries that placed a document and its gain.

    >>> ideal_from_steps([np.array([0, 1]), np.array([1])], [np.array([2.0, 1.0]), np.array([0.5])], 3)
    Ideal(offsets=array([0, 1, 3, 3]), scores=array([2. , 1. , 0.5]))
    """
    if not step_query:
        return Ideal(np.zeros(n_queries + 1, dtype=np.int64), np.zeros(0))
    query = np.concatenate(step_query)
    scores = np.concatenate(step_score)
    order = np.argsort(query, kind="stable")  # steps are in rank order: stable keeps it inside a query
    per_query = np.bincount(query, minlength=n_queries)
    return Ideal(np.concatenate(([0], np.cumsum(per_query))).astype(np.int64), scores[order])


# --- discounts: (gains, 0-based ranks) -> discounted gains, in ndeval's arithmetic ---------------------------------
Discount = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _log_discount(gains: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """alpha-DCG's: gain * log(2) / log(i + 2) at 0-based rank i (ndeval's expression)."""
    return gains * (np.log(2.0) / np.log(ranks + 2.0))


def _reciprocal_discount(gains: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """ERR-IA's: gain / (i + 1)."""
    return gains / (ranks + 1.0)


def _rbp_discount(beta: float) -> Discount:
    """NRBP's: gain * beta^i, the powers multiplied step by step."""
    return lambda gains, ranks: gains * _powers(beta, int(ranks.max(initial=0)) + 1)[ranks]


def _check_intent_context(ctx: Any, measure: Measure) -> IntentContext:
    if not isinstance(ctx, IntentContext):
        raise MeasureSyntaxError(
            f"{measure} is a diversity measure: it needs intent (subtopic) qrels, 'query intent docno grade'; "
            "evaluate it with rankmeter.evaluate_diversity(qrels, run, measures)"
        )
    return ctx


def _run_scores(ctx: IntentContext, alpha: float, min_rel: float | None) -> np.ndarray:
    """s(i) of every ranked item (weights applied, A not yet divided out)."""

    def compute() -> np.ndarray:
        hits = ctx.hits(min_rel)
        gain = _powers(1.0 - alpha, int(hits.before.max(initial=0)) + 1)[hits.before]
        if ctx.lists.intent_weights is not None:
            gain = gain * hits.weight
        return np.bincount(hits.item, weights=gain, minlength=len(ctx.lists.item_doc)).astype(np.float64)

    return ctx._cached(("scores", alpha, min_rel), compute)  # type: ignore[no-any-return]


def _sums(values: np.ndarray, query: np.ndarray, ranks: np.ndarray, n_q: int, cutoffs: list[int | None]) -> np.ndarray:
    """Per query, the sum of ``values`` (in rank order) over ranks < k, for every cutoff: shape (Q, C).

    ``bincount`` adds strictly in input order, as ndeval's running sums do.
    """
    out = np.zeros((n_q, len(cutoffs)))
    for c, k in enumerate(cutoffs):
        keep = slice(None) if k is None else ranks < k
        out[:, c] = np.bincount(query[keep], weights=values[keep], minlength=n_q)
    return out


def _discounted_sums(
    ctx: IntentContext, measure: Measure, discount: Discount, ideal: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """Sums of the discounted gains s(i) over the top k of the run and (``ideal``) of the greedy ideal ranking."""
    alpha = float(measure.param("alpha", 0.5))
    min_rel = measure.param("min_rel")
    cutoffs: list[int | None] = list(measure.cutoffs) if measure.cutoffs is not None else [None]
    scores = _run_scores(ctx, alpha, min_rel)
    items = np.flatnonzero(scores)  # a zero gain adds nothing to any sum
    ranks = ctx.positions[items]
    run = _sums(discount(scores[items], ranks), ctx.item_query[items], ranks, ctx.n_queries, cutoffs)
    if not ideal:
        return run, None
    best = ctx.ideal(alpha, min_rel, None if measure.cutoffs is None else max(measure.cutoffs))
    ideal_ranks = segment_positions(best.offsets, len(best.scores))
    ideal_query = np.repeat(np.arange(ctx.n_queries), np.diff(best.offsets))
    return run, _sums(discount(best.scores, ideal_ranks), ideal_query, ideal_ranks, ctx.n_queries, cutoffs)


def _ideal_ideal(norm: np.ndarray, alpha: float, cutoffs: tuple[int, ...], discount: Discount) -> np.ndarray:
    """sum over ranks i < k of A (1 - alpha)^i discounted: every intent covered at every rank; shape (Q, C).

    As ndeval: the gain starts at A and is multiplied by (1 - alpha) rank after rank.
    """
    longest = max(cutoffs)
    values, inverse = np.unique(norm, return_inverse=True)
    steps = np.full((len(values), longest), 1.0 - alpha)
    steps[:, 0] = values
    running = np.cumsum(discount(np.cumprod(steps, axis=1), np.arange(longest)), axis=1)
    return running[inverse.ravel()][:, [k - 1 for k in cutoffs]]


def _ratio(num: np.ndarray, den: np.ndarray, fill: float = 0.0) -> np.ndarray:
    num = np.asarray(num, dtype=np.float64)
    return np.divide(num, den, out=np.full_like(num, fill), where=den > 0)


def _normalised(ctx: Any, measure: Measure, discount: Discount, ideal: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Run (and ideal) sums over the ideal-ideal sums, as ndeval divides them (not at k = 1: see below)."""
    ctx = _check_intent_context(ctx, measure)
    run, best = _discounted_sums(ctx, measure, discount, ideal)
    assert measure.cutoffs is not None  # these families require cutoffs
    norm = ctx.normaliser(measure.param("min_rel"))
    denominator = _ideal_ideal(norm, float(measure.param("alpha", 0.5)), measure.cutoffs, discount)
    return _ratio(run, denominator), None if best is None else _ratio(best, denominator)


def _collection_independent(ctx: Any, measure: Measure, discount: Discount) -> np.ndarray:
    return _normalised(ctx, measure, discount, ideal=False)[0]


def _collection_dependent(ctx: Any, measure: Measure, discount: Discount) -> np.ndarray:
    """The run's normalised sum over the ideal's (0 when the run's is 0), as ndeval's ``renormalize``.

    At k = 1 ndeval never divided by the ideal-ideal, so the ratio is taken of the raw sums there.
    """
    run, best = _normalised(ctx, measure, discount, ideal=True)
    assert best is not None and measure.cutoffs is not None
    first = [c for c, k in enumerate(measure.cutoffs) if k == 1]
    if first:
        raw_run, raw_best = _discounted_sums(ctx, measure, discount, ideal=True)
        assert raw_best is not None
        run[:, first], best[:, first] = raw_run[:, first], raw_best[:, first]
    return np.where(run != 0, _ratio(run, best), 0.0)


def alpha_dcg(ctx: Any, measure: Measure) -> np.ndarray:
    """alpha-DCG@k over the "ideal ideal" (ndeval's ``alpha-DCG``), shape (Q, C)."""
    return _collection_independent(ctx, measure, _log_discount)


def alpha_ndcg(ctx: Any, measure: Measure) -> np.ndarray:
    """alpha-nDCG@k: alpha-DCG@k over that of the greedy ideal ranking (ndeval's ``alpha-nDCG``)."""
    return _collection_dependent(ctx, measure, _log_discount)


def err_ia(ctx: Any, measure: Measure) -> np.ndarray:
    """ERR-IA@k over the "ideal ideal" (ndeval's ``ERR-IA``)."""
    return _collection_independent(ctx, measure, _reciprocal_discount)


def nerr_ia(ctx: Any, measure: Measure) -> np.ndarray:
    """ERR-IA@k over that of the greedy ideal ranking (ndeval's ``nERR-IA``)."""
    return _collection_dependent(ctx, measure, _reciprocal_discount)


def _nrbp(ctx: IntentContext, measure: Measure, ideal: bool) -> tuple[np.ndarray, np.ndarray | None]:
    alpha, beta = float(measure.param("alpha", 0.5)), float(measure.param("beta", 0.5))
    run, best = _discounted_sums(ctx, measure, _rbp_discount(beta), ideal)
    norm = ctx.normaliser(measure.param("min_rel"))
    scale = np.divide(1.0 - (1.0 - alpha) * beta, norm, out=np.zeros_like(norm), where=norm > 0)[:, None]
    return run * scale, None if best is None else best * scale


def nrbp(ctx: Any, measure: Measure) -> np.ndarray:
    """Novelty- and rank-biased precision over the whole list (ndeval's ``NRBP``), shape (Q, 1)."""
    return _nrbp(_check_intent_context(ctx, measure), measure, ideal=False)[0]


def nnrbp(ctx: Any, measure: Measure) -> np.ndarray:
    """NRBP over that of the greedy ideal ranking (ndeval's ``nNRBP``), shape (Q, 1).

    NaN where the ideal's NRBP is 0 (no relevant judgment, or alpha = 0 with beta = 1, where NRBP is 0
    for every ranking): ndeval prints ``-nan`` there. The empty-query policy decides what a query
    without a relevant judgment reports; on one with some the value stays NaN (undefined).
    """
    run, best = _nrbp(_check_intent_context(ctx, measure), measure, ideal=True)
    assert best is not None
    return _ratio(run, best, fill=np.nan)


def p_ia(ctx: Any, measure: Measure) -> np.ndarray:
    """Intent-aware precision@k: sum_j w_j (documents relevant to j in the top k) / k."""
    ctx = _check_intent_context(ctx, measure)
    min_rel = measure.param("min_rel")
    hits = ctx.hits(min_rel)
    counts = np.bincount(hits.item, weights=hits.weight, minlength=len(ctx.lists.item_doc))
    cutoffs = _cutoff_list(measure)
    sums = sums_at_cutoffs(counts, ctx.lists.offsets, ctx.positions, cutoffs)
    ks = np.stack([np.full(ctx.n_queries, float(k)) for k in measure.cutoffs or ()], axis=1)  # cutoff required
    return _ratio(sums, ks * ctx.normaliser(min_rel)[:, None])


def strec(ctx: Any, measure: Measure) -> np.ndarray:
    """Subtopic recall@k: intents covered in the top k / intents with a relevant document."""
    ctx = _check_intent_context(ctx, measure)
    min_rel = measure.param("min_rel")
    hits = ctx.hits(min_rel)
    first = np.bincount(hits.item[hits.before == 0], minlength=len(ctx.lists.item_doc)).astype(np.float64)
    covered = sums_at_cutoffs(first, ctx.lists.offsets, ctx.positions, _cutoff_list(measure))
    return _ratio(covered, ctx.n_intents(min_rel)[:, None])


def map_ia(ctx: Any, measure: Measure) -> np.ndarray:
    """Intent-aware average precision: sum_j w_j AP_j over the whole list (ndeval's ``MAP-IA``), shape (Q, 1)."""
    ctx = _check_intent_context(ctx, measure)
    min_rel = measure.param("min_rel")
    hits = ctx.hits(min_rel)
    per_intent = ctx.intent_relevant(min_rel)
    precision = (hits.before + 1.0) / (hits.position + 1.0)
    total = np.bincount(hits.intent, weights=precision, minlength=len(per_intent))
    ap = _ratio(total, per_intent) * ctx.intent_weights(min_rel)
    total = np.bincount(ctx.intent_query, weights=ap, minlength=ctx.n_queries)  # in intent order, as ndeval adds
    return _ratio(total, ctx.normaliser(min_rel))[:, None]


def ndcg_ia(ctx: Any, measure: Measure) -> np.ndarray:
    """Intent-aware nDCG@k: sum_j w_j nDCG_j@k, the intent's grades as linear gains, log2 discount."""
    ctx = _check_intent_context(ctx, measure)
    min_rel = measure.param("min_rel")
    lists = ctx.lists
    hits = ctx.hits(min_rel)
    n_int = len(lists.intent_ids)
    cutoffs = _cutoff_list(measure)
    # the grade of each hit: the judgment of its document for its intent
    rel = ctx.relevant(min_rel)
    doc_of_item = lists.item_doc[hits.item]
    key_pairs = lists.pair_doc * n_int + lists.pair_intent
    grade = lists.pair_grade[np.searchsorted(key_pairs, doc_of_item * n_int + hits.intent)]
    gains = grade / np.log2(hits.position + 2.0)
    # each intent's ideal: its relevant grades, descending
    ideal_grade = lists.pair_grade[rel]
    ideal_intent = lists.pair_intent[rel]
    order = np.lexsort((-ideal_grade, ideal_intent))
    ideal_grade, ideal_intent = ideal_grade[order], ideal_intent[order]
    ideal_offsets = np.concatenate(([0], np.cumsum(np.bincount(ideal_intent, minlength=n_int)))).astype(np.int64)
    ideal_pos = segment_positions(ideal_offsets, len(ideal_grade))
    ideal_gain = ideal_grade / np.log2(ideal_pos + 2.0)
    out = np.zeros((ctx.n_queries, len(cutoffs)))
    weights = ctx.intent_weights(min_rel)
    norm = ctx.normaliser(min_rel)
    for c, k in enumerate(cutoffs):
        run_mask = hits.position < (k if k is not None else np.iinfo(np.int64).max)
        dcg = np.bincount(hits.intent[run_mask], weights=gains[run_mask], minlength=n_int)
        ideal_mask = ideal_pos < (k if k is not None else np.iinfo(np.int64).max)
        idcg = np.bincount(ideal_intent[ideal_mask], weights=ideal_gain[ideal_mask], minlength=n_int)
        per_intent = _ratio(dcg, idcg) * weights
        out[:, c] = _ratio(segment_sum(per_intent, lists.intent_offsets), norm)
    return out
