"""The evaluation semantics as one value: validation, defaults per input world, and every entry point taking it."""

from __future__ import annotations

import argparse
import json
import warnings

import numpy as np
import pytest

import rankmeter
from rankmeter import PolicyError, Semantics
from rankmeter.cli.options import add_evaluation_options, semantics_from_args

QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}, "q3": {"z": 0}}
RUN = {"q1": {"a": 0.5, "b": 0.5, "c": 0.1}, "q3": {"z": 1.0}, "q9": {"k": 1.0}}
MEASURES = ["ndcg@2", "map", "p@1", "rr"]


def test_defaults_follow_the_input_world() -> None:
    assert Semantics().ties is None
    assert Semantics().resolve("qrels").ties == "trec"
    for world in ("dense", "ragged", "vectors"):
        assert Semantics().resolve(world).ties == "expected"
    assert Semantics(ties="stable").resolve("dense").ties == "stable"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("ties", "random", "unknown ties policy 'random'; choose one of trec, stable, expected"),
        ("empty", "drop", "unknown empty policy 'drop'; choose one of zero, skip, nan, one, error"),
        ("missing", "one", "unknown missing policy 'one'; choose one of zero, skip, error"),
        ("duplicates", "last", "unknown duplicates policy 'last'; choose one of error, first, max"),
        ("depth", 0, "depth must be a positive integer, got 0"),
        ("depth", 2.5, "depth must be a positive integer, got 2.5"),
        ("depth", True, "depth must be a positive integer, got True"),
        ("judged_only", "yes", "judged_only must be True or False, got 'yes'"),
        ("seed", -1, "seed must be a non-negative integer or None, got -1"),
        ("seed", 1.5, "seed must be a non-negative integer or None, got 1.5"),
    ],
)
def test_each_field_is_validated_when_the_value_is_made(field: str, value: object, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        Semantics(**{field: value})  # type: ignore[arg-type]


def test_depth_with_expected_ties_is_refused() -> None:
    with pytest.raises(PolicyError, match="depth truncation is not defined for ties='expected'"):
        Semantics(ties="expected", depth=5)


def test_qrels_only_fields_are_refused_for_other_worlds() -> None:
    with pytest.raises(PolicyError, match="missing='skip' applies to qrels and run input only, not to dense input"):
        rankmeter.evaluate_arrays([[1, 0]], [[0.2, 0.1]], "ndcg", missing="skip")
    with pytest.raises(PolicyError, match="judged_only=True applies to qrels and run input only, not to ragged"):
        rankmeter.evaluate_lists([[1, 0]], [[0.2, 0.1]], "ndcg", semantics=Semantics(judged_only=True))
    with pytest.raises(PolicyError, match="depth=3 applies to qrels and run input only, not to vectors input"):
        rankmeter.evaluate_vectors([[1, 0]], [[1, 0]], "ndcg", query_labels=[0], database_labels=[0], depth=3)


def test_an_unknown_option_is_a_type_error_naming_the_options() -> None:
    with pytest.raises(
        TypeError, match="evaluate: unknown option 'tie'; the Semantics fields are depth, duplicates, empty"
    ):
        rankmeter.evaluate(QRELS, RUN, "map", tie="stable")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="semantics must be a rankmeter.Semantics, got dict"):
        rankmeter.evaluate(QRELS, RUN, "map", semantics={"ties": "stable"})  # type: ignore[arg-type]


def test_keywords_and_the_value_are_one_call() -> None:
    options = {"ties": "stable", "empty": "skip", "missing": "skip", "depth": 2}
    by_keywords = rankmeter.evaluate(QRELS, RUN, MEASURES, **options)  # type: ignore[arg-type]
    by_value = rankmeter.evaluate(QRELS, RUN, MEASURES, semantics=Semantics(**options))  # type: ignore[arg-type]
    assert by_keywords.to_dict() == by_value.to_dict()
    # q1 ranks a and b (tied at 0.5) in input order under stable ties: a (2) then b (0), c cut by depth=2
    assert by_value.by_query("p@1") == {"q1": 1.0}
    assert by_value["map"] == pytest.approx((1 / 1) / 2)  # c (relevant) is below the depth


def test_keywords_override_the_value() -> None:
    base = Semantics(ties="stable", empty="nan")
    res = rankmeter.evaluate(QRELS, RUN, ["map"], semantics=base, ties="trec")
    assert res.metadata["semantics"]["ties"] == "trec"
    assert res.metadata["semantics"]["empty"] == "nan"
    assert base.ties == "stable"  # the value itself is frozen
    with pytest.raises(AttributeError):
        base.ties = "trec"  # type: ignore[misc]


def test_the_result_records_the_semantics_whole() -> None:
    res = rankmeter.evaluate(QRELS, RUN, MEASURES, ties="shuffle", seed=np.int64(7), judged_only=True)
    assert res.metadata["semantics"] == {
        "ties": "shuffle",
        "empty": "zero",
        "missing": "zero",
        "duplicates": "error",
        "depth": None,
        "judged_only": True,
        "seed": 7,
    }
    json.dumps(res.metadata["semantics"])  # JSON-ready
    dense = rankmeter.evaluate_arrays([[1, 0, 2]], [[0.3, 0.3, 0.1]], "ndcg", empty="one")
    assert dense.metadata["semantics"]["ties"] == "expected"
    assert dense.metadata["semantics"]["empty"] == "one"
    ragged = rankmeter.evaluate_lists([[1, 0]], [[0.3, 0.3]], "rr", ties="pessimistic")
    assert ragged.metadata["semantics"]["ties"] == "pessimistic"
    assert ragged["rr"] == 0.5  # the relevant item last in its tied pair
    vectors = rankmeter.evaluate_vectors([[1, -1]], [[1, -1], [-1, 1]], "map", query_labels=[0], database_labels=[1, 0])
    assert vectors.metadata["semantics"]["ties"] == "expected"
    assert vectors["map"] == 0.5


def test_evaluate_stream_takes_the_value(tmp_path) -> None:
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.5 t\nq1 Q0 c 3 0.1 t\nq3 Q0 z 1 1.0 t\n")
    sem = Semantics(ties="stable", missing="skip")
    streamed = rankmeter.evaluate_stream(QRELS, run, MEASURES, semantics=sem, block_bytes=16)
    whole = rankmeter.evaluate(QRELS, rankmeter.read_run(run), MEASURES, semantics=sem)
    assert streamed.by_query("map") == whole.by_query("map")
    assert streamed.metadata["semantics"] == whole.metadata["semantics"] == sem.resolve("qrels").as_dict()


def test_compare_evaluates_every_run_with_the_same_semantics() -> None:
    qrels = {f"q{i}": {"a": 1, "b": 1} for i in range(6)}
    run_a = {q: {"a": 1.0, "b": 1.0, "x": 1.0} for q in qrels}
    run_b = {q: {"x": 2.0, "a": 1.0, "b": 0.5} for q in qrels}
    optimistic = rankmeter.compare(qrels, {"a": run_a, "b": run_b}, "p@1", semantics=Semantics(ties="optimistic"))
    assert optimistic.system("a", "p@1").mean == 1.0
    pessimistic = rankmeter.compare(qrels, {"a": run_a, "b": run_b}, "p@1", evaluate_options={"ties": "pessimistic"})
    assert pessimistic.system("a", "p@1").mean == 0.0
    with pytest.raises(PolicyError, match="unknown empty policy 'never'"):
        rankmeter.compare(qrels, {"a": run_a, "b": run_b}, "p@1", evaluate_options={"empty": "never"})


def test_the_cli_flags_build_the_value() -> None:
    parser = argparse.ArgumentParser()
    add_evaluation_options(parser)
    args = parser.parse_args(["--ties", "shuffle", "--missing", "skip", "--depth", "10", "--judged-only"])
    assert semantics_from_args(args, seed=3) == Semantics(
        ties="shuffle", missing="skip", depth=10, judged_only=True, seed=3
    )
    assert semantics_from_args(parser.parse_args([])) == Semantics(ties="trec")


def test_replace_validates_again() -> None:
    assert Semantics().replace(empty="skip") == Semantics(empty="skip")
    with pytest.raises(PolicyError, match="unknown empty policy 'sometimes'"):
        Semantics().replace(empty="sometimes")
    with pytest.raises(TypeError, match="unknown evaluation option 'threads'"):
        Semantics().replace(threads=2)


def test_tie_policy_needs_a_resolved_value() -> None:
    with pytest.raises(PolicyError, match="the tie policy is not resolved yet"):
        _ = Semantics().tie_policy
    assert Semantics().resolve("qrels").tie_policy == "trec"


def test_no_warning_on_the_public_surface() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Semantics.build(None, "qrels", ties="trec")
