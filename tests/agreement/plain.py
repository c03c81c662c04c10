"""The paper's formulas written out in plain Python over explicit prefixes (no NumPy), for the tests."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any


def overlap(s: list[object], t: list[object], d: int) -> int:
    return len(set(s[:d]) & set(t[:d]))


def rbo_plain(a: list[object], b: list[object], p: float) -> dict[str, float]:
    """RBO_EXT (eq. 32), RBO_MIN, RBO_MAX and RBO_RES of two tie-free lists, term by term."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    s, l = len(short), len(long)  # noqa: E741
    x = {d: overlap(short, long, d) for d in range(1, l + 1)}
    ext = (1 - p) / p * (
        sum(x[d] / d * p**d for d in range(1, l + 1))
        + sum(x[s] * (d - s) / (s * d) * p**d for d in range(s + 1, l + 1))
    ) + ((x[l] - x[s]) / l + x[s] / s) * p**l
    low = (
        (1 - p)
        / p
        * (
            sum(x[d] / d * p**d for d in range(1, l + 1))
            + x[l] * (math.log(1 / (1 - p)) - sum(p**d / d for d in range(1, l + 1)))
        )
    )
    # upper bound: every unseen item matches as early as possible, depth by depth (a long finite horizon)
    high = 0.0
    for d in range(1, 4000):
        if d <= s:
            xd = x[d]
        elif d <= l:
            xd = x[d] + (d - s)
        else:
            xd = min(d, x[l] + (d - s) + (d - l))
        high += (1 - p) * p ** (d - 1) * xd / d
    return {"ext": ext, "min": low, "max": high, "res": high - low}


def prefix_plain(a: list[object], b: list[object], p: float, k: int) -> float:
    return (1 - p) * sum(p ** (d - 1) * overlap(a, b, d) / d for d in range(1, k + 1))


def orderings(groups: list[list[object]]) -> Iterator[list[object]]:
    """Every ranked list that orders the items inside each tie group."""
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [item for part in parts for item in part]


def groups_of(scores: dict[object, float]) -> list[list[object]]:
    """Tie groups of a ``{doc: score}`` dict, best score first."""
    by: dict[float, list[object]] = {}
    for doc, score in scores.items():
        by.setdefault(score, []).append(doc)
    return [sorted(by[v]) for v in sorted(by, reverse=True)]


def tau_ap_plain(reference: list[object], other: list[object]) -> float:
    """Yilmaz, Aslam & Robertson's tau_AP: 2/(n-1) * sum_{i>=2} C(i)/(i-1) - 1 over ``other``'s positions."""
    n = len(other)
    pos = {item: i for i, item in enumerate(reference)}
    total = 0.0
    for i in range(1, n):
        correct = sum(1 for j in range(i) if pos[other[j]] < pos[other[i]])
        total += correct / i
    return 2 / (n - 1) * total - 1


def rbo_equal_plain(sg: list[list[object]], lg: list[list[object]], p: float) -> dict[str, float]:
    """RBO with tie groups entering whole at their first rank (section 4.3), over explicit sets.

    ``sg`` and ``lg`` are the tie groups of the shorter and the longer list, best first.
    """

    def tops(groups: list[list[object]]) -> dict[object, int]:
        out, rank = {}, 1
        for g in groups:
            for item in g:
                out[item] = rank
            rank += len(g)
        return out

    ts, tl = tops(sg), tops(lg)
    s, l = len(ts), len(tl)  # noqa: E741
    prefix_s = {d: {i for i, t in ts.items() if t <= d} for d in range(1, l + 1)}
    prefix_l = {d: {i for i, t in tl.items() if t <= d} for d in range(1, l + 1)}
    x = {d: len(prefix_s[min(d, s)] & prefix_l[d]) for d in range(1, l + 1)}
    size_s = {d: len(prefix_s[d]) if d <= s else d for d in range(1, l + 1)}
    agree = {d: 2 * x[d] / (size_s[d] + len(prefix_l[d])) for d in range(1, l + 1)}
    a_s = agree[s]
    ext_terms, max_terms = [], []
    for d in range(1, l + 1):
        denom = size_s[d] + len(prefix_l[d])
        if d <= s:
            ext_terms.append(agree[d] * p**d)
            max_terms.append(agree[d] * p**d)
        else:
            ext_terms.append(2 * (x[d] + (d - s) * a_s) / denom * p**d)
            room = min(d - s, len(prefix_l[d] - set(ts)))
            max_terms.append(2 * (x[d] + room) / denom * p**d)
    low = (
        (1 - p)
        / p
        * (
            sum(agree[d] * p**d for d in range(1, l + 1))
            + x[l] * (math.log(1 / (1 - p)) - sum(p**d / d for d in range(1, l + 1)))
        )
    )
    ext = (1 - p) / p * sum(ext_terms) + (x[l] + (l - s) * a_s) / l * p**l
    f = l + s - x[l]
    high = (1 - p) / p * (sum(max_terms) + sum((2 * d - l - s + x[l]) / d * p**d for d in range(l + 1, f + 1))) + p**f
    return {"ext": ext, "min": low, "max": high}


def scores_of(lists: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """Ranked lists as a ``{query: {doc: score}}`` run: scores n, n - 1, ..., 1 down each list (no ties)."""
    return {q: {doc: float(len(docs) - i) for i, doc in enumerate(docs)} for q, docs in lists.items()}


def random_lists(rng: Any, n: int) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Two runs of ``n`` queries: lists of 1 to 15 distinct documents of a pool of 25, of uneven lengths."""
    a, b = {}, {}
    for q in range(n):
        pool = [f"d{i}" for i in range(25)]
        a[f"q{q}"] = list(rng.permutation(pool)[: rng.integers(1, 16)])
        b[f"q{q}"] = list(rng.permutation(pool)[: rng.integers(1, 16)])
    return a, b
