"""The fast paths of the diversity family against the plain ones they replace, on random tie-heavy inputs."""

from __future__ import annotations

import numpy as np
import pytest

from rankmeter.core.intents import align_intents
from rankmeter.io.intents import intent_qrels_from_dict
from rankmeter.io.tables import Run
from rankmeter.measures.kernels.diversity import IntentContext, greedy_ideal

from .cases import random_case
from .reference import greedy_ideal_by_document


def _lists(seed: int, weighted: bool):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    case = random_case(rng, n_queries=30)
    nested: dict[str, dict[str, dict[str, int]]] = {}
    for q, intent, doc, grade in case.qrels:
        nested.setdefault(q, {}).setdefault(intent, {})[doc] = grade
    rows = [(q, d, s) for q, docs in case.run.items() for d, s in docs.items()]
    run = Run(*(np.array(col) for col in zip(*rows, strict=True)))
    weights = None
    if weighted:  # a few equal weights, so that equal gains (and the document-id tie-break) stay common
        weights = {q: {i: float(rng.choice([0.5, 1.0, 2.0])) for i in intents} for q, intents in nested.items()}
    lists, _ = align_intents(intent_qrels_from_dict(nested), run, ties="stable", missing="skip", intent_weights=weights)
    return lists


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("alpha", "depth"), [(0.5, None), (0.0, None), (1.0, None), (0.3, 3), (0.5, 1)])
def test_greedy_ideal_by_intent_set_equals_the_one_by_document(
    seed: int, weighted: bool, alpha: float, depth: int | None
) -> None:
    lists = _lists(seed, weighted)
    ctx = IntentContext(lists)
    for min_rel in (None, 2):
        relevant, weights = ctx.relevant(min_rel), ctx.intent_weights(min_rel)
        fast = greedy_ideal(lists, relevant, weights, alpha, depth)
        plain = greedy_ideal_by_document(lists, relevant, weights, alpha, depth)
        assert fast.offsets.tolist() == plain.offsets.tolist()
        assert fast.scores.tobytes() == plain.scores.tobytes()  # the same bits, not only close
        assert len(plain.scores) > 0


def test_equal_gains_go_to_the_larger_document_id_across_intent_sets() -> None:
    # intents 1-4; y and b cover {1, 2}, c covers {3, 4}, x covers {1, 3}: three sets tie at gain 2
    qrels = intent_qrels_from_dict(
        {"1": {"1": {"y": 1, "b": 1, "x": 1}, "2": {"y": 1, "b": 1}, "3": {"c": 1, "x": 1}, "4": {"c": 1}}}
    )
    lists, _ = align_intents(qrels, Run(np.array(["1"]), np.array(["a"]), np.array([1.0])))
    ctx = IntentContext(lists)
    for kernel in (greedy_ideal, greedy_ideal_by_document):
        ideal = kernel(lists, ctx.relevant(None), ctx.intent_weights(None), 0.5, None)
        # y (the largest id of the tie) 2; then c 2 (over x 1.5, b 1); then x beats b at 1 (x > b); b 0.25 + 0.5
        assert ideal.scores.tolist() == [2.0, 2.0, 1.0, 0.75]
