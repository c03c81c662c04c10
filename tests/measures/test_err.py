"""ERR and nERR: the worked example of docs/measures.md, a direct transcription of the formula on random
inputs, gdeval (the TREC Web track's script, run by ir_measures) as oracle, exact expectations over
large tied groups in rational arithmetic, and the error messages.

Exact expectations over every ordering of small tied groups are in test_ties_bruteforce.py.
"""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter import InputFormatError, MeasureSyntaxError, parse

DOCS = Path(__file__).resolve().parents[2] / "docs" / "measures.md"


def py_err(stops: list[float], k: int | None) -> float:
    """ERR@k transcribed from Chapelle et al. (2009), algorithm 2."""
    total, reach = 0.0, 1.0
    for i, r in enumerate(stops[:k] if k else stops, start=1):
        total += reach * r / i
        reach *= 1.0 - r
    return total


def gdeval_stop(grade: float, gmax: float = 4.0) -> float:
    return (2.0**grade - 1.0) / 2.0**gmax if grade > 0 else 0.0


# ---------------------------------------------------------------------------------------------
def _doc_rows() -> dict[str, float]:
    section = DOCS.read_text().split("### ERR and nERR", 1)[1]
    rows = re.findall(r"^\| `([^`]+)`([^|]*)\| [^|]+ \| ([0-9.]+) \|$", section, flags=re.M)
    return {name + (" " + extra.strip() if extra.strip() else ""): float(value) for name, extra, value in rows}


def test_docs_worked_example() -> None:
    rows = _doc_rows()
    assert len(rows) == 5
    qrels = {"q": {"a": 2, "b": 0, "c": 3, "d": 1, "e": 4}}
    res = rankmeter.evaluate(qrels, {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}, ["err", "err@2", "nerr", "nerr@2"])
    stops, ideal = [3 / 16, 0, 7 / 16, 1 / 16], [15 / 16, 7 / 16, 3 / 16, 1 / 16, 0]
    formula = {
        "err": 3 / 16 + 13 / 16 * 7 / 16 / 3 + 13 / 16 * 9 / 16 * (1 / 16) / 4,
        "err@2": 3 / 16,
        "nerr": py_err(stops, None) / py_err(ideal, None),
        "nerr@2": (3 / 16) / (15 / 16 + 1 / 16 * 7 / 16 / 2),
    }
    for name, value in formula.items():
        assert res[name] == pytest.approx(value, abs=1e-15)
        assert rows[name] == pytest.approx(value, abs=5e-7), name
    tied = rankmeter.evaluate(qrels, {"q": {"a": 4.0, "b": 3.0, "c": 3.0, "d": 1.0}}, "err@2", ties="expected")
    assert tied["err@2"] == pytest.approx(3 / 16 + 13 / 16 * (7 / 16) / 2 / 2, abs=1e-15)
    assert rows['err@2 with b and c tied, `ties="expected"`'] == pytest.approx(tied["err@2"], abs=5e-7)


# ---------------------------------------------------------------------------------------------
STOPS = {
    "": lambda g: gdeval_stop(g),
    "(gain=linear,gmax=5)": lambda g: max(g, 0) / 5,
    "(gmax=6)": lambda g: gdeval_stop(g, 6.0),
    "(gain={0:0.05,1:0.25,2:0.5,3:1,4:0.75})": lambda g: {0: 0.05, 1: 0.25, 2: 0.5, 3: 1.0, 4: 0.75}.get(g, 0.0),
}


def _random_collection(rng: random.Random, n_queries: int) -> tuple[dict, dict]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        n = rng.randint(0, 30)
        docs = [f"d{i}" for i in range(n)]
        judged = {d: rng.choice([-1, 0, 0, 1, 2, 3, 4]) for d in docs if rng.random() < 0.6}
        judged.update({f"x{i}": rng.randint(0, 4) for i in range(rng.randint(0, 3))})
        qrels[f"q{q}"] = judged or {"x": 1}
        if n:
            run[f"q{q}"] = {d: rng.random() for d in docs}  # distinct scores: one order
    return qrels, run


@pytest.mark.parametrize("seed", range(3))
def test_formula_on_random_collections(seed: int) -> None:
    rng = random.Random(seed)
    qrels, run = _random_collection(rng, 40)
    names = [f"{fam}{p}@[1,3,10]" for fam in ("err", "nerr") for p in STOPS] + ["err", "nerr"]
    res = rankmeter.evaluate(qrels, run, names, ties="stable", missing="skip", empty="nan")
    for qid in res.query_ids.tolist():
        order = sorted(run[qid], key=lambda d: -run[qid][d])
        for p, fn in STOPS.items():
            # unjudged documents stop nobody; a table gives judged grade 0 its own R
            got = [fn(qrels[qid][d]) if d in qrels[qid] else 0.0 for d in order]
            ideal = sorted((fn(g) if g >= 0 else 0.0 for g in qrels[qid].values()), reverse=True)
            if not any(g > 0 for g in qrels[qid].values()):  # empty="nan": no relevant document
                assert all(math.isnan(res.by_query(f"{f}{p}@{k}")[qid]) for f in ("err", "nerr") for k in (1, 3, 10))
                continue
            for k in (1, 3, 10):
                want = py_err(got, k)
                assert res.by_query(f"err{p}@{k}")[qid] == pytest.approx(want, abs=1e-14)
                den = py_err(ideal, k)
                nerr = res.by_query(f"nerr{p}@{k}")[qid]
                assert (math.isnan(nerr) and den == 0) or nerr == pytest.approx(want / den, abs=1e-14)
        assert math.isnan(res.by_query("err")[qid]) or res.by_query("err")[qid] == pytest.approx(
            py_err([gdeval_stop(qrels[qid].get(d, 0)) for d in order], None)
        )


# ---------------------------------------------------------------------------------------------
def test_gdeval_through_ir_measures(tmp_path: Path) -> None:
    # gdeval.pl (bundled with ir_measures, run with perl) prints 5 decimals; it skips queries without a
    # relevant document and orders ties by document id descending, like ties="trec"
    import ir_measures

    rng = random.Random(7)
    qrels_rows, run_rows = [], []
    for q in range(101, 161):
        docs = [f"D{rng.randint(0, 400)}" for _ in range(rng.randint(1, 40))]
        for d in dict.fromkeys(docs):
            if rng.random() < 0.7:
                qrels_rows.append(ir_measures.Qrel(str(q), d, rng.choice([-2, 0, 0, 1, 2, 3, 4])))
            run_rows.append(ir_measures.ScoredDoc(str(q), d, float(rng.randint(0, 8))))  # many ties
    measures = [ir_measures.ERR @ 5, ir_measures.ERR @ 20]
    theirs: dict[tuple[str, str], float] = {}
    for m in ir_measures.gdeval.iter_calc(measures, qrels_rows, run_rows):
        theirs[(str(m.measure), m.query_id)] = m.value
    qrels = {}
    for r in qrels_rows:
        qrels.setdefault(r.query_id, {})[r.doc_id] = r.relevance
    run = {}
    for r in run_rows:
        run.setdefault(r.query_id, {})[r.doc_id] = r.score
    ours = rankmeter.evaluate(qrels, run, ["ERR@[5,20]"], ties="trec", empty="skip")
    compared = 0
    for cutoff in (5, 20):
        per_query = ours.by_query(f"err@{cutoff}")
        gd = {q: v for (name, q), v in theirs.items() if name == f"ERR@{cutoff}"}
        assert set(gd) >= {q for q, v in per_query.items() if not math.isnan(v)}
        for q, v in gd.items():
            if q not in per_query:  # no relevant document: gdeval prints nothing and ir_measures fills in 0
                assert v == 0 and not any(r.relevance > 0 for r in qrels_rows if r.query_id == q)
                continue
            assert per_query[q] == pytest.approx(v, abs=5.01e-6), (cutoff, q)
            compared += 1
    assert compared > 80


# ---------------------------------------------------------------------------------------------
def _exact_expected_err(before: list[Fraction], group: list[Fraction], after: list[Fraction], k: int) -> Fraction:
    """E[ERR@k] for one tied group between fixed items, by elementary symmetric polynomials in exact arithmetic."""
    reach = Fraction(1)
    total = Fraction(0)
    rank = 0
    for r in before:
        rank += 1
        if rank <= k:
            total += reach * r / rank
        reach *= 1 - r
    n = len(group)
    poly = [Fraction(1)]  # coefficients of prod (1 + q z)
    for r in group:
        q = 1 - r
        poly = [a + q * b for a, b in zip([*poly, Fraction(0)], [Fraction(0), *poly], strict=True)]
    mean = [poly[t] / math.comb(n, t) for t in range(n + 1)]
    for t in range(n):
        if rank + t + 1 <= k:
            total += reach * (mean[t] - mean[t + 1]) / (rank + t + 1)
    reach *= mean[n]
    rank += n
    for r in after:
        rank += 1
        if rank <= k:
            total += reach * r / rank
        reach *= 1 - r
    return total


@pytest.mark.parametrize(("n", "k"), [(40, 10), (40, 100), (25, 3), (60, 61)])
def test_expected_over_a_large_tied_group_is_exact(n: int, k: int) -> None:
    rng = random.Random(n * 1000 + k)
    grades = [rng.choice([0, 0, 0, 1, 2, 3, 4]) for _ in range(n)]
    before, after = [3, 0, 1], [2, 4]
    y = [[*before, *grades, *after]]
    scores = [[10.0, 9.0, 8.0, *([5.0] * n), 2.0, 1.0]]
    res = rankmeter.evaluate_lists(y, scores, f"err@{k}", ties="expected")

    def frac(g: int) -> Fraction:
        return Fraction(2**g - 1, 16)

    want = _exact_expected_err([frac(g) for g in before], [frac(g) for g in grades], [frac(g) for g in after], k)
    assert res[f"err@{k}"] == pytest.approx(float(want), abs=1e-13)


def test_expected_lies_between_the_bounds_and_equals_stable_without_ties() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 5, size=(50, 30)).astype(float)
    s = rng.integers(0, 4, size=(50, 30)).astype(float)
    names = ["err@[1,5,10]", "nerr@[5,20]", "err"]
    lo = rankmeter.evaluate_arrays(y, s, names, ties="pessimistic").values
    mid = rankmeter.evaluate_arrays(y, s, names, ties="expected").values
    hi = rankmeter.evaluate_arrays(y, s, names, ties="optimistic").values
    assert np.all(lo <= mid + 1e-12) and np.all(mid <= hi + 1e-12) and np.any(lo < hi)
    distinct = rng.permutation(1500).reshape(50, 30).astype(float)
    a = rankmeter.evaluate_arrays(y, distinct, names, ties="expected").values
    b = rankmeter.evaluate_arrays(y, distinct, names, ties="stable").values
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-15)


# ---------------------------------------------------------------------------------------------
def test_grade_above_gmax_is_an_error() -> None:
    with pytest.raises(InputFormatError, match=r"'err@5': query 'q2': ranked document's grade 5 gives .* raise gmax"):
        rankmeter.evaluate({"q1": {"a": 1}, "q2": {"b": 5}}, {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, "err@5")
    assert rankmeter.evaluate({"q": {"b": 5}}, {"q": {"b": 1.0}}, "err(gmax=5)@5")["err(gmax=5)@5"] == 31 / 32


def test_judged_grade_above_gmax_in_the_ideal_is_an_error() -> None:
    with pytest.raises(InputFormatError, match=r"'nerr': query 'q': judged document's grade 6 gives stopping"):
        rankmeter.evaluate({"q": {"a": 1, "z": 6}}, {"q": {"a": 1.0}}, "nerr")


def test_table_outside_unit_interval_is_an_error() -> None:
    with pytest.raises(InputFormatError, match=r"grade 2 gives stopping probability 1.5, outside \[0, 1\]$"):
        rankmeter.evaluate({"q": {"a": 2}}, {"q": {"a": 1.0}}, "err(gain={1:0.5,2:1.5})")


@pytest.mark.parametrize("text", ["err(gmax=0)", "err(gmax=-1)@3", "nerr(gmax=1e400)", "err(gmax=nan)"])
def test_gmax_must_be_positive_and_finite(text: str) -> None:
    with pytest.raises(MeasureSyntaxError, match=r"gmax must be a finite number > 0, got"):
        parse(text)


def test_a_gmax_past_1023_works_without_overflow() -> None:
    """R = 2^(g - gmax) - 2^-gmax: grade 1024 under gmax 1024 stops with 1 - 2^-1024 = 1.0, grade 1023 with 0.5."""
    got = rankmeter.evaluate({"q": {"a": 1024, "b": 1023}}, {"q": {"a": 2.0, "b": 1.0}}, "err(gmax=1024)")
    assert got.aggregate["err(gmax=1024)"] == 1.0
    got = rankmeter.evaluate({"q": {"a": 1024, "b": 1023}}, {"q": {"a": 1.0, "b": 2.0}}, "err(gmax=1024)")
    assert got.aggregate["err(gmax=1024)"] == 0.5 + 0.5 * 1.0 / 2


def test_canonical_names() -> None:
    assert str(parse("ERR@20")) == "err@20"
    assert str(parse("err(gmax=4,gain=exp)@[10,20]")) == "err@[10,20]"
    assert str(parse("nERR(gain=linear, gmax=3)")) == "nerr(gain=linear,gmax=3)"
