"""Layer 2: brute force over every ordering of each Hamming distance group, as the oracle.

600 small random multi-label cases (4-8 bit codes, databases of at most 8 items,
so the product of the groups' factorials stays small). For every ordering of
the tied items the measures are computed by tiny pure-Python functions written
here from the definitions; ``expected`` must equal their mean, ``optimistic`` /
``pessimistic`` / ``stable`` the value of the one ordering each policy names,
to 1e-9.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from rankmeter.vectors import evaluate_vectors

CUTOFFS = [1, 2, 3, 5, 8]
MEASURES = [
    "ndcg@[1,2,3,5,8]",
    "ndcg(gain=exp)@[1,2,3,5,8]",
    "ndcg",
    "map@[1,2,3,5,8]",
    "map",
    "p@[1,2,3,5,8]",
    "r@[1,2,3,5,8]",
    "acg@[1,2,3,5,8]",
    "wap@[1,2,3,5,8]",
    "wap",
    "rr",
    "rr@[1,3]",
]
N_CASES = 600


# --- the oracle: one fixed ordering of grades ---------------------------------------------------
def dcg(grades: list[float], k: int, exp: bool) -> float:
    return sum(((2.0**g - 1.0) if exp else g) / math.log2(i + 2) for i, g in enumerate(grades[:k]))


def ndcg(ranked: list[float], everything: list[float], k: int, exp: bool) -> float:
    ideal = dcg(sorted(everything, reverse=True), k, exp)
    return dcg(ranked, k, exp) / ideal if ideal > 0 else math.nan


def ap(ranked: list[float], k: int, n_relevant: int) -> float:
    if n_relevant == 0:
        return math.nan
    hits, total = 0, 0.0
    for i, g in enumerate(ranked[:k]):
        if g > 0:
            hits += 1
            total += hits / (i + 1)
    return total / n_relevant


def wap(ranked: list[float], k: int, n_relevant: int) -> float:
    if n_relevant == 0:
        return math.nan
    total = 0.0
    for i, g in enumerate(ranked[:k]):
        if g > 0:
            total += sum(ranked[: i + 1]) / (i + 1)  # ACG@i
    return total / n_relevant


def precision(ranked: list[float], k: int) -> float:
    return sum(1 for g in ranked[:k] if g > 0) / k


def recall(ranked: list[float], k: int, n_relevant: int) -> float:
    return sum(1 for g in ranked[:k] if g > 0) / n_relevant if n_relevant else math.nan


def acg(ranked: list[float], k: int) -> float:
    return sum(ranked[:k]) / k


def rr(ranked: list[float], k: int) -> float:
    for i, g in enumerate(ranked[:k]):
        if g > 0:
            return 1.0 / (i + 1)
    return 0.0


def all_values(ranked: list[float], everything: list[float]) -> dict[str, float]:
    n = len(everything)
    big_r = sum(1 for g in everything if g > 0)
    out: dict[str, float] = {}
    for k in CUTOFFS:
        out[f"ndcg@{k}"] = ndcg(ranked, everything, k, False)
        out[f"ndcg(gain=exp)@{k}"] = ndcg(ranked, everything, k, True)
        out[f"map@{k}"] = ap(ranked, k, big_r)
        out[f"p@{k}"] = precision(ranked, k)
        out[f"r@{k}"] = recall(ranked, k, big_r)
        out[f"acg@{k}"] = acg(ranked, k)
        out[f"wap@{k}"] = wap(ranked, k, big_r)
    out["ndcg"] = ndcg(ranked, everything, n, False)
    out["map"] = ap(ranked, n, big_r)
    out["wap"] = wap(ranked, n, big_r)
    out["rr"] = rr(ranked, n)
    out["rr@1"] = rr(ranked, 1)
    out["rr@3"] = rr(ranked, 3)
    return out


def orderings(groups: list[list[int]]):
    """Every ranking that orders the groups by distance and permutes items inside each group."""
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for p in perms for i in p]


def oracle(dist: list[int], grades: list[float]) -> dict[str, dict[str, float]]:
    groups = [[i for i in range(len(dist)) if dist[i] == d] for d in sorted(set(dist))]
    sums: dict[str, float] = {}
    count = 0
    for order in orderings(groups):
        values = all_values([grades[i] for i in order], grades)
        for name, v in values.items():
            sums[name] = sums.get(name, 0.0) + v
        count += 1
    expected = {name: s / count for name, s in sums.items()}
    optimistic = [i for g in groups for i in sorted(g, key=lambda i: (-grades[i], i))]
    pessimistic = [i for g in groups for i in sorted(g, key=lambda i: (grades[i], i))]
    stable = [i for g in groups for i in g]
    return {
        "expected": expected,
        "optimistic": all_values([grades[i] for i in optimistic], grades),
        "pessimistic": all_values([grades[i] for i in pessimistic], grades),
        "stable": all_values([grades[i] for i in stable], grades),
    }


def _case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    while True:
        bits = int(rng.integers(4, 9))
        n = int(rng.integers(1, 9))
        n_labels = int(rng.integers(2, 5))
        q = rng.choice([-1, 1], size=(2, bits))
        # codes near the queries so that distance groups are large
        base = np.repeat(q[:1], n, axis=0)
        flips = rng.random((n, bits)) < rng.uniform(0.05, 0.5)
        db = np.where(flips, -base, base)
        ql = (rng.random((2, n_labels)) < 0.6).astype(int)
        dl = (rng.random((n, n_labels)) < 0.5).astype(int)
        dist = (bits - q @ db.T) // 2
        worst = max(math.prod(math.factorial(int(c)) for c in np.unique(row, return_counts=True)[1]) for row in dist)
        if worst <= 720:
            return q, db, ql, dl


@pytest.fixture(scope="module")
def cases() -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(20180618)
    return [_case(rng) for _ in range(N_CASES)]


@pytest.fixture(scope="module")
def oracles(cases: list) -> list[list[dict[str, dict[str, float]]]]:
    """The brute-force values of every query of every case, for every policy (computed once)."""
    out = []
    for q, db, ql, dl in cases:
        dist = ((q.shape[1] - q @ db.T) // 2).tolist()
        grades = (ql @ dl.T).astype(float).tolist()
        out.append([oracle(dist[qi], grades[qi]) for qi in range(len(q))])
    return out


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "stable"])
def test_every_ordering_oracle(cases: list, oracles: list, ties: str) -> None:
    checked = 0
    tied_cases = 0
    for (q, db, ql, dl), per_query in zip(cases, oracles, strict=True):
        res = evaluate_vectors(q, db, MEASURES, query_labels=ql, database_labels=dl, ties=ties, empty="nan")
        dist = ((q.shape[1] - q @ db.T) // 2).tolist()
        grades = (ql @ dl.T).astype(float).tolist()
        for qi in range(len(q)):
            want = per_query[qi][ties]
            tied_cases += len(set(dist[qi])) < len(dist[qi])
            no_relevant = not any(g > 0 for g in grades[qi])  # empty="nan": every measure is NaN then
            for mi, name in enumerate(res.measure_names):
                got = res.values[qi, mi]
                if no_relevant or math.isnan(want[name]):
                    assert math.isnan(got), (ties, name, dist[qi], grades[qi])
                else:
                    assert got == pytest.approx(want[name], abs=1e-9), (ties, name, dist[qi], grades[qi], got)
                checked += 1
    assert checked >= N_CASES * 2 * len(MEASURES)
    assert tied_cases > N_CASES  # most lists hold ties: the oracle is not trivial


def test_expected_lies_between_bounds(cases: list) -> None:
    names = ["ndcg@3", "ndcg(gain=exp)@5", "map", "map@3", "p@2", "acg@3", "wap", "rr"]
    lo_hi = [
        evaluate_vectors(q, db, names, query_labels=ql, database_labels=dl, ties=t, empty="zero").values
        for t in ("pessimistic", "expected", "optimistic")
        for (q, db, ql, dl) in cases[:100]
    ]
    lo, mid, hi = (np.vstack(lo_hi[i * 100 : (i + 1) * 100]) for i in range(3))
    assert (lo <= mid + 1e-12).all() and (mid <= hi + 1e-12).all()
    assert (lo < hi).any()
