"""Differential test: rankmeter's trec_eval layer against pytrec-eval-terrier (trec_eval 9.0.8 inside).

Per-topic agreement to 1e-9 on every measure pytrec_eval supports (except the
text-valued ``runid`` and ``relstring``), on 1,000 random, tie-heavy, graded,
ragged cases (3,000 topics) per setting, at relevance levels 1-3 (``-l``; pytrec_eval refuses 0), with and
without ``-J``. The values come from :func:`rankmeter.trec_eval.engine.evaluate_qrels`,
the code ``rankmeter trec_eval`` prints.

Known, documented differences handled here:

* ``iprec_at_recall`` and ``11pt_avg``: trec_eval 10 turns recall level x into
  floor(xR + 0.5) relevant documents, trec_eval 9 into floor(xR + 0.9). The
  trec_eval layer follows 10; these two are compared through
  ``iprec_at_recall(offset=0.9)`` / ``iprec_avg(offset=0.9)``, and the
  trec_eval-10 numbers are checked against the quicktest files instead.
* ``gm_map`` and ``gm_bpref``: pytrec_eval reports the per-topic
  log(max(v, 1e-5)) that trec_eval accumulates; rankmeter reports v.
* pytrec_eval evaluates a topic whose run entry is ``{}`` as an empty
  ranking; such a topic has no run line in a TREC file, so the generator never
  produces one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval

import rankmeter
from rankmeter.io.dicts import qrels_from_dict, run_from_dict
from rankmeter.trec_eval.engine import evaluate_qrels
from rankmeter.trec_eval.measures import resolve
from rankmeter.trec_eval.readers import RunFile

DOCS = np.array(
    [f"d{i}" for i in range(1, 31)]
    + [str(i) for i in range(1, 21)]
    + ["D1", "D10", "d01", "doc-7", "doc_7", "a", "B", "zz"]
)
SCORES = np.array([0.0, 1.0, 1.0, 2.0, 2.5, 3.0, -1.0, 0.5])
GRADES = np.array([-1, 0, 0, 1, 1, 2, 3])
TOL = 1e-9

PT_MEASURES = {
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
}
# trec_eval measure arguments for the trec_eval layer (same defaults as pytrec_eval's)
TE_ARGS = sorted(PT_MEASURES - {"iprec_at_recall", "11pt_avg"}) + [
    "utility.2,-1,0.5,0",
    "set_F.0.5",
    "success.1,2,3,5,10",
    "P.1,2,3,7",
]
GEOMETRIC = {"gm_map", "gm_bpref"}


def random_cases(seed: int, n_cases: int) -> tuple[dict, dict]:
    """Merged qrels and run dicts of ``n_cases`` cases, three topics each (topic ids ``c<case>_<i>``)."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for case in range(n_cases):
        for t in range(3):
            qid = f"c{case}_{t}"
            kind = rng.random()
            n_judged = int(rng.integers(1, 25))
            judged = rng.choice(DOCS, size=n_judged, replace=False)
            grades = rng.choice(GRADES, size=n_judged)
            if kind < 0.1:
                grades = np.minimum(grades, 0)  # no relevant document
            qrels[qid] = {str(d): int(g) for d, g in zip(judged, grades, strict=True)}
            if kind > 0.93:
                continue  # judged topic missing from the run
            n_ret = int(rng.integers(1, 40))
            docs = rng.choice(DOCS, size=min(n_ret, len(DOCS)), replace=False)
            scores = rng.choice(SCORES, size=len(docs)) if rng.random() < 0.8 else rng.normal(size=len(docs))
            run[qid] = {str(d): float(s) for d, s in zip(docs, scores, strict=True)}
        run[f"c{case}_only"] = {"d1": 1.0, "d2": 1.0}  # a run-only topic
    return qrels, run


def compare(pt: dict, values: dict[str, np.ndarray], names: dict[str, str], qids: list[str], context: str) -> None:
    bad = []
    for printed, key in names.items():
        got = values[key]
        for i, q in enumerate(qids):
            want = pt[q][printed]
            if printed in GEOMETRIC:
                want = math.exp(want)
                g = max(float(got[i]), 1e-5)
            else:
                g = float(got[i])
            if not abs(g - want) <= TOL * max(1.0, abs(want)):
                bad.append(f"  topic {q} {printed}: pytrec_eval {want!r}, rankmeter {g!r}")
    if bad:
        pytest.fail(f"{context}: {len(bad)} disagreements\n" + "\n".join(bad[:15]))


@pytest.mark.parametrize("judged_only", [False, True], ids=["all-docs", "J"])
@pytest.mark.parametrize("level", [1, 2, 3], ids=lambda lv: f"l{lv}")
def test_trec_eval_layer_matches_pytrec_eval(level: int, judged_only: bool) -> None:
    qrels, run = random_cases(seed=100 + level + 10 * judged_only, n_cases=1000)
    pt = pytrec_eval.RelevanceEvaluator(
        qrels, PT_MEASURES, relevance_level=level, judged_docs_only_flag=judged_only
    ).evaluate(run)
    q_rm, r_rm = qrels_from_dict(qrels), run_from_dict(run)
    table = evaluate_qrels(
        resolve(TE_ARGS),
        q_rm,
        RunFile(r_rm, "run"),
        level=level,
        judged_only=judged_only,
        stderr=open("/dev/null", "w"),
    )  # noqa: SIM115
    assert sorted(table.query_ids) == sorted(pt)
    assert len(table.query_ids) > 2700
    per_q = {q: dict(v) for q, v in pt.items()}
    names = {c.name: c.key for c in table.columns if c.key in table.values and c.name in per_q[table.query_ids[0]]}
    assert len(names) >= 60, sorted(names)
    compare(per_q, table.values, names, table.query_ids, f"-l{level}{' -J' if judged_only else ''}")


@pytest.mark.parametrize("level", [1, 2])
def test_interpolated_precision_with_trec_eval_9_rounding(level: int) -> None:
    qrels, run = random_cases(seed=7 + level, n_cases=300)
    pt = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall", "11pt_avg"}, relevance_level=level).evaluate(run)
    mr = "" if level == 1 else f",min_rel={level}"
    levels = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    names = {f"iprec_at_recall_{x:3.2f}": f"iprec_at_recall(recall={x},offset=0.9{mr})" for x in levels}
    names["11pt_avg"] = f"iprec_avg(offset=0.9{mr})"
    res = rankmeter.evaluate(qrels, run, list(names.values()), missing="skip")
    qids = res.query_ids.tolist()
    assert sorted(qids) == sorted(pt)
    values = {
        str(rankmeter.parse(v)): np.nan_to_num(res.values[:, res.measure_names.index(str(rankmeter.parse(v)))])
        for v in names.values()
    }
    compare(pt, values, {k: str(rankmeter.parse(v)) for k, v in names.items()}, qids, f"level {level}")


def test_cases_are_tie_heavy_and_ragged() -> None:
    qrels, run = random_cases(seed=100, n_cases=300)
    res = rankmeter.evaluate(qrels, run, ["num_ret"], missing="skip")
    assert res.metadata["queries_with_ties"] > 0.5 * len(res.query_ids)
    lengths = res.values[:, 0]
    assert lengths.min() <= 2 and lengths.max() >= 35
    assert res.metadata["queries_run_only"] == 300 and res.metadata["queries_missing"] > 20


def _truncate_trec_order(run: dict[str, dict[str, float]], depth: int) -> dict[str, dict[str, float]]:
    """Each topic's top ``depth`` documents in trec_eval's order (score desc, then docno desc)."""
    out = {}
    for qid, docs in run.items():
        ranked = sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        out[qid] = dict(ranked[:depth])
    return out


@pytest.mark.parametrize("depth", [1, 5, 17])
def test_max_docs_matches_pytrec_eval_on_truncated_runs(depth: int) -> None:
    # -M N keeps each topic's top N after ranking; pytrec_eval has no -M, so it gets the truncated run
    qrels, run = random_cases(seed=300 + depth, n_cases=350)
    pt = pytrec_eval.RelevanceEvaluator(qrels, PT_MEASURES).evaluate(_truncate_trec_order(run, depth))
    table = evaluate_qrels(
        resolve(TE_ARGS),
        qrels_from_dict(qrels),
        RunFile(run_from_dict(run), "run"),
        max_docs=depth,
        stderr=open("/dev/null", "w"),
    )  # noqa: SIM115
    per_q = {q: dict(v) for q, v in pt.items()}
    names = {c.name: c.key for c in table.columns if c.key in table.values and c.name in per_q[table.query_ids[0]]}
    assert len(names) >= 60
    compare(per_q, table.values, names, table.query_ids, f"-M{depth}")


def test_complete_scores_missing_topics_zero_like_pytrec_eval_with_empty_rankings() -> None:
    # -c: judged topics without results count with an empty ranking; pytrec_eval evaluates a topic whose run
    # entry is {} as exactly that, so give it {} for every judged topic missing from the run
    qrels, run = random_cases(seed=400, n_cases=350)
    missing = [q for q in qrels if q not in run]
    assert len(missing) > 20
    pt = pytrec_eval.RelevanceEvaluator(qrels, PT_MEASURES).evaluate({**run, **{q: {} for q in missing}})
    table = evaluate_qrels(
        resolve(TE_ARGS),
        qrels_from_dict(qrels),
        RunFile(run_from_dict(run), "run"),
        complete=True,
        stderr=open("/dev/null", "w"),
    )  # noqa: SIM115
    assert sorted(table.query_ids) == sorted(qrels)
    per_q = {q: dict(v) for q, v in pt.items()}
    names = {c.name: c.key for c in table.columns if c.key in table.values and c.name in per_q[table.query_ids[0]]}
    names = {k: v for k, v in names.items() if k not in ("utility",)}  # utility of an empty ranking: see docs
    compare(per_q, table.values, names, table.query_ids, "-c")
