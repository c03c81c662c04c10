"""``-R prefs`` and ``-R qrels_prefs``: preference judgments and trec_eval's ``prefs_*`` measures.

A prefs line is ``topic judgment_group judgment_subgroup docno level``; a
qrels file read with ``-R qrels_prefs`` becomes one with the iteration column
as the judgment group and a single subgroup. Within a subgroup, a document
with a higher level is preferred to one with a lower level; a judgment group
(one user's information need) with several subgroups combines them with
transitivity. For every topic, the judged documents are numbered: the
retrieved ones by rank (0 .. J_ret - 1, ranking by score descending then
docno ascending, as trec_eval's preference code does), the others after
them in docno order. A preference A > B is *fulfilled* when A's number is
smaller, and falls in one of three areas: both retrieved (``ret``), exactly
one retrieved (``imp``, implied), neither retrieved (not occurring). The
measures are ratios of fulfilled to possible preferences in those areas,
summed over judgment groups (``simp``), averaged over groups (``avgjg``) or
over document pairs (``pair``), with the quirks of trec_eval's
``m_prefs_*.c`` reproduced (see ``docs/trec_eval.md``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np

from rankmeter.errors import DuplicateEntryError, InputFormatError, InvalidScoreError, where
from rankmeter.trec_eval.engine import NoQueriesError, Table
from rankmeter.trec_eval.measures import Requested, build_columns
from rankmeter.trec_eval.readers import read_records, read_run


@dataclass
class PrefRows:
    """The preference lines of one topic."""

    group: np.ndarray
    subgroup: np.ndarray
    level: np.ndarray
    docno: np.ndarray


def read_prefs(path: str, qrels_format: bool) -> tuple[dict[str, PrefRows], str]:
    """Read a prefs file (or a qrels file as prefs) into per-topic lines; also return the source name."""
    n = 4 if qrels_format else 5
    layout = "qid iteration docno level" if qrels_format else "qid judgment_group judgment_subgroup docno level"
    fields, lines, source = read_records(path, n, True, layout)
    levels = np.empty(len(fields))
    for row, token in enumerate(fields[:, n - 1]):
        try:
            levels[row] = float(token)
        except ValueError:
            raise InvalidScoreError(
                f"{where(source, int(lines[row]))}preference level {token!r} is not a number"
            ) from None
    qids = fields[:, 0].astype(str)
    group = fields[:, 1].astype(str)
    subgroup = np.full(len(fields), "0") if qrels_format else fields[:, 2].astype(str)
    docno = fields[:, n - 2].astype(str)
    out: dict[str, PrefRows] = {}
    order = np.argsort(qids, kind="stable")
    uniq, starts = np.unique(qids[order], return_index=True)
    bounds = np.append(starts, len(order))
    for i, q in enumerate(uniq.tolist()):
        rows = order[bounds[i] : bounds[i + 1]]
        out[q] = PrefRows(group[rows], subgroup[rows], levels[rows], docno[rows])
    return out, source


@dataclass
class GroupCounts:
    """Preference counts of one judgment group (trec_eval's JG)."""

    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    ecs: list[np.ndarray] | None = None  # equivalence classes (docids, ascending), highest level first
    prefs: np.ndarray | None = None  # preference matrix (several subgroups)
    rel: np.ndarray | None = None  # level per docid (-1: not judged in this group)


@dataclass
class TopicPrefs:
    """Everything the prefs measures of one topic need."""

    num_judged: int
    num_judged_ret: int
    groups: list[GroupCounts] = field(default_factory=list)
    counts: np.ndarray | None = None  # counts[i, j]: groups preferring docid i to docid j


class PrefsError(InputFormatError):
    """Inconsistent preference judgments (trec_eval stops with an error)."""


def _ec_group(docid: np.ndarray, level: np.ndarray, njr: int, counts: np.ndarray, topic: str) -> GroupCounts:
    g = GroupCounts()
    levels = np.unique(level)[::-1]
    ecs = [np.sort(docid[level == lv]) for lv in levels]
    g.ecs = ecs
    for lv, ec in zip(levels, ecs, strict=True):
        ret = int((ec < njr).sum())
        if lv > 0:
            g.num_rel += len(ec)
            g.num_rel_ret += ret
        else:
            g.num_nonrel += len(ec)
            g.num_nonrel_ret += ret
    for i, a in enumerate(ecs):
        for b in ecs[i + 1 :]:
            if np.intersect1d(a, b).size:
                raise PrefsError(f"topic '{topic}': a document has two different levels in one judgment subgroup")
            aa, bb = np.broadcast_arrays(a[:, None], b[None, :])
            np.add.at(counts, (aa.ravel(), bb.ravel()), 1)
            ful = aa < bb
            g.ful_ret += int((ful & (bb < njr)).sum())
            g.ful_imp += int((ful & (bb >= njr) & (aa < njr)).sum())
            g.notoccur += int((ful & (aa >= njr)).sum())
            g.poss_ret += int((~ful & (aa < njr)).sum())
            g.poss_imp += int((~ful & (aa >= njr) & (bb < njr)).sum())
            g.notoccur += int((~ful & (aa >= njr) & (bb >= njr)).sum())
    g.poss_ret += g.ful_ret
    g.poss_imp += g.ful_imp
    return g


def _pa_group(
    docid: np.ndarray, sub: np.ndarray, level: np.ndarray, n: int, njr: int, counts: np.ndarray, topic: str
) -> GroupCounts:
    g = GroupCounts()
    rel = np.full(n, -1.0)
    order = np.lexsort((docid, -level, sub))
    for k in order:
        d, lv = docid[k], level[k]
        if (rel[d] > 0 and lv == 0) or (rel[d] == 0 and lv > 0):
            raise PrefsError(f"topic '{topic}': a document has both level 0 and a level > 0 in one judgment group")
        rel[d] = lv
    pa = np.zeros((n, n), dtype=bool)
    for s in np.unique(sub):
        m = sub == s
        d, lv = docid[m], level[m]
        higher = lv[:, None] > lv[None, :]
        pa[np.broadcast_to(d[:, None], higher.shape)[higher], np.broadcast_to(d[None, :], higher.shape)[higher]] = True
    reach = pa | np.eye(n, dtype=bool)
    while True:
        nxt = (reach.astype(np.int32) @ reach.astype(np.int32)) > 0
        if np.array_equal(nxt, reach):
            break
        reach = nxt
    np.fill_diagonal(reach, False)
    if (reach & reach.T).any():
        raise PrefsError(f"topic '{topic}': inconsistent preferences within one judgment group")
    g.prefs, g.rel = reach, rel
    counts += reach
    ret = np.arange(n) < njr
    g.num_rel, g.num_rel_ret = int((rel > 0).sum()), int((rel[ret] > 0).sum())
    g.num_nonrel, g.num_nonrel_ret = int((rel == 0).sum()), int((rel[ret] == 0).sum())
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    rr = ret[:, None] & ret[None, :]
    g.ful_ret = int((reach & rr & upper).sum())
    g.poss_ret = int((reach & rr & upper.T).sum()) + g.ful_ret
    g.ful_imp = int((reach & ret[:, None] & ~ret[None, :]).sum())
    g.poss_imp = int((reach & ~ret[:, None] & ret[None, :]).sum()) + g.ful_imp
    g.notoccur = int((reach & ~ret[:, None] & ~ret[None, :]).sum())
    return g


def topic_prefs(rows: PrefRows, ranked_docs: np.ndarray, topic: str) -> TopicPrefs:
    """Preference counts of one topic given its ranked, truncated list of retrieved docnos."""
    judged = np.unique(rows.docno)
    retrieved = ranked_docs[np.isin(ranked_docs, judged)]
    njr = len(retrieved)
    rest = np.setdiff1d(judged, retrieved)
    names = np.concatenate((retrieved, rest))
    order = np.argsort(names)
    docid = order[np.searchsorted(names[order], rows.docno)]
    n = len(judged)
    tp = TopicPrefs(n, njr, counts=np.zeros((n, n), dtype=np.int32))
    assert tp.counts is not None
    for grp in np.unique(rows.group):
        m = rows.group == grp
        if len(np.unique(rows.subgroup[m])) > 1:
            tp.groups.append(_pa_group(docid[m], rows.subgroup[m], rows.level[m], n, njr, tp.counts, topic))
        else:
            tp.groups.append(_ec_group(docid[m], rows.level[m], njr, tp.counts, topic))
    return tp


def _recalc(g: GroupCounts, njr: int, retrieved_only: bool) -> tuple[int, int]:
    """trec_eval's recount of one group keeping only the first R non-relevant documents."""
    ful = poss = 0
    if g.ecs is not None:
        keep = g.num_rel_ret if retrieved_only else g.num_rel
        ecs = [ec[ec < njr] for ec in g.ecs] if retrieved_only else g.ecs
        last = g.ecs[-1][:keep]
        if retrieved_only:
            last = last[last < njr]
        pairs = [(a, b) for i, a in enumerate(ecs) for b in ecs[i + 1 : len(ecs) - 1]] + [(a, last) for a in ecs]
        for a, b in pairs:
            aa, bb = a[:, None], b[None, :]
            good = (aa < bb) if retrieved_only else ((aa < bb) & (aa < njr))
            f = int(good.sum())
            ful += f
            poss += aa.size * bb.size - f
        return ful, poss + ful
    assert g.prefs is not None and g.rel is not None
    n = len(g.rel)
    limit = njr if retrieved_only else n
    nonrel_idx = np.flatnonzero(g.rel[:limit] == 0)
    first_discarded = int(nonrel_idx[g.num_rel]) if len(nonrel_idx) > g.num_rel else limit
    keep = ~((np.arange(n) >= first_discarded) & (g.rel == 0))
    a = g.prefs & keep[:, None] & keep[None, :]
    ret = np.arange(n) < njr
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    rr = ret[:, None] & ret[None, :]
    ful = int((a & rr & upper).sum())
    poss = int((a & rr & upper.T).sum())
    if not retrieved_only:
        ful += int((a & ret[:, None] & ~ret[None, :]).sum())
        poss += int((a & ~ret[:, None]).sum())
    return ful, poss + ful


def _ratio(num: float, den: float) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(num) / np.float64(den))


def _avg(values: list[float], n_groups: int) -> float:
    total = float(np.sum(values)) if values else 0.0
    return total / n_groups if total > 0 else 0.0


def prefs_values(tp: TopicPrefs) -> dict[str, float]:
    """Every ``prefs_*`` measure of one topic."""
    gs, njr, n = tp.groups, tp.num_judged_ret, tp.num_judged
    ful = sum(g.ful_ret + g.ful_imp for g in gs)
    poss = sum(g.poss_ret + g.poss_imp + g.notoccur for g in gs)
    ful_ret = sum(g.ful_ret for g in gs)
    poss_ret = sum(g.poss_ret for g in gs)
    poss_imp = sum(g.poss_ret + g.poss_imp for g in gs)
    out = {
        "prefs_num_prefs_poss": float(poss),
        "prefs_num_prefs_ful": float(ful),
        "prefs_num_prefs_ful_ret": float(ful_ret),
        "prefs_simp": ful / poss if poss else 0.0,
        "prefs_simp_ret": ful_ret / poss_ret if poss_ret else 0.0,
        "prefs_simp_imp": ful / poss_imp if poss_imp else 0.0,
    }
    c = tp.counts if tp.counts is not None else np.zeros((0, 0))
    both = c + c.T
    upper = np.triu(both > 0, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(upper, c / np.where(both > 0, both, 1), 0.0)
    idx = np.arange(n)
    ret_i = idx[:, None] < njr
    ret_j = idx[None, :] < njr
    regions = (
        ("prefs_pair", ret_i, upper),
        ("prefs_pair_ret", ret_i & ret_j, upper & ret_i & ret_j),
        ("prefs_pair_imp", ret_i, upper & ret_i),
    )
    for name, region, counted in regions:
        pairs = int(counted.sum())
        out[name] = float((share * region * counted).sum()) / pairs if pairs else 0.0
    k = len(gs)
    out["prefs_avgjg"] = _avg(
        [(g.ful_ret + g.ful_imp) / p for g in gs if (p := g.poss_ret + g.poss_imp + g.notoccur)], k
    )
    out["prefs_avgjg_ret"] = _avg([g.ful_ret / g.poss_ret for g in gs if g.poss_ret], k)
    out["prefs_avgjg_imp"] = _avg([(g.ful_ret + g.ful_imp) / p for g in gs if (p := g.poss_ret + g.poss_imp)], k)
    rnonrel, rnonrel_ret = [], []
    for g in gs:
        big_r, big_n = g.num_rel, g.num_nonrel
        if big_r >= big_n:
            rnonrel.append(
                _ratio(
                    g.ful_ret + g.ful_imp + g.num_rel_ret * (big_r - big_n),
                    g.poss_ret + g.poss_imp + g.notoccur + g.num_rel * (big_r - big_n),
                )
            )
        else:
            rnonrel.append(_ratio(*_recalc(g, njr, retrieved_only=False)))
        big_r, big_n = g.num_rel_ret, g.num_nonrel_ret
        if big_r >= big_n:
            rnonrel_ret.append(
                _ratio(g.ful_ret + g.num_rel_ret * (big_r - big_n), g.poss_ret + g.num_rel * (big_r - big_n))
            )
        else:
            rnonrel_ret.append(_ratio(*_recalc(g, njr, retrieved_only=True)))
    out["prefs_avgjg_Rnonrel"] = _avg(rnonrel, k)
    out["prefs_avgjg_Rnonrel_ret"] = _avg(rnonrel_ret, k)
    return out


def evaluate_prefs(
    requested: list[Requested],
    path: str,
    run_path: str,
    *,
    qrels_format: bool = False,
    complete: bool = False,
    judged_only: bool = False,
    max_docs: int | None = None,
    stderr: TextIO | None = None,
) -> Table:
    """Per-topic values of ``runid``, ``num_q`` and the ``prefs_*`` measures.

    Parameters
    ----------
    requested : list of Requested
    path : str
        The prefs file (or, with ``qrels_format``, a qrels file read as prefs).
    run_path : str
    qrels_format : bool
        trec_eval ``-R qrels_prefs``.
    complete, judged_only, max_docs
        trec_eval ``-c``, ``-J`` (no effect on preferences, as in trec_eval) and ``-M``.
    stderr : text stream, optional

    Returns
    -------
    Table
    """
    stderr = stderr if stderr is not None else sys.stderr
    prefs, _ = read_prefs(path, qrels_format)
    runfile = read_run(run_path)
    run = runfile.run
    query_ids, doc_ids = run.query_ids.text(), run.doc_ids.text()
    order = np.lexsort((doc_ids, -run.scores, query_ids))
    qids, docs = query_ids[order], doc_ids[order]
    uniq, starts = np.unique(qids, return_index=True)
    bounds = dict(
        zip(uniq.tolist(), zip(starts.tolist(), np.append(starts[1:], len(qids)).tolist(), strict=True), strict=True)
    )
    topics = sorted(prefs)
    missing = [t for t in topics if t not in bounds]
    if missing and not complete:
        stderr.write(
            f"trec_eval: warning: {len(missing)} judged topic(s) without results ignored "
            f"(use -c to score them 0): {', '.join(missing[:10])}\n"
        )
        topics = [t for t in topics if t in bounds]
    if not topics:
        raise NoQueriesError("trec_eval: No queries with both results and relevance info")
    columns = [c for req in requested for c in build_columns(req)]
    table = Table(topics, columns, runfile.runid)
    wanted = [c.key for c in columns if c.key.startswith("prefs_")]
    per_topic: dict[str, list[float]] = {k: [] for k in wanted}
    for t in topics:
        lo, hi = bounds.get(t, (0, 0))
        ranked = docs[lo:hi]
        sorted_docs = np.sort(ranked)
        repeated = sorted_docs[1:][sorted_docs[1:] == sorted_docs[:-1]]
        if len(repeated):
            raise DuplicateEntryError(f"{run.source}: topic '{t}', document '{repeated[0]}' appears twice in the run")
        if max_docs is not None:
            ranked = ranked[: max(max_docs, 0)]
        values = prefs_values(topic_prefs(prefs[t], ranked, t))
        for k in wanted:
            per_topic[k].append(values[k])
    for k in wanted:
        table.values[k] = np.asarray(per_topic[k], dtype=np.float64)
    return table
