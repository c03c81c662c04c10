"""Tie policies: the one place where ranked lists are ordered.

==============  ============================================================
policy          order inside a query
==============  ============================================================
``trec``        score descending, then document id descending (string
                order) -- trec_eval's rule; the rank column is ignored
``stable``      score descending, then input order
``expected``    the exact expectation over every ordering of each tied
                group (McSherry & Najork, ECIR 2008); kernels read the tie
                groups, the order inside a group does not matter
``shuffle``     score descending, ties in a seeded random order
``optimistic``  score descending, then highest grade first (upper bound)
``pessimistic`` score descending, then lowest grade first (lower bound)
==============  ============================================================

Scores are compared exactly as float64 (``-0.0`` equals ``0.0``); nothing is nudged by an epsilon.
Scores that are not finite (NaN, infinities) are refused before any ranking. :data:`TIE_RULES` states
each rule as the sort key of one tied item and :func:`reference_order` applies it in plain Python: that
is the specification which every ranking (these NumPy functions, :mod:`rankmeter.xp.ranking`,
:mod:`rankmeter.keras.ranking`, :mod:`rankmeter.vectors.ranking`) is tested against, one table of
policies, backends and cases.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rankmeter.core.arrays import sorted_unique
from rankmeter.core.semantics import TIE_POLICIES, choose
from rankmeter.errors import PolicyError


@dataclass(frozen=True)
class TiedItem:
    """One item of a tied group, as a tie rule sees it.

    Attributes
    ----------
    position : int
        Input position (the last key of every rule: equal keys keep input order).
    grade : float
        Relevance grade (``optimistic`` / ``pessimistic``; negative grades gain like 0).
    judged : bool
        Whether the document is judged (``optimistic``: judged first among equal grades; ``pessimistic``: last).
    doc : int
        The document id's code in string order (``trec``); for arrays, the column.
    noise : float
        The item's random key (``shuffle``).
    """

    position: int
    grade: float = 0.0
    judged: bool = True
    doc: int = 0
    noise: float = 0.0


@dataclass(frozen=True)
class TieRule:
    """How one policy orders a tied group: ``key(item)`` ascending, then the input position."""

    text: str
    key: Callable[[TiedItem], tuple[float, ...]]


TIE_RULES: dict[str, TieRule] = {
    "trec": TieRule("document id descending (string order)", lambda item: (-item.doc,)),
    "stable": TieRule("input order", lambda item: ()),
    "expected": TieRule(
        "every order of the group equally likely: kernels read the whole group, listed in input order",
        lambda item: (),
    ),
    "shuffle": TieRule("a seeded random key per item", lambda item: (item.noise,)),
    "optimistic": TieRule(
        "grade clipped at 0 descending, then judged first", lambda item: (-max(item.grade, 0.0), -float(item.judged))
    ),
    "pessimistic": TieRule(
        "grade clipped at 0 ascending, then unjudged first", lambda item: (max(item.grade, 0.0), float(item.judged))
    ),
}
"""The ordering rule of every tie policy, once: inside a group of equal scores, items go by ``key`` ascending."""

VECTOR_TIES = ("expected", "stable", "optimistic", "pessimistic", "shuffle")
"""The policies of the vector paths (:func:`rankmeter.evaluate_vectors`, ``rankmeter retrieval``): every rule
but ``trec``, which orders tied documents by their ids' string order (database rows are numbered, not named)."""


def reference_order(scores: list[float], ties: str, items: list[TiedItem] | None = None) -> list[int]:
    """One list ranked under ``ties`` by :data:`TIE_RULES`, in plain Python: the specification of every ranking.

    Score descending, then the policy's key, then the input position
    (``items[i]`` describes item ``i``; by default its column is its document
    code and its grade 0).

    >>> reference_order([1.0, 2.0, 1.0, -0.0, 0.0], "trec")
    [1, 2, 0, 4, 3]
    >>> reference_order([1.0, 1.0], "optimistic", [TiedItem(0, grade=1.0), TiedItem(1, grade=3.0)])
    [1, 0]
    """
    if not all(math.isfinite(x) for x in scores):
        raise PolicyError("scores must be finite to be ranked")
    rule = TIE_RULES[check_policy(ties)].key
    items = items if items is not None else [TiedItem(i, doc=i) for i in range(len(scores))]
    return sorted(range(len(scores)), key=lambda i: (-scores[i], *rule(items[i]), i))


def check_policy(ties: str) -> str:
    """Return ``ties`` if it is a known policy, else raise :class:`PolicyError`.

    >>> check_policy("expected")
    'expected'
    """
    return choose(ties, TIE_POLICIES, "ties")


def _presorted_base(query_codes: np.ndarray, scores: np.ndarray) -> np.ndarray | None:
    """The base permutation when each query's items are contiguous and score-sorted (None: already in order).

    Raises LookupError when the input is not presorted (the caller sorts).
    """
    n = len(scores)
    change = np.flatnonzero(query_codes[1:] != query_codes[:-1]) + 1
    rising = np.flatnonzero(scores[1:] > scores[:-1]) + 1  # a score above its predecessor ...
    if len(rising) and not np.isin(rising, change, assume_unique=True).all():  # ... inside one query
        raise LookupError
    block_starts = np.concatenate(([0], change))
    block_query = query_codes[block_starts]
    if len(block_query) < 2 or bool(np.all(block_query[1:] > block_query[:-1])):
        return None
    if len(sorted_unique(block_query)) != len(block_query):
        raise LookupError
    lengths = np.diff(np.concatenate((block_starts, [n])))
    by_query = np.argsort(block_query, kind="stable")
    new_starts = np.concatenate(([0], np.cumsum(lengths[by_query])[:-1]))
    return (np.repeat(block_starts[by_query] - new_starts, lengths[by_query]) + np.arange(n)).astype(np.int64)


def _base(query_codes: np.ndarray, scores: np.ndarray) -> np.ndarray | None:
    if len(scores) == 0:
        return None
    try:
        return _presorted_base(query_codes, scores)
    except LookupError:
        return np.lexsort((-np.asarray(scores, dtype=np.float64), query_codes)).astype(np.int64)


@dataclass
class Ranking:
    """A ranking of items by query, score descending, then a tie rule -- stored as cheaply as it was found.

    Attributes
    ----------
    base : ndarray of int64 or None
        Permutation ordering items by query, then score descending, ties in
        input order; None when the input already is in that order.
    size : int
        Number of items.
    tied : ndarray of int64
        Ranked positions of the items of the tied groups (equal query and
        score) of two or more, ascending ...
    tied_sizes : ndarray of int64
        ... and the size of each of those groups.
    moved : ndarray of int64
        Ranked positions whose item the tie rule changed ...
    source : ndarray of int64
        ... and the base-order position of the item placed there.
    """

    base: np.ndarray | None
    size: int
    tied: np.ndarray
    tied_sizes: np.ndarray
    moved: np.ndarray
    source: np.ndarray

    @property
    def starts(self) -> np.ndarray:
        """CSR boundaries of all tied groups in ranked order (one per item when nothing ties).

        >>> import numpy as np
        >>> ranking(np.array([0, 0, 0, 1]), np.array([1.0, 1.0, 0.5, 2.0]), ties="stable").starts.tolist()
        [0, 2, 3, 4]
        """
        boundary = np.ones(self.size + 1, dtype=bool)
        first = np.cumsum(self.tied_sizes) - self.tied_sizes
        follower = np.ones(len(self.tied), dtype=bool)
        follower[first] = False
        boundary[self.tied[follower]] = False
        return np.flatnonzero(boundary)

    def apply(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per item, input order) in ranked order.

        >>> import numpy as np
        >>> r = ranking(np.array([0, 0, 0]), np.array([1.0, 2.0, 1.0]), ties="trec", doc_codes=np.arange(3))
        >>> r.apply(np.array([10, 20, 30])).tolist()
        [20, 30, 10]
        """
        ranked = values[self.base] if self.base is not None else values
        if len(self.moved):
            if ranked is values:
                ranked = values.copy()
            ranked[self.moved] = ranked[self.source]
        return ranked

    def order(self) -> np.ndarray:
        """The full permutation: ``scores[order]`` is the ranking."""
        return self.apply(np.arange(self.size, dtype=np.int64))

    def rows_at(self, positions: np.ndarray) -> np.ndarray:
        """Input index of the item at each of the (ascending) ranked ``positions``: ``order()[positions]``.

        >>> import numpy as np
        >>> r = ranking(np.array([0, 0, 0]), np.array([1.0, 2.0, 1.0]), ties="trec", doc_codes=np.arange(3))
        >>> r.rows_at(np.array([0, 2])).tolist(), r.order().tolist()
        ([1, 0], [1, 2, 0])
        """
        at = np.array(positions, dtype=np.int64)
        if len(self.moved) and len(at):
            i = np.searchsorted(self.moved, at).clip(max=len(self.moved) - 1)
            hit = self.moved[i] == at
            at[hit] = self.source[i[hit]]
        return at if self.base is None else self.base[at]


def rank_order(
    query_codes: np.ndarray,
    scores: np.ndarray,
    *,
    ties: str,
    doc_codes: np.ndarray | Callable[[np.ndarray], np.ndarray | list[np.ndarray]] | None = None,
    grades: np.ndarray | None = None,
    judged: np.ndarray | None = None,
    seed: int | None = None,
    noise: np.ndarray | None = None,
) -> np.ndarray:
    """Permutation that sorts items by query, then score descending, then the tie rule.

    Parameters
    ----------
    query_codes : ndarray of int64
        Query of each item; the result groups items by ascending query code.
    scores : ndarray of float64
        Higher ranks first.
    ties : str
        One of :data:`TIE_POLICIES`.
    doc_codes : ndarray of int64 or callable, optional
        Needed for ``trec``: codes in string order of the document ids, or a
        function returning them for an array of item indices (only items in
        tied groups are ever asked for); the function may also return a list
        of sort keys, most significant first (see
        :func:`rankmeter.ids.order.string_sort_keys`).
    grades : ndarray of float64, optional
        Needed for ``optimistic`` and ``pessimistic``.
    judged : ndarray of bool, optional
        For ``optimistic`` / ``pessimistic``: among equal grades, judged
        documents go first / last (so judged@k is bounded too).
    seed : int, optional
        Seed for ``shuffle``.
    noise : ndarray of float or uint64, optional
        For ``shuffle``: one random key per item (instead of drawing from
        ``seed``), e.g. keys that do not depend on how items were batched.

    Returns
    -------
    ndarray of int64
        ``order`` such that ``scores[order]`` is the ranking.

    Examples
    --------
    >>> import numpy as np
    >>> q = np.array([0, 0, 0]); s = np.array([1.0, 2.0, 1.0])
    >>> rank_order(q, s, ties="stable").tolist()
    [1, 0, 2]
    >>> rank_order(q, s, ties="trec", doc_codes=np.array([0, 1, 2])).tolist()
    [1, 2, 0]
    >>> rank_order(q, s, ties="optimistic", grades=np.array([0.0, 0.0, 3.0])).tolist()
    [1, 2, 0]
    """
    return ranking(
        query_codes, scores, ties=ties, doc_codes=doc_codes, grades=grades, judged=judged, seed=seed, noise=noise
    ).order()


def ranking(
    query_codes: np.ndarray,
    scores: np.ndarray,
    *,
    ties: str,
    doc_codes: np.ndarray | Callable[[np.ndarray], np.ndarray | list[np.ndarray]] | None = None,
    grades: np.ndarray | None = None,
    judged: np.ndarray | None = None,
    seed: int | None = None,
    noise: np.ndarray | None = None,
) -> Ranking:
    """:func:`rank_order` as a :class:`Ranking`: no full permutation is built when the input is presorted.

    Takes the same parameters as :func:`rank_order`.

    >>> import numpy as np
    >>> r = ranking(np.array([0, 0, 1]), np.array([2.0, 2.0, 1.0]), ties="stable")
    >>> r.base is None, r.starts.tolist()
    (True, [0, 2, 3])
    """
    check_policy(ties)
    if ties == "trec" and doc_codes is None:
        raise PolicyError("ties='trec' needs document ids; use 'stable' or 'expected' for arrays")
    if ties in ("optimistic", "pessimistic") and grades is None:  # pragma: no cover - callers pass grades
        raise PolicyError(f"ties={ties!r} needs relevance grades")
    scores = np.asarray(scores)
    base = _base(query_codes, scores)
    tied_pos, tied_sizes = (
        tied_runs(query_codes, scores) if base is None else tied_runs(query_codes[base], scores[base])
    )
    none = np.zeros(0, dtype=np.int64)
    if ties in ("stable", "expected") or not len(tied_pos):
        return Ranking(base, len(scores), tied_pos, tied_sizes, none, none)
    group = np.repeat(np.arange(len(tied_sizes)), tied_sizes)
    rows = base[tied_pos] if base is not None else tied_pos
    keys: list[np.ndarray]
    if ties == "trec":
        codes = doc_codes(rows) if callable(doc_codes) else np.asarray(doc_codes)[rows]
        # one code array, or sort keys most significant first: either way, higher ids rank first
        keys = [_descending(k) for k in (codes[::-1] if isinstance(codes, list) else [codes])]
    elif ties == "shuffle":
        keys = [np.random.default_rng(seed).random(len(rows)) if noise is None else np.asarray(noise)[rows]]
    else:
        sign = -1.0 if ties == "optimistic" else 1.0
        g = np.maximum(np.asarray(grades, dtype=np.float64)[rows], 0.0)  # negative grades gain like 0
        j = np.zeros(len(rows)) if judged is None else np.asarray(judged, dtype=np.float64)[rows]
        keys = [sign * j, sign * g]  # lexsort: last key is the primary one
    return Ranking(
        base, len(scores), tied_pos, tied_sizes, tied_pos, tied_pos[_order_in_groups(keys, group, tied_sizes)]
    )


def shuffle_noise(seed: int | None, query_keys: np.ndarray, doc_keys: np.ndarray) -> np.ndarray:
    """One random 64-bit sort key per (query, document) for ``ties="shuffle"``, from the seed and the ids alone.

    ``key = mix(mix(seed) + mix(q) * M + d)`` with ``q``, ``d`` the 64-bit
    hash keys of the query and document ids (:func:`rankmeter.ids.hashing.document_keys`)
    and ``mix`` the SplitMix64 finaliser. A document's key depends on nothing
    else -- not on the other rows, their order, the blocks, threads or cluster
    partitions the run is cut into -- so a seeded shuffle gives the same
    ranking however the run is read. ``seed=None`` draws a fresh seed.

    >>> import numpy as np
    >>> q, d = np.array([1, 1, 2], dtype=np.uint64), np.array([5, 6, 5], dtype=np.uint64)
    >>> k = shuffle_noise(7, q, d)
    >>> k.dtype, len(set(k.tolist())), bool((shuffle_noise(7, q[::-1], d[::-1]) == k[::-1]).all())
    (dtype('uint64'), 3, True)
    """
    if seed is None:
        seed = int(np.random.default_rng().integers(2**63))
    base = _splitmix(np.array([seed], dtype=np.uint64))
    key = _splitmix(np.asarray(query_keys, dtype=np.uint64) + base)
    key *= np.uint64(0xBF58476D1CE4E5B9)
    key += np.asarray(doc_keys, dtype=np.uint64)
    return _splitmix(key)


def _splitmix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser, element-wise on uint64 (wrapping arithmetic)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _order_in_groups(keys: list[np.ndarray], group: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Permutation sorting contiguous groups of items by ``keys`` (lexsort convention), stably.

    Pairs -- most tied groups -- are settled by one vectorised comparison; only
    larger groups are sorted.

    >>> import numpy as np
    >>> _order_in_groups([np.array([2, 1, 3, 1, 2])], np.array([0, 0, 1, 1, 1]), np.array([2, 3])).tolist()
    [1, 0, 3, 4, 2]
    """
    order = np.arange(len(group))
    first = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    pair = first[sizes == 2]
    if len(pair):
        swap = np.zeros(len(pair), dtype=bool)
        undecided = np.ones(len(pair), dtype=bool)
        for key in reversed(keys):  # the primary key first
            a, b = key[pair], key[pair + 1]
            swap |= undecided & (b < a)
            undecided &= a == b
        order[pair[swap]], order[pair[swap] + 1] = pair[swap] + 1, pair[swap]
    big = np.flatnonzero(np.repeat(sizes > 2, sizes))
    if len(big):
        order[big] = big[np.lexsort((*[k[big] for k in keys], group[big]))]
    return order


def _descending(key: np.ndarray) -> np.ndarray:
    key = np.asarray(key)
    return ~key if key.dtype.kind == "u" else -key


def rank_rows(
    scores: np.ndarray,
    *,
    ties: str,
    grades: np.ndarray | None = None,
    noise: np.ndarray | None = None,
    seed: int | None = None,
) -> np.ndarray:
    """Row-wise version of :func:`rank_order` for a dense ``(n_lists, list_size)`` matrix: one sort per row.

    Returns column indices (shape of ``scores``) in ranked order: score
    descending, then the tie rule -- ``stable``/``expected`` column order,
    ``trec`` higher column first (the column plays the document id),
    ``optimistic``/``pessimistic`` grade clipped at 0 descending/ascending,
    ``shuffle`` by ``noise`` (default: seeded uniform keys) -- then column order.

    >>> import numpy as np
    >>> s = np.array([[1.0, 2.0, 1.0]])
    >>> rank_rows(s, ties="stable").tolist(), rank_rows(s, ties="trec").tolist()
    ([[1, 0, 2]], [[1, 2, 0]])
    >>> rank_rows(s, ties="optimistic", grades=np.array([[0.0, 0.0, 3.0]])).tolist()
    [[1, 2, 0]]
    """
    check_policy(ties)
    neg = -np.asarray(scores)
    if ties in ("stable", "expected"):
        return np.argsort(neg, axis=1, kind="stable")
    if ties == "trec":
        columns = np.broadcast_to(np.arange(neg.shape[1]), neg.shape)
        return np.lexsort((-columns, neg), axis=1)
    if ties == "shuffle":
        keys = np.random.default_rng(seed).random(neg.shape) if noise is None else noise
        return np.lexsort((keys, neg), axis=1)
    if grades is None:  # pragma: no cover - callers pass grades
        raise PolicyError(f"ties={ties!r} needs relevance grades")
    g = np.maximum(np.asarray(grades, dtype=np.float64), 0.0)  # negative grades gain like 0
    return np.lexsort((-g if ties == "optimistic" else g, neg), axis=1)


def exact_float32(scores: np.ndarray) -> np.ndarray | None:
    """``scores`` as float32 when that is exact and NaN-free (order and ties unchanged), else None."""
    if scores.dtype == np.float32:
        return None if np.isnan(scores).any() else scores
    if scores.dtype != np.float64:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = scores.astype(np.float32)
    return narrow if np.array_equal(narrow, scores) else None  # NaN != NaN: never exact


def descending_keys(scores: np.ndarray) -> np.ndarray:
    """uint32 keys of float32 ``scores`` whose ascending order is descending score order.

    Equal scores (``-0.0`` and ``0.0`` too) get equal keys; NaN is not allowed.

    >>> import numpy as np
    >>> k = descending_keys(np.array([0.5, -2.0, 3.0, -0.0, 0.0, np.inf], dtype=np.float32))
    >>> np.argsort(k, kind="stable").tolist(), bool(k[3] == k[4])
    ([5, 2, 0, 3, 4, 1], True)
    """
    canonical = np.add(scores, np.float32(0.0), dtype=np.float32)  # -0.0 + 0.0 = 0.0
    u = canonical.view(np.uint32)
    flip = np.right_shift(canonical.view(np.int32), 31).view(np.uint32)  # all ones for negative scores
    np.invert(flip, out=flip)
    np.bitwise_and(flip, np.uint32(0x7FFFFFFF), out=flip)
    np.bitwise_xor(u, flip, out=u)  # x >= 0: 0x7FFFFFFF - bits, x < 0: bits (above every x >= 0)
    return u


def fast_row_order(scores: np.ndarray, ties: str) -> np.ndarray | None:
    """:func:`rankmeter.core.ties.rank_rows` for ``stable``, ``expected`` and ``trec``, without a stable argsort.

    Scores that are exactly float32 are packed with their column into one
    uint64 key per item (descending-score key, then the column: ascending, or
    descending for ``trec``) and sorted row-wise; keys are unique, so the
    result is exactly ``rank_rows``'s. Other float64 scores take an unstable
    argsort, and the rows that hold ties are redone with ``rank_rows``.
    Returns None for the other policies (and NaN scores).

    >>> import numpy as np
    >>> s = np.array([[1.0, 2.0, 1.0, 0.5]])
    >>> fast_row_order(s, "stable").tolist(), fast_row_order(s, "trec").tolist()
    ([[1, 0, 2, 3]], [[1, 2, 0, 3]])
    >>> fast_row_order(s + 1e-12, "stable").tolist(), fast_row_order(s, "optimistic") is None
    ([[1, 0, 2, 3]], True)
    """
    if ties not in ("stable", "expected", "trec") or scores.ndim != 2 or scores.size == 0:
        return None
    n, m = scores.shape
    narrow = exact_float32(scores) if m < 2**32 else None
    if narrow is not None:
        packed = descending_keys(narrow).astype(np.uint64)
        np.left_shift(packed, np.uint64(32), out=packed)
        columns = np.arange(m, dtype=np.uint64)
        np.bitwise_or(packed, columns[::-1] if ties == "trec" else columns, out=packed)
        packed.sort(axis=1)
        np.bitwise_and(packed, np.uint64(0xFFFFFFFF), out=packed)
        order = packed.view(np.int64)
        return np.subtract(m - 1, order, out=order) if ties == "trec" else order
    if scores.dtype != np.float64 or np.isnan(scores).any():
        return None
    neg = np.negative(scores)
    order = np.argsort(neg, axis=1)
    ranked = np.take_along_axis(neg, order, axis=1)
    tied = np.flatnonzero((ranked[:, 1:] == ranked[:, :-1]).any(axis=1))
    if len(tied):
        order[tied] = rank_rows(scores[tied], ties=ties)
    return order


def row_order(
    scores: np.ndarray, *, ties: str, grades: np.ndarray | None = None, noise: np.ndarray | None = None
) -> np.ndarray:
    """:func:`rank_rows`, by :func:`fast_row_order`'s one packed-key sort per row where the policy allows it.

    >>> import numpy as np
    >>> s = np.array([[1.0, 2.0, 1.0]])
    >>> row_order(s, ties="trec").tolist(), row_order(s, ties="pessimistic", grades=np.array([[3.0, 0, 0]])).tolist()
    ([[1, 2, 0]], [[1, 2, 0]])
    """
    order = fast_row_order(scores, ties)
    return order if order is not None else rank_rows(scores, ties=ties, grades=grades, noise=noise)


def tie_group_starts(query_codes: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """CSR boundaries of tied groups in ranked order (items with equal score in one query).

    >>> import numpy as np
    >>> tie_group_starts(np.array([0, 0, 0, 1]), np.array([2.0, 2.0, 1.0, 1.0])).tolist()
    [0, 2, 3, 4]
    """
    n = len(scores)
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    change = (query_codes[1:] != query_codes[:-1]) | (scores[1:] != scores[:-1])
    return np.concatenate(([0], np.flatnonzero(change) + 1, [n])).astype(np.int64)


def tied_items(group_starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The items of the tied groups of two or more (ascending) and the size of each such group.

    >>> import numpy as np
    >>> items, sizes = tied_items(np.array([0, 1, 3, 4, 7]))
    >>> items.tolist(), sizes.tolist()
    ([1, 2, 4, 5, 6], [2, 3])
    """
    sizes = np.diff(group_starts)
    multi = np.flatnonzero(sizes > 1)
    tied_sizes = sizes[multi]
    within = np.arange(int(tied_sizes.sum())) - np.repeat(np.cumsum(tied_sizes) - tied_sizes, tied_sizes)
    return np.repeat(group_starts[multi], tied_sizes) + within, tied_sizes


def tied_runs(query_codes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tied_items` of ranked items, found without listing every group.

    >>> import numpy as np
    >>> items, sizes = tied_runs(np.array([0, 0, 0, 1, 1, 1, 1]), np.array([3.0, 2, 2, 5, 4, 4, 4]))
    >>> items.tolist(), sizes.tolist()
    ([1, 2, 4, 5, 6], [2, 3])
    """
    none = np.zeros(0, dtype=np.int64)
    if len(scores) < 2:
        return none, none
    follows = np.flatnonzero((scores[1:] == scores[:-1]) & (query_codes[1:] == query_codes[:-1])) + 1
    if not len(follows):
        return none, none
    new_group = np.concatenate(([True], follows[1:] != follows[:-1] + 1))
    sizes = np.bincount(np.cumsum(new_group) - 1) + 1
    items = np.empty(len(follows) + len(sizes), dtype=np.int64)
    first = np.cumsum(sizes) - sizes
    is_first = np.zeros(len(items), dtype=bool)
    is_first[first] = True
    items[is_first] = follows[new_group] - 1
    items[~is_first] = follows
    return items, sizes.astype(np.int64)


def straddling_queries(
    offsets: np.ndarray,
    group_starts: np.ndarray,
    cutoffs: list[int],
    per_query_cutoffs: list[np.ndarray],
    positions: np.ndarray | None = None,
) -> np.ndarray:
    """Boolean per query: does a tied group straddle one of the cutoffs?

    A group occupying 0-based ranks ``a .. a+n-1`` straddles cutoff k when
    ``a < k < a + n``: which of its items fall in the top k depends on the tie rule.
    ``positions`` gives each item's rank when the lists store only some of
    their items (``RankedLists.item_positions``); by default an item's rank
    is its place in its segment.

    >>> import numpy as np
    >>> straddling_queries(np.array([0, 3]), np.array([0, 1, 3]), [2], []).tolist()
    [True]
    >>> straddling_queries(np.array([0, 3]), np.array([0, 1, 3]), [3], []).tolist()
    [False]
    """
    n_queries = len(offsets) - 1
    sizes = np.diff(group_starts)
    multi = np.flatnonzero(sizes > 1)
    out = np.zeros(n_queries, dtype=bool)
    if not len(multi):
        return out
    starts = group_starts[:-1][multi]
    query = np.searchsorted(offsets, starts, side="right") - 1
    a = starts - offsets[query] if positions is None else positions[starts]
    end = a + sizes[multi]
    for k in cutoffs:
        hit = (a < k) & (k < end)
        out[query[hit]] = True
    for ks in per_query_cutoffs:
        limit = ks[query]
        hit = (a < limit) & (limit < end)
        out[query[hit]] = True
    return out
