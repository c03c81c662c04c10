"""Diversity measures: the worked example of docs/diversity.md, intent weights, tie policies, inputs and errors."""

from __future__ import annotations

import itertools
import re
from math import log2
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.errors import DuplicateEntryError, InputFormatError, InvalidScoreError, MeasureSyntaxError, PolicyError
from rankmeter.io.intents import read_intent_qrels

DOC = Path(__file__).resolve().parents[2] / "docs" / "diversity.md"
QRELS = {"1": {"1": {"a": 1, "c": 1}, "2": {"b": 1, "c": 1}, "3": {"d": 1, "e": 0}}}
RUN = {"1": {"a": 5.0, "b": 4.0, "x": 3.0, "c": 2.0, "d": 1.0}}
RAW_DCG = 1 + 1 / log2(3) + 1 / log2(5) + 1 / log2(6)
WORKED = {
    "alpha_ndcg@5": RAW_DCG / (2 + 1 / log2(3) + 0.5 / 2 + 0.5 / log2(5)),
    "alpha_dcg@5": RAW_DCG / (3 * (1 + 0.5 / log2(3) + 0.25 / 2 + 0.125 / log2(5) + 0.0625 / log2(6))),
    "err_ia@5": (1 + 1 / 2 + 1 / 4 + 1 / 5) / (3 * (1 + 0.5 / 2 + 0.25 / 3 + 0.125 / 4 + 0.0625 / 5)),
    "nerr_ia@5": (1 + 1 / 2 + 1 / 4 + 1 / 5) / (2 + 1 / 2 + 0.5 / 3 + 0.5 / 4),
    "nrbp": (1 - 0.25) * (1 + 0.5 + 0.125 + 0.0625) / 3,
    "nnrbp": (1 + 0.5 + 0.125 + 0.0625) / (2 + 0.5 + 0.125 + 0.0625),
    "map_ia": ((1 + 2 / 4) / 2 + (1 / 2 + 2 / 4) / 2 + (1 / 5) / 1) / 3,
    "p_ia@5": (1 + 1 + 2 + 1) / (5 * 3),
    "strec@1": 1 / 3,
    "strec@2": 2 / 3,
    "strec@5": 1.0,
    "ndcg_ia@5": ((1 + 1 / log2(5)) / (1 + 1 / log2(3)) + (1 / log2(3) + 1 / log2(5)) / (1 + 1 / log2(3)) + 1 / log2(6))
    / 3,
}


def test_evaluate_takes_several_runs_of_diversity_measures() -> None:
    other = {"1": {"d": 5.0, "c": 4.0, "a": 1.0}}
    res = rankmeter.evaluate(QRELS, {"mine": RUN, "other": other}, ["alpha_ndcg@5", "strec@2"])
    assert res.systems == ["mine", "other"]
    assert res["mine"].aggregate == rankmeter.evaluate_diversity(QRELS, RUN, ["alpha_ndcg@5", "strec@2"]).aggregate
    assert res["other"]["strec@2"] == 1.0  # d covers intent 3, c intents 1 and 2


def test_worked_example_of_the_docs() -> None:
    names = ["alpha_ndcg@5", "alpha_dcg@5", "err_ia@5", "nerr_ia@5", "nrbp", "nnrbp", "map_ia", "p_ia@5"]
    res = rankmeter.evaluate_diversity(QRELS, RUN, [*names, "strec@[1,2,5]", "ndcg_ia@5"])
    text = DOC.read_text()
    section = text[text.index("### Worked example") : text.index("## Ties")]
    for name, value in WORKED.items():
        assert res[name] == pytest.approx(value, abs=1e-15), name
        row = next(line for line in section.splitlines() if line.startswith(f"| `{name.partition('@')[0]}"))
        assert (f"{value:.6f}" if value != 1 else "1 |") in row, (name, row)


def test_ir_measures_names_and_evaluate_hand_off() -> None:
    ours = rankmeter.evaluate_diversity(QRELS, RUN, ["alpha_ndcg@5", "err_ia@5", "strec@5", "map_ia", "p_ia@5"])
    theirs = rankmeter.evaluate(QRELS, RUN, ["alpha_nDCG@5", "ERR_IA@5", "StRecall@5", "AP_IA", "P_IA@5"])
    assert theirs.aggregate == ours.aggregate


def test_intent_weights() -> None:
    weights = {"1": {"1": 2.0, "2": 1.0, "3": 1.0}}  # normalised: 0.5, 0.25, 0.25
    res = rankmeter.evaluate_diversity(
        QRELS, RUN, ["p_ia@5", "map_ia", "alpha_dcg@5", "strec@2"], intent_weights=weights
    )
    assert res["p_ia@5"] == pytest.approx(0.5 * 2 / 5 + 0.25 * 2 / 5 + 0.25 * 1 / 5)
    assert res["map_ia"] == pytest.approx(0.5 * 0.75 + 0.25 * 0.5 + 0.25 * 0.2)
    gains = 0.5 + 0.25 / log2(3) + (0.5 * 0.5 + 0.25 * 0.5) / log2(5) + 0.25 / log2(6)
    assert res["alpha_dcg@5"] == pytest.approx(gains / sum(0.5**i / log2(i + 2) for i in range(5)))
    assert res["strec@2"] == pytest.approx(2 / 3)  # subtopic recall counts intents, unweighted
    assert res.metadata["intent_weights"] == "table"
    equal = {"1": {"1": 7.0, "2": 7.0, "3": 7.0}}
    names = ["alpha_ndcg@[1,3,5]", "err_ia@[2,5]", "nerr_ia@5", "nrbp", "nnrbp", "map_ia", "p_ia@5", "ndcg_ia@5"]
    uniform = rankmeter.evaluate_diversity(QRELS, RUN, names)
    for name, value in rankmeter.evaluate_diversity(QRELS, RUN, names, intent_weights=equal).aggregate.items():
        assert value == pytest.approx(uniform[name], rel=1e-12), name


def test_intent_weights_are_normalised_over_the_intents_with_a_relevant_document() -> None:
    # query 1: intent 3 holds no relevant document, so its weight 2 is left out: w = 1/2, 1/2 for intents 1, 2;
    # query 2 has no relevant document at all (0 under empty="zero"); weights that sum to 1 are kept as given
    # query 3: one relevant intent, whose weight becomes 1
    qrels = {"1": {"1": {"a": 1, "c": 1}, "2": {"b": 1}, "3": {"d": 0}}, "2": {"1": {"a": 0}}, "3": {"1": {"b": 1}}}
    run = {"1": {"a": 5.0, "b": 4.0, "x": 3.0, "c": 2.0, "d": 1.0}, "2": {"a": 1.0}, "3": {"a": 2.0, "b": 1.0}}
    for weights in (
        {"1": {"1": 1, "2": 1, "3": 2}, "2": {"1": 1}, "3": {"1": 3}},
        {"1": {"1": 0.25, "2": 0.25, "3": 0.5}, "2": {"1": 1}, "3": {"1": 0.5}},
    ):
        res = rankmeter.evaluate_diversity(qrels, run, ["p_ia@5", "map_ia"], intent_weights=weights)
        p_ia = {"1": pytest.approx(0.5 * 2 / 5 + 0.5 * 1 / 5, abs=1e-15), "2": 0.0, "3": pytest.approx(1 / 5)}
        assert res.by_query("p_ia@5") == p_ia
        ap = {"1": pytest.approx(0.5 * (1 + 2 / 4) / 2 + 0.5 * 1 / 2, abs=1e-15), "2": 0.0, "3": pytest.approx(1 / 2)}
        assert res.by_query("map_ia") == ap
    with pytest.raises(InputFormatError, match="query '1' gives weight 0 to every intent with a relevant document"):
        rankmeter.evaluate_diversity({"1": {"1": {"a": 1}, "2": {"b": 0}}}, run, "p_ia@5",
                                     intent_weights={"1": {"1": 0, "2": 1}})  # fmt: skip


def test_intent_weights_as_a_table() -> None:
    import polars as pl

    table = pl.DataFrame({"query_id": ["1", "1", "1"], "subtopic": ["1", "2", "3"], "weight": [2.0, 1.0, 1.0]})
    as_dict = {"1": {"1": 2.0, "2": 1.0, "3": 1.0}}
    names = ["p_ia@5", "map_ia", "alpha_ndcg@5"]
    expected = rankmeter.evaluate_diversity(QRELS, RUN, names, intent_weights=as_dict).aggregate
    assert rankmeter.evaluate_diversity(QRELS, RUN, names, intent_weights=table).aggregate == expected
    with pytest.raises(InputFormatError, match="intent_weights table needs one weight column"):
        rankmeter.evaluate_diversity(QRELS, RUN, names, intent_weights=table.rename({"weight": "w"}))


def test_weights_change_the_greedy_ideal() -> None:
    """With intent 3 weighted most, the ideal places d first: s* = 0.6, then c (0.2 + 0.2), then a and b."""
    weights = {"1": {"1": 1.0, "2": 1.0, "3": 3.0}}  # 0.2, 0.2, 0.6
    res = rankmeter.evaluate_diversity(QRELS, RUN, ["alpha_ndcg@2"], intent_weights=weights)
    assert res["alpha_ndcg@2"] == pytest.approx((0.2 + 0.2 / log2(3)) / (0.6 + 0.4 / log2(3)))


def _all_orders(run: dict[str, float]) -> list[list[str]]:
    """Every order of the documents consistent with the scores (ties permuted)."""
    groups = [sorted(d for d in run if run[d] == s) for s in sorted(set(run.values()), reverse=True)]
    return [sum(p, []) for p in itertools.product(*(list(map(list, itertools.permutations(g))) for g in groups))]


def test_shuffle_gives_one_of_the_orderings_and_trec_the_docno_descending_one() -> None:
    qrels = {"1": {"1": {"a": 1, "b": 1, "c": 1}, "2": {"b": 1, "d": 1}, "3": {"c": 1}}}
    run = {"1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5, "e": 0.5}}
    names = ["alpha_ndcg@[1,2,3,4]", "nerr_ia@3", "nrbp", "map_ia", "strec@2"]

    def values(order: list[str], ties: str = "stable", seed: int | None = None) -> tuple[float, ...]:
        scored = {"1": {d: float(len(order) - i) for i, d in enumerate(order)}}
        res = rankmeter.evaluate_diversity(qrels, scored if seed is None else run, names, ties=ties, seed=seed)
        return tuple(res.values[0])

    brute = {values(order) for order in _all_orders(run["1"])}
    assert len(brute) > 1  # the ties matter
    for seed in range(6):
        assert values([], "shuffle", seed) in brute
    assert values(["c", "b", "a", "e", "d"]) == tuple(
        rankmeter.evaluate_diversity(qrels, run, names, ties="trec").values[0]
    )


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic"])
def test_tie_policies_without_an_exact_meaning_are_refused(ties: str) -> None:
    with pytest.raises(PolicyError, match=f"ties='{ties}' is not available for diversity measures: "):
        rankmeter.evaluate_diversity(QRELS, RUN, "alpha_ndcg@5", ties=ties)


@settings(max_examples=30, deadline=None)
@given(st.randoms(use_true_random=False))
def test_row_order_does_not_matter(rnd) -> None:  # type: ignore[no-untyped-def]
    rows = [(q, i, d, g) for q, intents in QRELS.items() for i, docs in intents.items() for d, g in docs.items()]
    rnd.shuffle(rows)
    import pandas as pd

    frame = pd.DataFrame(rows, columns=["query_id", "subtopic", "doc_id", "relevance"])
    run_rows = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    rnd.shuffle(run_rows)
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    res = rankmeter.evaluate_diversity(frame, run, ["alpha_ndcg@5", "nnrbp", "map_ia"])
    assert res["alpha_ndcg@5"] == pytest.approx(WORKED["alpha_ndcg@5"], abs=1e-15)
    assert res["nnrbp"] == pytest.approx(WORKED["nnrbp"], abs=1e-15)


def test_queries_empty_counts_the_queries_without_a_relevant_intent() -> None:
    # query 2 has no relevant judgment, queries 3 and 4 one intent each, query 1 (QRELS) several
    qrels = {**QRELS, "2": {"1": {"a": 0}}, "3": {"1": {"a": 1}}, "4": {"2": {"b": 1}}}
    run = {**RUN, "2": {"a": 1.0}, "3": {"a": 1.0}, "4": {"b": 1.0}}
    res = rankmeter.evaluate_diversity(qrels, run, "strec@5")
    assert res.metadata["queries_empty"] == 1 and res.metadata["queries_evaluated"] == 4


def test_no_relevant_document_in_any_query() -> None:
    # the greedy ideal is empty for every query: each value is the empty policy's
    qrels = {"1": {"1": {"a": 0}}, "2": {"1": {"b": 0}, "2": {"c": 0}}}
    run = {"1": {"a": 1.0, "b": 0.5}, "2": {"b": 1.0}}
    names = ["alpha_ndcg@2", "nerr_ia@2", "nnrbp", "alpha_dcg@2"]
    res = rankmeter.evaluate_diversity(qrels, run, names)
    assert {name: res.by_query(name) for name in names} == dict.fromkeys(names, {"1": 0.0, "2": 0.0})
    assert res.metadata["queries_empty"] == 2


def test_at_rank_one_the_ratio_is_of_the_raw_gains() -> None:
    # five intents: the run's first document x is relevant to three, the ideal's first y to four; ndeval divides
    # the raw gains at k = 1 (3 / 4 = 0.75 exactly), not the gains over the ideal-ideal ((3/5) / (4/5) < 0.75)
    qrels = {"1": {"1": {"x": 1, "y": 1}, "2": {"x": 1, "y": 1}, "3": {"x": 1, "y": 1}, "4": {"y": 1}, "5": {"z": 1}}}
    run = {"1": {"x": 3.0, "y": 2.0, "z": 1.0}}
    res = rankmeter.evaluate_diversity(qrels, run, ["alpha_ndcg@1", "nerr_ia@1"])
    assert res["alpha_ndcg@1"] == 3 / 4 and res["nerr_ia@1"] == 3 / 4


def test_empty_and_missing_queries_follow_the_policies() -> None:
    qrels = {**QRELS, "2": {"1": {"a": 0}}, "3": {"1": {"a": 1}}}
    run = {**RUN, "2": {"a": 1.0}, "9": {"a": 1.0}}  # 3 is missing from the run, 9 is not judged
    zero = rankmeter.evaluate_diversity(qrels, run, "alpha_ndcg@5")
    assert zero.by_query("alpha_ndcg@5") == {"1": pytest.approx(WORKED["alpha_ndcg@5"]), "2": 0.0, "3": 0.0}
    assert zero.metadata["queries_empty"] == 1 and zero.metadata["run_only_query_ids"] == ["9"]
    skip = rankmeter.evaluate_diversity(qrels, run, "alpha_ndcg@5", empty="skip", missing="skip")
    assert skip["alpha_ndcg@5"] == pytest.approx(WORKED["alpha_ndcg@5"])
    with pytest.raises(PolicyError, match="1 queries have no relevant judged document for alpha_ndcg@5: 2"):
        rankmeter.evaluate_diversity(qrels, run, "alpha_ndcg@5", empty="error")


def test_duplicate_judgments() -> None:
    rows = [("1", "1", "a", 1), ("1", "1", "b", 0), ("1", "1", "b", 1), ("1", "2", "b", 1)]
    import pandas as pd

    frame = pd.DataFrame(rows, columns=["query_id", "intent", "doc_id", "relevance"])
    run = {"1": {"b": 2.0, "a": 1.0}}
    with pytest.raises(
        DuplicateEntryError,
        match=r"<intent qrels table>:3: query '1', intent '1', document 'b' is judged twice \(first at <intent qrels table>:2",
    ):
        rankmeter.evaluate_diversity(frame, run, "strec@1")
    assert rankmeter.evaluate_diversity(frame, run, "strec@1", duplicates="first")["strec@1"] == 0.5
    assert rankmeter.evaluate_diversity(frame, run, "strec@1", duplicates="max")["strec@1"] == 1.0


def test_measure_errors() -> None:
    with pytest.raises(MeasureSyntaxError, match="evaluate_diversity computes diversity measures only; ndcg@5"):
        rankmeter.evaluate_diversity(QRELS, RUN, ["alpha_ndcg@5", "ndcg@5"])
    with pytest.raises(
        MeasureSyntaxError,
        match=re.escape("alpha_ndcg@5: diversity measures read intent qrels ('query intent docno grade'); evaluate"),
    ):
        rankmeter.evaluate(QRELS, RUN, ["alpha_ndcg@5", "ndcg@5"])
    with pytest.raises(MeasureSyntaxError, match="p_ia@3 is a diversity measure: it needs intent"):
        rankmeter.evaluate_arrays([[1, 0, 1]], [[0.3, 0.2, 0.1]], "p_ia@3")
    with pytest.raises(MeasureSyntaxError, match="alpha must be a number in"):
        rankmeter.parse("alpha_ndcg(alpha=1.5)@5")
    with pytest.raises(MeasureSyntaxError, match="needs a cutoff"):
        rankmeter.parse("alpha_ndcg")


def test_weight_errors() -> None:
    with pytest.raises(InputFormatError, match="intent_weights: no weight for query '1', intent '3'"):
        rankmeter.evaluate_diversity(QRELS, RUN, "p_ia@5", intent_weights={"1": {"1": 1, "2": 1}})
    with pytest.raises(InputFormatError, match=r"intent_weights: query '1', intent '2': weight -1 is not >= 0"):
        rankmeter.evaluate_diversity(QRELS, RUN, "p_ia@5", intent_weights={"1": {"1": 1, "2": -1, "3": 1}})
    with pytest.raises(InputFormatError, match="query '1' gives weight 0 to every intent with a relevant document"):
        rankmeter.evaluate_diversity(QRELS, RUN, "p_ia@5", intent_weights={"1": {"1": 0, "2": 0, "3": 0}})
    with pytest.raises(InputFormatError, match="intent_weights must be a"):
        rankmeter.evaluate_diversity(QRELS, RUN, "p_ia@5", intent_weights=[1, 2])  # type: ignore[arg-type]


def test_reader_errors(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("1 1 a 1\n1 2 b\n")
    with pytest.raises(InputFormatError, match=r"q.txt:2: expected 4 whitespace-separated columns .* got 3"):
        read_intent_qrels(path)
    path.write_text("1 1 a 1\n1 2 b high\n")
    with pytest.raises(InvalidScoreError, match=r"q.txt:2: query '1', intent '2', document 'b': grade 'high'"):
        read_intent_qrels(path)
    path.write_text("# only a comment\n")
    with pytest.raises(InputFormatError, match="file has no judgment lines"):
        read_intent_qrels(path)
    with pytest.raises(InvalidScoreError, match="query '1', intent '1', document 'a': grade 'x' is not a number"):
        rankmeter.evaluate_diversity({"1": {"1": {"a": "x"}}}, RUN, "p_ia@5")
    with pytest.raises(InputFormatError, match="cannot read intent qrels from int"):
        rankmeter.evaluate_diversity(3, RUN, "p_ia@5")
    import pandas as pd

    frame = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(InputFormatError, match="table has no column for intent"):
        rankmeter.evaluate_diversity(frame, RUN, "p_ia@5")


def test_file_table_and_dict_inputs_agree(tmp_path: Path) -> None:
    import polars as pl

    path = tmp_path / "q.txt"
    rows = [(q, i, d, g) for q, intents in QRELS.items() for i, docs in intents.items() for d, g in docs.items()]
    path.write_text("".join(f"{q} {i} {d} {g}\n" for q, i, d, g in rows))
    frame = pl.DataFrame(rows, schema=["qid", "topic_part", "docno", "rel"], orient="row")
    names = ["alpha_ndcg@[2,5]", "nrbp", "ndcg_ia@3"]
    a = rankmeter.evaluate_diversity(path, RUN, names)
    b = rankmeter.evaluate_diversity(frame, RUN, names, qrels_columns={"intent": "topic_part"})
    c = rankmeter.evaluate_diversity(QRELS, RUN, names)
    assert a.aggregate == b.aggregate == c.aggregate


@pytest.mark.parametrize("seed", range(4))
def test_ndcg_ia_is_the_mean_of_ndcg_per_intent(seed: int) -> None:
    """ndcg per intent from its plain-Python definition (tests/reference/definitions.py), the run in trec order."""
    from tests.diversity.cases import random_case
    from tests.reference.definitions import Query, ndcg

    case = random_case(np.random.default_rng(200 + seed), n_queries=8)
    per_intent: dict[tuple[str, str], dict[str, int]] = {}
    for q, intent, doc, grade in case.qrels:
        per_intent.setdefault((q, intent), {})[doc] = grade
    intents = {}
    for q, intent, doc, grade in case.qrels:
        intents.setdefault(q, {}).setdefault(intent, {})[doc] = grade
    ours = rankmeter.evaluate_diversity(intents, case.run, "ndcg_ia@[3,10]", missing="skip", empty="skip")
    for k in (3, 10):
        expected: dict[str, list[float]] = {}
        for (q, _intent), docs in per_intent.items():
            if q not in case.run or not any(g > 0 for g in docs.values()):
                continue
            # ties="trec": score descending, then document id descending
            ranked = sorted(case.run[q].items(), key=lambda item: (item[1], item[0]), reverse=True)
            query = Query(tuple(d for d, _ in ranked), tuple(s for _, s in ranked), docs)
            value = ndcg(query, k)
            expected.setdefault(q, []).append(value)
        got = ours.by_query(f"ndcg_ia@{k}")
        assert set(got) == set(expected)
        for q, values in expected.items():
            assert got[q] == pytest.approx(float(np.mean(values)), abs=1e-12), (q, k)


def test_ir_measures_names_give_ir_measures_values() -> None:
    """ir_measures computes its diversity measures with pyndeval: the names it claims mean the same here."""
    import ir_measures
    import pandas as pd
    from ir_measures import AP_IA, ERR_IA, NRBP, P_IA, StRecall, alpha_nDCG, nERR_IA, nNRBP

    from tests.diversity.cases import random_case

    case = random_case(np.random.default_rng(300), n_queries=8)
    qrels = pd.DataFrame(case.qrels, columns=["query_id", "iteration", "doc_id", "relevance"])
    rows = [(q, d, float(len(docs) - i)) for q, docs in case.run.items() for i, d in enumerate(docs)]  # no ties
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    measures = [alpha_nDCG @ 10, alpha_nDCG(alpha=0.3) @ 5, ERR_IA @ 20, nERR_IA @ 5, NRBP, nNRBP(beta=0.8),
                AP_IA, P_IA @ 10, StRecall @ 5, StRecall(rel=2) @ 10]  # fmt: skip
    theirs: dict[str, dict[str, float]] = {}
    for measure in measures:  # one call each: ir_measures 0.3 reads the run once for all its pyndeval calls, so
        for metric in ir_measures.iter_calc([measure], qrels, run):  # measures of a second alpha/beta/rel get 0
            theirs.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    intents: dict[str, dict[str, dict[str, int]]] = {}
    for q, intent, doc, grade in case.qrels:
        intents.setdefault(q, {}).setdefault(intent, {})[doc] = grade
    scored = {q: {d: s for qq, d, s in rows if qq == q} for q in case.run}
    ours = rankmeter.evaluate(intents, scored, [str(m) for m in measures])  # missing queries count 0, as there
    for m in measures:
        name = str(rankmeter.parse(str(m)))
        # nNRBP of a query without relevant judgments is 0/0 there; the empty-query policy makes it 0 here
        reference = {q: 0.0 if np.isnan(v) else v for q, v in theirs[str(m)].items()}
        assert ours.by_query(name) == pytest.approx(reference, rel=1e-12, abs=1e-12), str(m)
        assert ours[name] == pytest.approx(float(np.mean(list(reference.values()))), rel=1e-12), str(m)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.0, 0.3, 0.5, 1.0]), st.sampled_from([0.2, 0.5, 1.0]))
def test_bounds_and_monotonicity(seed: int, alpha: float, beta: float) -> None:
    """Normalised by the ideal-ideal, every value lies in [0, 1]; subtopic recall never falls as k grows."""
    from tests.diversity.cases import random_case

    case = random_case(np.random.default_rng(seed), n_queries=4)
    intents: dict[str, dict[str, dict[str, int]]] = {}
    for q, intent, doc, grade in case.qrels:
        intents.setdefault(q, {}).setdefault(intent, {})[doc] = grade
    names = [
        f"alpha_dcg(alpha={alpha})@[1,5,20]", f"err_ia(alpha={alpha})@[1,5,20]", f"nrbp(alpha={alpha},beta={beta})",
        "p_ia@[1,5,20]", "map_ia", "strec@[1,2,5,20]", "ndcg_ia@[1,5]",
    ]  # fmt: skip
    res = rankmeter.evaluate_diversity(intents, case.run, names)
    assert np.all((res.values >= 0) & (res.values <= 1 + 1e-12))
    strec = res.values[:, [res.measure_names.index(f"strec@{k}") for k in (1, 2, 5, 20)]]
    assert np.all(np.diff(strec, axis=1) >= 0)
