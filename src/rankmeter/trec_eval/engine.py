"""Per-topic values of the standard (``-R qrels``) measures, computed by rankmeter's own evaluation path.

The qrels and the run are joined by :func:`rankmeter.core.join.align` with
``ties="trec"`` (score descending, then document id descending), trec_eval's
``-M`` and ``-J`` are applied to the ranked lists in trec_eval's order
(truncate first, then drop unjudged documents), and every measure is computed
by :func:`rankmeter.pipeline.evaluate_ranked`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

import numpy as np

from rankmeter.core.join import JudgmentsByQuery, align, dedupe_qrels
from rankmeter.core.layout import RankedLists
from rankmeter.core.semantics import Semantics
from rankmeter.core.ties import tie_group_starts
from rankmeter.errors import RankmeterError
from rankmeter.io.load import BLOCK_BYTES
from rankmeter.io.tables import Qrels, Run
from rankmeter.io.trec import last_line_field
from rankmeter.measures import FAMILIES, Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.pipeline import evaluate_ranked
from rankmeter.trec_eval.measures import Column, Requested, build_columns
from rankmeter.trec_eval.readers import RunFile


class NoQueriesError(RankmeterError):
    """No topic has both judgments and results (trec_eval exits with status 7)."""


@dataclass
class Table:
    """Per-topic values of every printed column, ready for :mod:`rankmeter.trec_eval.report`.

    ``values[key]`` holds one float per topic (``float`` columns) and
    ``texts[key]`` one string per topic (``relstring``). ``summaries[key]``,
    when set, is the ``all`` value trec_eval prints for a column whose summary
    is not computed from the topics' values (``num_rel`` with ``-c``).
    """

    query_ids: list[str]
    columns: list[Column]
    runid: str
    values: dict[str, np.ndarray] = field(default_factory=dict)
    texts: dict[str, list[str]] = field(default_factory=dict)
    summaries: dict[str, float] = field(default_factory=dict)


def restrict(ranked: RankedLists, keep: np.ndarray) -> RankedLists:
    """The ranked lists with only the items where ``keep`` is true (order and ideal unchanged).

    >>> import numpy as np
    >>> r = RankedLists(np.array(["q"]), np.array([0, 3]), np.array([1.0, 0.0, 2.0]), np.ones(3, bool),
    ...                 np.array([3.0, 2.0, 1.0]), np.array([0, 1, 2, 3]), np.array([0, 2]),
    ...                 np.array([1.0, 2.0]), "trec")
    >>> restrict(r, np.array([True, False, True])).grades.tolist()
    [1.0, 2.0]
    """
    query = ranked.item_query[keep]
    counts = np.bincount(query, minlength=ranked.n_queries)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    scores = ranked.scores[keep]
    return replace(
        ranked,
        offsets=offsets,
        grades=ranked.grades[keep],
        judged=ranked.judged[keep],
        scores=scores,
        group_starts=tie_group_starts(query, scores),
        item_weights=None if ranked.item_weights is None else ranked.item_weights[keep],
    )


def relstrings(ranked: RankedLists, length: int) -> list[str]:
    """trec_eval's relstring of every topic: one character per document of the top ``length``.

    The grade 0-9, ``>`` above 9, ``-`` not in the qrels, ``.`` a negative grade.
    """
    keep = ranked.positions < max(length, 0)
    grades = ranked.grades[keep]
    judged = ranked.judged[keep]
    codes = np.where(
        ~judged,
        ord("-"),
        np.where(
            grades < 0, ord("."), np.where(grades > 9, ord(">"), ord("0") + np.clip(grades, 0, 9).astype(np.int64))
        ),
    )
    text = codes.astype(np.uint8).tobytes().decode("ascii")
    counts = np.bincount(ranked.item_query[keep], minlength=ranked.n_queries)
    bounds = np.concatenate(([0], np.cumsum(counts)))
    return [text[bounds[i] : bounds[i + 1]] for i in range(ranked.n_queries)]


def complete_num_rel(table: Table, qrels: Qrels) -> None:
    """trec_eval ``-c``: the ``num_rel`` summary counts every qrels line with a grade > 0.

    ``m_num_rel.c``'s average function re-reads the qrels when ``-c`` is given, so
    the summary ignores ``-l`` (and ``-J``, ``-M``) and counts the lines of every
    judged topic, whatever the per-topic lines say. Sets ``table.summaries``.

    >>> from rankmeter.io.dicts import qrels_from_dict
    >>> from rankmeter.trec_eval.measures import build_columns, resolve
    >>> t = Table(["1"], build_columns(resolve(["num_rel"])[0]), "r")
    >>> complete_num_rel(t, qrels_from_dict({"1": {"a": 2, "b": 1, "c": 0}, "2": {"d": 1}}))
    >>> t.summaries
    {'num_rel': 3.0}
    """
    for c in table.columns:
        if c.spec.name == "num_rel":
            table.summaries[c.key] = float(np.count_nonzero(np.asarray(qrels.relevance) > 0))


def drop_in_semantics(complete: bool) -> Semantics:
    """trec_eval's semantics: trec ties, duplicates an error, judged topics without results scored 0 with ``-c``.

    (``-M`` and ``-J`` are applied after the alignment, as trec_eval does.)

    >>> drop_in_semantics(False).missing, drop_in_semantics(True).missing
    ('skip', 'zero')
    """
    return Semantics(ties="trec", missing="zero" if complete else "skip", duplicates="error")


def evaluate_qrels(
    requested: list[Requested],
    qrels: Qrels,
    runfile: RunFile,
    *,
    complete: bool = False,
    level: int = 1,
    judged_only: bool = False,
    max_docs: int | None = None,
    num_docs: int = 0,
    stderr: TextIO | None = None,
) -> Table:
    """Per-topic values of the requested standard measures.

    Parameters
    ----------
    requested : list of Requested
    qrels : Qrels
        Read with :func:`rankmeter.trec_eval.readers.read_qrels` (atol grades).
    runfile : RunFile
    complete : bool
        trec_eval ``-c``: every qrels topic is evaluated; one without results is an
        empty ranking. Otherwise such topics are left out with a warning on ``stderr``.
    level, judged_only, max_docs, num_docs
        trec_eval ``-l``, ``-J``, ``-M`` and ``-N``.

    Returns
    -------
    Table

    Examples
    --------
    >>> from rankmeter.io.dicts import qrels_from_dict, run_from_dict
    >>> from rankmeter.trec_eval.measures import resolve
    >>> from rankmeter.trec_eval.readers import RunFile
    >>> from rankmeter.trec_eval.report import render
    >>> qrels = qrels_from_dict({"1": {"a": 1, "b": 0}, "2": {"c": 2}})
    >>> run = RunFile(run_from_dict({"1": {"b": 2.0, "a": 1.0}, "2": {"c": 1.0}}), "demo")
    >>> table = evaluate_qrels(resolve(["num_q", "map", "P.1"]), qrels, run, level=2)
    >>> render(table, per_query=True).splitlines()[:2]
    ['map                   \\t1\\t0.0000', 'P_1                   \\t1\\t0.0000']
    >>> render(table).splitlines()[:2]
    ['num_q                 \\tall\\t2', 'map                   \\tall\\t0.5000']
    """
    stderr = stderr if stderr is not None else sys.stderr
    ranked, info = align(qrels, runfile.run, drop_in_semantics(complete))
    if info.missing_queries and not complete:
        _warn_missing(info.missing_queries, stderr)
    if ranked.n_queries == 0:
        raise NoQueriesError("trec_eval: No queries with both results and relevance info")
    if max_docs is not None:
        ranked = restrict(ranked, ranked.positions < max_docs)
    if judged_only:
        ranked = restrict(ranked, ranked.judged & (ranked.grades >= 0))

    columns = [c for req in requested for c in build_columns(req, level=level, num_docs=num_docs)]
    table = Table(ranked.query_ids.tolist(), columns, runfile.runid)
    measures: list[Measure] = []
    for c in columns:
        if c.measure is not None and c.measure not in measures:
            measures.append(c.measure)
    if measures:
        result = evaluate_ranked(ranked, measures, empty="zero")
        index = {name: i for i, name in enumerate(result.measure_names)}
        ctx = Context(ranked)
        direct: dict[Measure, np.ndarray] = {}
        missing = np.isin(ranked.query_ids, info.missing_queries)
        for c in columns:
            if c.measure is None:
                continue
            values = result.values[:, index[c.key]].copy()
            if FAMILIES[c.measure.family].traits.defined_without_relevant:
                if c.measure not in direct:
                    direct[c.measure] = FAMILIES[c.measure.family].kernel(ctx, c.measure)
                values = direct[c.measure][:, c.measure.expand().index(_single(c))]
            values = np.where(np.isnan(values), 0.0, values)
            if FAMILIES[c.measure.family].traits.zero_without_results:
                values = np.where(missing, 0.0, values)
            table.values[c.key] = values
    for c in columns:
        if c.key.startswith("relstring:"):
            table.texts[c.key] = relstrings(ranked, int(c.key.split(":", 1)[1]))
    return table


def _warn_missing(topics: list[str], stderr: TextIO) -> None:
    n = len(topics)
    shown = ", ".join(topics[:10]) + (" ..." if n > 10 else "")
    stderr.write(
        f"trec_eval: warning: {n} judged topic{'s' if n > 1 else ''} without results "
        f"ignored (use -c to score {'them' if n > 1 else 'it'} 0): {shown}\n"
    )


class _ReadWhole(Exception):
    """The run cannot be read block by block exactly as the drop-in reads it whole."""


def evaluate_qrels_in_blocks(
    requested: list[Requested],
    qrels: Qrels,
    run_path: str,
    *,
    complete: bool = False,
    level: int = 1,
    judged_only: bool = False,
    max_docs: int | None = None,
    num_docs: int = 0,
    stderr: TextIO | None = None,
    block_bytes: int = BLOCK_BYTES,
) -> Table | None:
    """:func:`evaluate_qrels` on a run file read in blocks of whole topics, or None to read it whole.

    Each block is parsed (on a second thread, while the previous block is
    evaluated) and evaluated with the judgments of its topics; the tables
    are joined in topic order, so the printed text is the one of reading the
    run whole. None -- read the run whole, which also reports any problem in
    trec_eval's words -- when a block is not well-formed enough for the
    columnar parser the whole read uses, a topic's lines are not together,
    or anything raises.
    """
    from rankmeter.io.run_blocks import read_ahead

    stderr = stderr if stderr is not None else sys.stderr
    try:
        dedupe_qrels(qrels, "error")
        judgments = JudgmentsByQuery(qrels)
        runid = last_line_field(run_path, 5) or ""
        tables: list[Table] = []
        options: dict[str, Any] = {
            "level": level,
            "judged_only": judged_only,
            "max_docs": max_docs,
            "num_docs": num_docs,
        }
        for run, _ in read_ahead(_columnar_blocks(run_path, block_bytes)):
            part = judgments.of(run)
            if len(part):  # (a block of topics without judgments has nothing to print)
                tables.append(evaluate_qrels(requested, part, RunFile(run, runid), stderr=stderr, **options))
        missing = judgments.unmet_ids()
        if missing and complete:  # judged topics without results: empty rankings
            tables.append(
                evaluate_qrels(
                    requested,
                    judgments.unmet(),
                    RunFile(Run.empty(run_path), runid),
                    complete=True,
                    stderr=stderr,
                    **options,
                )
            )
    except (RankmeterError, _ReadWhole):
        return None
    if not tables:
        return None  # the whole read says there is nothing to evaluate
    if missing and not complete:
        _warn_missing(missing, stderr)
    return _joined(tables)


def _columnar_blocks(run_path: str, block_bytes: int) -> Iterator[tuple[Run, int]]:
    """The run's blocks, as long as each comes through the columnar parser the whole read uses."""
    from rankmeter.io.run_blocks import NotColumnar, iter_run_chunks

    try:
        yield from iter_run_chunks(run_path, block_bytes=block_bytes, columnar_only=True)
    except NotColumnar:
        raise _ReadWhole from None


def _joined(tables: list[Table]) -> Table:
    """One table from the tables of disjoint sets of topics, topics in string order."""
    ids = np.array([q for t in tables for q in t.query_ids])
    order = np.argsort(ids, kind="stable")
    first = tables[0]
    texts = {key: [x for t in tables for x in t.texts[key]] for key in first.texts}
    return Table(
        ids[order].tolist(),
        first.columns,
        first.runid,
        {key: np.concatenate([t.values[key] for t in tables])[order] for key in first.values},
        {key: [column[i] for i in order] for key, column in texts.items()},
    )


def _single(c: Column) -> Measure:
    assert c.measure is not None
    for m in c.measure.expand():
        if str(m) == c.key:
            return m
    raise KeyError(c.key)  # pragma: no cover
