"""Beyond-accuracy measures in :func:`rankmeter.evaluate`: the families that read top-k lists and ``items=``.

:func:`evaluate_with_items` computes the list-reading families (``Family.reads == "lists"``) over each
user's top-k list, with the side information of :class:`rankmeter.Items`, and merges them with the
accuracy measures of the same call (computed from the qrels as usual). Per-user values average over
the users with a list in the run; list-set values (coverage, entropy, Gini, personalization) are in
``aggregate`` only, and named in ``metadata["list_set_measures"]``.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from rankmeter._version import __version__
from rankmeter.core.candidates import CandidateChoice, record
from rankmeter.core.semantics import Semantics
from rankmeter.errors import InputFormatError, PolicyError
from rankmeter.io.items import Items
from rankmeter.io.tables import Qrels, Run
from rankmeter.measures import FAMILIES, Measure
from rankmeter.measures.kernels.beyond_lists import ListsContext
from rankmeter.results import EvaluationResult


def reads_lists(measures: list[Measure]) -> list[Measure]:
    """The measures whose family reads top-k lists and ``items=`` rather than grades.

    >>> from rankmeter.measures import parse
    >>> [str(m) for m in reads_lists([parse("ndcg@10"), parse("gini@10")])]
    ['gini@10']
    """
    return [m for m in measures if FAMILIES[m.family].reads == "lists"]


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
    if items is not None and not isinstance(items, Items):
        raise InputFormatError(f"items= must be rankmeter.Items(...), got {type(items).__name__}")
    items = items or Items()
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
    mine = EvaluationResult(ctx.users, names, values, ~np.isnan(values), aggregate, meta)
    return mine if accuracy is None else _merged(accuracy, mine, order, meta)


def _merged(
    first: EvaluationResult, second: EvaluationResult, order: list[str], meta: dict[str, Any]
) -> EvaluationResult:
    """One result with the columns of both, over the union of their users (absent values not included)."""
    users = np.union1d(first.query_ids.astype(str), second.query_ids.astype(str))
    columns = [n for n in dict.fromkeys(order) if n in first.measure_names or n in second.measure_names]
    values = np.full((len(users), len(columns)), np.nan)
    included = np.zeros(values.shape, dtype=bool)
    for res in (first, second):
        rows = np.searchsorted(users, res.query_ids.astype(str))
        for j, name in enumerate(columns):
            if name in res.measure_names:
                i = res.measure_names.index(name)
                values[rows, j], included[rows, j] = res.values[:, i], res.included[:, i]
    aggregate = {n: (first.aggregate | second.aggregate)[n] for n in dict.fromkeys(order)}
    return EvaluationResult(users, columns, values, included, aggregate, meta)
