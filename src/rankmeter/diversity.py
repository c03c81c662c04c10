"""Diversity evaluation: :func:`evaluate_diversity` over intent (subtopic) qrels and a run.

The measures (alpha-nDCG, ERR-IA, NRBP, precision-IA, subtopic recall,
MAP-IA, nDCG-IA) are those of NIST's ``ndeval``, with its conventions by
default (see :mod:`rankmeter.measures.kernels.diversity` for the formulas and
``docs/diversity.md``). :func:`rankmeter.evaluate` hands a call whose
measures are all diversity measures to this function.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter._version import __version__
from rankmeter.aggregate import aggregate_column, apply_empty_policy, check_empty_policy
from rankmeter.core.intents import IntentLists, align_intents
from rankmeter.core.options import ColumnKeywords, EvaluationOptions, option_names, split_keywords
from rankmeter.core.semantics import Semantics
from rankmeter.errors import MeasureSyntaxError
from rankmeter.io.intents import as_intent_qrels
from rankmeter.io.load import as_run
from rankmeter.measures import FAMILIES, Measure
from rankmeter.measures.kernels.diversity import IntentContext, ideal_depth
from rankmeter.pipeline import MeasuresArg, alignment_metadata, parse_measures
from rankmeter.results import EvaluationResult

if TYPE_CHECKING:
    from typing_extensions import Unpack


def is_diversity(measure: Measure) -> bool:
    """Whether a measure needs intent qrels.

    >>> from rankmeter.measures import parse
    >>> is_diversity(parse("alpha_nDCG@20")), is_diversity(parse("ndcg@20"))
    (True, False)
    """
    return FAMILIES[measure.family].reads == "intents"


def evaluate_intent_lists(
    lists: IntentLists, measures: list[Measure], *, empty: str = "zero", metadata: Mapping[str, Any] | None = None
) -> EvaluationResult:
    """Every measure over aligned intent lists, with the empty-query policy applied and the means taken.

    A query is empty for a measure when no intent has a relevant document
    (at its ``min_rel``).
    """
    check_empty_policy(empty)
    ctx = IntentContext(lists, ideal_depth(measures))
    names: list[str] = []
    columns: list[np.ndarray] = []
    included: list[np.ndarray] = []
    aggregate: dict[str, float] = {}
    for m in measures:
        family = FAMILIES[m.family]
        block = family.kernel(ctx, m)
        no_intent = ctx.n_intents(m.param("min_rel")) == 0
        for single, col in zip(m.expand(), block.T, strict=True):
            name = str(single)
            if name in aggregate:
                continue
            values, inc = apply_empty_policy(
                col, no_intent | np.isnan(col), empty, is_count=False, query_ids=lists.query_ids, measure_name=name
            )
            names.append(name)
            columns.append(values)
            included.append(inc)
            aggregate[name] = aggregate_column(values, inc, kind=family.aggregate)
    n_q = lists.n_queries
    meta: dict[str, Any] = {
        "rankmeter_version": __version__,
        "measures": names,
        "ties": lists.ties,
        "empty": empty,
        "queries_evaluated": n_q,
        "queries_empty": int((ctx.n_intents(None) == 0).sum()),
        "intents": len(lists.intent_ids),
        "intent_weights": "uniform" if lists.intent_weights is None else "table",
    }
    meta.update(metadata or {})
    values = np.stack(columns, axis=1) if columns else np.zeros((n_q, 0))
    inc = np.stack(included, axis=1) if included else np.zeros((n_q, 0), dtype=bool)
    return EvaluationResult(lists.query_ids, names, values, inc, aggregate, meta)


def evaluate_diversity(
    qrels: Any,
    run: Any,
    measures: MeasuresArg,
    *,
    intent_weights: Mapping[str, Mapping[str, float]] | Any = None,
    semantics: Semantics | None = None,
    options: EvaluationOptions | None = None,
    **keywords: Unpack[ColumnKeywords],
) -> EvaluationResult:
    """Evaluate a run against intent (subtopic) qrels with diversity measures.

    Parameters
    ----------
    qrels : path, table, dict or IntentQrels
        ``query intent docno grade`` lines (NIST ndeval's and the TREC Web
        track's format), a table with an ``intent`` (or ``subtopic``,
        ``iteration``) column, or ``{query: {intent: {doc: grade}}}``.
    run : path, table, dict or Run
        As for :func:`rankmeter.evaluate`.
    measures : str, Measure or list of them
        Diversity measures: ``alpha_ndcg@k``, ``alpha_dcg@k``, ``err_ia@k``,
        ``nerr_ia@k``, ``nrbp``, ``nnrbp``, ``map_ia``, ``p_ia@k``,
        ``strec@k``, ``ndcg_ia@k`` (ir_measures' names too: ``alpha_nDCG@20``).
    intent_weights : dict or table, optional
        ``{query: {intent: weight}}``, or a pandas / polars / pyarrow table
        with ``query_id``, ``intent`` (or ``subtopic``...) and ``weight``
        columns; normalised per query over the intents with a relevant
        document; uniform when omitted (ndeval).
    semantics : Semantics, optional
        :class:`rankmeter.Semantics` (``ties`` one of ``trec`` -- ndeval's
        ``-traditional`` order, the default --, ``stable``, ``shuffle``;
        ``empty``, ``missing``, ``duplicates``, ``depth``, ``judged_only``).
    options : EvaluationOptions, optional
        Of :class:`rankmeter.EvaluationOptions`, ``qrels_columns`` and
        ``run_columns`` apply: the column of each role for tables
        (``{"intent": "subtopic"}``).
    **keywords
        Fields of :class:`~rankmeter.Semantics` and of those options given
        one by one, as for :func:`rankmeter.evaluate`.

    Returns
    -------
    EvaluationResult

    Examples
    --------
    >>> qrels = {"q1": {"1": {"d1": 1, "d2": 1}, "2": {"d3": 1}}}
    >>> run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> res = evaluate_diversity(qrels, run, ["alpha_ndcg@3", "strec@[1,2,3]"])
    >>> round(res["alpha_ndcg@3"], 6), res["strec@1"], res["strec@3"]
    (0.965195, 0.5, 1.0)
    """
    opts, semantic_keywords = split_keywords("evaluate_diversity", options, keywords, option_names(ColumnKeywords))
    sem = Semantics.build(semantics, "qrels", **semantic_keywords)
    qrels_columns, run_columns = opts.qrels_columns, opts.run_columns
    parsed = parse_measures(measures)
    other = [str(m) for m in parsed if not is_diversity(m)]
    if other:
        raise MeasureSyntaxError(
            f"evaluate_diversity computes diversity measures only; {', '.join(other)} "
            "need ordinary qrels: use rankmeter.evaluate"
        )
    q = as_intent_qrels(qrels, qrels_columns)
    r = as_run(run, run_columns)
    lists, info = align_intents(q, r, sem, intent_weights=intent_weights)
    extra = alignment_metadata(info, sem, q.source, r.source, r.name, run_columns=r.columns)
    return evaluate_intent_lists(lists, parsed, empty=sem.empty, metadata=extra)
