"""Join a run with its qrels into :class:`RankedLists` (the one conversion every id-based input goes through)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, TypedDict

import numpy as np

from rankmeter.core.arrays import code_counts, sorted_unique
from rankmeter.core.layout import RankedLists, concatenate
from rankmeter.core.semantics import DUPLICATE_POLICIES, Semantics, SemanticsOptions, choose
from rankmeter.core.ties import Ranking, ranking, shuffle_noise, tie_group_starts, tied_runs
from rankmeter.errors import DuplicateEntryError, PolicyError, RankmeterError, where
from rankmeter.ids.buffers import StringBuffers
from rankmeter.ids.column import IdColumn, id_at
from rankmeter.ids.duplicates import duplicate_rows
from rankmeter.ids.hashing import HASH_MIN_ROWS, document_keys, document_pair_keys
from rankmeter.ids.intern import encode, intern, lookup
from rankmeter.ids.match import PairIndex, coded_join, match_pairs, pair_index
from rankmeter.ids.order import string_sort_keys
from rankmeter.io.tables import Qrels, Run

if TYPE_CHECKING:
    from typing_extensions import Unpack

PARALLEL_MIN_ROWS = 1 << 19
"""Fewest run rows per thread when a run is aligned in blocks of queries."""


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


def _duplicate_error(table: Qrels | Run, first: int, second: int, values: np.ndarray, what: str) -> DuplicateEntryError:
    src, line = table.location(second)
    _, first_line = table.location(first)
    kind = "score" if what == "run" else "grade"
    here, there = repr(float(values[second])), repr(float(values[first]))
    if isinstance(table, Run) and "rank" in (table.columns or {}):  # a ranked list: scores are -rank
        kind, here, there = "rank", str(int(-values[second])), str(int(-values[first]))
        what = "ranked list"
    return DuplicateEntryError(
        f"{where(src, line)}query '{id_at(table.query_ids, second)}', document '{id_at(table.doc_ids, second)}' "
        f"appears twice in the {what} (first at line {first_line}; {kind} {here} here, "
        f"{there} there); pass duplicates='first' or 'max' to keep one"
    )


def _rows_to_drop(pairs: np.ndarray, values: np.ndarray, policy: str, table: Qrels | Run, what: str) -> np.ndarray:
    """Rows removed by the duplicates policy, given (first, repeat) pairs."""
    if not len(pairs):
        return np.zeros(0, dtype=np.int64)
    if policy == "error":
        raise _duplicate_error(table, int(pairs[0, 0]), int(pairs[0, 1]), values, what)
    if policy == "first":
        return pairs[:, 1]
    group = np.concatenate((np.unique(pairs[:, 0]), pairs[:, 1]))
    heads = np.concatenate((np.unique(pairs[:, 0]), pairs[:, 0]))
    order = np.lexsort((group, -values[group], heads))  # per group: max value, then earliest row
    keep_first = np.concatenate(([True], heads[order][1:] != heads[order][:-1]))
    return group[order][~keep_first]


def align(
    qrels: Qrels,
    run: Run,
    semantics: Semantics | None = None,
    *,
    judged_items: bool = False,
    threads: int | None = None,
    **options: Unpack[SemanticsOptions],
) -> tuple[RankedLists, AlignInfo]:
    """Rank each query's documents and attach their grades and the ideal grades.

    Parameters
    ----------
    qrels, run : Qrels, Run
    semantics : Semantics, optional
        What this alignment reads of it: ``ties`` (see :mod:`rankmeter.core.ties`;
        default ``trec``); ``missing``: a judged query absent from the run is
        an empty ranking (every measure 0, as trec_eval ``-c``), left out, or
        an error; ``duplicates``: a (query, document) pair repeated in the
        run or the qrels; ``depth``: keep only the top documents of each
        query after ranking (trec_eval ``-M``); ``judged_only``: drop
        unjudged and negatively graded documents (trec_eval ``-J``; after
        the ``depth`` cut when there is one); ``seed`` for
        ``ties="shuffle"``.
    judged_items : bool
        Store only the judged items and the tied groups, with their ranks
        (:meth:`RankedLists.judged_items`), without building per-item arrays
        for the unjudged rest; not with ``ties="expected"``.
    threads : int, optional
        Threads for large runs, each aligning a block of queries (default:
        one per CPU, at most :data:`~rankmeter.core.lists.MAX_THREADS`; 1:
        one pass). The result does not depend on it.
    **options
        Fields of :class:`Semantics` one by one; they override ``semantics``.

    Returns
    -------
    RankedLists, AlignInfo
        Queries are those of the qrels (sorted by id); queries only in the run
        are dropped and listed in ``AlignInfo.run_only_queries``.
    """
    sem = Semantics.build(semantics, "qrels", **options)
    ties = sem.tie_policy
    if judged_items and ties == "expected":
        raise PolicyError("judged_items lists need a deterministic tie policy, not ties='expected'")
    settings = _Options(ties, sem.missing, sem.duplicates, sem.depth, sem.judged_only, sem.seed, judged_items)
    qvocab, (qq, rq) = intern(qrels.query_ids, run.query_ids)
    blocks = _query_blocks(rq, len(qvocab), threads)
    if blocks is None:
        return _align_coded(qvocab, qq, rq, qrels, run, settings)
    from rankmeter.core.lists import map_blocks

    try:
        parts = list(map_blocks(lambda b: _align_block(b, qvocab, qq, rq, qrels, run, settings), blocks, threads))
    except RankmeterError:
        # the same problem, reported as the serial pass finds it (the first one in file order)
        return _align_coded(qvocab, qq, rq, qrels, run, settings)
    return concatenate([r for r, _ in parts]), merge_infos([i for _, i in parts])


class _Options(NamedTuple):
    ties: str
    missing: str
    duplicates: str
    depth: int | None
    judged_only: bool
    seed: int | None
    judged_items: bool


def _query_blocks(rq: np.ndarray, n_codes: int, threads: int | None) -> list[tuple[int, int]] | None:
    """Ranges of query codes holding about the same number of run rows, one per thread; None: align in one pass.

    Large runs only (each block must be worth a thread).
    """
    n = len(rq)
    if n < 2 * PARALLEL_MIN_ROWS:
        return None
    from rankmeter.core.lists import MAX_THREADS, usable_cpus  # here: a small run never needs the threads' module

    workers = min(MAX_THREADS, usable_cpus()) if threads is None else threads
    if workers < 2:
        return None
    workers = min(workers, n // PARALLEL_MIN_ROWS)
    sample = np.sort(rq[:: max(1, n // 65536)])  # quantiles of a sample of the rows' codes balance the blocks
    cuts = sample[len(sample) * np.arange(1, workers) // workers]
    bounds = sorted_unique(np.concatenate(([0], cuts, [n_codes])))
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)] if len(bounds) > 2 else None


def _code_rows(codes: np.ndarray, lo: int, hi: int) -> np.ndarray | slice:
    """Rows whose code lies in ``[lo, hi)``: a slice when the codes are sorted there, else their indices."""
    if len(codes) and bool((codes[1:] >= codes[:-1]).all()):
        return slice(int(np.searchsorted(codes, lo)), int(np.searchsorted(codes, hi)))
    return np.flatnonzero((codes >= lo) & (codes < hi))


def _run_rows(run: Run, rows: np.ndarray | slice) -> Run:
    """The rows ``rows`` of a run, every column.

    Line numbers are kept only when the table has them: a block that fails is
    aligned again in one pass, which reports the problem with its location.
    """
    lines = None if run.lines is None else run.lines[rows]
    return Run(run.query_ids.take(rows), run.doc_ids.take(rows), run.scores[rows], run.source, lines, run.name)


def qrels_rows(qrels: Qrels, rows: np.ndarray | slice) -> Qrels:
    """The qrels rows ``rows``, each with its line number (a slice shares the id buffers).

    >>> import numpy as np
    >>> q = Qrels(np.array(["q1", "q1", "q2"]), np.array(["a", "b", "a"]), np.array([1.0, 0.0, 2.0]), "qrels.txt")
    >>> part = qrels_rows(q, np.array([2]))
    >>> part.doc_ids.tolist(), part.location(0)
    (['a'], ('qrels.txt', 3))
    """
    numbers = np.arange(len(qrels))[rows] + 1 if qrels.lines is None else qrels.lines[rows]
    return Qrels(qrels.query_ids.take(rows), qrels.doc_ids.take(rows), qrels.relevance[rows], qrels.source, numbers)


class JudgmentsByQuery:
    """Qrels handed out block by block of a run read in blocks of whole queries.

    :meth:`of` gives the judgments of a block's queries and remembers them;
    :meth:`unmet` gives those of the judged queries no block had.

    Examples
    --------
    >>> import numpy as np
    >>> q = Qrels(np.array(["a", "b", "c"]), np.array(["d", "d", "d"]), np.array([1.0, 0.0, 2.0]), "qrels.txt")
    >>> judgments = JudgmentsByQuery(q)
    >>> block = Run(np.array(["c", "z"]), np.array(["d", "d"]), np.array([1.0, 1.0]))
    >>> judgments.of(block).query_ids.tolist(), judgments.unmet().query_ids.tolist(), judgments.unmet_ids()
    (['c'], ['a', 'b'], ['a', 'b'])
    """

    def __init__(self, qrels: Qrels) -> None:
        self.qrels = qrels
        self.vocabulary, self._codes = encode(qrels.query_ids)
        self.met = np.zeros(len(self.vocabulary), dtype=bool)

    def of(self, run: Run) -> Qrels:
        """The judgments of the run's queries (each line keeps its number)."""
        found = lookup(run.query_ids.dictionary, self.vocabulary)
        here = np.zeros(len(self.vocabulary), dtype=bool)
        here[found[found >= 0]] = True
        self.met |= here
        return qrels_rows(self.qrels, np.flatnonzero(here[self._codes]))

    def unmet(self) -> Qrels:
        """The judgments of the judged queries no run so far had."""
        return qrels_rows(self.qrels, np.flatnonzero(~self.met[self._codes]))

    def unmet_ids(self) -> list[str]:
        """The judged queries no run so far had, sorted."""
        return self.vocabulary[~self.met].tolist()


def check_run_duplicates(run: Run) -> None:
    """Raise :class:`DuplicateEntryError` at the first (query, document) pair ``run`` repeats (policy ``error``).

    >>> import numpy as np
    >>> check_run_duplicates(Run(np.array(["q1", "q1"]), np.array(["a", "a"]), np.array([1.0, 2.0]), "run.txt"))
    Traceback (most recent call last):
    ...
    rankmeter.errors.DuplicateEntryError: run.txt:2: query 'q1', document 'a' appears twice in the run ...
    """
    if len(run.query_ids.dictionary) == 1 and len(run.doc_ids.coded().dictionary) == len(run):
        return  # one query, every document distinct (the usual case: decided in C, without a Python loop)
    first: dict[tuple[str, str], int] = {}
    for row, pair in enumerate(zip(run.query_ids.tolist(), run.doc_ids.tolist(), strict=True)):
        earlier = first.setdefault(pair, row)
        if earlier != row:  # (a scan that stops at the first repeat: a run of one repeated line stops at once)
            raise _duplicate_error(run, earlier, row, run.scores, "run")


def dedupe_qrels(qrels: Qrels, duplicates: str = "error") -> tuple[Qrels, int]:
    """The qrels without repeated (query, document) pairs, by the ``duplicates`` policy, and how many rows went.

    >>> import numpy as np
    >>> q = Qrels(np.array(["q1", "q1"]), np.array(["a", "a"]), np.array([1.0, 2.0]), "qrels.txt")
    >>> kept, dropped = dedupe_qrels(q, "max")
    >>> kept.relevance.tolist(), dropped
    ([2.0], 1)
    """
    choose(duplicates, DUPLICATE_POLICIES, "duplicates")
    _, codes = intern(qrels.query_ids)
    drop = _rows_to_drop(duplicate_rows(codes[0], qrels.doc_ids), qrels.relevance, duplicates, qrels, "qrels")
    if not len(drop):
        return qrels, 0
    keep = np.ones(len(qrels), dtype=bool)
    keep[drop] = False
    return qrels_rows(qrels, np.flatnonzero(keep)), len(drop)


def _align_block(
    block: tuple[int, int],
    qvocab: np.ndarray,
    qq: np.ndarray,
    rq: np.ndarray,
    qrels: Qrels,
    run: Run,
    options: _Options,
) -> tuple[RankedLists, AlignInfo]:
    """:func:`_align_coded` on the queries with codes ``block[0] <= code < block[1]``."""
    lo, hi = block
    qrows, rrows = _code_rows(qq, lo, hi), _code_rows(rq, lo, hi)
    part_qrels, part_run = qrels_rows(qrels, qrows), _run_rows(run, rrows)
    return _align_coded(qvocab[lo:hi], qq[qrows] - lo, rq[rrows] - lo, part_qrels, part_run, options)


def missing_queries_error(missing: list[str], source: str | None) -> PolicyError:
    """The error of ``missing="error"``: judged queries without documents in the run, the first five named.

    >>> str(missing_queries_error(["q1"], "run.txt"))
    "1 judged queries have no documents in the run run.txt: q1 (missing='error'; use 'zero' or 'skip')"
    """
    return PolicyError(
        f"{len(missing)} judged queries have no documents in the run {source or ''}: "
        f"{', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''} (missing='error'; use 'zero' or 'skip')"
    )


def merge_infos(infos: list[AlignInfo]) -> AlignInfo:
    """One :class:`AlignInfo` for alignments of disjoint sets of queries (lists of ids in the blocks' order)."""
    merged = AlignInfo()
    for info in infos:
        merged.judged_queries += info.judged_queries
        merged.run_queries += info.run_queries
        merged.missing_queries += info.missing_queries
        merged.run_only_queries += info.run_only_queries
        merged.duplicates_dropped += info.duplicates_dropped
        merged.unjudged_dropped += info.unjudged_dropped
        merged.truncated_by_depth += info.truncated_by_depth
    return merged


@dataclass
class Judgments:
    """The qrels rows an alignment keeps (duplicates resolved), grouped by query code, and what derives from them.

    Kept on the qrels (:attr:`~rankmeter.io.tables.Qrels.judgments`) for the
    policy and query codes they were derived for.
    """

    duplicates: str
    """The duplicates policy applied."""
    query_codes: np.ndarray
    """The query code of every qrels row they were derived from."""
    order: np.ndarray
    """Kept rows, by query code (file order inside a query)."""
    codes: np.ndarray
    """Their query codes."""
    queries: np.ndarray
    """The judged query codes, ascending."""
    dropped: int
    """Rows the duplicates policy removed."""
    index: PairIndex | None = None
    indexed: bool = False

    def pair_index(self, qq: np.ndarray, qrels: Qrels) -> PairIndex | None:
        """The :class:`~rankmeter.ids.match.PairIndex` of the kept rows (built once; None when keys collide)."""
        if not self.indexed:
            self.index, self.indexed = pair_index(qq, qrels.doc_ids, self.order), True
        return self.index


def _judgments(qq: np.ndarray, qrels: Qrels, duplicates: str, n_queries: int) -> Judgments:
    """The :class:`Judgments` of qrels whose rows have query codes ``qq``.

    Kept on the qrels for the same codes and policy: several runs aligned
    with the same qrels, whose queries the qrels cover, derive them once.
    """
    found = qrels.judgments
    if found is not None and found.duplicates == duplicates and np.array_equal(found.query_codes, qq):
        return found
    none = np.zeros(0, dtype=np.int64)  # coded documents, no pair repeated (coded_join against no rows says so)
    if len(qq) >= HASH_MIN_ROWS and coded_join(qq, qrels.doc_ids, qq, qrels.doc_ids, none) is not None:
        qdrop = none
    else:
        qdrop = _rows_to_drop(duplicate_rows(qq, qrels.doc_ids), qrels.relevance, duplicates, qrels, "qrels")
    qkeep = np.ones(len(qq), dtype=bool)
    qkeep[qdrop] = False
    qorder = np.flatnonzero(qkeep)
    qorder = qorder[np.argsort(qq[qorder], kind="stable")]
    codes = qq[qorder]
    queries = np.flatnonzero(np.bincount(codes, minlength=n_queries))
    judgments = Judgments(duplicates, qq, qorder, codes, queries, len(qdrop))
    qrels.keep_judgments(judgments)
    return judgments


def prepare_qrels(qrels: Qrels, semantics: Semantics | None = None) -> None:
    """Derive once what aligning any run whose queries the qrels cover reads of the qrels.

    The duplicates policy applied, the rows grouped by query, the hash keys of
    the (query, document) pairs: kept with ``qrels`` and reused by
    :func:`align` for every such run (in this process, and in workers forked
    after this call). Values do not depend on it; a problem in the qrels
    (a duplicate under ``duplicates="error"``) is raised here.

    >>> import numpy as np
    >>> q = Qrels(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([1.0, 0.0]), "qrels.txt")
    >>> prepare_qrels(q)
    >>> q.judgments.order.tolist(), q.judgments.dropped
    ([0, 1], 0)
    """
    sem = Semantics.build(semantics, "qrels")
    qvocab, (qq,) = intern(qrels.query_ids)
    judgments = _judgments(qq, qrels, sem.duplicates, len(qvocab))
    if len(qq) >= HASH_MIN_ROWS:
        judgments.pair_index(qq, qrels)
        StringBuffers.of(qrels.doc_ids)  # the byte reader that confirms every match


def _align_coded(
    qvocab: np.ndarray, qq: np.ndarray, rq: np.ndarray, qrels: Qrels, run: Run, options: _Options
) -> tuple[RankedLists, AlignInfo]:
    """:func:`align` once the query ids are codes into ``qvocab`` (``qq`` for the qrels rows, ``rq`` for the run's)."""
    ties, missing, duplicates, depth, judged_only, seed, judged_items = options
    info = AlignInfo()
    # trec_eval -M then -J: with a depth, the unjudged documents go after the cut, not before the ranking
    judged_after_depth = judged_only and depth is not None
    sparse_after = judged_items and judged_after_depth  # built whole, then made sparse
    judged_items = judged_items and not judged_after_depth

    # qrels: duplicates resolved, rows grouped by query (derived once for qrels shared by several runs)
    judgments = _judgments(qq, qrels, duplicates, len(qvocab))
    qorder, qq_sorted = judgments.order, judgments.codes
    qgrades_sorted = qrels.relevance[qorder]

    # run: duplicates, then grades by exact (query, document) match against the kept qrels rows
    coded = coded_join(rq, run.doc_ids, qq, qrels.doc_ids, qorder) if len(rq) >= HASH_MIN_ROWS else None
    if coded is not None:  # documents with codes on both sides, no pair repeated in the run
        match, rdrop = coded, np.zeros(0, dtype=np.int64)
    else:
        doc_keys, halves = document_pair_keys(rq, run.doc_ids)  # shared by the duplicate check and the join
        rdrop = _rows_to_drop(duplicate_rows(rq, run.doc_ids, doc_keys, halves), run.scores, duplicates, run, "run")
        index = judgments.pair_index(qq, qrels) if doc_keys is not None else None
        match = match_pairs(rq, run.doc_ids, qq, qrels.doc_ids, doc_keys, qorder, halves, index)
        del halves
    info.duplicates_dropped = judgments.dropped + len(rdrop)
    judged = match >= 0

    judged_q = judgments.queries
    run_counts = code_counts(rq, len(qvocab))
    run_q = np.flatnonzero(run_counts)
    info.judged_queries, info.run_queries = len(judged_q), len(run_q)
    run_only = np.setdiff1d(run_q, judged_q, assume_unique=True)
    missing_q = np.setdiff1d(judged_q, run_q, assume_unique=True)
    info.run_only_queries = qvocab[run_only].tolist()
    info.missing_queries = qvocab[missing_q].tolist()
    if missing == "error" and len(missing_q):
        raise missing_queries_error(info.missing_queries, run.source)
    evaluated = np.setdiff1d(judged_q, missing_q, assume_unique=True) if missing == "skip" else judged_q

    keep = np.zeros(len(qvocab), dtype=bool)
    keep[evaluated] = True
    rows: np.ndarray | None = None  # None: every run row stays
    if len(run_only) or len(rdrop) or judged_only:
        keep_rows = keep[rq]
        keep_rows[rdrop] = False
        if judged_only and not judged_after_depth:  # trec_eval -J: a negative grade is "pooled, unjudged" too
            graded = judged.copy()
            graded[judged] = qrels.relevance[match[judged]] >= 0
            info.unjudged_dropped = int((keep_rows & ~graded).sum())
            keep_rows &= graded
        rows = np.flatnonzero(keep_rows)
        rq, match, judged = rq[rows], match[rows], judged[rows]
        run_counts = code_counts(rq, len(qvocab))
    scores = run.scores if rows is None else run.scores[rows]
    grades = None
    if not judged_items or ties in ("optimistic", "pessimistic"):
        grades = np.zeros(len(rq), dtype=np.float64)
        grades[judged] = qrels.relevance[match[judged]]

    def doc_order(items: np.ndarray) -> list[np.ndarray]:
        return string_sort_keys(run.doc_ids, items if rows is None else rows[items])

    noise = None
    if ties == "shuffle":  # keys from the seed and the ids alone: the same however the run is cut or ordered
        doc_keys = document_keys(run.doc_ids)
        query_keys = document_keys(IdColumn(text=qvocab))[rq]
        noise = shuffle_noise(seed, query_keys, doc_keys if rows is None else doc_keys[rows])
    ranked_by = ranking(rq, scores, ties=ties, doc_codes=doc_order, grades=grades, judged=judged, noise=noise)
    ideal_sel = keep[qq_sorted] if len(qq_sorted) else np.zeros(0, bool)
    ideal_counts = np.bincount(np.searchsorted(evaluated, qq_sorted[ideal_sel]), minlength=len(evaluated))
    if judged_items:
        items = _judged_items(ranked_by, rq, scores, match, qrels.relevance, run_counts, evaluated, depth, info)
    else:
        assert grades is not None
        items = _all_items(ranked_by, rq, scores, grades, judged, run_counts[evaluated], depth, info)
        if judged_after_depth:
            items = _drop_unjudged(items, info)
    ranked = RankedLists(
        query_ids=qvocab[evaluated],
        ties=ties,
        ideal_offsets=np.concatenate(([0], np.cumsum(ideal_counts))).astype(np.int64),
        ideal_grades=qgrades_sorted[ideal_sel].astype(np.float64, copy=False),
        **items,
    )
    return (ranked.judged_items() if sparse_after else ranked), info


class _Items(TypedDict, total=False):
    """The per-item fields of :class:`RankedLists`."""

    offsets: np.ndarray
    grades: np.ndarray
    judged: np.ndarray
    scores: np.ndarray
    group_starts: np.ndarray
    item_positions: np.ndarray
    list_lengths: np.ndarray


def _all_items(
    ranked_by: Ranking,
    rq: np.ndarray,
    scores: np.ndarray,
    grades: np.ndarray,
    judged: np.ndarray,
    counts: np.ndarray,
    depth: int | None,
    info: AlignInfo,
) -> _Items:
    """The item arrays of every ranked row (``counts``: rows of each evaluated query), cut at ``depth``."""
    if ranked_by.base is not None:  # query and score are equal inside a tied group: only the base order moves them
        rq, scores = rq[ranked_by.base], scores[ranked_by.base]
    grades, judged = ranked_by.apply(grades), ranked_by.apply(judged)
    group_starts = ranked_by.starts
    if depth is not None:
        offsets = np.concatenate(([0], np.cumsum(counts)))
        positions = np.arange(len(rq)) - np.repeat(offsets[:-1], counts)
        top = positions < depth
        info.truncated_by_depth = int((~top).sum())
        if info.truncated_by_depth:
            rq, scores, grades, judged = rq[top], scores[top], grades[top], judged[top]
            group_starts = tie_group_starts(rq, scores)
        counts = np.minimum(counts, depth)
    return {
        "offsets": np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        "grades": grades,
        "judged": judged,
        "scores": scores,
        "group_starts": group_starts,
    }


def _drop_unjudged(items: _Items, info: AlignInfo) -> _Items:
    """The items without those unjudged or graded below 0 (trec_eval -J after -M), order kept."""
    grades, judged, scores, offsets = items["grades"], items["judged"], items["scores"], items["offsets"]
    keep = judged & (grades >= 0)
    info.unjudged_dropped = int((~keep).sum())
    query = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))[keep]
    counts = np.bincount(query, minlength=len(offsets) - 1)
    return {
        "offsets": np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        "grades": grades[keep],
        "judged": judged[keep],
        "scores": scores[keep],
        "group_starts": tie_group_starts(query, scores[keep]),
    }


def _judged_items(
    ranked_by: Ranking,
    rq: np.ndarray,
    scores: np.ndarray,
    match: np.ndarray,
    relevance: np.ndarray,
    run_counts: np.ndarray,
    evaluated: np.ndarray,
    depth: int | None,
    info: AlignInfo,
) -> _Items:
    """The sparse lists of :meth:`RankedLists.judged_items`, read straight off the ranking.

    Only the judged rows and the tied groups are gathered; a row's rank is its
    place in the ranking minus where its query starts (queries are ranked in
    code order).
    """
    judged_rows = np.flatnonzero(match >= 0)
    if ranked_by.base is None:
        # a row moved by a tie rule lies in a tied group, which is kept whole
        judged_at = judged_rows
    else:
        inverse = np.empty(len(ranked_by.base), dtype=np.int64)
        inverse[ranked_by.base] = np.arange(len(ranked_by.base))
        judged_at = inverse[judged_rows]
    keep = np.zeros(ranked_by.size, dtype=bool)  # a mask merges the two sorted sets in O(n), no sort
    keep[judged_at] = True
    keep[ranked_by.tied] = True
    at = np.flatnonzero(keep)
    rows = ranked_by.rows_at(at)
    query, kept_scores, kept_match = rq[rows], scores[rows], match[rows]
    judged = kept_match >= 0
    grades = np.zeros(len(rows), dtype=np.float64)
    grades[judged] = relevance[kept_match[judged]]
    query_start = np.cumsum(run_counts) - run_counts
    positions = at - query_start[query]
    lengths = run_counts[evaluated]
    if depth is not None:
        info.truncated_by_depth = int(np.maximum(lengths - depth, 0).sum())
        lengths = np.minimum(lengths, depth)
        fields = [f[positions < depth] for f in (query, kept_scores, judged, grades, positions)]
        kept = fields[2].copy()  # judged, and the tied groups the depth left with two or more items
        kept[tied_runs(fields[0], fields[1])[0]] = True
        query, kept_scores, judged, grades, positions = (f[kept] for f in fields)
    counts = np.bincount(query, minlength=len(run_counts))[evaluated]
    return {
        "offsets": np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        "grades": grades,
        "judged": judged,
        "scores": kept_scores,
        "group_starts": tie_group_starts(query, kept_scores),
        "item_positions": positions.astype(np.int64, copy=False),
        "list_lengths": lengths.astype(np.int64, copy=False),
    }
