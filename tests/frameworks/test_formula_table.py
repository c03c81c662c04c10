"""One table of cases x backends: every formula written again for a backend equals the NumPy kernel.

The array-API kernels (:mod:`rankmeter.xp.kernels`), the Keras metric (:mod:`rankmeter.keras.kernels`)
and the Hamming buckets of the vector path (:mod:`rankmeter.vectors.hamming`) each compute the families
whose traits name one of their formulas (``Traits.array_api``, ``.keras``, ``.hamming``). The measures
of each cell are read from those traits, so a family that names a backend formula enters the table
by itself; the reference is :func:`rankmeter.evaluate_arrays` on NumPy arrays, i.e. the families' own
kernels (:mod:`rankmeter.measures.kernels`), under every tie policy the backend ranks.
"""

from __future__ import annotations

import os
from collections.abc import Callable

os.environ.setdefault("KERAS_BACKEND", "jax")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import rankmeter  # noqa: E402
import rankmeter.keras as rk  # noqa: E402
from rankmeter.keras.ranking import POLICIES as KERAS_POLICIES  # noqa: E402
from rankmeter.measures import FAMILIES  # noqa: E402
from rankmeter.measures.family import Family  # noqa: E402
from rankmeter.vectors import evaluate_vectors, hamming_distance, relevance_matrix  # noqa: E402
from rankmeter.vectors.hamming import BUCKET_TIES  # noqa: E402
from rankmeter.xp.kernels import KERNELS  # noqa: E402
from rankmeter.xp.ranking import POLICIES as XP_POLICIES  # noqa: E402


def _names(family: Family) -> list[str]:
    """The measures of one family in the table: cutoffs where it takes them, an exp gain where it has one."""
    at = "" if family.cutoff == "none" else "@[1,3,10]"
    names = [family.name + at]
    if "gain" in family.params and family.traits.graded:
        names.append(f"{family.name}(gain=exp){at}")
    if family.cutoff == "optional":
        names.append(family.name)
    return names


def measures_of(trait: str) -> list[str]:
    """Every measure whose family names a formula of the backend (``trait``)."""
    return [name for f in FAMILIES.values() if getattr(f.traits, trait) is not None for name in _names(f)]


def _case(seed: int, n: int = 6, m: int = 24, levels: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Grades 0..3 (a relevant item in every row) and tie-heavy scores (-0.0 beside 0.0)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, levels, (n, m)).astype(np.float64)
    y[:, 0] = np.maximum(y[:, 0], 1.0)
    return y, np.round(rng.normal(size=(n, m)), 1) * rng.choice([1.0, -1.0], (n, m))


CASES = {"tie-heavy": _case(1), "two-level": _case(2, levels=2), "one row": _case(3, n=1, m=40)}


def _array_api(y: np.ndarray, s: np.ndarray, measures: list[str], ties: str) -> np.ndarray:
    os.environ["RANKMETER_ARRAY_API"] = "device"
    try:
        res = rankmeter.evaluate_arrays(torch.from_numpy(y), torch.from_numpy(s), measures, ties=ties)
    finally:
        del os.environ["RANKMETER_ARRAY_API"]
    assert res.metadata["array_api"]["path"] == "device"
    return res.values


def _keras(y: np.ndarray, s: np.ndarray, measures: list[str], ties: str) -> np.ndarray:
    rows = []
    for i in range(len(y)):
        metric = rk.Metric(measures, ties=ties, dtype="float64")
        metric.update_state(y[i : i + 1], s[i : i + 1])
        out = metric.result()
        rows.append([float(v) for v in out.values()] if isinstance(out, dict) else [float(out)])
    return np.array(rows)


def _hamming(y: np.ndarray, s: np.ndarray, measures: list[str], ties: str) -> np.ndarray:
    """Random codes and labels of the case's size: the vector path ranks Hamming distances, its own scores."""
    n, m = y.shape
    rng = np.random.default_rng(int(y.sum()))
    q, db = rng.choice([-1.0, 1.0], (n, 12)), rng.choice([-1.0, 1.0], (3 * m, 12))
    ql, dl = rng.integers(0, 2, (n, 4)), rng.integers(0, 2, (3 * m, 4))
    res = evaluate_vectors(q, db, measures, query_labels=ql, database_labels=dl, ties=ties)
    assert set(res.metadata["paths"].values()) == {"bucket"}
    want = rankmeter.evaluate_arrays(
        relevance_matrix(ql, dl), -hamming_distance(q, db).astype(float), measures, ties=ties
    )
    assert res.measure_names == want.measure_names
    return res.values - want.values  # compared with zero below


BACKENDS: dict[str, tuple[str, tuple[str, ...], Callable[..., np.ndarray], float]] = {
    "array API, torch": ("array_api", XP_POLICIES, _array_api, 1e-12),
    # rankmeter.keras.Metric refuses trec (dense rows have no document ids); float32 under JAX without x64
    "keras": ("keras", tuple(p for p in KERAS_POLICIES if p != "trec"), _keras, 1e-6),
    "hamming buckets": ("hamming", BUCKET_TIES, _hamming, 1e-12),
}
"""Each backend: the trait naming its formulas, the policies it ranks, its values, the tolerance (absolute and
relative)."""

TABLE = [(backend, case) for backend in BACKENDS for case in CASES]


@pytest.mark.parametrize("backend, case", TABLE)
def test_every_backend_formula_equals_the_numpy_kernel(backend: str, case: str) -> None:
    trait, policies, compute, tolerance = BACKENDS[backend]
    measures = measures_of(trait)
    y, s = CASES[case]
    for ties in policies:
        if ties == "shuffle":  # a random order: the backend draws its own (see the tie table)
            continue
        got = compute(y, s, measures, ties)
        if backend == "hamming buckets":
            assert np.allclose(got, 0.0, atol=tolerance, rtol=0), ties
            continue
        want = rankmeter.evaluate_arrays(y, s, measures, ties=ties)
        assert got.shape == want.values.shape
        for c, name in enumerate(want.measure_names):
            close = np.allclose(got[:, c], want.values[:, c], atol=tolerance, rtol=tolerance, equal_nan=True)
            assert close, (ties, name)


def test_every_backend_formula_is_named_by_a_family() -> None:
    named = {f.traits.array_api for f in FAMILIES.values()} - {None}
    assert named == set(KERNELS)


@pytest.mark.parametrize("trait", ["array_api", "keras", "hamming"])
def test_the_table_reads_the_traits(trait: str) -> None:
    measures = measures_of(trait)
    assert "ndcg@[1,3,10]" in measures and "ndcg(gain=exp)@[1,3,10]" in measures and "bpref" not in measures
    assert ("rprec" in measures) is (trait != "keras")


@pytest.mark.parametrize("trait", ["array_api", "keras", "hamming"])
def test_a_family_with_a_backend_formula_claims_expected_ties(trait: str) -> None:
    """Every backend ranks under ``expected`` (the table above checks it there): its families claim the trait."""
    assert "expected" in {"array_api": XP_POLICIES, "keras": KERAS_POLICIES, "hamming": BUCKET_TIES}[trait]
    named = [f.name for f in FAMILIES.values() if getattr(f.traits, trait) is not None]
    assert named and all(FAMILIES[name].traits.expected_ties for name in named)
