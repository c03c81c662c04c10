"""Oracle: pytrec_eval (the trec_eval 9 C code) on random, tie-heavy, ragged TREC cases.

Per-query agreement to 1e-9 for ndcg, ndcg_cut, map, map_cut, P, recall,
recip_rank, Rprec, success and the num_* counts, at relevance level 1 and 2.

Semantic differences handled here (all documented in docs/semantics.md):

* pytrec_eval evaluates only the judged queries that appear in the run dict
  (trec_eval without ``-c``); rankmeter's default ``missing="zero"`` is
  trec_eval ``-c``: a judged query absent from the run is an empty ranking
  (every measure 0, ``num_rel`` still counted). Per-query values are
  compared on pytrec_eval's queries and the extra queries are checked to be
  exactly the missing ones, with zeros.
* A run entry ``{qid: {}}`` is evaluated by pytrec_eval (as an empty ranking),
  whereas in rankmeter a query without run rows is "missing". Under the
  default ``missing="zero"`` both give the same numbers; under
  ``missing="skip"`` rankmeter drops it, pytrec_eval keeps it.
* trec_eval's relevance level (``relevance_level=2``, ``-l 2``) is
  rankmeter's ``min_rel=2`` on the binary measures; ndcg ignores it in both
  (rankmeter's ndcg has no ``min_rel`` parameter at all).
"""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

import rankmeter

CUTS = (1, 3, 5, 10, 20, 100)
_CUT = ",".join(map(str, CUTS))
PT_MEASURES = {
    "ndcg",
    f"ndcg_cut.{_CUT}",
    "map",
    f"map_cut.{_CUT}",
    f"P.{_CUT}",
    f"recall.{_CUT}",
    "recip_rank",
    "Rprec",
    f"success.{_CUT}",
    "num_ret",
    "num_rel",
    "num_rel_ret",
}
COUNTS = {"num_ret", "num_rel", "num_rel_ret"}
TOL = 1e-9

N_BATCHES = 10
CASES_PER_BATCH = 110  # 1,100 cases (about 3,300 queries) per relevance level


def measure_pairs(level: int) -> list[tuple[str, str]]:
    """(pytrec_eval key, rankmeter name) for trec_eval relevance level ``level``."""
    p = "" if level == 1 else f"(min_rel={level})"  # level 1 == rankmeter's default grade > 0 for integer grades
    pairs = [
        ("ndcg", "ndcg"),  # graded: relevance level does not apply
        ("map", f"map{p}"),
        ("recip_rank", f"rr{p}"),
        ("Rprec", f"rprec{p}"),
        ("num_ret", "num_ret"),
        ("num_rel", f"num_rel{p}"),
        ("num_rel_ret", f"num_rel_ret{p}"),
    ]
    for k in CUTS:
        pairs += [
            (f"ndcg_cut_{k}", f"ndcg@{k}"),
            (f"map_cut_{k}", f"map{p}@{k}"),
            (f"P_{k}", f"p{p}@{k}"),
            (f"recall_{k}", f"r{p}@{k}"),
            (f"success_{k}", f"success{p}@{k}"),
        ]
    return pairs


def run_pytrec(qrels, run, level: int = 1, judged_only: bool = False) -> dict[str, dict[str, float]]:
    ev = pytrec_eval.RelevanceEvaluator(qrels, PT_MEASURES, relevance_level=level, judged_docs_only_flag=judged_only)
    return ev.evaluate(run)


def table(res: rankmeter.EvaluationResult, names: list[str]) -> tuple[list[str], np.ndarray]:
    """Query ids and a (Q, len(names)) array of rankmeter per-query values (NaN where not included)."""
    canon = [str(rankmeter.parse(n)) for n in names]
    cols = [res.measure_names.index(c) for c in canon]
    vals = np.where(res.included[:, cols], res.values[:, cols], np.nan)
    return res.query_ids.tolist(), vals


def assert_per_query_equal(pt: dict, res: rankmeter.EvaluationResult, pairs, qids, context: str) -> None:
    pt_keys = [a for a, _ in pairs]
    rm_qids, rm_vals = table(res, [b for _, b in pairs])
    index = {q: i for i, q in enumerate(rm_qids)}
    missing_in_rm = [q for q in qids if q not in index]
    assert not missing_in_rm, f"{context}: rankmeter lacks queries {missing_in_rm[:5]}"
    expected = np.array([[pt[q][k] for k in pt_keys] for q in qids], dtype=np.float64).reshape(len(qids), -1)
    got = rm_vals[[index[q] for q in qids]].reshape(len(qids), -1)
    bad = np.argwhere(~(np.abs(got - expected) <= TOL))
    if len(bad):
        lines = [
            f"  query {qids[i]!r} {pairs[j][0]} / {pairs[j][1]}: pytrec_eval {expected[i, j]!r}, rankmeter {got[i, j]!r}"
            for i, j in bad[:12]
        ]
        pytest.fail(f"{context}: {len(bad)} per-query disagreements\n" + "\n".join(lines))


def num_relevant(docs: dict[str, int], level: int) -> int:
    return sum(1 for g in docs.values() if g >= level)


@pytest.mark.parametrize("level", [1, 2], ids=["level1", "level2"])
@pytest.mark.parametrize("batch", range(N_BATCHES))
def test_per_query_and_aggregate_match_trec_eval(batch, level, trec_cases, merge_trec_cases):
    cases = trec_cases(seed=1000 + batch, n_cases=CASES_PER_BATCH)
    merged = merge_trec_cases(cases)
    pairs = measure_pairs(level)
    names = [b for _, b in pairs]
    pt = run_pytrec(merged.qrels, merged.run, level)

    # pytrec_eval evaluates exactly the judged queries present in the run dict
    pt_qids = sorted(pt)
    judged = set(merged.qrels)
    assert set(pt_qids) == judged - set(merged.missing)

    res = rankmeter.evaluate(merged.qrels, merged.run, names + ["num_q"])
    context = f"seed {1000 + batch}, relevance level {level}"
    assert_per_query_equal(pt, res, pairs, pt_qids, context)

    # the cases really are tie-heavy and ragged
    assert res.metadata["queries_with_ties"] >= 0.5 * len(pt_qids)
    assert res.metadata["queries_with_ties_at_cutoff"] >= 0.2 * len(pt_qids)
    assert res.metadata["queries_run_only"] == len(merged.run_only) > 0

    # missing="zero" (trec_eval -c): the missing queries are evaluated as empty rankings
    rm_qids, rm_vals = table(res, names)
    assert set(rm_qids) == judged
    extra = [q for q in rm_qids if q in set(merged.missing)]
    assert len(extra) == len(merged.missing) > 0
    idx = [rm_qids.index(q) for q in extra]
    for j, (key, _) in enumerate(pairs):
        want = [num_relevant(merged.qrels[q], level) for q in extra] if key == "num_rel" else [0.0] * len(extra)
        np.testing.assert_array_equal(rm_vals[idx, j], want, err_msg=f"{context}: {key} of missing queries")

    # aggregates: trec_eval -c means (zeros for missing queries), counts summed
    n_all = len(judged)
    assert res.aggregate["num_q"] == n_all  # trec_eval -c: num_q counts every judged query
    for key, name in pairs:
        total = sum(pt[q][key] for q in pt_qids)
        if key in COUNTS:
            if key == "num_rel":
                total += sum(num_relevant(merged.qrels[q], level) for q in merged.missing)
            assert res.aggregate[str(rankmeter.parse(name))] == pytest.approx(total, abs=TOL), (context, key)
        else:
            assert res.aggregate[str(rankmeter.parse(name))] == pytest.approx(total / n_all, abs=TOL), (context, key)

    # missing="skip" drops the judged queries without run rows; pytrec_eval keeps {} entries
    skip = rankmeter.evaluate(merged.qrels, merged.run, names + ["num_q"], missing="skip")
    skip_qids = set(skip.query_ids.tolist())
    assert skip_qids == set(pt_qids) - set(merged.empty_run)
    assert skip.aggregate["num_q"] == len(skip_qids)
    kept = sorted(skip_qids)
    assert_per_query_equal(pt, skip, pairs, kept, context + ", missing=skip")
    for key, name in pairs:
        if key not in COUNTS:
            mean = float(np.mean([pt[q][key] for q in kept]))
            assert skip.aggregate[str(rankmeter.parse(name))] == pytest.approx(mean, abs=TOL), (context, key)


@pytest.mark.parametrize("batch", range(3))
def test_judged_only_matches_trec_eval_J(batch, trec_cases, merge_trec_cases):
    """rankmeter judged_only=True vs trec_eval -J (pytrec_eval judged_docs_only_flag=True).

    trec_eval (form_res_rels.c) stores a negative qrels grade as RELVALUE_UNJUDGED ("in pool, but
    unjudged") and -J keeps only documents with grade >= 0; rankmeter's judged_only does the same.
    """
    merged = merge_trec_cases(trec_cases(seed=2000 + batch, n_cases=80))
    pairs = measure_pairs(1)
    pt = run_pytrec(merged.qrels, merged.run, 1, judged_only=True)
    res = rankmeter.evaluate(merged.qrels, merged.run, [b for _, b in pairs], judged_only=True)
    assert res.metadata["unjudged_dropped"] > 0
    assert any(g < 0 for docs in merged.qrels.values() for g in docs.values())
    assert_per_query_equal(pt, res, pairs, sorted(pt), f"seed {2000 + batch}, judged_only")


def test_judged_only_drops_negative_grades_as_trec_eval_does():
    # trec_eval -J treats a negative grade as "pooled, unjudged" and drops it; so does judged_only
    qrels = {"q": {"a": -1, "b": 1, "c": 0}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "x": 5.0}}
    pt = run_pytrec(qrels, run, judged_only=True)["q"]
    assert (pt["num_ret"], pt["recip_rank"]) == (2.0, 1.0)  # trec_eval -J ranks b, c
    res = rankmeter.evaluate(qrels, run, ["num_ret", "rr"], judged_only=True)
    assert (res["num_ret"], res["rr"]) == (2.0, 1.0)
    assert res.metadata["unjudged_dropped"] == 2


def test_ndcg_ignores_relevance_level(trec_cases, merge_trec_cases):
    """trec_eval's ndcg does not depend on -l; rankmeter's ndcg has no min_rel at all."""
    merged = merge_trec_cases(trec_cases(seed=3000, n_cases=150))
    keys = ["ndcg"] + [f"ndcg_cut_{k}" for k in CUTS]
    pt1 = run_pytrec(merged.qrels, merged.run, 1)
    pt2 = run_pytrec(merged.qrels, merged.run, 2)
    pt3 = run_pytrec(merged.qrels, merged.run, 3)
    assert any(pt1[q]["P_5"] != pt2[q]["P_5"] for q in pt1)  # the level does matter elsewhere
    for q in pt1:
        for k in keys:
            assert pt1[q][k] == pt2[q][k] == pt3[q][k]
    with pytest.raises(rankmeter.MeasureSyntaxError):
        rankmeter.parse("ndcg(min_rel=2)")
    pairs = [(k, "ndcg" if k == "ndcg" else f"ndcg@{k.rsplit('_', 1)[1]}") for k in keys]
    res = rankmeter.evaluate(merged.qrels, merged.run, [b for _, b in pairs])
    assert_per_query_equal(pt2, res, pairs, sorted(pt2), "ndcg vs relevance_level=2")


def _write_trec(path_q, path_r, case, rng) -> None:
    with open(path_q, "w") as fh:
        for q, docs in case.qrels.items():
            for d, g in docs.items():
                fh.write(f"{q} 0 {d} {g}\n")
    with open(path_r, "w") as fh:
        for q, docs in case.run.items():
            items = list(docs.items())
            rng.shuffle(items)  # file order and the rank column must not matter
            for rank, (d, s) in enumerate(items, start=1):
                fh.write(f"{q}\tQ0\t{d}\t{rank}\t{s!r}\trun\n")


def _frames(case):
    import pandas as pd

    q = pd.DataFrame(
        [(qid, d, g) for qid, docs in case.qrels.items() for d, g in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    r = pd.DataFrame(
        [(qid, d, s) for qid, docs in case.run.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    return q, r


@pytest.mark.parametrize("fmt", ["trec_files", "dataframes"])
def test_single_cases_through_files_and_frames(fmt, trec_cases, tmp_path):
    """Case by case (no merging), via TREC files or DataFrames, per query and per-case aggregates."""
    cases = trec_cases(seed=4000 if fmt == "trec_files" else 4001, n_cases=40)
    pairs = measure_pairs(1)
    names = [b for _, b in pairs]
    rng = np.random.default_rng(7)
    for i, case in enumerate(cases):
        if not set(case.qrels) - set(case.missing):
            continue  # nothing for pytrec_eval to evaluate
        pt = run_pytrec(case.qrels, case.run)
        if fmt == "trec_files":
            qp, rp = tmp_path / f"q{i}.txt", tmp_path / f"r{i}.txt"
            _write_trec(qp, rp, case, rng)
            res = rankmeter.evaluate(str(qp), str(rp), names, missing="skip")
        else:
            qf, rf = _frames(case)
            res = rankmeter.evaluate(qf, rf, names, missing="skip")
        # {} run entries produce no file lines / rows: pytrec_eval evaluates them, rankmeter skips them
        qids = sorted(set(pt) - set(case.empty_run))
        assert sorted(res.query_ids.tolist()) == qids
        assert_per_query_equal(pt, res, pairs, qids, f"{fmt} case {i}")
        for key, name in pairs:
            vals = [pt[q][key] for q in qids]
            want = float(np.sum(vals)) if key in COUNTS else float(np.mean(vals))
            assert res.aggregate[str(rankmeter.parse(name))] == pytest.approx(want, abs=TOL), (fmt, i, key)


def test_trec_tie_order_is_docno_descending_strcmp():
    """A hand-made case pinning trec_eval's tie rule: score desc, then docno desc in strcmp order."""
    qrels = {"q": {"d10": 1, "d9": 0, "d2": 0, "10": 0, "9": 1}}
    run = {"q": {"d10": 1.0, "d9": 1.0, "d2": 1.0, "10": 1.0, "9": 1.0}}
    # strcmp descending: d9, d2, d10, 9, 10 -> relevant at ranks 3 and 4
    pt = run_pytrec(qrels, run)["q"]
    res = rankmeter.evaluate(qrels, run, ["rr", "p@3", "map"])
    assert pt["recip_rank"] == pytest.approx(1 / 3) == res["rr"]
    assert pt["P_3"] == pytest.approx(1 / 3) == res["p@3"]
    assert pt["map"] == pytest.approx((1 / 3 + 2 / 4) / 2) == pytest.approx(res["map"], abs=TOL)
