"""One table of tie policies x ranking backends x cases, each checked against the specification.

The specification is :data:`rankmeter.core.ties.TIE_RULES`, applied in plain Python by
:func:`rankmeter.core.ties.reference_order`. Every backend that ranks lists enters :data:`BACKENDS` with
the policies it ranks and, for every other policy, what it does instead (a refusal, the host path); a
policy added to the rules, or a ranking module added to the package, fails the table until it is entered.

Under ``expected`` the order inside a tied group is not part of the rule (the kernels read the whole
group), so there the ranked scores and each position's group are compared; under every other policy,
the ranked columns themselves (the vector path, which hands its kernels ranked grades and scores, is
compared on those).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "jax")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from array_api_compat import array_namespace  # noqa: E402
from keras import ops  # noqa: E402

import rankmeter  # noqa: E402
from rankmeter.core.ties import TIE_RULES, TiedItem, rank_order, rank_rows, reference_order, row_order  # noqa: E402
from rankmeter.errors import InvalidScoreError, PolicyError  # noqa: E402
from rankmeter.keras import ranking as keras_ranking  # noqa: E402
from rankmeter.measures import parse  # noqa: E402
from rankmeter.vectors import VECTOR_TIES, evaluate_vectors  # noqa: E402
from rankmeter.vectors.ranking import rank_block, shuffle_keys  # noqa: E402
from rankmeter.xp import ranking as xp_ranking  # noqa: E402
from rankmeter.xp.arrays import placement  # noqa: E402
from rankmeter.xp.on_device import route  # noqa: E402


@dataclass(frozen=True)
class Case:
    scores: np.ndarray  # (n, m)
    grades: np.ndarray
    judged: np.ndarray
    noise: np.ndarray


def _case(scores, grades=None, judged=None, seed=0) -> Case:
    s = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    g = np.zeros_like(s) if grades is None else np.atleast_2d(np.asarray(grades, dtype=np.float64))
    j = np.ones(s.shape, dtype=bool) if judged is None else np.atleast_2d(np.asarray(judged, dtype=bool))
    noise = np.random.default_rng(seed).permutation(s.size).reshape(s.shape).astype(np.float64)  # distinct keys
    return Case(s, g, j, noise)


_rng = np.random.default_rng(11)
CASES = {
    "distinct": _case([0.3, 0.1, 0.9, 0.5], [1, 0, 2, 0]),
    "ties": _case([1, 2, 1, 0.5, 2, 1], [0, 1, 3, -1, 0, 2], [1, 1, 0, 1, 1, 1]),
    "all_tied": _case([0.5] * 7, [2, 0, 1, -2, 3, 0, 1], [1, 0, 1, 1, 0, 1, 1]),
    "negative_zero": _case([0.0, -0.0, 1.0, -0.0, 0.0, -1.0], [1, 2, 0, 3, 1, 0], [0, 1, 1, 1, 1, 0]),
    "infinite": _case([1.0, np.inf, -np.inf, 1.0], [0, 1, 2, 3]),
    "large_ties": _case(
        _rng.integers(0, 5, (6, 300)), _rng.integers(-1, 4, (6, 300)), _rng.random((6, 300)) < 0.8, seed=1
    ),
    "nan": _case([0.5, np.nan, 0.7, 0.5], [1, 0, 2, 1]),
}


@dataclass(frozen=True)
class Ranked:
    """What a backend gives for a case: the ranked columns, or only the ranked (score, grade) pairs."""

    order: np.ndarray | None = None  # (n, depth) columns
    scores: np.ndarray | None = None  # (n, depth) ranked scores, when there is no order
    grades: np.ndarray | None = None
    starts: np.ndarray | None = None  # (n, depth) first position of each position's tied group


@dataclass(frozen=True)
class Backend:
    module: str  # the module whose ranking is checked
    policies: tuple[str, ...]  # the policies it ranks
    rank: Callable[[Case, str], Ranked]
    refuses: Callable[[Case], None]  # the backend's entry point, given a score that is not finite
    elsewhere: dict[str, Callable[[Case], None]] = field(default_factory=dict)  # every other policy
    reads_judged: bool = False  # whether it takes the judged flags (arrays are fully judged)
    depth: int | None = None  # positions it keeps


def _numpy(function: Callable[..., np.ndarray]) -> Callable[[Case, str], Ranked]:
    def rank(case: Case, ties: str) -> Ranked:
        return Ranked(order=function(case.scores, ties=ties, grades=case.grades, noise=case.noise))

    return rank


def _flat(case: Case, ties: str) -> Ranked:
    n, m = case.scores.shape
    order = rank_order(
        np.repeat(np.arange(n), m),
        case.scores.reshape(-1),
        ties=ties,
        doc_codes=np.tile(np.arange(m), n),
        grades=case.grades.reshape(-1),
        judged=case.judged.reshape(-1),
        noise=case.noise.reshape(-1),
    )
    return Ranked(order=order.reshape(n, m) - np.arange(n)[:, None] * m)


def _array_api(convert: Callable[[np.ndarray], object]) -> Callable[[Case, str], Ranked]:
    def rank(case: Case, ties: str) -> Ranked:
        s, g = convert(case.scores), convert(case.grades)
        valid = convert(np.ones(case.scores.shape, dtype=bool))
        rows = xp_ranking.RankedRows(array_namespace(s), s, valid, g, ties)
        return Ranked(order=np.asarray(rows.order), starts=np.asarray(rows.start))

    return rank


def _keras(depth: int | None) -> Callable[[Case, str], Ranked]:
    def rank(case: Case, ties: str) -> Ranked:
        t = ops.convert_to_tensor
        r = keras_ranking.Ranked(
            t(case.scores),
            t(np.ones(case.scores.shape, dtype=bool)),
            ties,
            grades=t(np.maximum(case.grades, 0.0)),
            noise=t(case.noise),
            depth=depth,
        )
        return Ranked(order=ops.convert_to_numpy(r.order), starts=ops.convert_to_numpy(r.start).astype(np.int64))

    return rank


def _vector_noise(case: Case, seed: int = 5) -> np.ndarray:
    n, m = case.scores.shape
    return shuffle_keys(seed, np.arange(n)[:, None], np.arange(m)[None, :])


def _vectors(depth: int | None) -> Callable[[Case, str], Ranked]:
    def rank(case: Case, ties: str) -> Ranked:
        n, m = case.scores.shape
        lists = rank_block(-case.scores, case.grades, ties=ties, query_rows=np.arange(n), depth=depth, seed=5)
        keep = min(depth or m, m)  # whole tied groups at the boundary may add items: compare the top `keep`
        rows = [np.arange(lists.offsets[i], lists.offsets[i] + keep) for i in range(n)]
        return Ranked(
            scores=np.stack([lists.scores[r] for r in rows]), grades=np.stack([lists.grades[r] for r in rows])
        )

    return rank


def _arrays_refuse(case: Case) -> None:
    with pytest.raises(InvalidScoreError, match=r"y_score\[0, 1\] is (nan|inf); values must be finite"):
        rankmeter.evaluate_arrays(case.grades, case.scores, "ndcg")


def _device_refuses(case: Case) -> None:
    os.environ["RANKMETER_ARRAY_API"] = "device"
    try:
        with pytest.raises(InvalidScoreError, match=r"y_score\[0, 1\] is (nan|inf); values must be finite"):
            rankmeter.evaluate_arrays(torch.from_numpy(case.grades), torch.from_numpy(case.scores), "ndcg")
    finally:
        del os.environ["RANKMETER_ARRAY_API"]


def _keras_refuses(case: Case) -> None:
    import rankmeter.keras as rk

    with pytest.raises(InvalidScoreError, match=r"y_pred\[0, 1\] is (nan|inf); values must be finite"):
        rk.Metric("ndcg").update_state(case.grades, case.scores)


def _vectors_refuse(case: Case) -> None:
    queries = np.array([[1.0, case.scores[0, 1]]])
    with pytest.raises(InvalidScoreError, match=r"queries\[0, 1\] is (nan|inf); features must be finite"):
        evaluate_vectors(queries, np.eye(2), "ndcg", query_labels=[[1]], database_labels=[[1], [0]], metric="inner")


def _shuffle_on_the_host(case: Case) -> None:
    where = placement({"y_score": torch.from_numpy(case.scores)})
    assert where is not None
    assert route(where, [parse("ndcg")], "shuffle")["why"] == "ties='shuffle' draws NumPy's random order"


def _vectors_refuse_trec(case: Case) -> None:
    with pytest.raises(PolicyError, match=r"ties='trec' is not available for vectors"):
        evaluate_vectors(np.eye(2), np.eye(2), "ndcg", query_labels=[[1], [0]], database_labels=[[1], [0]], ties="trec")


ALL = tuple(TIE_RULES)
BACKENDS = {
    "numpy rows": Backend("rankmeter.core.ties", ALL, _numpy(rank_rows), _arrays_refuse),
    "numpy packed rows": Backend("rankmeter.core.ties", ALL, _numpy(row_order), _arrays_refuse),
    "numpy flat lists": Backend("rankmeter.core.ties", ALL, _flat, _arrays_refuse, reads_judged=True),
    "array API, NumPy": Backend(
        "rankmeter.xp.ranking",
        xp_ranking.POLICIES,
        _array_api(np.asarray),
        _device_refuses,
        {"shuffle": _shuffle_on_the_host},
    ),
    "array API, torch": Backend(
        "rankmeter.xp.ranking",
        xp_ranking.POLICIES,
        _array_api(torch.from_numpy),
        _device_refuses,
        {"shuffle": _shuffle_on_the_host},
    ),
    "keras": Backend("rankmeter.keras.ranking", keras_ranking.POLICIES, _keras(None), _keras_refuses),
    "keras, top 3": Backend("rankmeter.keras.ranking", keras_ranking.POLICIES, _keras(3), _keras_refuses, depth=3),
    "vectors": Backend(
        "rankmeter.vectors.ranking", VECTOR_TIES, _vectors(None), _vectors_refuse, {"trec": _vectors_refuse_trec}
    ),
    "vectors, top 3": Backend(
        "rankmeter.vectors.ranking",
        VECTOR_TIES,
        _vectors(3),
        _vectors_refuse,
        {"trec": _vectors_refuse_trec},
        depth=3,
    ),
}


def _spec(case: Case, ties: str, backend: Backend, name: str) -> np.ndarray:
    noise = _vector_noise(case) if backend.module == "rankmeter.vectors.ranking" else case.noise
    out = []
    for r in range(case.scores.shape[0]):
        items = [
            TiedItem(
                i,
                grade=float(case.grades[r, i]),
                judged=bool(case.judged[r, i]) if backend.reads_judged else True,
                doc=i,
                noise=float(noise[r, i]),
            )
            for i in range(case.scores.shape[1])
        ]
        out.append(reference_order(case.scores[r].tolist(), ties, items))
    return np.array(out)[:, : backend.depth]


def _group_starts(ranked_scores: np.ndarray) -> np.ndarray:
    """The first position of each position's group of equal scores (-0.0 equals 0.0)."""
    new = np.ones(ranked_scores.shape, dtype=bool)
    new[:, 1:] = ranked_scores[:, 1:] != ranked_scores[:, :-1]
    positions = np.broadcast_to(np.arange(ranked_scores.shape[1]), ranked_scores.shape)
    return np.maximum.accumulate(np.where(new, positions, 0), axis=1)


TABLE = [(policy, backend, case) for policy in TIE_RULES for backend in BACKENDS for case in CASES]


@pytest.mark.parametrize("policy, backend, case", TABLE)
def test_every_backend_follows_the_tie_rules(policy: str, backend: str, case: str) -> None:
    b, c = BACKENDS[backend], CASES[case]
    if not np.isfinite(c.scores).all():  # refused before any ranking
        b.refuses(c)
        return
    if policy not in b.policies:
        b.elsewhere[policy](c)
        return
    spec = _spec(c, policy, b, backend)
    got = b.rank(c, policy)
    ranked = np.take_along_axis(c.scores, spec, axis=1)
    if got.order is None:  # the vector path: ranked scores and grades
        assert got.scores is not None and got.grades is not None
        assert np.array_equal(got.scores, ranked)
        if policy != "expected":
            assert np.array_equal(got.grades, np.take_along_axis(c.grades, spec, axis=1))
        return
    order = got.order[:, : b.depth]
    if policy == "expected":
        assert np.array_equal(np.take_along_axis(c.scores, order, axis=1), ranked)
        if got.starts is not None:
            assert np.array_equal(got.starts[:, : b.depth], _group_starts(ranked))
    else:
        assert order.tolist() == spec.tolist()


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_backend_enters_every_policy(backend: str) -> None:
    b = BACKENDS[backend]
    assert not set(b.policies) & set(b.elsewhere)  # no policy twice
    assert set(b.policies) | set(b.elsewhere) == set(TIE_RULES)


def test_every_ranking_module_is_in_the_table() -> None:
    root = Path(rankmeter.__file__).parent
    modules = {"rankmeter." + ".".join(p.relative_to(root).with_suffix("").parts) for p in root.rglob("ranking.py")} | {
        "rankmeter.core.ties"
    }
    assert modules == {b.module for b in BACKENDS.values()}


def test_the_specification_on_a_worked_example() -> None:
    # scores 2, 1, 1, 1 with grades 0, 3, 1, 3 (unjudged second item): trec puts the highest column first
    items = [
        TiedItem(0, 0.0, True, 0),
        TiedItem(1, 3.0, False, 1),
        TiedItem(2, 1.0, True, 2),
        TiedItem(3, 3.0, True, 3),
    ]
    scores = [2.0, 1.0, 1.0, 1.0]
    assert reference_order(scores, "stable", items) == [0, 1, 2, 3]
    assert reference_order(scores, "trec", items) == [0, 3, 2, 1]
    assert reference_order(scores, "optimistic", items) == [0, 3, 1, 2]
    assert reference_order(scores, "pessimistic", items) == [0, 2, 1, 3]
    for bad in (float("nan"), float("inf")):
        with pytest.raises(PolicyError, match="scores must be finite to be ranked"):
            reference_order([1.0, bad], "stable")
