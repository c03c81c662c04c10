"""The top-k item lists the beyond-accuracy kernels read: :class:`ListsContext`, built from a run.

Each user's items are ordered by score, highest first; tied scores are ordered by the tie policy:
``trec`` (item id descending), ``stable`` (input order) or ``shuffle`` (a seeded random order). Under
``expected``, ``optimistic`` and ``pessimistic`` the top-k *set* is the same for every order of tied items
unless a tied group straddles the cutoff: the set measures are then exact, and a straddling group (or,
for a measure that reads positions, a tie inside the top k) is a PolicyError.

>>> import numpy as np
>>> from rankmeter.io.tables import Run
>>> run = Run(np.array(["u2", "u1", "u1", "u1"]), np.array(["a", "a", "b", "c"]), np.array([1.0, 0.5, 0.9, 0.5]))
>>> ctx = ListsContext.build(run, 2, ties="trec")
>>> ctx.users.tolist(), ctx.universe.tolist(), ctx.codes.tolist(), ctx.lengths.tolist()
(['u1', 'u2'], ['a', 'b', 'c'], [[1, 2], [0, -1]], [2, 1])
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from rankmeter.errors import PolicyError
from rankmeter.io.items import Items
from rankmeter.io.tables import Qrels, Run


def _sorted_rank(text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The order that sorts ``text`` (distinct entries), and the rank of each entry in it."""
    order = np.argsort(text, kind="stable")
    rank = np.empty(len(text), dtype=np.int64)
    rank[order] = np.arange(len(text))
    return order, rank


def _in_order(user: np.ndarray, score: np.ndarray) -> bool:
    """Whether each user's rows are together and strictly descending by score (nothing to order, no tie)."""
    change = user[1:] != user[:-1]
    blocks = int(change.sum()) + 1 if len(user) else 0
    return blocks == np.count_nonzero(np.bincount(user)) and bool((change | (score[1:] < score[:-1])).all())


def _order(run: Run, user: np.ndarray, score: np.ndarray, ties: str, seed: int | None) -> np.ndarray:
    """Rows by user, score descending and the tie policy's order."""
    if ties == "stable":
        second = np.arange(len(user))
    elif ties == "shuffle":
        second = np.random.default_rng(seed).permutation(len(user))
    else:  # trec's order (item id descending); the other policies check that the order of tied items does not matter
        doc_ids = run.doc_ids.coded()
        second = -_sorted_rank(doc_ids.dictionary.text().astype(str))[1][doc_ids.codes]
    return np.lexsort((second, -score, user))


def _distinct_items(run: Run, rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct item ids of ``rows`` of the run (None: every row), sorted, and each row's index into them."""
    ids = run.doc_ids
    if not ids.is_coded:
        taken = ids if rows is None else ids.take(rows)
        universe, inverse = np.unique(taken.text().astype(str), return_inverse=True)
        return universe, inverse.ravel()
    codes = ids.codes if rows is None else ids.codes[rows]  # codes into the dictionary: a table of its size, no sort
    seen = np.zeros(len(ids.dictionary), dtype=bool)
    seen[codes] = True
    present = np.flatnonzero(seen)
    text = ids.dictionary.text()[present].astype(str)
    order = np.argsort(text, kind="stable")
    rank = np.full(len(seen), -1, dtype=np.int64)
    rank[present[order]] = np.arange(len(present))
    return text[order], rank[codes]


@dataclass
class ListsContext:
    """Each user's top ``k`` items as codes into :attr:`universe` (-1 pads shorter lists).

    Attributes
    ----------
    users : ndarray of str, shape (U,)
        Users with at least one item in the run, sorted.
    codes : ndarray of int64, shape (U, k)
    universe : ndarray of str
        The distinct recommended items, sorted.
    ties : str
    items : Items
    truth : Qrels or None
        The held-out interactions (grade > 0 is relevant), for measures that read relevance.
    tied_inside : ndarray of bool, shape (U, k)
        Whether the item at each position has the same score as the next item of its list.
    """

    users: np.ndarray
    codes: np.ndarray
    universe: np.ndarray
    ties: str
    tied_inside: np.ndarray
    items: Items = field(default_factory=Items)
    truth: Qrels | None = None
    samples: list[ListsContext] = field(default_factory=list)  # several sampled rankings per user
    shared: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    """What several kernels derive alike from these lists (a subset starts with none)."""

    @classmethod
    def build(
        cls,
        run: Run,
        k: int,
        *,
        ties: str = "trec",
        seed: int | None = None,
        items: Items | None = None,
        truth: Qrels | None = None,
    ) -> ListsContext:
        """The top ``k`` of every user's list in ``run``."""
        qdict = run.query_ids.dictionary.text().astype(str)
        by_text, rank = _sorted_rank(qdict)
        user = rank[run.query_ids.codes]
        score = np.asarray(run.scores, dtype=np.float64)
        order = None if _in_order(user, score) else _order(run, user, score, ties, seed)
        if order is not None:
            user, score = user[order], score[order]
        starts = np.flatnonzero(np.r_[True, user[1:] != user[:-1]]) if len(user) else np.zeros(0, dtype=np.int64)
        sizes = np.diff(np.r_[starts, len(user)])
        pos = np.arange(len(user)) - np.repeat(starts, sizes)
        tied_next = np.zeros(len(user), dtype=bool)
        tied_next[:-1] = (user[1:] == user[:-1]) & (score[1:] == score[:-1])
        keep = pos < k
        n_users = len(starts)
        by_id = np.argsort(user[starts], kind="stable")  # the users' blocks in id order
        every = bool(keep.all())  # (no list longer than k: every row is kept, no row index to gather)
        kept = (None if every else np.flatnonzero(keep)) if order is None else (order if every else order[keep])
        universe, inverse = _distinct_items(run, kept)
        tied_kept = tied_next if every else tied_next[keep]
        if len(inverse) == n_users * k:  # every list k long: the kept rows are the blocks' rows, k each
            codes, tied = inverse.reshape(n_users, k)[by_id], tied_kept.reshape(n_users, k)[by_id]
        else:
            row_of_block = np.empty(n_users, dtype=np.int64)
            row_of_block[by_id] = np.arange(n_users)
            at = np.repeat(row_of_block * k, np.minimum(sizes, k)) + (pos if every else pos[keep])  # kept rows' places
            codes, tied = np.full((n_users, k), -1, dtype=np.int64), np.zeros((n_users, k), dtype=bool)
            codes.reshape(-1)[at] = inverse  # (views of the new arrays: the rows' flat places)
            tied.reshape(-1)[at] = tied_kept
        users = qdict[by_text[user[starts][by_id]]] if n_users else np.zeros(0, dtype=str)  # one sort of the ids
        return cls(users, codes, universe, ties, tied, items or Items(), truth)

    def subset(self, rows: np.ndarray) -> ListsContext:
        """The lists of the users ``rows`` (indices into :attr:`users`), over the same universe and items."""
        return replace(
            self,
            users=self.users[rows],
            codes=self.codes[rows],
            tied_inside=self.tied_inside[rows],
            samples=[s.subset(np.flatnonzero(np.isin(s.users, self.users[rows]))) for s in self.samples],
        )

    @property
    def lengths(self) -> np.ndarray:
        """Items in each user's top k."""
        return (self.codes >= 0).sum(axis=1)

    def top(self, k: int, positional: bool = False, measure: str = "") -> np.ndarray:
        """The codes of each user's top ``k`` (-1 pads), checked against the tie policy."""
        if self.ties in ("expected", "optimistic", "pessimistic"):
            straddle = self.tied_inside[:, k - 1] if k <= self.codes.shape[1] else np.zeros(len(self.users), bool)
            inside = self.tied_inside[:, : k - 1].any(axis=1) if positional else np.zeros(len(self.users), bool)
            bad = np.flatnonzero(straddle | inside)
            if len(bad):
                where = "straddle the cutoff" if straddle[bad[0]] else "lie inside the top k"
                raise PolicyError(
                    f"measure {measure!r}, user {str(self.users[bad[0]])!r}: tied items {where}, so the value "
                    f"depends on their order; ties={self.ties!r} is not defined here, use ties='trec' or 'stable'"
                )
        return self.codes[:, :k]

    @cached_property
    def users_of(self) -> np.ndarray:
        """Distinct training users of each universe item."""
        return self.items.users_of(self.universe)

    @cached_property
    def rows_of(self) -> np.ndarray:
        """Training interactions of each universe item."""
        return self.items.rows_of(self.universe)

    def held_out(self) -> Qrels:
        """The held-out interactions (qrels); a PolicyError when the call gave none."""
        if self.truth is None:
            raise PolicyError("this measure reads the held-out interactions (qrels) as relevance")
        return self.truth

    @cached_property
    def relevant(self) -> np.ndarray:
        """Whether each listed item is a held-out relevant item of its user (grade > 0), shape (U, k)."""
        out = np.zeros(self.codes.shape, dtype=bool)
        self.held_out()
        assert self.truth is not None
        from rankmeter.core.candidates import member

        rel = self.truth.relevance > 0
        pairs = Qrels(self.truth.query_ids.text()[rel], self.truth.doc_ids.text()[rel], np.ones(int(rel.sum())))
        u, p = np.nonzero(self.codes >= 0)
        listed = Run(self.users[u], self.universe[self.codes[u, p]], np.zeros(len(u)))  # ids as IdColumns
        out[u, p] = member(listed.query_ids, listed.doc_ids, pairs)
        return out

    def first_user(self, codes: np.ndarray, bad: np.ndarray) -> Any:
        """The user of the first item flagged in ``bad`` (a boolean over the universe) in ``codes``."""
        hit = np.flatnonzero((bad[np.maximum(codes, 0)] & (codes >= 0)).any(axis=1))
        return self.users[hit[0]] if len(hit) else None
