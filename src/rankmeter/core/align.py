"""Join a run with its qrels into :class:`RankedLists` (the one conversion every id-based input goes through)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rankmeter.core.ids import intern
from rankmeter.core.ranked_lists import RankedLists
from rankmeter.core.ties import rank_order, tie_group_starts
from rankmeter.errors import DuplicateEntryError, PolicyError, where
from rankmeter.io.tables import Qrels, Run

MISSING_POLICIES = ("zero", "skip", "error")
DUPLICATE_POLICIES = ("error", "first", "max")


@dataclass
class AlignInfo:
    """What the alignment did, for the result's metadata."""

    judged_queries: int = 0
    run_queries: int = 0
    missing_queries: list[str] = field(default_factory=list)
    run_only_queries: list[str] = field(default_factory=list)
    duplicates_dropped: int = 0
    unjudged_dropped: int = 0
    truncated_by_depth: int = 0


def _choose(policy: str, allowed: tuple[str, ...], name: str) -> str:
    if policy not in allowed:
        raise PolicyError(f"unknown {name} policy {policy!r}; choose one of {', '.join(allowed)}")
    return policy


def _deduplicate(
    keys: np.ndarray, values: np.ndarray, policy: str, table: Qrels | Run, what: str
) -> tuple[np.ndarray, int]:
    """Indices of the rows to keep (sorted by key) under the duplicates policy."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    same = sorted_keys[1:] == sorted_keys[:-1]
    if not same.any():
        return order, 0
    if policy == "error":
        i = int(np.flatnonzero(same)[0])
        first, second = int(order[i]), int(order[i + 1])
        src, line = table.location(second)
        _, first_line = table.location(first)
        raise DuplicateEntryError(
            f"{where(src, line)}query '{table.query_ids[second]}', document '{table.doc_ids[second]}' "
            f"appears twice in the {what} (first at line {first_line}, {what == 'run' and 'score' or 'grade'} "
            f"{values[second]!r}); pass duplicates='first' or 'max' to keep one"
        )
    if policy == "max":
        # within equal keys, put the largest value first (stable for equal values)
        order = np.lexsort((np.arange(len(keys)), -values, keys))
        sorted_keys = keys[order]
    keep = np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1]))
    return order[keep], int((~keep).sum())


def align(
    qrels: Qrels,
    run: Run,
    *,
    ties: str = "trec",
    missing: str = "zero",
    duplicates: str = "error",
    depth: int | None = None,
    judged_only: bool = False,
    seed: int | None = None,
) -> tuple[RankedLists, AlignInfo]:
    """Rank each query's documents and attach their grades and the ideal grades.

    Parameters
    ----------
    qrels, run : Qrels, Run
    ties : str
        Tie policy (see :mod:`rankmeter.core.ties`).
    missing : {"zero", "skip", "error"}
        A judged query absent from the run: evaluated as an empty ranking
        (every measure 0, as trec_eval ``-c``), left out, or an error.
    duplicates : {"error", "first", "max"}
        A (query, document) pair repeated in the run or the qrels.
    depth : int, optional
        Keep only the top ``depth`` documents of each query after ranking
        (trec_eval ``-M``).
    judged_only : bool
        Drop unjudged documents before ranking (trec_eval ``-J``).
    seed : int, optional
        Seed for ``ties="shuffle"``.

    Returns
    -------
    RankedLists, AlignInfo
        Queries are those of the qrels (sorted by id); queries only in the run
        are dropped and listed in ``AlignInfo.run_only_queries``.
    """
    _choose(missing, MISSING_POLICIES, "missing")
    _choose(duplicates, DUPLICATE_POLICIES, "duplicates")
    if depth is not None and depth < 1:
        raise PolicyError(f"depth must be a positive integer, got {depth!r}")
    if depth is not None and ties == "expected":
        raise PolicyError("depth truncation is not defined for ties='expected'; use a measure cutoff (@k)")
    info = AlignInfo()

    qvocab, (qq, rq) = intern(qrels.query_ids, run.query_ids)
    dvocab, (qd, rd) = intern(qrels.doc_ids, run.doc_ids)
    n_docs = max(len(dvocab), 1)

    qkeys = qq * n_docs + qd
    keep_q, dropped_q = _deduplicate(qkeys, qrels.relevance, duplicates, qrels, "qrels")
    rkeys = rq * n_docs + rd
    keep_r, dropped_r = _deduplicate(rkeys, run.scores, duplicates, run, "run")
    info.duplicates_dropped = dropped_q + dropped_r

    qkeys_sorted = qkeys[keep_q]
    qgrades_sorted = qrels.relevance[keep_q]
    qq_kept = qq[keep_q]
    keep_r = np.sort(keep_r)  # back to input order: 'stable' ties mean input order
    rq, rd, rscores, rkeys = rq[keep_r], rd[keep_r], run.scores[keep_r], rkeys[keep_r]

    pos = np.searchsorted(qkeys_sorted, rkeys)
    pos_clipped = np.minimum(pos, max(len(qkeys_sorted) - 1, 0))
    judged = (pos < len(qkeys_sorted)) & (qkeys_sorted[pos_clipped] == rkeys) if len(qkeys_sorted) else (
        np.zeros(len(rkeys), dtype=bool)
    )
    grades = np.where(judged, qgrades_sorted[pos_clipped] if len(qkeys_sorted) else 0.0, 0.0)

    judged_q = np.unique(qq_kept)
    run_q = np.unique(rq)
    info.judged_queries = len(judged_q)
    info.run_queries = len(run_q)
    run_only = np.setdiff1d(run_q, judged_q, assume_unique=True)
    missing_q = np.setdiff1d(judged_q, run_q, assume_unique=True)
    info.run_only_queries = [str(q) for q in qvocab[run_only]]
    info.missing_queries = [str(q) for q in qvocab[missing_q]]
    if missing == "error" and len(missing_q):
        raise PolicyError(
            f"{len(missing_q)} judged queries have no documents in the run "
            f"{run.source or ''}: {', '.join(info.missing_queries[:5])}"
            f"{' ...' if len(missing_q) > 5 else ''} (missing='error'; use 'zero' or 'skip')"
        )
    evaluated = np.setdiff1d(judged_q, missing_q, assume_unique=True) if missing == "skip" else judged_q

    in_eval = np.isin(rq, evaluated)
    if judged_only:
        info.unjudged_dropped = int((in_eval & ~judged).sum())
        in_eval &= judged
    rq, rd, rscores, grades, judged = rq[in_eval], rd[in_eval], rscores[in_eval], grades[in_eval], judged[in_eval]

    order = rank_order(rq, rscores, ties=ties, doc_codes=rd, grades=grades, seed=seed)
    rq, rscores, grades, judged = rq[order], rscores[order], grades[order], judged[order]
    qindex = np.searchsorted(evaluated, rq)
    counts = np.bincount(qindex, minlength=len(evaluated))
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    if depth is not None:
        positions = np.arange(len(rq)) - np.repeat(offsets[:-1], counts)
        keep = positions < depth
        info.truncated_by_depth = int((~keep).sum())
        rq, rscores, grades, judged = rq[keep], rscores[keep], grades[keep], judged[keep]
        counts = np.minimum(counts, depth)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)

    ideal_sel = np.isin(qq_kept, evaluated)
    ideal_q = qq_kept[ideal_sel]  # already sorted by query (keys sorted)
    ideal_counts = np.bincount(np.searchsorted(evaluated, ideal_q), minlength=len(evaluated))
    ideal_offsets = np.concatenate(([0], np.cumsum(ideal_counts))).astype(np.int64)

    ranked = RankedLists(
        query_ids=qvocab[evaluated],
        offsets=offsets,
        grades=grades.astype(np.float64, copy=False),
        judged=judged,
        scores=rscores,
        group_starts=tie_group_starts(rq, rscores),
        ideal_offsets=ideal_offsets,
        ideal_grades=qgrades_sorted[ideal_sel].astype(np.float64, copy=False),
        ties=ties,
    )
    return ranked, info
