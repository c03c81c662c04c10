"""``-R qrels_jg``: qrels with several judgment groups (users) per topic, and the ``*_avgjg`` measures.

A qrels_jg line is ``topic group docno grade``. Each (topic, group) is
evaluated as if it were a topic of its own, against that group's judgments
only, with rankmeter's ``map``, ``p@k`` and ``rprec_mult`` (trec_eval's
``map_avgjg``, ``P_avgjg_k`` and ``Rprec_mult_avgjg_x``); a topic's value is
the mean over its groups.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

import numpy as np

from rankmeter.core.join import align
from rankmeter.errors import DuplicateEntryError, where
from rankmeter.io.tables import Qrels, Run
from rankmeter.measures import measure
from rankmeter.pipeline import evaluate_ranked
from rankmeter.trec_eval.engine import NoQueriesError, Table, drop_in_semantics, restrict
from rankmeter.trec_eval.measures import Requested, build_columns
from rankmeter.trec_eval.readers import atol_grades, read_records, read_run

SEPARATOR = "\x01"  # sorts below every printable character, so (topic, group) order is kept


def read_qrels_jg(path: str) -> tuple[Qrels, np.ndarray]:
    """Read qrels_jg lines into qrels whose query ids are ``topic<SEP>group``; also return each row's topic."""
    fields, lines, source = read_records(path, 4, True, "qid judgment_group docno rel")
    grades = atol_grades(fields[:, 3], fields, lines, source)
    topics = fields[:, 0].astype(str)
    virtual = np.char.add(np.char.add(topics, SEPARATOR), fields[:, 1].astype(str))
    docs = fields[:, 2].astype(str)
    key = np.char.add(np.char.add(virtual, SEPARATOR), docs)
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(same):
        row = int(order[same[0] + 1])
        raise DuplicateEntryError(
            f"{where(source, int(lines[row]))}topic '{topics[row]}', judgment group "
            f"'{fields[row, 1]}': document '{docs[row]}' is judged twice"
        )
    return Qrels(virtual, docs, grades, source=source, lines=lines), topics


def _expand_run(run: Run, virtual_ids: np.ndarray, virtual_topics: np.ndarray) -> Run:
    """One copy of each topic's run rows per judgment group of the topic."""
    topics, start, count = np.unique(virtual_topics, return_index=True, return_counts=True)
    query_ids = run.query_ids.text()
    pos = np.searchsorted(topics, query_ids)
    pos_c = np.minimum(pos, max(len(topics) - 1, 0))
    ok = (pos < len(topics)) & (topics[pos_c] == query_ids) if len(topics) else np.zeros(len(pos), bool)
    rows = np.flatnonzero(ok)
    reps = count[pos_c[rows]]
    rep_rows = np.repeat(rows, reps)
    within = np.arange(len(rep_rows)) - np.repeat(np.cumsum(reps) - reps, reps)
    vid = virtual_ids[start[pos_c[rep_rows]] + within]
    lines = run.lines[rep_rows] if run.lines is not None else None
    return Run(vid, run.doc_ids[rep_rows], run.scores[rep_rows], source=run.source, lines=lines, name=run.name)


def evaluate_judgment_groups(
    requested: list[Requested],
    path: str,
    run_path: str,
    *,
    complete: bool = False,
    level: int = 1,
    judged_only: bool = False,
    max_docs: int | None = None,
    stderr: TextIO | None = None,
) -> Table:
    """Per-topic values of ``runid``, ``num_q`` and the ``*_avgjg`` measures.

    Parameters
    ----------
    requested : list of Requested
    path : str
        The qrels_jg file.
    run_path : str
        The run file (read after the qrels_jg file, as trec_eval does).
    complete, level, judged_only, max_docs
        trec_eval ``-c``, ``-l``, ``-J``, ``-M``.
    stderr : text stream, optional
        Where the warning about topics without results goes.

    Returns
    -------
    Table
    """
    stderr = stderr if stderr is not None else sys.stderr
    qrels, row_topics = read_qrels_jg(path)
    runfile = read_run(run_path)
    virtual_ids, first = np.unique(qrels.query_ids.text(), return_index=True)
    virtual_topics = row_topics[first]
    run = _expand_run(runfile.run, virtual_ids, virtual_topics)
    ranked, info = align(qrels, run, drop_in_semantics(complete))
    missing_topics = sorted({v.split(SEPARATOR)[0] for v in info.missing_queries})
    if missing_topics and not complete:
        stderr.write(
            f"trec_eval: warning: {len(missing_topics)} judged topic(s) without results ignored "
            f"(use -c to score them 0): {', '.join(missing_topics[:10])}\n"
        )
    if ranked.n_queries == 0:
        raise NoQueriesError("trec_eval: No queries with both results and relevance info")
    if max_docs is not None:
        ranked = restrict(ranked, ranked.positions < max_docs)
    if judged_only:
        ranked = restrict(ranked, ranked.judged & (ranked.grades >= 0))
    group_topic = np.array([v.split(SEPARATOR)[0] for v in ranked.query_ids.tolist()])
    topics, topic_index = np.unique(group_topic, return_inverse=True)
    n_groups = np.bincount(topic_index, minlength=len(topics)).astype(np.float64)
    columns = [c for req in requested for c in build_columns(req, level=level)]
    table = Table(topics.tolist(), columns, runfile.runid)
    mr: dict[str, Any] = {} if level == 1 else {"min_rel": float(level)}
    wanted = {}
    for c in columns:
        if c.spec.name == "map_avgjg":
            wanted[c.key] = measure("map", **mr)
        elif c.spec.name == "P_avgjg":
            wanted[c.key] = measure("p", int(c.key.split(":", 1)[1]), **mr)
        elif c.spec.name == "Rprec_mult_avgjg":
            wanted[c.key] = measure("rprec_mult", mult=float(c.key.split(":", 1)[1]), **mr)
    if wanted:
        result = evaluate_ranked(ranked, list(dict.fromkeys(wanted.values())), empty="zero")
        for key, m in wanted.items():
            per_group = np.nan_to_num(result.values[:, result.measure_names.index(str(m))])
            table.values[key] = np.bincount(topic_index, weights=per_group, minlength=len(topics)) / n_groups
    return table
