"""Beyond-accuracy measures in :func:`rankmeter.evaluate`: the families that read top-k lists and ``items=``.

:func:`evaluate_with_items` computes the list-reading families (``Family.reads == "lists"``) over each
user's top-k list, with the side information of :class:`rankmeter.Items`, and merges them with the
accuracy measures of the same call (computed from the qrels as usual). Per-user values average over
the users with a list in the run; list-set values (coverage, entropy, Gini, personalization) are in
``aggregate`` only, and named in ``metadata["list_set_measures"]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import reduce
from statistics import NormalDist
from typing import Any

import numpy as np

from rankmeter._version import __version__
from rankmeter.aggregate import note_undefined
from rankmeter.core.candidates import CandidateChoice, record
from rankmeter.core.semantics import Semantics
from rankmeter.errors import InputFormatError, PolicyError
from rankmeter.io.items import Items
from rankmeter.io.tables import Qrels, Run
from rankmeter.measures import FAMILIES, Measure
from rankmeter.measures.kernels.beyond_lists import ListsContext
from rankmeter.measures.kernels.list_sets import NOT_A_SUM, ListSetState, finish, partial
from rankmeter.results import EvaluationResult


def reads_lists(measures: list[Measure]) -> list[Measure]:
    """The measures whose family reads top-k lists and ``items=`` rather than grades.

    >>> from rankmeter.measures import parse
    >>> [str(m) for m in reads_lists([parse("ndcg@10"), parse("gini@10")])]
    ['gini@10']
    """
    return [m for m in measures if FAMILIES[m.family].reads == "lists"]


def as_items(items: Any) -> Items:
    """``items=`` checked: a :class:`rankmeter.Items` (an empty one for None).

    >>> as_items(None).describe()["given"]
    []
    """
    if items is not None and not isinstance(items, Items):
        raise InputFormatError(f"items= must be rankmeter.Items(...), got {type(items).__name__}")
    return items or Items()


def evaluate_with_items(
    qrels: Qrels | None,
    run: Run | list[Run],
    measures: list[Measure],
    items: Items | None,
    semantics: Semantics,
    choice: CandidateChoice | None,
    accuracy: EvaluationResult | None,
) -> EvaluationResult:
    """The list-reading measures of ``measures`` over ``run``'s top-k lists, merged with ``accuracy``.

    ``qrels`` (restricted by ``choice`` like the run) give relevance to the measures that read it.
    ``run`` as a list of runs: one sampled ranking per user in each (expected exposure only).

    >>> from rankmeter.io.recsys import run_from_lists
    >>> from rankmeter.measures import parse
    >>> items = Items(interactions={"x": ["a", "b", "c"]})
    >>> res = evaluate_with_items(None, run_from_lists({"u1": ["a"], "u2": ["a", "b"]}), [parse("catalog_coverage@2"),
    ...                           parse("aclt(tail_max=0)@2")], items, Semantics(ties="trec"), None, None)
    >>> round(res["catalog_coverage@2"], 4), res.by_query("aclt(tail_max=0)@2"), res.metadata["items"]["catalog"]
    (0.6667, {'u1': 0.0, 'u2': 0.0}, 3)
    """
    items = as_items(items)
    samples = run if isinstance(run, list) else [run]
    if len(samples) > 1:
        other = [str(m) for m in measures if not FAMILIES[m.family].traits.sampled_rankings]
        if other:
            raise PolicyError(
                f"{', '.join(other)}: several sampled rankings per user are read by the expected exposure "
                "measures only (ee_loss, ee_disparity, ee_relevance); evaluate each sample alone"
            )
    counts = None
    if choice is not None:
        restricted = [choice.restrict_run(s) for s in samples]
        samples, counts = [s for s, _ in restricted], restricted[0][1]
        if qrels is not None:
            qrels, qrels_counts = choice.restrict_qrels(qrels)
            counts = {**qrels_counts, **counts}
        elif choice.exclude is not None:  # no qrels to count the pairs against: the pairs themselves
            counts["exclude_pairs"] = len(choice.exclude)
    listed = reads_lists(measures)
    if not listed and accuracy is not None:  # items= given with accuracy measures only
        accuracy.metadata.update(items=items.describe(), list_set_measures=[])
        return accuracy
    k = max(max(m.cutoffs or (1,)) for m in listed)

    def lists(one: Run) -> ListsContext:
        return ListsContext.build(one, k, ties=semantics.tie_policy, seed=semantics.seed, items=items, truth=qrels)

    ctx = lists(samples[0])
    if len(samples) > 1:  # the users and items of every sample; the kernels read the samples' lists
        ctx.samples = [lists(s) for s in samples]
        ctx.users = reduce(np.union1d, [s.users for s in ctx.samples])
        ctx.universe = reduce(np.union1d, [s.universe for s in ctx.samples])
    names, columns, aggregate, list_set = [], [], {}, []
    for m in listed:
        family = FAMILIES[m.family]
        block = family.kernel(ctx, m)
        for i, single in enumerate(m.expand()):
            name = str(single)
            if family.list_set:
                aggregate[name] = float(block[i])
                list_set.append(name)
            else:
                names.append(name)
                columns.append(block[:, i])
                known = block[~np.isnan(block[:, i]), i]  # users for whom the value is undefined are left out
                aggregate[name] = float(known.mean()) if len(known) else float("nan")
    meta: dict[str, Any] = {
        "rankmeter_version": __version__,
        "ties": semantics.tie_policy,
        "semantics": semantics.as_dict(),
        "queries_evaluated": len(ctx.users),
    }
    if accuracy is not None:
        meta = dict(accuracy.metadata)
    elif choice is not None and counts is not None:
        record(meta, choice.name, counts)
    order = [str(s) for m in measures for s in m.expand()]
    meta.update(
        measures=list(dict.fromkeys(order)),
        items=items.describe(),
        users_with_lists=len(ctx.users),
        samples=len(samples),
        list_set_measures=list_set,
    )
    values = np.stack(columns, axis=1) if columns else np.zeros((len(ctx.users), 0))
    count_undefined(meta, names, values)
    mine = EvaluationResult(ctx.users, names, values, ~np.isnan(values), aggregate, meta)
    found = mine if accuracy is None else merged(accuracy, mine, order, meta)
    sets = [m for m in listed if FAMILIES[m.family].list_set]
    return replace(found, list_sets=SegmentListSets(ctx, sets)) if sets else found


@dataclass(frozen=True)
class SegmentListSets:
    """The list-set values of each segment's lists: each list-set measure over the lists of its users alone.

    A segment's catalogue coverage is the share of the whole catalogue its users' lists cover, its Gini
    index is over the whole catalogue, its personalization compares its users' lists pair by pair.
    Called by :func:`rankmeter.segments.grouped_result` as ``(segments, member, query_ids)``: the
    segment labels, the segment index of each query (-1: none) and the query ids.

    >>> from rankmeter.io.recsys import run_from_lists
    >>> from rankmeter.measures import parse
    >>> run = run_from_lists({"u1": ["a"], "u2": ["b"], "u3": ["a"]})
    >>> ctx = ListsContext.build(run, 1, items=Items(catalog="abcd"))
    >>> values, lists = SegmentListSets(ctx, [parse("catalog_coverage@1")])(["x", "y"], np.array([0, 0, 1]),
    ...                                                                      np.array(["u1", "u2", "u3"]))
    >>> values["catalog_coverage@1"].tolist(), lists.tolist()
    ([0.5, 0.25], [2, 1])
    """

    ctx: ListsContext
    measures: list[Measure]

    def __call__(
        self, segments: list[Any], member: np.ndarray, query_ids: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        code = dict(zip(query_ids.astype(str).tolist(), member.tolist(), strict=True))
        of_user = np.array([code.get(u, -1) for u in self.ctx.users.tolist()], dtype=np.int64)
        names = [str(single) for m in self.measures for single in m.expand()]
        values = {name: np.full(len(segments), np.nan) for name in names}
        for s in range(len(segments)):
            rows = np.flatnonzero(of_user == s)
            if not len(rows):
                continue
            sub = self.ctx.subset(rows)
            for m in self.measures:
                block = FAMILIES[m.family].kernel(sub, m)
                for i, single in enumerate(m.expand()):
                    values[str(single)][s] = float(block[i])
        return values, np.bincount(of_user[of_user >= 0], minlength=len(segments)).astype(np.int64)


def count_undefined(meta: dict[str, Any], names: list[str], values: np.ndarray) -> None:
    """Add to ``meta["queries_undefined"]`` the users per measure whose value is undefined (NaN, left out of the mean).

    A list-reading value has no empty-query policy: every NaN is counted (ms_serendipity of a user without
    training items, pop_recall of a user without relevant items); measures without one are not listed.

    >>> meta = {"queries_undefined": {"mean_rank": 1}}
    >>> count_undefined(meta, ["ms_serendipity@2", "novelty@2"], np.array([[np.nan, 1.0], [0.5, 2.0]]))
    >>> meta["queries_undefined"]
    {'mean_rank': 1, 'ms_serendipity@2': 1}
    """
    undefined = dict(meta.get("queries_undefined", {}))
    for j, name in enumerate(names):
        note_undefined(undefined, name, values[:, j], np.zeros(len(values), dtype=bool))
    meta["queries_undefined"] = undefined


def merged(
    first: EvaluationResult, second: EvaluationResult, order: list[str], meta: dict[str, Any], *, sort: bool = True
) -> EvaluationResult:
    """One result with the columns of both, over the union of their users (absent values not included).

    ``sort``: the users sorted by their text; otherwise ``first``'s users in their order, then the others.
    """
    first_ids, second_ids = first.query_ids.astype(str), second.query_ids.astype(str)
    if sort:
        users = np.union1d(first_ids, second_ids)
        ids = users
    else:
        ids = np.concatenate([first_ids, np.setdiff1d(second_ids, first_ids)])
        users = first.query_ids if len(ids) == len(first_ids) else ids
    at = {q: i for i, q in enumerate(ids.tolist())}
    columns = [n for n in dict.fromkeys(order) if n in first.measure_names or n in second.measure_names]
    values = np.full((len(users), len(columns)), np.nan)
    included = np.zeros(values.shape, dtype=bool)
    for res, text in ((first, first_ids), (second, second_ids)):
        rows = np.array([at[q] for q in text.tolist()], dtype=np.int64)
        for j, name in enumerate(columns):
            if name in res.measure_names:
                i = res.measure_names.index(name)
                values[rows, j], included[rows, j] = res.values[:, i], res.included[:, i]
    aggregate = {n: (first.aggregate | second.aggregate)[n] for n in dict.fromkeys(order)}
    return EvaluationResult(users, columns, values, included, aggregate, meta)


@dataclass
class ListsPartial:
    """What one partition of a distributed call knows of the list-reading measures of its users.

    Attributes
    ----------
    per_user : EvaluationResult or None
        The per-user measures of the partition's users.
    states : dict
        ``{measure: {key: ListSetState}}``: the list-set measures' partial state of the partition's lists
        (key :data:`ALL_LISTS`) and of each segment's lists there (key: the segment label).
    lists : dict
        ``{key: users with a list}``, over the same keys.
    """

    per_user: EvaluationResult | None = None
    states: dict[str, dict[Any, ListSetState]] = field(default_factory=dict)
    lists: dict[Any, int] = field(default_factory=dict)


ALL_LISTS = ("<all lists>",)
"""The key of the state of all of a partition's lists (a segment label is never this tuple)."""


def check_distributed(measures: list[Measure], semantics: Semantics) -> None:
    """A PolicyError for a list-reading measure whose value does not come from per-partition states."""
    listed = reads_lists(measures)
    if not listed:
        return
    if semantics.tie_policy == "shuffle":
        raise PolicyError(
            f"{listed[0]}: ties='shuffle' orders the top-k lists by a draw over each partition's rows, so the "
            "lists would depend on the partitioning; use ties='trec' or 'stable'"
        )
    for m in listed:
        if m.family == "personalization" and m.param("metric", "cosine") != "cosine":
            raise PolicyError(f"{m}: {NOT_A_SUM}")


def lists_partial(
    qrels: Qrels, run: Run, measures: list[Measure], items: Items, semantics: Semantics, segments: dict[str, Any] | None
) -> ListsPartial:
    """The per-user values and the list-set states of one partition (whole users), per segment with ``segments``."""
    out = ListsPartial()
    if not len(run):
        return out
    per_user = [m for m in measures if not FAMILIES[m.family].list_set]
    sets = [m for m in measures if FAMILIES[m.family].list_set]
    if per_user:
        out.per_user = evaluate_with_items(qrels, run, per_user, items, semantics, None, None)
    if not sets:
        return out
    k = max(max(m.cutoffs or (1,)) for m in sets)
    ctx = ListsContext.build(run, k, ties=semantics.tie_policy, seed=semantics.seed, items=items, truth=qrels)
    parts: dict[Any, ListsContext] = {ALL_LISTS: ctx}
    if segments is not None:
        labels = [segments.get(u) for u in ctx.users.tolist()]
        for label in dict.fromkeys(labels):
            parts[label] = ctx.subset(np.array([i for i, x in enumerate(labels) if x == label], dtype=np.int64))
    out.lists = {key: len(part.users) for key, part in parts.items()}
    for m in sets:
        for single in m.expand():
            cutoff = (single.cutoffs or (1,))[0]
            out.states[str(single)] = {key: partial(part, single, cutoff) for key, part in parts.items()}
    return out


def combine_lists(
    accuracy: EvaluationResult, partials: list[ListsPartial], measures: list[Measure], items: Items
) -> EvaluationResult:
    """The result of a distributed call: ``accuracy`` (the other measures) with the list-reading measures merged in."""
    per_user = [m for m in measures if not FAMILIES[m.family].list_set]
    names = [str(s) for m in per_user for s in m.expand()]
    found = [p.per_user for p in partials if p.per_user is not None]
    ids = np.concatenate([r.query_ids for r in found]) if found else np.zeros(0, dtype=str)
    values = np.concatenate([r.values for r in found]) if found else np.zeros((0, len(names)))
    order = np.argsort(ids, kind="stable")
    ids, values = ids[order], values[order]
    aggregate = {}
    for j, name in enumerate(names):
        known = values[~np.isnan(values[:, j]), j]
        aggregate[name] = float(known.mean()) if len(known) else float("nan")
    states: dict[str, dict[Any, list[ListSetState]]] = {}
    lists: dict[Any, int] = {}
    for p in partials:
        for name, by_key in p.states.items():
            for key, state in by_key.items():
                states.setdefault(name, {}).setdefault(key, []).append(state)
        for key, n in p.lists.items():
            lists[key] = lists.get(key, 0) + n
    single = {str(s): s for m in measures for s in m.expand()}
    merged_states = {name: {key: ListSetState.merged(v) for key, v in of.items()} for name, of in states.items()}
    sets = [str(s) for m in measures if FAMILIES[m.family].list_set for s in m.expand()]
    for name in sets:
        state = merged_states.get(name, {}).get(ALL_LISTS, ListSetState.merged([]))
        aggregate[name] = finish(state, single[name], items)
    order_names = [str(s) for m in measures for s in m.expand()]
    meta = dict(accuracy.metadata)
    meta.update(
        measures=list(dict.fromkeys([*accuracy.measure_names, *order_names])),
        items=items.describe(),
        users_with_lists=lists.get(ALL_LISTS, len(ids)),
        samples=1,
        list_set_measures=sets,
    )
    count_undefined(meta, names, values)
    mine = EvaluationResult(ids, names, values, ~np.isnan(values), aggregate, meta)
    everything = [*accuracy.measure_names, *order_names]
    result = merged(accuracy, mine, everything, meta) if accuracy.measure_names else replace(mine)
    if not sets:
        return result
    by_segment = {
        name: {key: finish(s, single[name], items) for key, s in by_key.items() if key != ALL_LISTS}
        for name, by_key in merged_states.items()
    }
    return replace(result, list_sets=StateListSets(by_segment, lists))


@dataclass(frozen=True)
class StateListSets:
    """List-set values of each segment merged from the partitions' states (``list_sets`` of a distributed result)."""

    values: dict[str, dict[Any, float]]
    lists: dict[Any, int]

    def __call__(
        self, segments: list[Any], member: np.ndarray, query_ids: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        values = {
            name: np.array([by_label.get(label, float("nan")) for label in segments])
            for name, by_label in self.values.items()
        }
        return values, np.array([self.lists.get(label, 0) for label in segments], dtype=np.int64)


INTERVAL_METHODS = ("jackknife", "bootstrap")
"""The methods of :func:`list_set_intervals`."""


def list_set_intervals(
    result: EvaluationResult,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    method: str = "jackknife",
) -> list[dict[str, Any]]:
    r"""Intervals of a result's list-set values, over all users and within each segment.

    A list-set value T (coverage, entropy, Gini, personalization, ...) of n users' lists estimates
    :math:`\theta_n = \mathbb{E}[T]`, the value of the lists of n users drawn from the same population;
    :math:`\theta_n` depends on n (n users cover more items than n / 2 users), so the intervals are for
    the value at the number of lists the result has.

    ``method="jackknife"`` (default): the delete-d jackknife of Shao & Wu (1989, "A general theory for
    jackknife variance estimation", *Annals of Statistics* 17(3)), which holds for statistics that are
    not smooth functions of means, with d = max(1, ⌊n / 4⌋) and the subsets drawn at random
    (``n_resamples`` of them, without replacement within each). With :math:`T_s` the value of the
    lists of the n - d users a subset keeps,

    .. math::

        v = \frac{n - d}{d}\, \widehat{\operatorname{Var}}_s(T_s), \qquad
        T \pm z_{(1 + \text{level}) / 2} \sqrt{v}

    centred on the value itself, and bounded to the range the measure's values lie in by its formula
    (``Traits.value_range``: coverage, Gini, personalization and the exposure ratio in [0, 1], the
    entropies, MS novelty and the exposure difference >= 0). No user is repeated in a subset, so a
    subset's lists are lists of distinct users, as the evaluated ones are.

    ``method="bootstrap"``: the percentile bootstrap over users (each resample draws n users with
    replacement; a user drawn twice brings its list twice; the interval is the ``(1 - level) / 2`` and
    ``(1 + level) / 2`` quantiles). A resample holds about 0.63 n distinct users and covers fewer items
    than the evaluated lists, so its intervals of coverage and Gini lie at or below the value: they show
    the spread, not where :math:`\theta_n` lies.

    The draws come from ``numpy.random.default_rng(seed)``, one stream per segment in the order of the rows.

    Parameters
    ----------
    result : EvaluationResult
        From :func:`rankmeter.evaluate` (or ``evaluate_arrays`` / ``evaluate_embeddings``) with
        list-set measures, in this process (the lists are kept with it); with ``group_by=``, each
        segment too.
    n_resamples : int, default 1000
        Subsets (jackknife) or resamples (bootstrap).
    level : float, default 0.95
    seed : int, default 0
    method : {"jackknife", "bootstrap"}, default "jackknife"

    Returns
    -------
    list of dict
        Rows ``{"segment", "measure", "value", "ci_low", "ci_high", "n_lists", "method"}``; ``segment``
        is ``"all"`` for all users. The jackknife's bounds are NaN with fewer than two lists.

    Examples
    --------
    >>> import rankmeter
    >>> res = rankmeter.evaluate(None, {"u1": ["a"], "u2": ["b"], "u3": ["a"], "u4": ["c"]}, "catalog_coverage@1",
    ...                          items=Items(catalog="abcd"))
    >>> row = list_set_intervals(res, n_resamples=200)[0]  # 3 of the 4 users: coverage 3/4 (twice) or 2/4
    >>> row["value"], round(row["ci_low"], 3), row["ci_high"], row["method"]  # 0.75 + 0.425 bounded to 1
    (0.75, 0.325, 1.0, 'jackknife')
    """
    hook = result.list_sets
    if not isinstance(hook, SegmentListSets):
        raise PolicyError(
            "list_set_intervals: this result holds no lists to resample (it has no list-set measure, or it was "
            "computed across partitions); evaluate the lists in this process with items="
        )
    if not 0 < level < 1:
        raise PolicyError(f"list_set_intervals: level must be in (0, 1), got {level!r}")
    if method not in INTERVAL_METHODS:
        raise PolicyError(f"list_set_intervals: method must be one of {INTERVAL_METHODS}, got {method!r}")
    users = hook.ctx.users.tolist()
    keys: list[tuple[Any, np.ndarray]] = [("all", np.arange(len(users)))]
    if result.groups is not None:
        code = dict(zip(result.query_ids.astype(str).tolist(), result.groups.member.tolist(), strict=True))
        member = np.array([code.get(u, -1) for u in users], dtype=np.int64)
        keys += [(label, np.flatnonzero(member == s)) for s, label in enumerate(result.groups.segments)]
    rng = np.random.default_rng(seed)
    names = [str(s) for m in hook.measures for s in m.expand()]
    span = {
        str(s): FAMILIES[m.family].traits.value_range or (-np.inf, np.inf) for m in hook.measures for s in m.expand()
    }
    rows = []
    for label, at in keys:
        n = len(at)
        enough = n > 1 or (n == 1 and method == "bootstrap")  # the jackknife needs two lists to leave one out
        draws = _resampled(hook, at, n_resamples if enough else 0, method, rng)
        for name in names:
            value = result.aggregate[name] if label == "all" else result.by_group(name)[label]
            bounds = np.clip(_bounds(np.asarray(draws.get(name, [])), value, n, level, method), *span[name])
            low, high = float(bounds[0]), float(bounds[1])
            rows.append({"segment": label, "measure": name, "value": value, "ci_low": low, "ci_high": high,
                         "n_lists": n, "method": method})  # fmt: skip
    return rows


def _resampled(
    hook: SegmentListSets, at: np.ndarray, times: int, method: str, rng: np.random.Generator
) -> dict[str, list[float]]:
    """Each list-set measure over ``times`` subsets (jackknife) or resamples (bootstrap) of the users ``at``."""
    n = len(at)
    keep = n - max(1, n // 4)
    draws: dict[str, list[float]] = {}
    for _ in range(times):
        rows = at[rng.permutation(n)[:keep]] if method == "jackknife" else at[rng.integers(0, n, n)]
        sub = hook.ctx.subset(rows)
        for m in hook.measures:
            block = FAMILIES[m.family].kernel(sub, m)
            for i, single in enumerate(m.expand()):
                draws.setdefault(str(single), []).append(float(block[i]))
    return draws


def _bounds(draws: np.ndarray, value: float, n: int, level: float, method: str) -> tuple[float, float]:
    """The interval of ``value`` from its subsets' or resamples' values ``draws`` (NaN where there are too few).

    >>> [round(b, 4) for b in _bounds(np.array([0.0, 1.0, 0.0, 1.0]), 0.5, 4, 0.95, "jackknife")]  # v = 3 * 1/3
    [-1.46, 2.46]
    """
    known = draws[~np.isnan(draws)]
    if method == "bootstrap" and len(known):
        low, high = np.quantile(known, [(1 - level) / 2, (1 + level) / 2])
        return float(low), float(high)
    if method == "bootstrap" or len(known) < 2:
        return float("nan"), float("nan")
    d = max(1, n // 4)
    half = NormalDist().inv_cdf((1 + level) / 2) * float(np.sqrt((n - d) / d * np.var(known, ddof=1)))
    return value - half, value + half
