"""Every fast path reads a family's traits, never its name: a toy family registered for one test goes where
its :class:`~rankmeter.measures.traits.Traits` say, and nowhere else.

The toy computes precision@k with p's own kernel, so its values are p's on every path it takes; what
changes with its traits is the path (the dense top-k ranking, sparse judged-item lists, the array-API
kernels, Keras, the Hamming buckets, the cutoff merge of the vector paths) and, where a path is not
allowed, the usual refusal or fallback.
"""

from __future__ import annotations

import ast
import io
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
from rankmeter.trec_eval.app import run_trec_eval  # noqa: E402
from rankmeter.vectors import evaluate_vectors  # noqa: E402
from rankmeter.vectors.retrieval import merge_cutoffs  # noqa: E402
from rankmeter.xp.kernels import KERNELS  # noqa: E402

FAST = Traits(
    expected_ties=True,
    top_k=True,
    full_as_cutoff=True,
    judged_items=True,
    positive_ideal=True,
    array_api="p",
    keras="p",
    hamming="p",
)
"""Every shortcut p itself takes (p's formula on each backend), and full_as_cutoff, which p does not allow."""
EXACT = Traits(expected_ties=True)
"""No shortcut, and the claim that the kernel computes under ``ties="expected"`` (the dense paths' default)."""


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
    for ties in ("expected", "trec", "optimistic") if traits.expected_ties else ("trec", "optimistic"):
        res = rankmeter.evaluate_arrays(y, s, ["toy@[3,5]", "p@[3,5]", "map"], ties=ties)
        assert res.values[:, :2].tolist() == res.values[:, 2:4].tolist()


EXPECTED_REFUSED = "measure 'toy@2' has no exact expectation over tied orderings; use ties='trec', 'stable'"
QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}
RUN = {"q1": {"a": 0.3, "d": 0.9, "c": 0.3, "e": 0.1}, "q2": {"y": 0.5, "x": 0.5, "z": 0.7}}


def _entry_points(tmp_path: Path) -> dict[str, Callable[[str], object]]:
    """Every entry point that takes ``ties``, on the same two queries (tied scores in both), by measure name."""
    from rankmeter.core.join import align
    from rankmeter.io.load import as_qrels, as_run
    from rankmeter.pipeline import evaluate_ranked
    from rankmeter.streaming import evaluate_stream

    run_file = tmp_path / "run.txt"
    run_file.write_text("".join(f"{q} Q0 {d} 0 {v} s\n" for q, docs in RUN.items() for d, v in docs.items()))
    y, s = _dense()
    return {
        "evaluate": lambda m: rankmeter.evaluate(QRELS, RUN, m, ties="expected"),
        "evaluate_arrays": lambda m: rankmeter.evaluate_arrays(y, s, m, ties="expected"),
        "evaluate_lists": lambda m: rankmeter.evaluate_lists([[1, 0, 2]], [[0.5, 0.5, 0.1]], m, ties="expected"),
        "evaluate_stream": lambda m: evaluate_stream(QRELS, str(run_file), m, ties="expected"),
        "evaluate_ranked": lambda m: evaluate_ranked(align(as_qrels(QRELS), as_run(RUN), ties="expected")[0], m),
    }


@pytest.mark.parametrize(
    "entry", ["evaluate", "evaluate_arrays", "evaluate_lists", "evaluate_stream", "evaluate_ranked"]
)
def test_every_entry_point_refuses_expected_ties_by_the_trait(register, tmp_path: Path, entry: str) -> None:
    """p's kernel computes the exact expectation, but the toy does not claim it: refused before any kernel runs."""
    register(replace(FAST, expected_ties=False))
    call = _entry_points(tmp_path)[entry]
    with pytest.raises(PolicyError, match=EXPECTED_REFUSED):
        call("toy@2")
    register(FAST)
    assert call("toy@2")["toy@2"] == call("p@2")["p@2"]


def test_the_expected_ties_trait_matches_every_kernel() -> None:
    """A family claims ``expected_ties`` exactly when its kernel computes under ``ties="expected"``.

    The kernels are called directly (past the entry points' check) on a run with tied scores. The families
    that read top-k lists refuse list by list where a tie changes their value, and the diversity families
    read intent qrels, which refuse ``expected`` as a policy (:func:`rankmeter.evaluate_diversity`).
    """
    from rankmeter.core.join import align
    from rankmeter.io.load import as_qrels, as_run
    from rankmeter.measures.kernels.context import Context

    ranked, _ = align(
        as_qrels({"q": {"a": 3, "b": 0, "c": 1, "d": 2}}),
        as_run(RUN | {"q": {"a": 1.0, "b": 1.0, "c": 0.5, "e": 0.5}}),
        ties="expected",
    )
    ctx = Context(ranked)
    computed, refused = set(), set()
    for name, family in FAMILIES.items():
        if family.reads != "grades":
            continue
        m = parse(f"{name}{family.example}@3" if family.cutoff != "none" else f"{name}{family.example}")
        try:
            family.kernel(ctx, m)
            computed.add(name)
        except PolicyError as e:
            assert "has no exact expectation over tied orderings" in str(e), name
            refused.add(name)
    assert computed == {n for n in computed | refused if FAMILIES[n].traits.expected_ties}
    assert len(computed) > 40 and len(refused) >= 18


def _all_negatives_sampled(
    names: list[str], ties: str = "expected"
) -> tuple[rankmeter.EvaluationResult, rankmeter.EvaluationResult]:
    """Rows of 3 relevant items (grades 1, 2) and 5 negatives, tied scores: the full result and the result with
    all 5 negatives sampled (every draw is the whole list, so the expectation is the full value)."""
    rng = np.random.default_rng(5)
    y = np.concatenate([rng.integers(1, 3, (6, 3)), np.zeros((6, 5))], axis=1).astype(np.float64)
    s = rng.integers(0, 4, (6, 8)).astype(np.float64)
    sampled = rankmeter.evaluate_arrays(y, s, names, ties=ties, sampled_negatives=5, sampling="shared")
    return rankmeter.evaluate_arrays(y, s, names, ties=ties), sampled


def test_the_sampled_trait_matches_every_kernel() -> None:
    """A family names a sampled formula exactly when ``sampled_negatives=`` computes its values."""
    computed, refused = set(), set()
    for name, family in FAMILIES.items():
        try:
            m = parse(name if family.cutoff == "none" else f"{name}@3")
        except MeasureSyntaxError:  # families that need a parameter (irbu, insq, ...) have no sampled formula
            assert family.traits.sampled is None, name
            continue
        try:
            full, sampled = _all_negatives_sampled([str(m)], ties="stable")  # every family has values under it
        except PolicyError as err:
            assert "is not one of them" in str(err), name
            refused.add(name)
            continue
        np.testing.assert_allclose(sampled.values, full.values, rtol=1e-12, atol=1e-15, err_msg=name)
        computed.add(name)
    assert computed == {n for n in computed | refused if FAMILIES[n].traits.sampled}
    assert len(computed) == 11 and len(refused) > 30


def test_sampled_negatives_follow_the_trait(register) -> None:
    register(FAST)
    with pytest.raises(PolicyError, match="toy@3: sampled_negatives= gives the exact expectation of .* toy is not"):
        _all_negatives_sampled(["toy@3"])
    register(replace(FAST, sampled="p"))
    full, sampled = _all_negatives_sampled(["toy@3", "p@3"])
    assert sampled.values[:, 0].tolist() == sampled.values[:, 1].tolist()
    np.testing.assert_allclose(sampled.values, full.values, rtol=1e-12)


def test_intent_and_list_families_declare_the_trait_as_their_entry_points_treat_them() -> None:
    intents = {n for n, f in FAMILIES.items() if f.reads == "intents"}
    lists = {n for n, f in FAMILIES.items() if f.reads == "lists"}
    assert intents and not any(FAMILIES[n].traits.expected_ties for n in intents)
    assert lists and all(FAMILIES[n].traits.expected_ties for n in lists)


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


@pytest.mark.parametrize("traits, path", [(FAST, "device"), (EXACT, "numpy-view")], ids=["fast", "plain"])
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


@pytest.mark.parametrize("traits, path", [(FAST, "bucket"), (EXACT, "sort")], ids=["fast", "plain"])
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


@pytest.mark.parametrize(
    "traits, missing", [(Traits(zero_without_results=True), 0.0), (Traits(), -2.0)], ids=["zero", "kernel"]
)
def test_trec_eval_complete_follows_the_zero_without_results_trait(
    monkeypatch, tmp_path: Path, traits: Traits, missing: float
) -> None:
    """``-c`` scores topic 2 (two relevant documents, no results) 0, or ``c * R`` = -2 without the trait."""
    monkeypatch.setitem(FAMILIES, "utility", replace(FAMILIES["utility"], traits=traits))
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 x 1\n2 0 y 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3.0 s\n1 Q0 b 2 2.0 s\n")
    out = io.StringIO()
    assert (
        run_trec_eval(["-q", "-n", "-c", "-m", "utility.1,-1,-1,0", str(tmp_path / "q"), str(tmp_path / "r")], out) == 0
    )
    # topic 1: a relevant retrieved (+1), b non-relevant retrieved (-1), nothing relevant missed
    assert out.getvalue().splitlines() == [
        "utility_1,-1,-1,0     \t1\t0.0000",
        f"utility_1,-1,-1,0     \t2\t{missing:.4f}",
    ]


def test_utility_declares_zero_without_results() -> None:
    assert [name for name, f in FAMILIES.items() if f.traits.zero_without_results] == ["utility"]


def test_similarity_names_follow_their_family_table(monkeypatch) -> None:
    """A judgment-free family joins the parser, its persistence parameter and its required depth by its row."""
    from rankmeter.agreement import names
    from rankmeter.cli.measures import describe
    from rankmeter.measures import similarity_families

    toy = replace(similarity_families.FAMILIES[4], name="toy_prefix")  # rbo_prefix's row: p and a required depth
    monkeypatch.setitem(names.FAMILIES, "toy_prefix", toy)
    monkeypatch.setattr(similarity_families, "FAMILIES", [*similarity_families.FAMILIES, toy])
    assert str(names.parse_similarity("TOY_PREFIX(p=0.5)@3")) == "toy_prefix(p=0.5)@3"
    assert str(names.parse_similarity("toy_prefix@3")) == "toy_prefix(p=0.9)@3"
    with pytest.raises(MeasureSyntaxError, match="toy_prefix sums the agreements to a depth; write toy_prefix@k"):
        names.parse_similarity("toy_prefix")
    assert "\ntoy_prefix   RBO summed to the depth k" in describe()
    tau = replace(similarity_families.FAMILIES[5], name="toy_tau")  # kendall_tau's row: no parameter
    monkeypatch.setitem(names.FAMILIES, "toy_tau", tau)
    with pytest.raises(MeasureSyntaxError, match="toy_tau takes no parameters"):
        names.parse_similarity("toy_tau(p=0.5)")


def test_similarity_families_are_not_computed_by_evaluate() -> None:
    from rankmeter.measures import similarity_families

    assert not {f.name for f in similarity_families.FAMILIES} & set(FAMILIES)
    rbo = similarity_families.FAMILIES[0]
    with pytest.raises(
        MeasureSyntaxError, match="measure 'rbo' compares two runs: compute it with rankmeter.similarity"
    ):
        rbo.kernel(None, "rbo")


def test_every_declared_device_formula_exists() -> None:
    for name, family in FAMILIES.items():
        formula = family.traits.array_api
        assert formula is None or formula in KERNELS, name


def test_traits_of_takes_a_measure_or_a_family_name() -> None:
    assert traits_of("ap") == traits_of(parse("map@5")) == FAMILIES["map"].traits
    assert traits_of("bpref") == Traits()


def _family_name_collections(path: Path) -> list[tuple[int, list[str]]]:
    """Tuple, list and set literals of two or more strings that are all family names (judgment-free ones too)."""
    from rankmeter.measures import similarity_families

    known = set(FAMILIES) | {f.name for f in similarity_families.FAMILIES}
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and len(node.elts) >= 2:
            values = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            if all(isinstance(v, str) and v in known for v in values):
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
    module.write_text(
        'GRADED = ("ndcg", "dcg")\nOTHER = ("ndcg@10", "map")\nRBO = ("rbo_max", "rbo_res")\n', encoding="utf-8"
    )
    assert _family_name_collections(module) == [(1, ["ndcg", "dcg"]), (3, ["rbo_max", "rbo_res"])]


def test_the_toy_is_gone_after_its_tests() -> None:  # last in the module: the tests above registered it
    assert "toy" not in FAMILIES
    with pytest.raises(MeasureSyntaxError, match="unknown measure 'toy'"):
        parse("toy@3")
