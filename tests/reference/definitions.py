"""Plain-Python definitions of the measure families, written from each family's formula.

An independent value source for the tests: loops over one query's ranked list, no NumPy and nothing from
rankmeter except the measure-name parser (:func:`value` reads the family, parameters and cutoff of a parsed
name). A family that is checked against a peer instead is listed in :data:`PEERS` with the test where the
peer runs; ``test_independent_sources.py`` fails when a registered family is in neither table.

Conventions (those of rankmeter's documentation): a document is *relevant* when it is judged and its grade
is > 0 (``>= min_rel`` when given); unjudged documents have grade 0 for gains; ``R`` is the number of
relevant judged documents of the query, retrieved or not; ``k`` without a cutoff is the list length. A
definition returns ``None`` where its formula is undefined (0 / 0). For a query without a relevant
document (``empty_query``) the ``empty=`` policy decides the value (``empty="zero"``: 0); for any other
query an undefined value is NaN under every policy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import rankmeter


@dataclass(frozen=True)
class Query:
    """One query: the ranked documents (rank order), their scores, and the query's judgments."""

    ranking: tuple[str, ...]
    scores: tuple[float, ...]
    qrels: dict[str, float]

    def grade(self, i: int) -> float | None:
        """Grade of the document at 0-based position i (None when unjudged)."""
        return self.qrels.get(self.ranking[i])

    @property
    def n(self) -> int:
        return len(self.ranking)

    def grades(self) -> list[float | None]:
        return [self.grade(i) for i in range(self.n)]

    def graded(self) -> list[float]:
        """Non-negative grade at each rank (0 when unjudged)."""
        return [max(g, 0.0) if g is not None else 0.0 for g in self.grades()]

    def pool(self) -> list[float]:
        """The grades of every judged document of the query."""
        return list(self.qrels.values())


def is_rel(g: float | None, min_rel: float | None) -> bool:
    if g is None:
        return False
    return g > 0 if min_rel is None else g >= min_rel


def rel_list(q: Query, min_rel: float | None) -> list[bool]:
    return [is_rel(g, min_rel) for g in q.grades()]


def num_relevant(q: Query, min_rel: float | None) -> int:
    return sum(is_rel(g, min_rel) for g in q.pool())


def top(values: list, k: int | None) -> list:
    return values if k is None else values[:k]


def size(q: Query, k: int | None) -> int:
    return q.n if k is None else k


# --- gains and discounts ------------------------------------------------------------------------------
def gain_of(g: float | None, gain: object) -> float:
    """linear: max(g, 0); exp: 2^max(g, 0) - 1; a table: its entry, else max(g, 0); unjudged: 0."""
    if g is None:
        return 0.0
    if gain == "linear":
        return max(g, 0.0)
    if gain == "exp":
        return 2.0 ** max(g, 0.0) - 1.0
    table = dict(gain.entries)  # type: ignore[attr-defined]
    return table.get(g, max(g, 0.0))


def discount_of(i: int, discount: object) -> float:
    """log2: 1 / log2(i + 1); jarvelin(b): 1 for i < b, else 1 / log_b(i) (i is the 1-based rank)."""
    if discount == "log2":
        return 1.0 / math.log2(i + 1)
    b = discount.base  # type: ignore[attr-defined]
    return 1.0 if i < b else math.log(b) / math.log(i)


def dcg_of(gains: list[float], k: int | None, discount: object) -> float:
    return sum(g * discount_of(i, discount) for i, g in enumerate(top(gains, k), start=1))


# --- the cumulative-gain family -------------------------------------------------------------------------
def cg(q: Query, k: int | None, gain: object = "linear") -> float:
    return sum(gain_of(g, gain) for g in top(q.grades(), k))


def dcg(q: Query, k: int | None, gain: object = "linear", discount: object = "log2") -> float:
    return dcg_of([gain_of(g, gain) for g in q.grades()], k, discount)


def idcg(q: Query, k: int | None, gain: object = "linear", discount: object = "log2", ideal: str = "judged") -> float:
    """DCG of the judged documents (ideal=judged) or of the ranked list (ideal=retrieved) sorted by gain."""
    source = q.pool() if ideal == "judged" else q.grades()
    return dcg_of(sorted((gain_of(g, gain) for g in source), reverse=True), k, discount)


def ndcg(
    q: Query, k: int | None, gain: object = "linear", discount: object = "log2", ideal: str = "judged"
) -> float | None:
    best = idcg(q, k, gain, discount, ideal)
    return dcg(q, k, gain, discount) / best if best > 0 else None


# --- binary relevance ---------------------------------------------------------------------------------------
def average_precision(q: Query, k: int | None, min_rel: float | None = None, divisor: str = "R") -> float | None:
    """sum over relevant ranks i <= k of (relevant in the top i) / i, divided by R, min(R, k) or k."""
    big_r = num_relevant(q, min_rel)
    total, hits = 0.0, 0
    for i, r in enumerate(top(rel_list(q, min_rel), k), start=1):
        if r:
            hits += 1
            total += hits / i
    den = {"R": big_r, "min": big_r if k is None else min(big_r, k), "k": size(q, k)}[divisor]
    return total / den if big_r > 0 and den > 0 else None


def rel_at(q: Query, k: int | None, min_rel: float | None) -> int:
    return sum(top(rel_list(q, min_rel), k))


def precision(q: Query, k: int | None, min_rel: float | None = None, divisor: str = "k") -> float:
    den = size(q, k) if divisor == "k" else min(size(q, k), q.n)
    return rel_at(q, k, min_rel) / den if den > 0 else 0.0


def recall(q: Query, k: int | None, min_rel: float | None = None) -> float | None:
    big_r = num_relevant(q, min_rel)
    return rel_at(q, k, min_rel) / big_r if big_r else None


def f1(q: Query, k: int | None, min_rel: float | None = None) -> float | None:
    """The harmonic mean of p@k = rel/k and r@k = rel/R: 2 p r / (p + r)."""
    big_r = num_relevant(q, min_rel)
    if not big_r:
        return None
    p, r = rel_at(q, k, min_rel) / size(q, k), rel_at(q, k, min_rel) / big_r
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def reciprocal_rank(q: Query, k: int | None, min_rel: float | None = None) -> float:
    for i, r in enumerate(top(rel_list(q, min_rel), k), start=1):
        if r:
            return 1.0 / i
    return 0.0


def rprec(q: Query, k: None, min_rel: float | None = None) -> float | None:
    big_r = num_relevant(q, min_rel)
    return rel_at(q, big_r, min_rel) / big_r if big_r else None


def success(q: Query, k: int | None, min_rel: float | None = None) -> float:
    return 1.0 if rel_at(q, k, min_rel) > 0 else 0.0


def judged(q: Query, k: int | None, divisor: str = "k") -> float:
    den = size(q, k) if divisor == "k" else min(size(q, k), q.n)
    return sum(g is not None for g in top(q.grades(), k)) / den if den > 0 else 0.0


def acg(q: Query, k: int | None) -> float:
    """Average cumulative gain: the sum of the top k grades / k."""
    return sum(top(q.graded(), k)) / size(q, k) if size(q, k) > 0 else 0.0


def wap(q: Query, k: int | None, min_rel: float | None = None) -> float | None:
    """sum over relevant ranks i <= k of ACG@i, divided by R."""
    big_r = num_relevant(q, min_rel)
    if not big_r:
        return None
    graded, total = q.graded(), 0.0
    for i, r in enumerate(top(rel_list(q, min_rel), k), start=1):
        if r:
            total += sum(graded[:i]) / i
    return total / big_r


def hits(q: Query, k: int | None, min_rel: float | None = None) -> float:
    return float(rel_at(q, k, min_rel))


def fall_out(q: Query, k: int | None, min_rel: float | None = None, all_relevant: float = 0.0) -> float:
    """Non-relevant in the top k / non-relevant in the list; ``all_relevant`` when there are none (0 if empty)."""
    other = [not r for r in rel_list(q, min_rel)]
    if not q.n:
        return 0.0
    return sum(top(other, k)) / sum(other) if sum(other) else all_relevant


def num_q(q: Query, k: None) -> float:
    return 1.0


def num_ret(q: Query, k: None) -> float:
    return float(q.n)


def num_rel(q: Query, k: None, min_rel: float | None = None) -> float:
    return float(num_relevant(q, min_rel))


def num_rel_ret(q: Query, k: None, min_rel: float | None = None) -> float:
    return float(rel_at(q, None, min_rel))


# --- pairwise and label-ranking measures (scikit-learn, torchmetrics) ----------------------------------------
def auroc(q: Query, k: None, min_rel: float | None = None, all_relevant: float = 1.0) -> float | None:
    """(relevant, non-relevant) pairs with the relevant one ranked above / all such pairs."""
    rel = rel_list(q, min_rel)
    pos, neg = sum(rel), len(rel) - sum(rel)
    if not pos:
        return None
    if not neg:
        return all_relevant
    right = sum(1 for i in range(q.n) for j in range(i + 1, q.n) if rel[i] and not rel[j])
    return right / (pos * neg)


def _at_or_above(q: Query, i: int) -> list[int]:
    """The positions of the items scored >= item i."""
    return [j for j in range(q.n) if q.scores[j] >= q.scores[i]]


def lrap(q: Query, k: None, min_rel: float | None = None) -> float:
    """Mean over relevant items of (relevant items scored >= it) / (items scored >= it); 1 if none or all."""
    rel = rel_list(q, min_rel)
    if not any(rel) or all(rel):
        return 1.0
    terms = [sum(rel[j] for j in _at_or_above(q, i)) / len(_at_or_above(q, i)) for i in range(q.n) if rel[i]]
    return sum(terms) / len(terms)


def coverage_error(q: Query, k: None, min_rel: float | None = None) -> float:
    rel = rel_list(q, min_rel)
    return float(max((len(_at_or_above(q, i)) for i in range(q.n) if rel[i]), default=0))


def label_ranking_loss(q: Query, k: None, min_rel: float | None = None) -> float:
    rel = rel_list(q, min_rel)
    pos, neg = sum(rel), len(rel) - sum(rel)
    if not pos or not neg:
        return 0.0
    wrong = sum(1 for i in range(q.n) for j in range(q.n) if rel[i] and not rel[j] and q.scores[j] >= q.scores[i])
    return wrong / (pos * neg)


# --- the cascade (Chapelle et al., CIKM 2009) -----------------------------------------------------------
def stop_of(g: float | None, gain: object, gmax: float) -> float:
    """R(g): exp (2^g - 1) / 2^gmax, linear g / gmax, a table's entry; 0 when unjudged or g <= 0."""
    if g is None:
        return 0.0
    if gain == "exp":
        return (2.0**g - 1.0) / 2.0**gmax if g > 0 else 0.0
    if gain == "linear":
        return g / gmax if g > 0 else 0.0
    return dict(gain.entries).get(g, max(g, 0.0))  # type: ignore[attr-defined]


def err_of(stops: list[float], k: int | None) -> float:
    """sum over i <= k of R_i / i * prod_{j<i} (1 - R_j)."""
    total, reach = 0.0, 1.0
    for i, r in enumerate(top(stops, k), start=1):
        total += reach * r / i
        reach *= 1.0 - r
    return total


def err(q: Query, k: int | None, gain: object = "exp", gmax: float = 4.0) -> float:
    return err_of([stop_of(g, gain, gmax) for g in q.grades()], k)


def nerr(q: Query, k: int | None, gain: object = "exp", gmax: float = 4.0, ideal: str = "judged") -> float | None:
    source = q.pool() if ideal == "judged" else q.grades()
    best = err_of(sorted((stop_of(g, gain, gmax) for g in source), reverse=True), k)
    return err(q, k, gain, gmax) / best if best > 0 else None


# --- C/W/L (cwl_eval, as ir_measures runs it) -------------------------------------------------------------
CWL_HORIZON = 1000  # cwl_eval's max_n: ranks past the list have gain 0 and count in the denominator


def _cwl(q: Query, max_rel: float, continuation: Callable[[int, float, float], float]) -> float:
    """Expected utility per item: sum W_i g_i with W_i the (normalised) chance of reaching rank i."""
    gains = [min(max(g, 0.0), max_rel) / max_rel for g in q.graded()] + [0.0] * (CWL_HORIZON - q.n)
    reach, running, num, den = 1.0, 0.0, 0.0, 0.0
    for i, g in enumerate(gains[:CWL_HORIZON], start=1):
        running += g
        num, den = num + reach * g, den + reach
        reach *= continuation(i, g, running)
    return num / den


def insq(q: Query, k: None, max_rel: float, t: float = 1.0) -> float:
    return _cwl(q, max_rel, lambda i, g, cum: ((i + 2 * t - 1) / (i + 2 * t)) ** 2)


def inst(q: Query, k: None, max_rel: float, t: float = 1.0) -> float:
    return _cwl(q, max_rel, lambda i, g, cum: ((i + t + (t - cum) - 1) / (i + t + (t - cum))) ** 2)


def bpm(q: Query, k: int, max_rel: float, t: float = 1.0) -> float:
    return _cwl(q, max_rel, lambda i, g, cum: 1.0 if cum < t and i < k else 0.0)


def nerr8(q: Query, k: int, max_rel: float) -> float:
    return _cwl(q, max_rel, lambda i, g, cum: 1 - g if i < k else 0.0)


def nerr9(q: Query, k: int, max_rel: float) -> float:
    return _cwl(q, max_rel, lambda i, g, cum: i / (i + 1) * (1 - g) if i < k else 0.0)


def nerr10(q: Query, k: None, max_rel: float, p: float = 0.9) -> float:
    return _cwl(q, max_rel, lambda i, g, cum: p * (1 - g))


def nerr11(q: Query, k: None, max_rel: float, t: float = 1.0) -> float:
    return _cwl(q, max_rel, lambda i, g, cum: ((i + 2 * t - 1) / (i + 2 * t)) ** 2 * (1 - g))


# --- other IR tools' families ---------------------------------------------------------------------------
def compat(q: Query, k: None, p: float = 0.95) -> float:
    """RBO of the ranking with the ideal (grade > 0, grade descending, equal grades in ranking order) / RBO(I, I)."""
    position = {d: r for r, d in enumerate(q.ranking)}
    ideal = sorted((d for d, g in q.qrels.items() if g > 0), key=lambda d: (-q.qrels[d], position.get(d, q.n)))
    depth = max(q.n, len(ideal))

    def rbo(a: list[str], b: list[str]) -> float:
        return sum(p**d * len(set(a[: d + 1]) & set(b[: d + 1])) / (d + 1) for d in range(depth))

    best = rbo(ideal, ideal)
    return rbo(list(q.ranking), ideal) / best if best > 0 else 0.0


def q_measure(q: Query, k: int | None, beta: float = 1.0) -> float:
    """Sakai's Q: mean over relevant ranks i <= k of (hits_i + beta cg_i) / (i + beta icg_i), over min(R, k)."""
    ideal = sorted((x for x in q.pool() if x > 0), reverse=True)
    hits_, cg_, total = 0, 0.0, 0.0
    for i, x in enumerate(top(q.graded(), k), start=1):
        if x > 0:
            hits_, cg_ = hits_ + 1, cg_ + x
            total += (hits_ + beta * cg_) / (i + beta * sum(ideal[:i]))
    r = len(ideal) if k is None else min(len(ideal), k)
    return total / r if r else 0.0


def gap(q: Query, k: None) -> float:
    """Graded average precision (Robertson et al. 2010) with grade-proportional thresholds."""
    levels = q.graded()
    ideal = sorted((x for x in q.pool() if x > 0), reverse=True)
    total = sum(
        sum(min(x, y) * (min(x, y) + 1) for y in levels[:i]) / i for i, x in enumerate(levels, start=1) if x > 0
    )
    best = sum(x * (x + 1) for x in ideal)
    return total / best if best else 0.0


def irbu(q: Query, k: int | None, gmax: float, p: float) -> float:
    total, reach = 0.0, 1.0
    for i, x in enumerate(top(q.graded(), k), start=1):
        stop = x / (gmax + 1)
        total += p**i * reach * stop
        reach *= 1 - stop
    return total


def mean_rank(q: Query, k: None, min_rel: float | None = None) -> float | None:
    """The mean rank of the relevant ranked items (undefined without one)."""
    ranks = [i for i, r in enumerate(rel_list(q, min_rel), start=1) if r]
    return sum(ranks) / len(ranks) if ranks else None


def amri(q: Query, k: None, min_rel: float | None = None) -> float | None:
    """1 - (MR - 1) / (E[MR] - 1) with E[MR] = (n + 1) / 2, the mean rank of a random order (n > 1)."""
    mr = mean_rank(q, k, min_rel)
    return None if mr is None or q.n < 2 else 1 - (mr - 1) / ((q.n + 1) / 2 - 1)


def mpr(q: Query, k: None) -> float | None:
    """The grade-weighted mean of (rank - 1) / (n - 1) (n > 1, some positive grade in the list)."""
    levels = q.graded()
    if q.n < 2 or not any(x > 0 for x in levels):
        return None
    return sum(x * (i - 1) / (q.n - 1) for i, x in enumerate(levels, start=1)) / sum(levels)


# --- item weights (``sample_weight`` of dense input: keras-rs's weighted metrics) -------------------------
def weighted_average_precision(
    grades: list[float], weights: list[float], k: int | None, min_rel: float | None = None
) -> float | None:
    """sum over ranks i <= k of w_i b_i P@i, over sum over the row of w_i b_i (P@i unweighted)."""
    rel = [is_rel(g, min_rel) for g in grades]
    total, hits = 0.0, 0
    for i, (r, w) in enumerate(top(list(zip(rel, weights, strict=True)), k), start=1):
        hits += r
        total += w * hits / i if r else 0.0
    den = sum(w for r, w in zip(rel, weights, strict=True) if r)
    return total / den if den > 0 else None


def weighted_ndcg(grades: list[float], weights: list[float], k: int | None, gain: object = "linear") -> float | None:
    """DCG of the weighted gains w_i g(r_i) over the DCG of those weighted gains sorted descending."""
    gains = [w * gain_of(g, gain) for g, w in zip(grades, weights, strict=True)]
    best = dcg_of(sorted(gains, reverse=True), k, "log2")
    return dcg_of(gains, k, "log2") / best if best > 0 else None


Definition = Callable[..., float | None]

#: family -> its plain-Python definition, called as ``f(query, k, **non-default parameters)``
DEFINITIONS: dict[str, Definition] = {
    "ndcg": ndcg,
    "dcg": dcg,
    "idcg": idcg,
    "cg": cg,
    "map": average_precision,
    "ap": average_precision,
    "p": precision,
    "r": recall,
    "f1": f1,
    "rr": reciprocal_rank,
    "rprec": rprec,
    "success": success,
    "judged": judged,
    "acg": acg,
    "wap": wap,
    "num_q": num_q,
    "num_ret": num_ret,
    "num_rel": num_rel,
    "num_rel_ret": num_rel_ret,
    "err": err,
    "nerr": nerr,
    "hits": hits,
    "fall_out": fall_out,
    "auroc": auroc,
    "lrap": lrap,
    "coverage_error": coverage_error,
    "label_ranking_loss": label_ranking_loss,
    "insq": insq,
    "inst": inst,
    "bpm": bpm,
    "nerr8": nerr8,
    "nerr9": nerr9,
    "nerr10": nerr10,
    "nerr11": nerr11,
    "compat": compat,
    "q_measure": q_measure,
    "gap": gap,
    "irbu": irbu,
    "mean_rank": mean_rank,
    "amri": amri,
    "mpr": mpr,
}


def value(name: str, q: Query) -> float | None:
    """The value of one measure with at most one cutoff (``"ndcg(gain=exp)@5"``) on one query."""
    m = rankmeter.parse(name)
    if m.cutoffs is not None and len(m.cutoffs) != 1:
        raise ValueError(f"{name}: one cutoff at a time")
    k = None if m.cutoffs is None else m.cutoffs[0]
    return DEFINITIONS[m.family](q, k, **dict(m.params))


def empty_query(m: rankmeter.Measure, q: Query) -> bool:
    """Whether ``q`` has no relevant document for ``m`` (none in the list for a graded ``ideal=retrieved``)."""
    if m.param("ideal", "judged") == "retrieved":
        return not any(rel_list(q, None))
    return num_relevant(q, m.param("min_rel")) == 0


def values(names: list[str], q: Query, empty: float = 0.0) -> list[float]:
    """Every measure (cutoff lists expanded, in rankmeter's order) on one query.

    An undefined value is ``empty`` on a query without a relevant document for the measure, NaN otherwise.
    """
    out = []
    for name in names:
        for m in rankmeter.parse(name).expand():
            v = value(str(m), q)
            out.append(v if v is not None else empty if empty_query(m, q) else math.nan)
    return out


@dataclass(frozen=True)
class Source:
    """Where a family's values are checked against something other than rankmeter itself.

    ``kind``: ``"peer"`` (another tool's code runs in the test: ``evidence`` is its import),
    ``"formula"`` (the family's formula written out in plain Python in that test file) or
    ``"worked example"`` (values computed by hand in the test). ``spelled`` is the name the test file
    uses for the family (the peer's name, or a prefix of rankmeter's) when it differs from the family's.
    """

    path: str
    test: str
    kind: str
    evidence: str
    spelled: str = ""


_PYTREC = "tests/trec_eval/test_te_oracle.py"
_PYTREC_TEST = "test_trec_eval_layer_matches_pytrec_eval"


def _pytrec(trec_name: str) -> Source:
    return Source(_PYTREC, _PYTREC_TEST, "peer", "import pytrec_eval", trec_name)


def _ndeval(ndeval_name: str) -> Source:
    return Source(
        "tests/diversity/test_ndeval_oracle.py",
        "test_every_ndeval_measure_on_random_tie_heavy_cases",
        "peer",
        "import pyndeval",
        ndeval_name,
    )


def _beyond(test: str = "test_every_measure_equals_its_formula", path: str = "tests/beyond/test_formulas.py") -> Source:
    return Source(path, test, "formula", "def _")


_TE_HAND = Source("tests/trec_eval/test_te_families.py", "test_hand_computed_values", "worked example", "approx(")
_RELEVANCE = "tests/beyond/test_relevance_measures.py"
_EXPOSURE = "tests/beyond/test_expected_exposure.py"
_RECSYS = "tests_recsys_oracles/"

#: families whose independent values live in another test (a peer that runs there, or a formula or worked
#: example written there) instead of in :data:`DEFINITIONS`
OTHER_SOURCES: dict[str, Source] = {
    "gm_map": _pytrec("gm_map"),
    "bpref": _pytrec("bpref"),
    "gm_bpref": _pytrec("gm_bpref"),
    "infap": _pytrec("infAP"),
    "iprec_at_recall": Source(
        _PYTREC,
        "test_interpolated_precision_with_trec_eval_9_rounding",
        "peer",
        "import pytrec_eval",
        "iprec_at_recall",
    ),
    "iprec_avg": Source(
        _PYTREC, "test_interpolated_precision_with_trec_eval_9_rounding", "peer", "import pytrec_eval", "11pt_avg"
    ),
    "rprec_mult": _pytrec("Rprec_mult"),
    "utility": _pytrec("utility"),
    "bing": _pytrec("binG"),
    "g": _pytrec('"G"'),
    "ndcg_rel": _pytrec("ndcg_rel"),
    "rndcg": _pytrec("Rndcg"),
    "relative_p": _pytrec("relative_P"),
    "set_p": _pytrec("set_P"),
    "set_recall": _pytrec("set_recall"),
    "set_relative_p": _pytrec("set_relative_P"),
    "set_map": _pytrec("set_map"),
    "set_f": _pytrec("set_F"),
    "num_nonrel_judged_ret": _pytrec("num_nonrel_judged_ret"),
    "rbp": _TE_HAND,
    "rbp_resid": _TE_HAND,
    "unj": _TE_HAND,
    "yaap": _TE_HAND,
    "alpha_ndcg": _ndeval("alpha-nDCG"),
    "alpha_dcg": _ndeval("alpha-DCG"),
    "err_ia": _ndeval("ERR-IA"),
    "nerr_ia": _ndeval("nERR-IA"),
    "nrbp": _ndeval("NRBP"),
    "nnrbp": _ndeval("nNRBP"),
    "map_ia": _ndeval("MAP-IA"),
    "p_ia": _ndeval("P-IA"),
    "strec": _ndeval("strec"),
    # the mean over intents of the ndcg definition above
    "ndcg_ia": Source(
        "tests/diversity/test_diversity_values.py",
        "test_ndcg_ia_is_the_mean_of_ndcg_per_intent",
        "formula",
        "value = ndcg(query, k)",
    ),
    "implicit_p": Source(_RECSYS + "test_implicit.py", "test_precision_map_ndcg_at_k", "peer", "from implicit."),
    "implicit_auc": Source(_RECSYS + "test_implicit.py", "test_auc_at_k", "peer", "from implicit."),
    "rectools_ndcg": Source(
        _RECSYS + "test_rectools.py", "test_rectools_metrics_equal_rankmeter_names_per_user", "peer", "from rectools"
    ),
    "gauc": Source(_RECSYS + "test_recbole.py", "test_gauc_is_auroc_pooled_by_relevant_items", "peer", "recbole"),
    "catalog_coverage": _beyond(),
    "entropy": _beyond(),
    "recbole_entropy": _beyond(),
    "gini": _beyond(),
    "personalization": _beyond(),
    "novelty": _beyond(),
    "ms_novelty": _beyond(),
    "ild": _beyond(),
    "arp": _beyond(),
    "aplt": _beyond(),
    "aclt": _beyond(),
    "ms_serendipity": Source(_RECSYS + "test_beyond_accuracy.py", "test_ms_serendipity", "peer", "from recommenders"),
    "rectools_serendipity": _beyond("test_rectools_serendipity", _RELEVANCE),
    "pop_recall": _beyond("test_pop_recall", _RELEVANCE),
    "exposure": _beyond("test_exposure_and_its_disparity", _RELEVANCE),
    "exposure_ratio": _beyond("test_exposure_and_its_disparity", _RELEVANCE),
    "exposure_diff": _beyond("test_exposure_and_its_disparity", _RELEVANCE),
    "ee_loss": _beyond("test_expected_exposure_equals_its_definition", _EXPOSURE),
    "ee_disparity": _beyond("test_expected_exposure_equals_its_definition", _EXPOSURE),
    "ee_relevance": _beyond("test_expected_exposure_equals_its_definition", _EXPOSURE),
}
