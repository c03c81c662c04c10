"""Compare several systems: per-system means with CIs, paired tests against a baseline, corrections.

:func:`compare` evaluates runs with :func:`rankmeter.by_ids.evaluate`;
:func:`compare_per_query` does all the statistics on per-query values that
were computed elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter.core.options import EvaluationOptions
from rankmeter.core.semantics import FIELDS as SEMANTICS_FIELDS
from rankmeter.core.semantics import Semantics
from rankmeter.errors import InputFormatError, PolicyError
from rankmeter.results import segment_text
from rankmeter.segments import SegmentMap, group_values, segment_map
from rankmeter.stats._types import TestResult
from rankmeter.stats.bootstrap import mean_ci
from rankmeter.stats.comparison import Comparison, PairRow, SegmentComparison, SystemRow
from rankmeter.stats.corrections import adjust
from rankmeter.stats.effects import cohens_dz, mean_difference, wins_ties_losses
from rankmeter.stats.options import ALL_PAIRS_TESTS, ComparisonKeywords, ComparisonOptions, comparison_options
from rankmeter.stats.paired import PAIRED_TESTS, paired_test
from rankmeter.stats.pairing import Aligned, PerQuery, align_queries
from rankmeter.stats.tukey import randomized_tukey_hsd, tukey_hsd

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from rankmeter.results import EvaluationResult

#: Tests whose p-value is a Monte Carlo estimate.
RESAMPLING_TESTS = ("randomization", "bootstrap", "randomized-tukey")


def _pair_tests(aligned: Aligned, order: list[str], opts: ComparisonOptions) -> list[tuple[str, str, str, TestResult]]:
    """``(measure, baseline, system, result)`` for every tested pair, measure by measure."""
    out = []
    for j, measure in enumerate(aligned.measure_names):
        if opts.test in PAIRED_TESTS:
            base = order[0]
            for name in order[1:]:
                res = paired_test(
                    aligned.scores[base][:, j],
                    aligned.scores[name][:, j],
                    opts.test,
                    n_resamples=opts.n_resamples,
                    seed=opts.seed,
                )
                out.append((measure, base, name, res))
            continue
        matrix = np.column_stack([aligned.scores[name][:, j] for name in order])
        if opts.test == "tukey":
            tk = tukey_hsd(matrix)
        else:
            tk = randomized_tukey_hsd(matrix, n_resamples=opts.n_resamples, seed=opts.seed)
        n = matrix.shape[0]
        for i in range(len(order)):
            for k in range(i + 1, len(order)):
                p = float(tk.p_value[i, k])
                se = None if tk.mc_error is None else float(tk.mc_error[i, k])
                res = TestResult(tk.test, float(tk.statistic[k, i]), p, n, tk.n_resamples, se)
                out.append((measure, order[i], order[k], res))
    return out


def compare_per_query(
    per_query: Mapping[str, PerQuery],
    *,
    options: ComparisonOptions | None = None,
    group_by: Any = None,
    **keywords: Unpack[ComparisonKeywords],
) -> Comparison:
    """Compare systems from their per-query values (the work behind :func:`compare`).

    For every system and measure, the mean over queries and its bootstrap
    confidence interval (:func:`rankmeter.stats.bootstrap.mean_ci`). For every
    measure and every system other than the baseline, a paired test of
    ``system`` against ``baseline`` on the aligned per-query values, the mean
    difference :math:`\\bar d`, Cohen's :math:`d_z = \\bar d / s_d` and
    wins / ties / losses. The p-values of all (system x measure) pairs form one
    family for the multiple-testing ``correction``; a pair is significant when
    its adjusted p-value is ``< alpha``.

    With ``test="tukey"`` or ``"randomized-tukey"`` every pair of systems is
    tested (the baseline first, then the other systems in the given order);
    those p-values are already adjusted over the system pairs of a measure, so
    ``correction`` is not applied again (``p_adjusted == p_value``;
    ``metadata["correction"]`` is ``"none"`` and a note says why).

    Every resampling step (CIs, randomization, bootstrap and randomized Tukey
    tests) is seeded with the same ``seed`` (common random numbers): the result
    for a pair equals the stand-alone test with that seed and does not change
    when other systems are added.

    Parameters
    ----------
    per_query : mapping
        System name -> ``(query_ids, measure_names, values)`` with ``values``
        of shape (n_queries, n_measures). At least two systems; insertion order
        is the display order.
    options : ComparisonOptions, optional
        The baseline, test, correction, alpha, resamples, seed, confidence
        level and method, and query-set policy as one value
        (:class:`rankmeter.ComparisonOptions`, which says what each does).
    group_by : mapping, table, path or GroupBy, optional
        The segment of each query (any form of :mod:`rankmeter.segments`
        but a column name). Each segment then gets its own means, CIs and
        paired tests on its queries alone (:attr:`Comparison.groups`); the
        p-values of all (segment x system x measure) pairs form one family
        for ``correction``, apart from the overall family.
    **keywords
        The fields of :class:`~rankmeter.ComparisonOptions` one by one
        (``test=``, ``seed=``, ...); a field also set in ``options`` must have
        the same value there.

    Returns
    -------
    Comparison

    Raises
    ------
    rankmeter.errors.PolicyError
        Unknown option, unknown baseline, or different query sets under ``"error"``.
    rankmeter.errors.InputFormatError
        Fewer than two systems, mismatched measures, or non-finite values.

    Examples
    --------
    >>> qids = ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"]
    >>> bm25 = (qids, ["ndcg@10"], [[0.31], [0.45], [0.22], [0.60], [0.38], [0.27], [0.5], [0.1]])
    >>> rerank = (qids, ["ndcg@10"], [[0.40], [0.52], [0.25], [0.66], [0.37], [0.35], [0.5], [0.2]])
    >>> cmp = compare_per_query({"bm25": bm25, "rerank": rerank}, test="randomization", seed=1)
    >>> row = cmp.pairs[0]
    >>> row.system, round(row.mean_difference, 4), (row.wins, row.ties, row.losses)
    ('rerank', 0.0525, (6, 1, 1))
    >>> row.p_value < 0.05, row.significant
    (True, True)
    """
    opts = comparison_options("compare_per_query", options, dict(keywords)).seeded()
    baseline = opts.baseline
    names = list(per_query)
    if len(names) < 2:
        raise InputFormatError(f"compare needs at least 2 systems, got {len(names)}")
    base = names[0] if baseline is None else baseline
    if base not in per_query:
        raise PolicyError(f"baseline {base!r} is not one of the systems: {', '.join(map(repr, names))}")
    aligned = align_queries(per_query, opts.query_sets)
    segments = None if group_by is None else segment_map(group_by)  # before the (possibly slow) statistics
    order = [base] + [n for n in names if n != base]
    part = _Part.of(aligned, names, order, opts)
    effective_correction = opts.correction or "none"  # canonical: never None
    notes: list[str] = list(part.notes)
    if opts.test in ALL_PAIRS_TESTS:
        if opts.correction != "none":
            notes.append(
                f"{opts.test} p-values are already adjusted over all system pairs of a measure; "
                f"correction {opts.correction!r} was not applied on top"
            )
        effective_correction = "none"
    pairs, mc_errors = part.rows(_adjusted(part.raw, effective_correction), opts)
    notes += [note for row in part.tested for note in _test_note(row)]

    metadata: dict[str, Any] = {
        "test": opts.test,
        "correction": effective_correction,
        "correction_requested": opts.correction,
        "family_size": int(np.count_nonzero(~np.isnan(part.raw))),
        "alpha": opts.alpha,
        "significance": "p_adjusted < alpha",
        "n_resamples": opts.n_resamples,
        "seed": opts.seed,
        "ci_level": opts.ci,
        "ci_method": opts.ci_method,
        "baseline": base,
        "systems": names,
        "measures": list(aligned.measure_names),
        "query_sets": opts.query_sets,
        "queries": {
            "compared": int(aligned.query_ids.size),
            "per_system": dict(aligned.original_counts),
            "dropped": dict(aligned.dropped),
        },
        "monte_carlo_se": mc_errors,
        "notes": notes,
    }
    groups = None if segments is None else _segment_comparisons(aligned, segments, names, order, opts, metadata)
    return Comparison(
        systems=part.systems,
        pairs=pairs,
        metadata=metadata,
        query_ids=aligned.query_ids,
        per_query=dict(aligned.scores),
        groups=groups,
    )


def _adjusted(raw: np.ndarray, correction: str) -> np.ndarray:
    return raw.copy() if correction == "none" else adjust(raw, correction)


def _test_note(row: tuple[str, str, str, TestResult]) -> list[str]:
    measure, b_name, s_name, res = row
    return [f"{res.test} test of {s_name} vs {b_name} on {measure}: {res.note}"] if res.note else []


@dataclass(frozen=True)
class _Part:
    """The statistics of one set of aligned queries (all of them, or one segment's) before any correction."""

    aligned: Aligned
    systems: list[SystemRow]
    tested: list[tuple[str, str, str, TestResult]]
    raw: np.ndarray
    notes: list[str]

    @classmethod
    def of(
        cls, aligned: Aligned, names: list[str], order: list[str], opts: ComparisonOptions, label: str = ""
    ) -> _Part:
        systems = []
        notes = []
        for name in names:
            for j, measure in enumerate(aligned.measure_names):
                interval = mean_ci(
                    aligned.scores[name][:, j],
                    level=opts.ci,
                    method=opts.ci_method,
                    n_resamples=opts.n_resamples,
                    seed=opts.seed,
                )
                if interval.note:
                    notes.append(f"CI of {name} / {measure}{label}: {interval.note}")
                systems.append(SystemRow(name, measure, interval.estimate, interval.low, interval.high))
        n = aligned.query_ids.size
        tested = _pair_tests(aligned, order, opts) if n >= (2 if opts.test in ALL_PAIRS_TESTS else 1) else []
        if not tested:
            notes.append(f"no {opts.test} test{label}: {n} queries")
        raw = np.array([res.p_value for *_, res in tested], dtype=np.float64)
        return cls(aligned, systems, tested, raw, notes)

    def rows(self, adjusted: np.ndarray, opts: ComparisonOptions) -> tuple[list[PairRow], list[dict[str, Any]]]:
        """The pair rows, with their adjusted p-values, and the Monte Carlo errors of resampled p-values."""
        pairs = []
        mc_errors = []
        measures = self.aligned.measure_names
        for (measure, b_name, s_name, res), p_adj in zip(self.tested, adjusted, strict=True):
            j = measures.index(measure)
            a_vals, b_vals = self.aligned.scores[b_name][:, j], self.aligned.scores[s_name][:, j]
            delta = mean_difference(a_vals, b_vals)
            wtl = wins_ties_losses(a_vals, b_vals)
            if res.mc_error is not None:
                mc_errors.append(
                    {"measure": measure, "baseline": b_name, "system": s_name, "p_value": res.p_value,
                     "se": res.mc_error}
                )  # fmt: skip
            pairs.append(
                PairRow(
                    measure=measure,
                    baseline=b_name,
                    system=s_name,
                    test=res.test,
                    statistic=res.statistic,
                    p_value=res.p_value,
                    p_adjusted=float(p_adj),
                    effect_size=delta,
                    wins=wtl.wins,
                    ties=wtl.ties,
                    losses=wtl.losses,
                    effect_size_standardized=cohens_dz(a_vals, b_vals),
                    mean_difference=delta,
                    significant=bool(p_adj < opts.alpha),
                    p_value_mc_se=res.mc_error,
                    note=res.note,
                )
            )
        return pairs, mc_errors


def _segment_comparisons(
    aligned: Aligned,
    segments: SegmentMap,
    names: list[str],
    order: list[str],
    opts: ComparisonOptions,
    metadata: dict[str, Any],
) -> list[SegmentComparison]:
    """Means, CIs and paired tests within each segment; one correction over segments x systems x measures.

    Adds ``metadata["groups"]`` (the family corrected, its size, queries per segment).
    """
    member = group_values(
        aligned.query_ids, np.zeros((aligned.query_ids.size, 0)), np.zeros((aligned.query_ids.size, 0), dtype=bool),
        [], segments,
    )  # fmt: skip
    parts = []
    for s, label in enumerate(member.segments):
        rows = np.flatnonzero(member.member == s)
        subset = Aligned(
            aligned.query_ids[rows],
            aligned.measure_names,
            {name: values[rows] for name, values in aligned.scores.items()},
            {name: int(rows.size) for name in aligned.scores},
            {name: 0 for name in aligned.scores},
        )
        parts.append(_Part.of(subset, names, order, opts, f" in segment {segment_text(label)}"))
    correction = "none" if opts.test in ALL_PAIRS_TESTS else (opts.correction or "none")
    raw = np.concatenate([p.raw for p in parts]) if parts else np.zeros(0)
    adjusted = _adjusted(raw, correction)
    out = []
    at = 0
    for label, part in zip(member.segments, parts, strict=True):
        pairs, mc_errors = part.rows(adjusted[at : at + part.raw.size], opts)
        at += part.raw.size
        notes = part.notes + [note for row in part.tested for note in _test_note(row)]
        out.append(SegmentComparison(label, int(part.aligned.query_ids.size), part.systems, pairs, mc_errors, notes))
    metadata["groups"] = {
        **member.metadata,
        "correction": correction,
        "family": "segments x systems x measures",
        "family_size": int(np.count_nonzero(~np.isnan(raw))),
    }
    return out


def compare(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: str | Sequence[str],
    *,
    semantics: Semantics | None = None,
    evaluate_options: EvaluationOptions | Mapping[str, Any] | None = None,
    options: ComparisonOptions | None = None,
    group_by: Any = None,
    **keywords: Unpack[ComparisonKeywords],
) -> Comparison:
    """Evaluate several runs and compare them with significance tests.

    Each run is evaluated with :func:`rankmeter.evaluate` on
    ``qrels`` and ``measures``; the per-query values then go to
    :func:`compare_per_query`, which documents the statistics and every
    keyword argument.

    Parameters
    ----------
    qrels : path or Qrels
        Relevance judgments, as accepted by :func:`rankmeter.evaluate`.
    runs : mapping
        System name -> run (path or Run). At least two; the first is the
        default baseline.
    measures : str or sequence of str
        Measure names, e.g. ``["ndcg@10", "map"]``.
    semantics : Semantics, optional
        How every run is evaluated (:class:`rankmeter.Semantics`: ties,
        empty and missing queries, ...), the same for all runs and recorded
        in each evaluation's metadata. Paired tests need a value for every
        query, so ``empty="skip"`` / ``"nan"`` make queries without relevant
        documents an error here.
    evaluate_options : EvaluationOptions or mapping, optional
        The options of every :func:`rankmeter.evaluate` call: a
        :class:`rankmeter.EvaluationOptions` (``qrels_columns``, ``threads``,
        ``workers``, ...), or its keyword arguments as a mapping, fields of
        the semantics one by one included (e.g. ``{"ties": "expected",
        "judged_only": True}``).
    options : ComparisonOptions, optional
        The statistics' choices as one value (:class:`rankmeter.ComparisonOptions`).
    group_by : mapping, table, str, path or GroupBy, optional
        The segment of each query, as :func:`rankmeter.evaluate` takes it
        (a column name refers to the qrels or run tables): paired tests
        within each segment too, corrected over segments x systems x
        measures (see :func:`compare_per_query`).
    **keywords
        The fields of :class:`~rankmeter.ComparisonOptions` one by one
        (``baseline=``, ``test=``, ``seed=``, ...), as for
        :func:`compare_per_query`.

    Returns
    -------
    Comparison

    Examples
    --------
    >>> cmp = compare("qrels.txt", {"bm25": "bm25.run", "dense": "dense.run"},
    ...               ["ndcg@10", "map"], test="randomization")  # doctest: +SKIP
    >>> from rankmeter.report.tables import render_markdown
    >>> print(render_markdown(cmp))  # doctest: +SKIP
    """
    opts = comparison_options("compare", options, dict(keywords))
    check_runs(runs, opts)  # before the (possibly slow) evaluation
    segments = segments_of(group_by, qrels, runs, evaluate_options)  # before the evaluation
    results = evaluate_systems(qrels, runs, measures, semantics=semantics, evaluate_options=evaluate_options)
    return compare_per_query(
        {name: (list(r.query_ids), list(r.measure_names), r.values) for name, r in results.items()},
        options=opts,
        group_by=segments,
    )


def evaluate_systems(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: str | Sequence[str],
    *,
    semantics: Semantics | None = None,
    evaluate_options: EvaluationOptions | Mapping[str, Any] | None = None,
) -> dict[str, EvaluationResult]:
    """Evaluate every run of ``runs`` on ``qrels`` as :func:`compare` does, one result per system.

    The semantics are checked before the first run is read. The qrels are
    read once and the runs evaluated as :func:`rankmeter.evaluate` does a
    mapping of runs: on worker processes (``workers`` of ``evaluate_options``,
    default one per CPU), with the values of evaluating each run alone. The
    results keep each run's metadata (missing queries, ties at a cutoff, ...),
    which the HTML report (:func:`rankmeter.report.html`) shows next to the
    comparison.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    >>> runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d3": 1.0}}}
    >>> results = evaluate_systems(qrels, runs, "rr")
    >>> {name: (r["rr"], r.metadata["queries_missing"]) for name, r in results.items()}
    {'a': (0.5, 1), 'b': (0.75, 0)}
    """
    from rankmeter.by_ids import evaluate, is_runs

    wanted = [measures] if isinstance(measures, str) else list(measures)
    options = _evaluate_keywords(evaluate_options)
    if semantics is not None:
        options["semantics"] = semantics
    Semantics.build(options.get("semantics"), "qrels", **{k: v for k, v in options.items() if k in SEMANTICS_FIELDS})
    named = {str(name): run for name, run in runs.items()}
    if len(named) < 2 or not is_runs(named):  # a run that does not show it is one ({} or a first empty query)
        return {name: evaluate(qrels, run, wanted, **options) for name, run in named.items()}
    return dict(evaluate(qrels, named, wanted, **options).items())


def segments_of(
    group_by: Any,
    qrels: Any,
    runs: Mapping[str, Any],
    evaluate_options: EvaluationOptions | Mapping[str, Any] | None = None,
) -> SegmentMap | None:
    """The segments of :func:`compare`'s ``group_by`` (a column name refers to the qrels or run tables), or None.

    >>> segments_of({"q1": "a"}, {"q1": {"d": 1}}, {"x": {}, "y": {}}).of
    {'q1': 'a'}
    """
    if group_by is None:
        return None
    if isinstance(evaluate_options, EvaluationOptions):
        columns = {"qrels_columns": evaluate_options.qrels_columns, "run_columns": evaluate_options.run_columns}
    else:
        columns = dict(evaluate_options or {})
    tables = [("qrels", qrels, columns.get("qrels_columns"))]
    tables += [("run", run, columns.get("run_columns")) for run in runs.values()]
    return segment_map(group_by, tables=tables)


def _evaluate_keywords(evaluate_options: EvaluationOptions | Mapping[str, Any] | None) -> dict[str, Any]:
    """The keyword arguments of every :func:`rankmeter.evaluate` call of a comparison.

    >>> _evaluate_keywords({"threads": 2}), _evaluate_keywords(None)
    ({'threads': 2}, {})
    """
    if isinstance(evaluate_options, EvaluationOptions):
        return {"options": evaluate_options}
    return dict(evaluate_options or {})


def check_runs(runs: Mapping[str, Any], options: ComparisonOptions) -> None:
    """Raise the error :func:`compare` would raise for its runs and baseline, before any run is read.

    Examples
    --------
    >>> check_runs({"a": "a.run", "b": "b.run"}, ComparisonOptions())
    >>> check_runs({"a": "a.run", "b": "b.run"}, ComparisonOptions(baseline="c"))
    Traceback (most recent call last):
    ...
    rankmeter.errors.PolicyError: baseline 'c' is not one of the runs: 'a', 'b'
    """
    if len(runs) < 2:
        raise InputFormatError(f"compare needs at least 2 runs, got {len(runs)}")
    if options.baseline is not None and options.baseline not in runs:
        raise PolicyError(f"baseline {options.baseline!r} is not one of the runs: {', '.join(map(repr, runs))}")
