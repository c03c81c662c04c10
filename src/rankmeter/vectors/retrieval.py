"""``evaluate_vectors``: embeddings and binary codes with labels -> the usual :class:`EvaluationResult`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter._version import __version__
from rankmeter.aggregate import aggregate_column, apply_empty_policy
from rankmeter.core.lists import positive_items
from rankmeter.core.semantics import Semantics, SemanticsOptions
from rankmeter.core.ties import VECTOR_TIES, straddling_queries
from rankmeter.errors import InputFormatError, MeasureSyntaxError, PolicyError
from rankmeter.io.foreign import host_arrays
from rankmeter.measures import FAMILIES, Measure, parse, traits_of
from rankmeter.pipeline import MeasuresArg, evaluate_ranked, positive_items_suffice
from rankmeter.progress import progress_bar, wanted
from rankmeter.results import EvaluationResult
from rankmeter.segments import rows_grouped
from rankmeter.vectors.distances import (
    Features,
    PackedCodes,
    ScoreCache,
    check_metric,
    hamming_block,
    prepare_codes,
    prepare_features,
    score_block,
)
from rankmeter.vectors.hamming import (
    BUCKET_TIES,
    BucketGroups,
    PrefixTables,
    bucket_counts,
    bucket_histogram,
    bucket_measure,
    bucket_tie_stats,
    dot_levels,
    radius_values,
)
from rankmeter.vectors.ranking import rank_block
from rankmeter.vectors.relevance import Relevance, RelevanceArg, prepare_relevance
from rankmeter.xp.arrays import placement
from rankmeter.xp.on_device import route
from rankmeter.xp.vectors import evaluate_vectors_on_device, prepare

if TYPE_CHECKING:
    from typing_extensions import Unpack

_RADIUS = re.compile(r"^\s*(p|r|precision|recall)\s*\(\s*radius\s*=\s*(\d+)\s*\)\s*$", re.IGNORECASE)
_BUCKET_ELEMENTS = 1 << 20  # items (query x database pairs) per block on the bucket path (fits the caches)
SORT_ELEMENTS = 1 << 20  # ... on the general (sorting) path
_AUTO_PROGRESS_PAIRS = 2_000_000_000


@dataclass
class _Column:
    name: str
    is_count: bool  # summed, not averaged
    exempt: bool  # the empty-query policy keeps its values (counts, judged@k)
    measure: int = -1  # index into the parsed measures (or -1 for a radius column)
    radius: int = -1
    radius_kind: str = ""
    count_key: Any = None  # threshold whose relevant count decides "empty"


@dataclass
class _Plan:
    measures: list[Measure]
    columns: list[_Column]
    radii: list[int]
    bucket: list[bool] = field(default_factory=list)
    cutoffs: list[int] = field(default_factory=list)


def _plan(measures: MeasuresArg, radius: int | Iterable[int] | None) -> _Plan:
    items = [measures] if isinstance(measures, str | Measure) else list(measures)
    if radius is not None:
        extra = [radius] if isinstance(radius, int | np.integer) else list(radius)
        for r in extra:
            if not isinstance(r, int | np.integer) or r < 0:
                raise PolicyError(f"radius must be a non-negative integer (a Hamming distance), got {r!r}")
            items += [f"p(radius={int(r)})", f"r(radius={int(r)})"]
    if not items:
        raise MeasureSyntaxError("no measures given; e.g. measures=['ndcg@100', 'map']")
    parsed: list[Measure] = []
    columns: list[_Column] = []
    seen: set[str] = set()
    radii: list[int] = []
    for item in items:
        match = _RADIUS.match(item) if isinstance(item, str) else None
        if match:
            kind = "p" if match.group(1).lower() in ("p", "precision") else "r"
            r = int(match.group(2))
            name = f"{kind}(radius={r})"
            if name not in seen:
                seen.add(name)
                columns.append(_Column(name, False, False, radius=r, radius_kind=kind, count_key=None))
                if r not in radii:
                    radii.append(r)
            continue
        m = parse(item)
        family = FAMILIES[m.family]
        if family.aggregate == "pooled":
            raise MeasureSyntaxError(
                f"measure {str(m)!r}: evaluate_vectors does not pool values over queries; "
                "rank the scores with evaluate_arrays"
            )
        index = len(parsed)
        parsed.append(m)
        for single in m.expand():
            name = str(single)
            if name in seen:
                continue
            seen.add(name)
            if family.traits.graded and single.param("ideal", "judged") == "retrieved":
                count_key = None  # relevant items of the ranked list = of the whole database here
            else:
                count_key = single.param("min_rel")
            exempt = bool(getattr(family, "empty_exempt", family.is_count))
            columns.append(_Column(name, family.is_count, exempt, measure=index, count_key=count_key))
    cutoffs = sorted({k for m in parsed if m.cutoffs for k in m.cutoffs})
    return _Plan(parsed, columns, radii, cutoffs=cutoffs)


@dataclass
class _Inputs:
    """Validated inputs: codes or features, and the relevance producer."""

    metric: str
    n_queries: int
    n_database: int
    codes: tuple[PackedCodes, PackedCodes] | None
    features: tuple[Features, Features] | None
    relevance: Relevance
    cache: ScoreCache = field(default_factory=ScoreCache)

    @property
    def bits(self) -> int:
        assert self.codes is not None
        return self.codes[0].bits

    def key_block(self, start: int, stop: int) -> np.ndarray:
        """Ascending ranking key of queries start:stop: Hamming distance (uint) or minus the score."""
        if self.codes is not None:
            qc, dc = self.codes
            return hamming_block(qc.rows(start, stop), dc)
        assert self.features is not None
        qf, df = self.features
        s = score_block(qf, df, self.metric, start, stop, self.cache)
        np.negative(s, out=s)
        return s


def prepare_inputs(
    queries: Any,
    database: Any,
    metric: str,
    codes: str,
    query_labels: Any,
    database_labels: Any,
    relevance: RelevanceArg,
) -> _Inputs:
    if metric == "hamming":
        q, d = prepare_codes(queries, database, codes)
        n_q, n_d = q.n, d.n
        packed, feats = (q, d), None
    else:
        fq, fd = prepare_features(queries, database, metric)
        n_q, n_d = fq.x.shape[0], fd.x.shape[0]
        packed, feats = None, (fq, fd)
    if n_d == 0:
        raise InputFormatError("database is empty: nothing to rank")
    rel = prepare_relevance(query_labels, database_labels, relevance, n_q, n_d)
    return _Inputs(metric, n_q, n_d, packed, feats, rel)


def _integer_levels(grades: np.ndarray, integral: bool, max_levels: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(levels as small unsigned ints, grade value of each level) or None when grades are not small integers."""
    if grades.size == 0:
        return np.zeros(grades.shape, dtype=np.uint8), np.zeros(1)
    if grades.dtype.kind == "u":
        top = int(grades.max())
        return (grades, np.arange(top + 1, dtype=np.float64)) if top < max_levels else None
    if not integral and not np.array_equal(grades, np.rint(grades)):
        return None
    lo, hi = float(grades.min()), float(grades.max())
    if hi - lo >= max_levels:
        return None
    levels = (grades - lo).astype(np.uint16 if hi - lo < 65536 else np.uint32)
    return levels, lo + np.arange(int(hi - lo) + 1, dtype=np.float64)


def _relevant_count(grades: np.ndarray, threshold: float | None, self_cols: np.ndarray | None) -> np.ndarray:
    rel = grades > 0 if threshold is None else grades >= threshold
    count = rel.sum(axis=1).astype(np.float64)
    if self_cols is not None:
        rows = np.flatnonzero(self_cols >= 0)
        count[rows] -= rel[rows, self_cols[rows]]
    return count


def _batches(n: int, size: int, show: bool) -> Iterator[tuple[int, int]]:
    with progress_bar(n, "rankmeter vectors", show=show, unit="queries") as done:
        for s in range(0, n, size):
            yield s, min(s + size, n)
            done(min(s + size, n))


@rows_grouped
def evaluate_vectors(
    queries: Any,
    database: Any,
    measures: MeasuresArg,
    *,
    query_labels: Any,
    database_labels: Any,
    metric: str = "hamming",
    relevance: RelevanceArg = "shared_labels",
    semantics: Semantics | None = None,
    exclude_self: bool = False,
    batch_size: int | None = None,
    progress: bool | None = None,
    radius: int | Iterable[int] | None = None,
    codes: str = "auto",
    group_by: Any = None,
    **options: Unpack[SemanticsOptions],
) -> EvaluationResult:
    r"""Evaluate nearest-neighbour retrieval of every query over the whole database.

    Each query ranks every database item by ``metric`` (closest first); the
    relevance grade of an item comes from the labels; every measure of the
    registry is computed over that ranking with the ideal taken from all
    database items (dense semantics), and the tie policy applies to equal
    distances. For Hamming distance with ``expected``, ``optimistic`` or
    ``pessimistic`` ties nothing is sorted: the measures follow exactly from
    per-query counts of (distance, grade) pairs (:mod:`rankmeter.vectors.hamming`,
    after He et al., "Hashing as Tie-Aware Learning to Rank", CVPR 2018, and
    McSherry & Najork, ECIR 2008), in O(N + bits * grades * cutoffs) per query.
    Other cases rank each block of queries and call
    :func:`rankmeter.pipeline.evaluate_ranked` (the same values to 1e-12).

    Parameters
    ----------
    queries : array-like, shape (n_queries, dim)
        Float features, or binary codes for ``metric="hamming"``: {-1, +1},
        {0, 1}, or bit-packed ``uint8`` (``np.packbits``) / ``uint64`` words.
    database : array-like, shape (n_database, dim)
        Same form as ``queries``.
    measures : str, Measure or iterable of them
        Any registered measure (``"ndcg@[10,100]"``, ``"ndcg(gain=exp)"``,
        ``"map@1000"``, ``"wap@100"``, ``"acg@10"``, ``"p@10"``, ``"rr"``, ...) and,
        for Hamming distance, ``"p(radius=2)"`` / ``"r(radius=2)"``: precision and
        recall of the items within Hamming radius r (precision 0 when no item
        is within the radius).
    query_labels, database_labels : array-like
        Multi-hot matrices ``(n, n_labels)`` or class-index vectors ``(n,)``.
    metric : {"hamming", "cosine", "euclidean", "inner"}, default "hamming"
    relevance : {"shared_labels", "any_shared", "same_class"} or callable, default "shared_labels"
        ``shared_labels``: grade :math:`l_q^T l_i`; ``any_shared``:
        :math:`[l_q^T l_i > 0]`; ``same_class``: class equality; a callable
        ``f(query_labels[block], database_labels) -> (b, n_database)`` grades.
    semantics : Semantics, optional
        Ties, empty queries and seed (:class:`rankmeter.Semantics`). Ties:
        ``expected`` (default), ``stable``, ``optimistic``, ``pessimistic``
        or ``shuffle``; ``stable`` breaks ties by database index, ``shuffle``
        by a seeded hash of (seed, query, item), the same whatever the batch
        size. ``empty``: queries with no relevant database item.
    exclude_self : bool, default False
        Leave database item i out of query i's ranking and ideal (query set =
        database; queries with index >= n_database keep every item).
    batch_size : int, optional
        Queries per block; memory is O(batch_size * n_database). Default: about
        1M query-item pairs per block.
    progress : bool, optional
        Show a progress bar on stderr; default: only for long jobs (>= 2e9
        pairs) on a terminal.
    radius : int or iterable of int, optional
        Adds ``p(radius=r)`` and ``r(radius=r)`` columns (Hamming only).
    codes : {"auto", "pm1", "binary", "packed"}, default "auto"
        Form of Hamming codes (``auto`` reads it from dtype and values).
    group_by : sequence, mapping, table or GroupBy, optional
        The segment of each query row (a sequence of ``n_queries`` labels,
        or ``{row: segment}``): each measure is also aggregated per segment
        (:meth:`EvaluationResult.by_group`; see :mod:`rankmeter.segments`).
    **options
        Fields of :class:`~rankmeter.Semantics` one by one (``ties=``,
        ``empty=``, ``seed=``); they override ``semantics``.

    Returns
    -------
    EvaluationResult
        Query ids are the query row indices as strings.

    Examples
    --------
    A worked example (docs/reference-values.md, R7): 4-bit codes, 3 labels.

    >>> q = [[1, 1, -1, -1]]
    >>> db = [[1, 1, -1, -1], [1, -1, -1, -1], [-1, 1, -1, -1], [1, 1, 1, -1],
    ...       [-1, -1, 1, 1], [1, -1, 1, -1], [-1, -1, -1, -1], [1, 1, 1, 1]]
    >>> ql = [[1, 1, 0]]
    >>> dl = [[1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 0, 0], [0, 1, 0], [1, 1, 1]]
    >>> res = evaluate_vectors(q, db, ["ndcg(gain=exp)@3", "map@5", "acg@3"], query_labels=ql,
    ...                        database_labels=dl)
    >>> [round(res[m], 6) for m in res.measure_names]
    [0.465048, 0.542593, 1.0]
    >>> res = evaluate_vectors(q, db, "p(radius=1)", query_labels=ql, database_labels=dl)
    >>> res["p(radius=1)"]
    0.75
    """
    check_metric(metric)
    sem = Semantics.build(semantics, "vectors", **options)
    ties, empty, seed = sem.tie_policy, sem.empty, sem.seed
    if ties not in VECTOR_TIES:
        raise PolicyError(
            f"ties={ties!r} is not available for vectors (it orders by document id strings); "
            f"choose one of {', '.join(VECTOR_TIES)}"
        )
    if batch_size is not None and (not isinstance(batch_size, int | np.integer) or batch_size < 1):
        raise PolicyError(f"batch_size must be a positive integer, got {batch_size!r}")
    plan = _plan(measures, radius)
    if plan.radii and metric != "hamming":
        raise PolicyError(f"precision/recall within a Hamming radius needs metric='hamming', got {metric!r}")
    where = placement(
        {"queries": queries, "database": database, "query_labels": query_labels, "database_labels": database_labels}
    )
    on_host: dict[str, Any] = {}
    if where is not None:  # torch, JAX, CuPy: on their device, or NumPy's view of CPU arrays (see xp.on_device.route)
        on_host = route(where, plan.measures, ties)
        if plan.radii:
            on_host.update(path="numpy-view" if where.on_cpu else "host", why="radius measures count on the host")
        if on_host["path"] == "device":
            device = prepare(where, queries, database, query_labels, database_labels, metric, codes, relevance)
            if not isinstance(device, str):
                return evaluate_vectors_on_device(
                    device,
                    plan.measures,
                    sem,
                    relevance=str(relevance),
                    exclude_self=exclude_self,
                    batch_size=batch_size,
                    metadata={"semantics": sem.as_dict(), **({"seed": seed} if ties == "shuffle" else {})},
                )
            on_host.update(path="numpy-view" if where.on_cpu else "host", why=device)
    queries, database, query_labels, database_labels = host_arrays(queries, database, query_labels, database_labels)
    data = prepare_inputs(queries, database, metric, codes, query_labels, database_labels, relevance)
    n_q, n_d = data.n_queries, data.n_database
    bucket_ok = metric == "hamming" and ties in BUCKET_TIES
    # AP divided by min(R, k) or k has no bucket kernel
    plan.bucket = [
        bucket_ok and traits_of(m).hamming is not None and m.param("divisor", "R") == "R" for m in plan.measures
    ]
    all_bucket = bucket_ok and all(plan.bucket) and data.relevance.integral
    if batch_size is None:
        batch_size = max(1, (_BUCKET_ELEMENTS if all_bucket else SORT_ELEMENTS) // n_d)
    show = wanted(progress, n_q * n_d >= _AUTO_PROGRESS_PAIRS)
    evaluator = _BlockEvaluator(plan, data, ties, exclude_self, seed)
    n_cols = len(plan.columns)
    values = np.full((n_q, n_cols), np.nan)
    included = np.ones((n_q, n_cols), dtype=bool)
    query_ids = np.arange(n_q).astype(str)
    for start, stop in _batches(n_q, int(batch_size), bool(show)):
        raw, counts = evaluator.block(start, stop)
        for c, col in enumerate(plan.columns):
            empty_mask = (counts[col.count_key] == 0) | np.isnan(raw[:, c])
            values[start:stop, c], included[start:stop, c] = apply_empty_policy(
                raw[:, c],
                empty_mask,
                empty,
                is_count=col.exempt,
                query_ids=query_ids[start:stop],
                measure_name=col.name,
            )
    aggregate = {
        col.name: aggregate_column(values[:, c], included[:, c], is_count=col.is_count, weights=None)
        for c, col in enumerate(plan.columns)
    }
    meta: dict[str, Any] = {
        "rankmeter_version": __version__,
        "measures": [col.name for col in plan.columns],
        "ties": ties,
        "empty": empty,
        "semantics": sem.as_dict(),
        "queries_evaluated": n_q,
        "queries_empty": evaluator.queries_empty,
        "queries_with_ties": evaluator.queries_with_ties,
        "queries_with_ties_at_cutoff": evaluator.queries_straddling,
        "weighted": False,
        "input": "vectors",
        "metric": metric,
        "relevance": data.relevance.name,
        "exclude_self": bool(exclude_self),
        "n_database": n_d,
        "batch_size": int(batch_size),
        "paths": {m_name: path for m_name, path in evaluator.paths.items()},
    }
    if metric == "hamming":
        meta["bits"] = data.bits
        meta["codes"] = data.codes[0].form if data.codes else None
    if evaluator.tie_depth is not None:
        meta["tie_diagnostics_depth"] = evaluator.tie_depth
    if plan.radii:
        meta["queries_empty_radius"] = {str(r): int(v) for r, v in evaluator.empty_ball.items()}
    if ties == "shuffle":
        meta["seed"] = seed
    if on_host:
        meta["array_api"] = on_host
    names = [col.name for col in plan.columns]
    return EvaluationResult(query_ids, names, values, included, aggregate, meta)


def merge_cutoffs(measures: list[Measure], list_length: int) -> tuple[list[Measure], dict[str, str]]:
    """One measure per (family, parameters) with all cutoffs, so each kernel runs (and sorts its ideal) once.

    A measure without a cutoff whose family is unchanged by a cutoff at the list
    length joins its family as ``@list_length``. Returns the merged measures and
    ``{requested single-cutoff name: name of the same column in the merged result}``.

    >>> from rankmeter.measures import parse
    >>> merged, names = merge_cutoffs([parse("ndcg"), parse("ndcg@[5,10]"), parse("p@3")], 100)
    >>> [str(m) for m in merged], names["ndcg"]
    (['ndcg@[5,10,100]', 'p@3'], 'ndcg@100')
    """
    groups: dict[tuple[Any, ...], set[int]] = {}
    whole: dict[tuple[Any, ...], Measure] = {}
    names: dict[str, tuple[tuple[Any, ...], int | None]] = {}
    for m in measures:
        for single in m.expand():
            key = (single.family, single.params)
            k = single.cutoffs[0] if single.cutoffs else None
            if k is None and traits_of(single).full_as_cutoff and single.param("divisor", "R") != "min":
                k = max(list_length, 1)
            if k is None:
                whole[key] = single
            else:
                groups.setdefault(key, set()).add(k)
            names.setdefault(str(single), (key, k))
    merged = [Measure(f, p, tuple(sorted(ks)), list_form=len(ks) > 1) for (f, p), ks in groups.items()]
    merged += list(whole.values())
    out = {}
    for original, ((family, params), k) in names.items():
        out[original] = str(Measure(family, params, None if k is None else (k,)))
    return merged, out


class _BlockEvaluator:
    """Computes raw (pre-empty-policy) values of every column for one block of queries."""

    def __init__(self, plan: _Plan, data: _Inputs, ties: str, exclude_self: bool, seed: int | None) -> None:
        self.plan, self.data, self.ties, self.exclude_self, self.seed = plan, data, ties, exclude_self, seed
        self.tables = PrefixTables(data.n_database)
        self.queries_empty = 0
        self.queries_with_ties = 0
        self.queries_straddling = 0
        self.empty_ball: dict[int, int] = {r: 0 for r in plan.radii}
        self.paths: dict[str, str] = {}
        self.tie_depth: int | None = None
        self.count_keys = {col.count_key for col in plan.columns} | {None}
        self.rprec_thresholds = [m.param("min_rel") for m in plan.measures if traits_of(m).cut_at_relevant]
        general = [m for m, b in zip(plan.measures, plan.bucket, strict=True) if not b]
        self.depth = self._depth(general)

    def _depth(self, general: list[Measure]) -> int | None:
        if not general:
            return None
        for m in general:
            if not traits_of(m).top_k or m.cutoffs is None:
                return None
        return max(k for m in general for k in (m.cutoffs or ()))

    def block(self, start: int, stop: int) -> tuple[np.ndarray, dict[Any, np.ndarray]]:
        data, plan = self.data, self.plan
        b, n_d = stop - start, data.n_database
        rows = np.arange(start, stop)
        self_cols = np.where(rows < n_d, rows, -1) if self.exclude_self else None
        key = data.key_block(start, stop)
        grades = data.relevance.block(start, stop)
        raw = np.full((b, len(plan.columns)), np.nan)
        counts: dict[Any, np.ndarray]
        hist_levels = None
        if data.metric == "hamming" and self.ties in BUCKET_TIES and any(plan.bucket):
            n_buckets = data.bits + 1
            hist_levels = _integer_levels(grades, data.relevance.integral, max(2, (2 * n_d + 4096) // n_buckets))
        groups: BucketGroups | None = None
        buckets: tuple[np.ndarray, np.ndarray] | None = None  # items and relevant items per distance
        if hist_levels is not None and self.ties != "expected" and hist_levels[1][0] < 0:
            hist_levels = None  # the core orders grades <= 0 alike (by index): not a per-grade bucket order
        if hist_levels is not None:
            levels, grade_values = hist_levels
            hist = bucket_histogram(key, levels, data.bits + 1, len(grade_values), self_cols)
            groups = BucketGroups(hist, grade_values, self.ties)
            counts = {
                t: groups.count((grade_values > 0 if t is None else grade_values >= t).astype(np.float64))
                for t in self.count_keys
            }
            buckets = (groups.n_bucket, dot_levels(hist, (grade_values > 0).astype(np.float64)))
        else:
            g64 = grades.astype(np.float64, copy=False)
            counts = {t: _relevant_count(g64, t, self_cols) for t in self.count_keys}
        self.queries_empty += int((counts[None] == 0).sum())
        per_query_cutoffs = [counts[t] for t in self.rprec_thresholds]
        general: list[int] = []
        blocks: dict[int, np.ndarray] = {}
        for i, m in enumerate(plan.measures):
            if groups is not None and plan.bucket[i]:
                blocks[i] = bucket_measure(groups, m, self.tables)
                self.paths[str(m)] = "bucket"
            else:
                general.append(i)
                self.paths[str(m)] = "sort"
        ranked_values: dict[str, np.ndarray] = {}
        tie_stats: tuple[np.ndarray, np.ndarray] | None = None
        if general:
            depth = self.depth
            truncated = depth is not None and depth < n_d
            g64 = grades.astype(np.float64, copy=False)
            ranked = rank_block(
                key, g64, ties=self.ties, query_rows=rows, self_cols=self_cols, depth=depth, seed=self.seed
            )
            merged, names = merge_cutoffs([plan.measures[i] for i in general], n_d)
            if data.metric != "hamming" or not truncated:
                tie_stats = _ranked_tie_stats(ranked, plan.cutoffs, per_query_cutoffs)
                if truncated:
                    self.tie_depth = depth
            sparse = self.ties == "expected" or 4 * np.count_nonzero(ranked.grades > 0) < len(ranked.grades)
            if sparse and len(ranked.grades) == b * n_d == len(ranked.ideal_grades) and positive_items_suffice(merged):
                # complete rows: the measures read only the relevant items (tie statistics taken above); under a
                # deterministic order the values are the same to the last bit either way, so dense blocks stay whole
                widest = max((k for m in merged for k in m.cutoffs or ()), default=0)
                ranked = positive_items(ranked, widest + 1)
            res = evaluate_ranked(ranked, merged, empty="nan")
            columns = {name: j for j, name in enumerate(res.measure_names)}
            ranked_values = {original: res.values[:, columns[name]] for original, name in names.items()}
        if data.metric == "hamming" and buckets is None and (plan.radii or tie_stats is None):
            buckets = bucket_counts(key, grades > 0, data.bits + 1, self_cols)
        if buckets is not None:
            tie_stats = bucket_tie_stats(buckets[0], plan.cutoffs, per_query_cutoffs)
        assert tie_stats is not None
        self.queries_with_ties += int(tie_stats[0].sum())
        self.queries_straddling += int(tie_stats[1].sum())
        radius_cache: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        for c, col in enumerate(plan.columns):
            if col.measure < 0:
                assert buckets is not None
                if col.radius not in radius_cache:
                    radius_cache[col.radius] = radius_values(buckets[0], buckets[1], col.radius)
                    self.empty_ball[col.radius] += int((radius_cache[col.radius][2] == 0).sum())
                precision, recall, _ = radius_cache[col.radius]
                raw[:, c] = precision if col.radius_kind == "p" else recall
            elif col.measure in blocks:
                m = plan.measures[col.measure]
                j = [str(s) for s in m.expand()].index(col.name)
                raw[:, c] = blocks[col.measure][:, j]
            else:
                raw[:, c] = ranked_values[col.name]
        return raw, counts


def _ranked_tie_stats(
    ranked: Any, cutoffs: list[int], per_query_cutoffs: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Per query of ranked lists: has a tied group; has one straddling a cutoff."""
    sizes = np.diff(ranked.group_starts)
    group_query = np.searchsorted(ranked.offsets, ranked.group_starts[:-1], side="right") - 1
    has_ties = np.zeros(ranked.n_queries, dtype=bool)
    has_ties[group_query[sizes > 1]] = True
    return has_ties, straddling_queries(ranked.offsets, ranked.group_starts, cutoffs, per_query_cutoffs)
