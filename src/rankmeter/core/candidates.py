"""Which items compete for a user: the candidate set, a named semantic choice like ``ties``.

``exclude=`` removes (user, item) pairs -- typically the training
interactions -- from every ranking *and* from the ideal: an excluded item is
neither ranked nor counted as relevant. ``candidates=`` keeps only the given
(user, item) pairs (for example one held-out positive and 100 sampled
negatives per user): only they are ranked and judged. Both together: the
candidates less the excluded pairs.

The choice is recorded as ``metadata["semantics"]["candidates"]``
(``"exclude"``, ``"given"`` or ``"given, exclude"``) and what it removed as
``metadata["candidates"]`` (:data:`COUNTS`), so that nothing leaves silently.

Examples
--------
>>> import numpy as np
>>> q = Qrels(np.array(["u1", "u1", "u2"]), np.array(["a", "b", "a"]), np.ones(3))
>>> r = Run(np.array(["u1", "u1"]), np.array(["a", "c"]), np.array([-1.0, -2.0]))
>>> choice = CandidateChoice(exclude=Qrels(np.array(["u1", "u3"]), np.array(["a", "x"]), np.ones(2)))
>>> q2, r2, counts = choice.apply(q, r)
>>> q2.doc_ids.tolist(), r2.doc_ids.tolist(), counts["run_rows_excluded"], counts["exclude_users_unknown"]
(['b', 'a'], ['c'], 1, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankmeter.core.join import qrels_rows
from rankmeter.ids.column import IdColumn
from rankmeter.ids.duplicates import duplicate_rows
from rankmeter.ids.hashing import HASH_MIN_ROWS
from rankmeter.ids.intern import intern
from rankmeter.ids.match import coded_join, match_pairs, take_keyed
from rankmeter.io.load import as_pairs
from rankmeter.io.tables import Qrels, Run

COUNTS = (
    "exclude_pairs",
    "exclude_users_unknown",
    "run_rows_excluded",
    "qrels_rows_excluded",
    "run_rows_not_candidates",
    "qrels_rows_not_candidates",
    "users_without_candidates",
    "users_left_without_relevant",
)
"""What ``metadata["candidates"]`` counts: the excluded pairs given; their users absent from the qrels
(allowed); run and qrels rows removed as excluded, and as outside the given candidates; judged users
with no candidate list; users with a relevant item (grade > 0) before and none after (``empty=`` decides
what they count)."""


def member(query_ids: IdColumn, doc_ids: IdColumn, pairs: Qrels) -> np.ndarray:
    """Whether each (query, document) row is one of ``pairs``' (user, item) pairs, exactly.

    Users are matched through their codes, items through the 64-bit keys of
    :func:`~rankmeter.ids.match.match_pairs` (every candidate confirmed byte for
    byte), so no row is compared as Python objects.

    >>> p = Qrels(np.array(["u1", "u1"]), np.array(["a", "a"]), np.ones(2))
    >>> rows = Qrels(np.array(["u1", "u1", "u2"]), np.array(["a", "b", "a"]), np.ones(3))
    >>> member(rows.query_ids, rows.doc_ids, p).tolist()
    [True, False, False]
    """
    if not len(pairs) or not len(query_ids):
        return np.zeros(len(query_ids), dtype=bool)
    _, (users, pair_users) = intern(query_ids, pairs.query_ids)
    repeats = duplicate_rows(pair_users, pairs.doc_ids)[:, 1]  # match_pairs needs distinct pairs
    rows = np.delete(np.arange(len(pairs)), repeats) if len(repeats) else None
    if len(users) >= HASH_MIN_ROWS:  # documents with codes on both sides: joined through the codes
        distinct = np.arange(len(pairs)) if rows is None else rows
        by_user = distinct[np.argsort(pair_users[distinct], kind="stable")]
        coded = coded_join(users, doc_ids, pair_users, pairs.doc_ids, by_user)
        if coded is not None:
            return coded >= 0
    return match_pairs(users, doc_ids, pair_users, pairs.doc_ids, qrels_rows=rows) >= 0


def _run_rows(run: Run, keep: np.ndarray) -> Run:
    rows = np.flatnonzero(keep)
    lines = None if run.lines is None else run.lines[rows]
    docs = take_keyed(run.doc_ids, rows)  # the hash keys computed to find the pairs serve the alignment too
    return Run(run.query_ids.take(rows), docs, run.scores[rows], run.source, lines, run.name, run.columns)


def _qrels_rows(qrels: Qrels, keep: np.ndarray, grades: np.ndarray) -> Qrels:
    rows = np.flatnonzero(keep)
    kept = qrels_rows(qrels, rows)
    return Qrels(kept.query_ids, kept.doc_ids, grades[rows], kept.source, kept.lines, qrels.columns)


def _keep_users(qrels: Qrels, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``keep`` and the grades, with one row kept at grade 0 for each user none of whose rows is kept.

    Such a user stays judged, with nothing relevant (``empty=`` decides its
    values), rather than leaving the evaluation. The row's item was removed
    from the run too, so it is never ranked; grade 0 adds nothing to any ideal.

    >>> q = Qrels(np.array(["u", "u", "v"]), np.array(["a", "b", "c"]), np.array([1.0, 2.0, 1.0]))
    >>> keep, grades = _keep_users(q, np.array([False, False, True]))
    >>> keep.tolist(), grades.tolist()
    ([True, False, True], [0.0, 2.0, 1.0])
    """
    codes = qrels.query_ids.codes
    users = int(codes.max()) + 1 if len(codes) else 0
    lost = (np.bincount(codes, minlength=users) > 0) & (np.bincount(codes[keep], minlength=users) == 0)
    grades = qrels.relevance
    if lost.any():
        first = np.full(users, len(codes), dtype=np.int64)
        np.minimum.at(first, codes, np.arange(len(codes)))
        rows = first[lost]
        keep, grades = keep.copy(), grades.copy()
        keep[rows], grades[rows] = True, 0.0
    return keep, grades


def _distinct(ids: IdColumn) -> np.ndarray:
    """The sorted distinct ids the rows use (a dictionary may hold ids no row has).

    >>> _distinct(Qrels(np.array(["b", "a"]), np.array(["x", "y"]), np.ones(2)).query_ids.take(slice(0, 1)))
    array(['b'], dtype='<U1')
    """
    coded = ids.coded()
    used = np.flatnonzero(np.bincount(coded.codes, minlength=len(coded.dictionary)))  # (a count, not np.unique's sort)
    return np.sort(coded.dictionary.text()[used])


@dataclass(frozen=True)
class PairsByUser:
    """(user, item) pairs sorted by user, to take the pairs of a few users at a time.

    >>> index = PairsByUser.build(Qrels(np.array(["u2", "u1", "u2"]), np.array(["a", "b", "c"]), np.ones(3)))
    >>> index.pairs_of(np.array(["u2", "u9"])).doc_ids.tolist()
    ['a', 'c']
    """

    pairs: Qrels
    order: np.ndarray  # rows of ``pairs`` by user
    users: np.ndarray  # each of those rows' user, as text (sorted)

    @classmethod
    def build(cls, pairs: Qrels) -> PairsByUser:
        """The index of ``pairs`` (one sort of their users' ids)."""
        text = pairs.query_ids.text()
        order = np.argsort(text, kind="stable")
        return cls(pairs, order, text[order])

    def rows_of(self, users: np.ndarray) -> np.ndarray:
        """The rows of the pairs of ``users`` (distinct ids as text), ascending."""
        lo, hi = np.searchsorted(self.users, users, "left"), np.searchsorted(self.users, users, "right")
        sizes = hi - lo
        ends = np.cumsum(sizes)
        at = np.arange(int(ends[-1]) if len(ends) else 0) + np.repeat(hi - ends, sizes)
        return np.sort(self.order[at])

    def pairs_of(self, users: np.ndarray) -> Qrels:
        """The pairs of ``users`` (distinct ids as text)."""
        return qrels_rows(self.pairs, self.rows_of(users))


@dataclass
class CandidateChoice:
    """The candidate set of an evaluation: pairs to exclude, pairs to keep, or both (as :class:`Qrels`).

    :meth:`apply` restricts a qrels and a run; the qrels are restricted once
    for several runs (the last result is kept).
    """

    exclude: Qrels | None = None
    given: Qrels | None = None
    _last: tuple[Qrels, Qrels, dict[str, int]] | None = field(default=None, repr=False, compare=False)
    _index: dict[str, PairsByUser] = field(default_factory=dict, repr=False, compare=False)

    @property
    def name(self) -> str:
        """``"exclude"``, ``"given"`` or ``"given, exclude"`` (``metadata["semantics"]["candidates"]``).

        >>> CandidateChoice(given=Qrels(np.array(["u"]), np.array(["a"]), np.ones(1))).name
        'given'
        """
        return ", ".join(n for n, p in (("given", self.given), ("exclude", self.exclude)) if p is not None)

    def restrict_qrels(self, qrels: Qrels) -> tuple[Qrels, dict[str, int]]:
        """The qrels without the excluded pairs and the pairs outside the candidates, and what went."""
        if self._last is not None and self._last[0] is qrels:
            return self._last[1], dict(self._last[2])
        counts = dict.fromkeys(COUNTS, 0)
        keep = np.ones(len(qrels), dtype=bool)
        if self.exclude is not None:
            out = member(qrels.query_ids, qrels.doc_ids, self.exclude)
            counts["qrels_rows_excluded"] = int(out.sum())
            counts["exclude_pairs"] = len(self.exclude)
            counts["exclude_users_unknown"] = int(
                np.count_nonzero(_absent(_distinct(self.exclude.query_ids), _distinct(qrels.query_ids)))
            )
            keep &= ~out
        if self.given is not None:
            inside = member(qrels.query_ids, qrels.doc_ids, self.given)
            counts["qrels_rows_not_candidates"] = int(np.count_nonzero(keep & ~inside))
            judged = _distinct(qrels.query_ids)
            counts["users_without_candidates"] = int(np.count_nonzero(_absent(judged, _distinct(self.given.query_ids))))
            keep &= inside
        codes, relevant = qrels.query_ids.codes, qrels.relevance > 0
        size = int(codes.max()) + 1 if len(codes) else 0
        before = np.bincount(codes[relevant], minlength=size) > 0
        after = np.bincount(codes[relevant & keep], minlength=size) > 0
        counts["users_left_without_relevant"] = int(np.count_nonzero(before & ~after))
        kept = qrels if keep.all() else _qrels_rows(qrels, *_keep_users(qrels, keep))
        self._last = (qrels, kept, counts)
        return kept, dict(counts)

    def restrict_run(self, run: Run) -> tuple[Run, dict[str, int]]:
        """The run without the excluded pairs and the pairs outside the candidates, and how many rows went."""
        counts = {"run_rows_excluded": 0, "run_rows_not_candidates": 0}
        keep = np.ones(len(run), dtype=bool)
        if self.exclude is not None:
            out = member(run.query_ids, run.doc_ids, self.exclude)
            counts["run_rows_excluded"] = int(out.sum())
            keep &= ~out
        if self.given is not None:
            inside = member(run.query_ids, run.doc_ids, self.given)
            counts["run_rows_not_candidates"] = int(np.count_nonzero(keep & ~inside))
            keep &= inside
        return (run if keep.all() else _run_rows(run, keep)), counts

    def restrict_run_part(self, run: Run) -> tuple[Run, dict[str, int]]:
        """:meth:`restrict_run` for a part of a run (a block of a streamed file), reading only its users' pairs.

        The pairs are sorted by user once; each part then takes the pairs of
        its own users by binary search, so a long stream does not read every
        pair once per block. The counts are those of :meth:`restrict_run`.

        >>> pairs = Qrels(np.array(["u1", "u2", "u1"]), np.array(["a", "a", "b"]), np.ones(3))
        >>> part = Run(np.array(["u1", "u1", "u1"]), np.array(["a", "c", "b"]), np.array([3.0, 2.0, 1.0]))
        >>> kept, counts = CandidateChoice(exclude=pairs).restrict_run_part(part)
        >>> kept.doc_ids.tolist(), counts["run_rows_excluded"]
        (['c'], 2)
        """
        users = _distinct(run.query_ids)
        local = CandidateChoice(
            exclude=None if self.exclude is None else self._by_user("exclude", self.exclude).pairs_of(users),
            given=None if self.given is None else self._by_user("given", self.given).pairs_of(users),
        )
        return local.restrict_run(run)

    def _by_user(self, name: str, pairs: Qrels) -> PairsByUser:
        """The :class:`PairsByUser` index of ``exclude`` or ``given``, built on first use."""
        if name not in self._index:
            self._index[name] = PairsByUser.build(pairs)
        return self._index[name]

    def apply(self, qrels: Qrels, run: Run) -> tuple[Qrels, Run, dict[str, int]]:
        """Both restrictions, with the counts of :data:`COUNTS`."""
        kept_qrels, counts = self.restrict_qrels(qrels)
        kept_run, run_counts = self.restrict_run(run)
        counts.update(run_counts)
        return kept_qrels, kept_run, counts


def candidate_choice(exclude: Any, candidates: Any) -> CandidateChoice | None:
    """The :class:`CandidateChoice` of ``exclude=`` and ``candidates=`` in any form ``as_pairs`` reads (None: neither).

    >>> candidate_choice({"u1": ["a"]}, None).name
    'exclude'
    """
    if exclude is None and candidates is None:
        return None
    return CandidateChoice(
        exclude=None if exclude is None else as_pairs(exclude, "exclude"),
        given=None if candidates is None else as_pairs(candidates, "candidates"),
    )


def _absent(ids: np.ndarray, among: np.ndarray) -> np.ndarray:
    """Whether each of the sorted distinct ``ids`` is absent from the sorted distinct ``among``."""
    if not len(among):
        return np.ones(len(ids), dtype=bool)
    at = np.minimum(np.searchsorted(among, ids), len(among) - 1)
    return np.asarray(among[at] != ids)


def record(metadata: dict[str, Any], name: str, counts: dict[str, int]) -> None:
    """Write the choice into a result's metadata: ``["semantics"]["candidates"]`` and ``["candidates"]``.

    >>> meta = {"semantics": {"ties": "trec"}}
    >>> record(meta, "exclude", {"run_rows_excluded": 3})
    >>> meta["semantics"]["candidates"], meta["candidates"]["run_rows_excluded"]
    ('exclude', 3)
    """
    metadata["semantics"] = {**metadata.get("semantics", {}), "candidates": name}
    metadata["candidates"] = {key: int(counts.get(key, 0)) for key in COUNTS}
