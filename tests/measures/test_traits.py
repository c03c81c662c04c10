"""Every fast path reads a family's traits, never its name: a toy family registered for one test goes where
its :class:`~rankmeter.measures.traits.Traits` say, and nowhere else.

The toy computes precision@k with p's own kernel, so its values are p's on every path it takes; what
changes with its traits is the path (the dense top-k ranking, sparse judged-item lists, the array-API
kernels, Keras, the Hamming buckets, the cutoff merge of the vector paths) and, where a path is not
allowed, the usual refusal or fallback.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "jax")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import rankmeter  # noqa: E402
from rankmeter.by_arrays import DenseEvaluation  # noqa: E402
from rankmeter.errors import MeasureSyntaxError, PolicyError  # noqa: E402
from rankmeter.measures import FAMILIES, parse, traits_of  # noqa: E402
from rankmeter.measures.family import MIN_REL, P_DIVISOR, Family  # noqa: E402
from rankmeter.measures.kernels import precision  # noqa: E402
from rankmeter.measures.traits import Traits  # noqa: E402
from rankmeter.pipeline import judged_items_suffice, positive_ideal_suffices, positive_items_suffice  # noqa: E402
from rankmeter.vectors import evaluate_vectors  # noqa: E402
from rankmeter.vectors.retrieval import merge_cutoffs  # noqa: E402
from rankmeter.xp.kernels import KERNELS  # noqa: E402

FAST = Traits(
    top_k=True,
    full_as_cutoff=True,
    judged_items=True,
    positive_ideal=True,
    array_api="p",
    keras="p",
    hamming="p",
)
"""Every shortcut p itself takes (p's formula on each backend), and full_as_cutoff, which p does not allow."""


@pytest.fixture
def register(monkeypatch: pytest.MonkeyPatch) -> Callable[[Traits], str]:
    """Registers the family ``toy`` (p's kernel and parameters) with the given traits; removed after the test."""
    assert "p" in FAMILIES  # the tables are filled before the toy joins them

    def add(traits: Traits) -> str:
        toy = Family(
            "toy",
            precision.precision,
            "precision@k under another name",
            cutoff="required",
            params={"min_rel": MIN_REL, "divisor": P_DIVISOR},
            traits=traits,
        )
        monkeypatch.setitem(FAMILIES, "toy", toy)
        return "toy"

    return add


def _dense(seed: int = 3, n: int = 12, m: int = 20) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 3, (n, m)).astype(float), np.round(rng.normal(size=(n, m)), 1)


@pytest.mark.parametrize("traits", [FAST, Traits()], ids=["fast", "plain"])
def test_the_toy_has_ps_values_on_evaluate_arrays(register, traits: Traits) -> None:
    register(traits)
    y, s = _dense()
    for ties in ("expected", "trec", "optimistic"):
        res = rankmeter.evaluate_arrays(y, s, ["toy@[3,5]", "p@[3,5]", "map"], ties=ties)
        assert res.values[:, :2].tolist() == res.values[:, 2:4].tolist()


def test_dense_top_k_path_when_declared(register) -> None:
    register(FAST)
    plan = DenseEvaluation([parse("toy@5")], "expected", None, "zero", 20)
    assert plan.top == 5
    mixed = DenseEvaluation([parse("toy@2"), parse("bpref")], "expected", None, "zero", 20)
    assert mixed.top is None and [str(m) for m in mixed.head] == ["toy@2"]


def test_every_row_sorted_when_not_declared(register) -> None:
    register(Traits())
    plan = DenseEvaluation([parse("toy@5")], "expected", None, "zero", 20)
    assert plan.top is None and plan.head == []
    assert DenseEvaluation([parse("p@5")], "expected", None, "zero", 20).top == 5


@pytest.mark.parametrize("traits, allowed", [(FAST, True), (Traits(), False)], ids=["fast", "plain"])
def test_sparse_and_positive_lists_follow_the_traits(register, traits: Traits, allowed: bool) -> None:
    toy = [parse(register(traits) + "@5"), parse("ndcg@10")]
    assert judged_items_suffice("trec", toy) is allowed
    assert positive_ideal_suffices(toy) is allowed
    assert positive_items_suffice(toy) is allowed


def test_sparse_lists_give_the_toy_ps_values(register) -> None:
    register(FAST)
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}
    run = {"q1": {"a": 0.3, "d": 0.9, "c": 0.3, "e": 0.1}, "q2": {"y": 0.5, "x": 0.5, "z": 0.7}}
    res = rankmeter.evaluate(qrels, run, ["toy@[1,2,3]", "p@[1,2,3]"], ties="trec")
    assert res.values[:, :3].tolist() == res.values[:, 3:].tolist()
    # trec ties: score descending, then docno descending (q1: d c a e; q2: z y x)
    assert res.values[:, :3].tolist() == [[0.0, 0.5, 2 / 3], [0.0, 0.0, 1 / 3]]


@pytest.mark.parametrize("traits, path", [(FAST, "device"), (Traits(), "numpy-view")], ids=["fast", "plain"])
def test_array_api_path_follows_the_traits(register, monkeypatch, traits: Traits, path: str) -> None:
    monkeypatch.setenv("RANKMETER_ARRAY_API", "device")
    register(traits)
    y, s = _dense()
    res = rankmeter.evaluate_arrays(torch.from_numpy(y), torch.from_numpy(s), ["toy@[3,5]", "p@[3,5]"])
    assert res.metadata["array_api"]["path"] == path
    if path != "device":
        assert res.metadata["array_api"]["why"] == "family 'toy' has no array-API kernel"
    assert np.allclose(res.values[:, :2], res.values[:, 2:], atol=1e-12, rtol=0)


def test_keras_computes_the_toy_when_declared(register) -> None:
    import rankmeter.keras as rk

    register(FAST)
    y, s = _dense(n=4, m=6)
    toy, p = rk.Metric("toy@3"), rk.Metric("p@3")
    toy.update_state(y, s)
    p.update_state(y, s)
    assert float(toy.result()) == float(p.result())


def test_keras_refuses_the_toy_when_not_declared(register) -> None:
    import rankmeter.keras as rk

    register(Traits())
    with pytest.raises(MeasureSyntaxError, match=r"'toy@3' is not available in rankmeter.keras; choose among ndcg,"):
        rk.Metric("toy@3")


@pytest.mark.parametrize("traits, path", [(FAST, "bucket"), (Traits(), "sort")], ids=["fast", "plain"])
def test_hamming_buckets_follow_the_traits(register, traits: Traits, path: str) -> None:
    register(traits)
    rng = np.random.default_rng(5)
    q, db = rng.choice([-1.0, 1.0], (6, 16)), rng.choice([-1.0, 1.0], (40, 16))
    ql, dl = rng.integers(0, 2, (6, 3)), rng.integers(0, 2, (40, 3))
    res = evaluate_vectors(q, db, ["toy@[5,10]", "p@[5,10]"], query_labels=ql, database_labels=dl)
    assert res.metadata["paths"] == {"toy@[5,10]": path, "p@[5,10]": "bucket"}
    assert np.allclose(res.values[:, :2], res.values[:, 2:], atol=1e-12, rtol=0)


@pytest.mark.parametrize("traits, merged", [(FAST, "toy@[3,50]"), (Traits(), "toy")], ids=["fast", "plain"])
def test_cutoff_merge_follows_the_traits(monkeypatch, traits: Traits, merged: str) -> None:
    # a toy without a cutoff: registered here with cutoff="optional" (p's own rows require one)
    toy = Family("toy", precision.recall, "recall@k under another name", params={"min_rel": MIN_REL}, traits=traits)
    monkeypatch.setitem(FAMILIES, "toy", toy)
    out, names = merge_cutoffs([parse("toy"), parse("toy@3")], 50)
    assert merged in [str(m) for m in out]
    assert names["toy"] == ("toy@50" if traits.full_as_cutoff else "toy")


@pytest.mark.parametrize("traits, straddling", [(Traits(cut_at_relevant=True), 1), (Traits(), 0)], ids=["R", "none"])
def test_tie_diagnostics_follow_the_r_cut_trait(monkeypatch, traits: Traits, straddling: int) -> None:
    toy = Family("toy", precision.rprec, "R-precision under another name", cutoff="none", params={"min_rel": MIN_REL})
    monkeypatch.setitem(FAMILIES, "toy", replace(toy, traits=traits))
    # R = 2 and the tied b, c at ranks 2 and 3: a group straddling the cut at R
    res = rankmeter.evaluate({"q": {"a": 1, "b": 1}}, {"q": {"a": 0.9, "b": 0.5, "c": 0.5}}, "toy", ties="stable")
    assert res["toy"] == 1.0 and res.metadata["queries_with_ties_at_cutoff"] == straddling


@pytest.mark.parametrize("traits", [Traits(sampled_rankings=True), Traits()], ids=["sampled", "one ranking"])
def test_several_sampled_rankings_follow_the_trait(monkeypatch, traits: Traits) -> None:
    monkeypatch.setitem(FAMILIES, "toy", replace(FAMILIES["ee_loss"], name="toy", traits=traits))
    runs = [{"u1": ["a", "b"]}, {"u1": ["b", "a"]}]
    items = rankmeter.Items(catalog=list("abc"))
    if traits.sampled_rankings:
        res = rankmeter.evaluate({"u1": {"a": 1}}, runs, ["toy@2", "ee_loss@2"], items=items)
        assert res["toy@2"] == res["ee_loss@2"]
    else:
        with pytest.raises(PolicyError, match="toy@2: several sampled rankings per user are read by the expected"):
            rankmeter.evaluate({"u1": {"a": 1}}, runs, ["toy@2", "ee_loss@2"], items=items)


def test_every_declared_device_formula_exists() -> None:
    for name, family in FAMILIES.items():
        formula = family.traits.array_api
        assert formula is None or formula in KERNELS, name


def test_traits_of_takes_a_measure_or_a_family_name() -> None:
    assert traits_of("ap") == traits_of(parse("map@5")) == FAMILIES["map"].traits
    assert traits_of("bpref") == Traits()


def _family_name_collections(path: Path) -> list[tuple[int, list[str]]]:
    """Tuple, list and set literals of two or more strings that are all family names."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and len(node.elts) >= 2:
            values = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            if all(isinstance(v, str) and v in FAMILIES for v in values):
                found.append((node.lineno, [str(v) for v in values]))
    return found


def test_no_module_outside_measures_keeps_family_names() -> None:
    root = Path(rankmeter.__file__).parent
    found = {
        str(path.relative_to(root)): hits
        for path in sorted(root.rglob("*.py"))
        if path.relative_to(root).parts[0] != "measures" and (hits := _family_name_collections(path))
    }
    assert found == {}


def test_the_scan_sees_a_family_name_tuple(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('GRADED = ("ndcg", "dcg")\nOTHER = ("ndcg@10", "map")\n', encoding="utf-8")
    assert _family_name_collections(module) == [(1, ["ndcg", "dcg"])]


def test_the_toy_is_gone_after_its_tests() -> None:  # last in the module: the tests above registered it
    assert "toy" not in FAMILIES
    with pytest.raises(MeasureSyntaxError, match="unknown measure 'toy'"):
        parse("toy@3")
