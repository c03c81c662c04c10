"""Every ndeval measure, per query and on average, against NIST's ndeval.c (through pyndeval) on random cases."""

from __future__ import annotations

import math

import numpy as np
import pyndeval
import pytest

from rankmeter.diversity import evaluate_diversity
from tests.diversity.cases import DiversityCase, random_case, trec_order

K_ALL = list(range(1, 21))
K_FROM_2 = list(range(2, 21))  # ndeval leaves ERR-IA@1 and alpha-DCG@1 unnormalised (its loops start at rank 2)
# (rankmeter family, its cutoffs, ndeval's name, whether alpha applies)
MEASURES = [
    ("alpha_ndcg", K_ALL, "alpha-nDCG", True),
    ("alpha_dcg", K_FROM_2, "alpha-DCG", True),
    ("err_ia", K_FROM_2, "ERR-IA", True),
    ("nerr_ia", K_ALL, "nERR-IA", True),
    ("p_ia", K_ALL, "P-IA", False),
    ("strec", K_ALL, "strec", False),
    ("nrbp", None, "NRBP", True),
    ("nnrbp", None, "nNRBP", True),
    ("map_ia", None, "MAP-IA", False),
]


def _name(family: str, cutoffs: list[int] | None, params: dict[str, float]) -> str:
    inner = ",".join(f"{k}={v}" for k, v in params.items())
    stem = f"{family}({inner})" if inner else family
    return stem if cutoffs is None else f"{stem}@[{','.join(map(str, cutoffs))}]"


def _intent_dict(case: DiversityCase) -> dict[str, dict[str, dict[str, int]]]:
    out: dict[str, dict[str, dict[str, int]]] = {}
    for q, intent, doc, grade in case.qrels:
        out.setdefault(q, {}).setdefault(intent, {})[doc] = grade
    return out


def _ranked_run(case: DiversityCase, order: str) -> list[tuple[str, str, float]]:
    """The run with distinct scores in the order rankmeter is asked for, so pyndeval's own tie rule never acts."""
    rows = []
    for q, scores in case.run.items():
        docs = (
            trec_order(scores) if order == "trec" else sorted(scores, key=lambda d: -scores[d])
        )  # stable: input order
        rows += [(q, d, float(len(docs) - i)) for i, d in enumerate(docs)]
    return rows


def _compare(case: DiversityCase, *, alpha: float, beta: float, min_rel: int, ties: str) -> int:
    names, ndeval_names = [], []
    for family, cutoffs, theirs, uses_alpha in MEASURES:
        params: dict[str, float] = {}
        if uses_alpha and alpha != 0.5:
            params["alpha"] = alpha
        if family in ("nrbp", "nnrbp") and beta != 0.5:
            params["beta"] = beta
        if min_rel != 1:
            params["min_rel"] = min_rel
        names.append(_name(family, cutoffs, params))
        ndeval_names += [theirs] if cutoffs is None else [f"{theirs}@{k}" for k in cutoffs]
    ours = evaluate_diversity(_intent_dict(case), case.run, names, ties=ties, missing="skip")
    evaluator = pyndeval.RelevanceEvaluator(case.qrels, ndeval_names, relevance_level=min_rel, alpha=alpha, beta=beta)
    expected = evaluator.evaluate(_ranked_run(case, ties))
    assert sorted(ours.query_ids.tolist()) == sorted(expected)
    ours_names = list(ours.measure_names)
    assert len(ours_names) == len(ndeval_names)
    compared = 0
    for row, qid in enumerate(ours.query_ids.tolist()):
        for col, (mine, theirs) in enumerate(zip(ours_names, ndeval_names, strict=True)):
            value, reference = ours.values[row, col], expected[qid][theirs]
            if math.isnan(reference):  # nNRBP: ndeval divides 0 by 0
                # no relevant judgment: rankmeter's empty query (0 under empty="zero"); alpha = 0 with beta = 1
                # on a query with some: NRBP is 0 for every ranking, undefined (NaN under every policy)
                assert theirs == "nNRBP" and (value == 0.0 or (alpha == 0 and beta == 1 and math.isnan(value)))
                continue
            assert value == reference, (qid, mine, theirs)  # bit for bit: rankmeter follows ndeval's arithmetic
            compared += 1
    for mine, theirs in zip(ours_names, ndeval_names, strict=True):
        ref = [expected[q][theirs] for q in expected]
        if not any(math.isnan(v) for v in ref):
            assert ours[mine] == pytest.approx(float(np.mean(ref)), rel=1e-12, abs=1e-12), mine
    return compared


@pytest.mark.parametrize("seed", range(12))
def test_every_ndeval_measure_on_random_tie_heavy_cases(seed: int) -> None:
    rng = np.random.default_rng(seed)
    case = random_case(rng, n_queries=10)
    assert _compare(case, alpha=0.5, beta=0.5, min_rel=1, ties="trec") > 500


@pytest.mark.parametrize(
    ("alpha", "beta", "min_rel", "ties"),
    [(0.3, 0.8, 1, "trec"), (0.9, 0.2, 2, "stable"), (0.0, 1.0, 1, "trec"), (1.0, 0.5, 1, "stable")],
)
def test_parameters_and_orders(alpha: float, beta: float, min_rel: int, ties: str) -> None:
    for seed in range(3):
        case = random_case(np.random.default_rng(100 + seed), n_queries=8)
        _compare(case, alpha=alpha, beta=beta, min_rel=min_rel, ties=ties)


def test_ndevals_sample_style_data() -> None:
    """The worked example of docs/diversity.md against ndeval itself."""
    qrels = [
        ("1", "1", "a", 1), ("1", "1", "c", 1), ("1", "2", "b", 1), ("1", "2", "c", 1),
        ("1", "3", "d", 1), ("1", "3", "e", 0),
    ]  # fmt: skip
    run = {"1": {"a": 5.0, "b": 4.0, "x": 3.0, "c": 2.0, "d": 1.0}}
    _compare(DiversityCase(sorted(qrels, key=lambda r: int(r[1])), run), alpha=0.5, beta=0.5, min_rel=1, ties="trec")


def test_rank_one_values_differ_from_ndevals_unnormalised_first_rank() -> None:
    """ndeval normalises ERR-IA@k and alpha-DCG@k from k = 2 on only: at k = 1 it prints the raw gain.

    rankmeter divides at every k (by A, the number of intents with a relevant document), so its value at
    rank 1 is ndeval's divided by A.
    """
    qrels = [("1", "1", "a", 1), ("1", "2", "a", 1), ("1", "3", "b", 1)]
    run = {"1": {"a": 2.0, "b": 1.0}}
    ours = evaluate_diversity(_intent_dict(DiversityCase(qrels, run)), run, ["err_ia@1", "alpha_dcg@1"])
    theirs = pyndeval.ndeval(qrels, [("1", "a", 2.0), ("1", "b", 1.0)], ["ERR-IA@1", "alpha-DCG@1"])["1"]
    assert theirs == {"ERR-IA@1": 2.0, "alpha-DCG@1": 2.0}
    assert ours["err_ia@1"] == ours["alpha_dcg@1"] == 2.0 / 3
