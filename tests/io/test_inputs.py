"""Inputs and policies: every input form gives the same numbers; ids are exact; the named policies
(missing, empty, duplicates, depth, judged_only, ties) do what they document; exports agree.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
from math import log2

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import rankmeter
from rankmeter import Qrels, Run

# Three queries: graded judgments, unjudged documents, tied scores, a '#' inside a docno, ids that
# differ only by a leading zero, and one judged document per query that is never retrieved.
QRELS_ROWS = [
    ("301", "D#1", 2.0),
    ("301", "D2", 0.0),
    ("301", "D3", 1.0),
    ("301", "D10", 3.0),
    ("301", "D9", 1.0),
    ("301", "never", 2.0),
    ("1", "1", 1.0),
    ("1", "01", 0.0),
    ("1", "x", 3.0),
    ("01", "a", 1.0),
    ("01", "b", -1.0),
]
RUN_ROWS = [
    ("301", "D2", 3.0),
    ("301", "D#1", 2.5),
    ("301", "D10", 2.0),
    ("301", "D9", 2.0),
    ("301", "U1", 2.0),
    ("301", "D3", 1.0),
    ("301", "U2", 0.5),
    ("1", "01", 1.5),
    ("1", "1", 1.5),
    ("1", "x", 0.25),
    ("01", "b", 5.0),
    ("01", "a", 4.0),
    ("01", "c", 4.0),
]
MEASURES = [
    "ndcg",
    "ndcg@[1,3,5]",
    "ndcg(gain=exp)@3",
    "map",
    "map@2",
    "p@[1,2,5]",
    "r@3",
    "rr",
    "rprec",
    "success@1",
    "judged@[2,5]",
    "acg@3",
    "wap",
    "f1@3",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
]


def _qrels_text(sep: str = " ") -> str:
    return "".join(f"{q}{sep}0{sep}{d}{sep}{g:g}\n" for q, d, g in QRELS_ROWS)


def _run_text(sep: str = " ", junk: bool = False) -> str:
    lines = []
    for i, (q, d, s) in enumerate(RUN_ROWS, 1):
        lines.append(f"{q}{sep}Q0{sep}{d}{sep}{i}{sep}{s!r}{sep}tag" + (" extra columns here" if junk else "") + "\n")
    return "".join(lines)


def _frame(lib: str, rows, value: str, rename: dict[str, str] | None = None):
    names = ["query_id", "doc_id", value]
    if rename:
        names = [rename.get(n, n) for n in names]
    cols = {n: [r[i] for r in rows] for i, n in enumerate(names)}
    if lib == "pandas":
        return pd.DataFrame(cols)
    if lib == "polars":
        return pl.DataFrame(cols)
    return pa.table(cols)


def _large_chunked(rows, value: str) -> pa.Table:
    def column(values, type_):
        whole = pa.array(values, type=type_)
        return pa.chunked_array([whole.slice(0, 3), whole.slice(3, 4), whole.slice(7)], type=type_)

    return pa.table(
        {
            "query_id": column([r[0] for r in rows], pa.large_string()),
            "doc_id": column([r[1] for r in rows], pa.large_string()),
            value: column([r[2] for r in rows], pa.float64()),
        }
    )


def _dicts():
    qrels: dict[str, dict[str, float]] = {}
    run: dict[str, dict[str, float]] = {}
    for q, d, g in QRELS_ROWS:
        qrels.setdefault(q, {})[d] = g
    for q, d, s in RUN_ROWS:
        run.setdefault(q, {})[d] = s
    return qrels, run


@pytest.fixture(scope="module")
def reference():
    qrels, run = _dicts()
    return {ties: rankmeter.evaluate(qrels, run, MEASURES, ties=ties) for ties in ("trec", "stable", "expected")}


def _inputs(kind: str, tmp_path):
    if kind == "trec":
        (tmp_path / "q").write_text(_qrels_text())
        (tmp_path / "r").write_text(_run_text())
        return tmp_path / "q", tmp_path / "r", {}
    if kind == "trec-str-path":
        (tmp_path / "q").write_text(_qrels_text())
        (tmp_path / "r").write_text(_run_text())
        return str(tmp_path / "q"), str(tmp_path / "r"), {}
    if kind == "gz":
        (tmp_path / "q.gz").write_bytes(gzip.compress(_qrels_text().encode()))
        (tmp_path / "r.gz").write_bytes(gzip.compress(_run_text().encode()))
        return tmp_path / "q.gz", tmp_path / "r.gz", {}
    if kind == "whitespace":
        # tabs, runs of spaces, leading/trailing blanks, CRLF endings, blank lines
        q = _qrels_text(" \t ").replace("\n", "\r\n")
        r = "\n\n" + "".join("  " + line.replace(" ", "\t  ") + "\n" for line in _run_text().splitlines())
        (tmp_path / "q").write_text(q)
        (tmp_path / "r").write_text(r)
        return tmp_path / "q", tmp_path / "r", {}
    if kind == "comments":
        q = "# judgments\n" + _qrels_text().replace("\n1 0 1 1\n", "\n# a comment line\n1 0 1 1\n")
        r = "#run header\n" + _run_text(junk=True)
        (tmp_path / "q").write_text(q)
        (tmp_path / "r").write_text(r)
        return tmp_path / "q", tmp_path / "r", {}
    if kind == "junk-after-column-6":
        (tmp_path / "q").write_text(_qrels_text())
        (tmp_path / "r").write_text(_run_text(junk=True))
        return tmp_path / "q", tmp_path / "r", {}
    if kind in ("pandas", "polars", "pyarrow"):
        return _frame(kind, QRELS_ROWS, "relevance"), _frame(kind, RUN_ROWS, "score"), {}
    if kind in ("pandas-renamed", "polars-renamed", "pyarrow-renamed"):
        lib = kind.split("-")[0]
        qmap = {"query_id": "topic", "doc_id": "docno", "relevance": "rel"}
        rmap = {"query_id": "qid", "doc_id": "pid", "score": "sim"}
        return (
            _frame(lib, QRELS_ROWS, "relevance", qmap),
            _frame(lib, RUN_ROWS, "score", rmap),
            {"qrels_columns": qmap, "run_columns": rmap},
        )
    if kind == "pyarrow-large-chunked":  # pandas' str dtype arrives as chunked large_string; chunks may be slices
        return _large_chunked(QRELS_ROWS, "relevance"), _large_chunked(RUN_ROWS, "score"), {}
    if kind == "dict":
        q, r = _dicts()
        return q, r, {}
    if kind == "objects":
        q = Qrels(
            np.array([r[0] for r in QRELS_ROWS]),
            np.array([r[1] for r in QRELS_ROWS]),
            np.array([r[2] for r in QRELS_ROWS]),
        )
        r = Run(
            np.array([x[0] for x in RUN_ROWS]), np.array([x[1] for x in RUN_ROWS]), np.array([x[2] for x in RUN_ROWS])
        )
        return q, r, {}
    if kind == "read_qrels/read_run":
        (tmp_path / "q").write_text(_qrels_text())
        (tmp_path / "r").write_text(_run_text())
        return rankmeter.read_qrels(tmp_path / "q"), rankmeter.read_run(tmp_path / "r"), {}
    raise AssertionError(kind)


KINDS = [
    "trec",
    "trec-str-path",
    "gz",
    "whitespace",
    "comments",
    "junk-after-column-6",
    "pandas",
    "polars",
    "pyarrow",
    "pandas-renamed",
    "polars-renamed",
    "pyarrow-renamed",
    "pyarrow-large-chunked",
    "dict",
    "objects",
    "read_qrels/read_run",
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ties", ["trec", "stable", "expected"])
def test_every_input_form_gives_the_same_values(kind, ties, reference, tmp_path) -> None:
    qrels, run, kwargs = _inputs(kind, tmp_path)
    res = rankmeter.evaluate(qrels, run, MEASURES, ties=ties, **kwargs)
    ref = reference[ties]
    assert res.query_ids.tolist() == ref.query_ids.tolist() == ["01", "1", "301"]
    assert res.measure_names == ref.measure_names
    assert np.array_equal(res.values, ref.values)
    assert res.aggregate == ref.aggregate


def test_reference_values_by_hand(reference) -> None:
    res = reference["trec"]
    # query 301, trec order: D2 (3.0) | D#1 (2.5) | tie at 2.0 by docno descending: U1, D9, D10 | D3 | U2
    # grades:                 0      | 2          | -, 1, 3                                       | 1  | -
    ranked = [0, 2, 0, 1, 3, 1, 0]
    ideal = [3, 2, 2, 1, 1, 0]
    dcg = sum(g / log2(i + 2) for i, g in enumerate(ranked))
    idcg = sum(g / log2(i + 2) for i, g in enumerate(ideal))
    assert res.by_query("ndcg")["301"] == pytest.approx(dcg / idcg, abs=1e-12)
    # relevant (grade > 0) at ranks 2, 4, 5, 6 of R = 5 ("never" is relevant and not retrieved)
    assert res.by_query("map")["301"] == pytest.approx((1 / 2 + 2 / 4 + 3 / 5 + 4 / 6) / 5, abs=1e-12)
    assert res.by_query("judged@5")["301"] == pytest.approx(4 / 5)
    # query "1": docs "01" (grade 0) and "1" (grade 1) tie; trec order is docno descending: "1" > "01"
    assert res.by_query("p@1")["1"] == 1.0
    assert reference["stable"].by_query("p@1")["1"] == 0.0  # input order: "01" first
    assert reference["expected"].by_query("p@1")["1"] == 0.5
    # query "01": b (grade -1: judged, not relevant) | tie c (unjudged), a (grade 1): "c" > "a"
    assert res.by_query("rr")["01"] == pytest.approx(1 / 3)
    assert res.by_query("judged@2")["01"] == 0.5
    assert reference["stable"].by_query("rr")["01"] == 0.5
    assert res.aggregate["num_rel"] == 5 + 2 + 1


def test_ids_are_exact_strings() -> None:
    # docnos '1' and '01' are different documents, queries '7' and '07' different queries
    qrels = {"7": {"1": 1, "01": 0}, "07": {"1": 0, "01": 1}}
    run = {"7": {"01": 2.0, "1": 1.0}, "07": {"01": 2.0, "1": 1.0}}
    res = rankmeter.evaluate(qrels, run, ["p@1", "rr"])
    assert res.by_query("p@1") == {"07": 1.0, "7": 0.0}
    assert res.by_query("rr") == {"07": 1.0, "7": 0.5}


def test_integer_ids_in_tables_match_their_string_form() -> None:
    qrels = pd.DataFrame({"query_id": [7, 7], "doc_id": [1, 10], "relevance": [1, 0]})
    run = pl.DataFrame({"query_id": ["7", "7"], "doc_id": ["10", "1"], "score": [2.0, 1.0]})
    res = rankmeter.evaluate(qrels, run, ["p@1", "rr", "num_rel_ret"])
    assert res.query_ids.tolist() == [7]  # the qrels' integer ids come back as integers
    assert res["p@1"] == 0.0 and res["rr"] == 0.5 and res["num_rel_ret"] == 1


def test_trec_ties_by_docno_descending_in_string_order() -> None:
    qrels = {"q": {"d10": 1, "d9": 0, "D9": 0}}
    run = {"q": {"d10": 1.0, "d9": 1.0, "D9": 1.0}}
    # strcmp order: "d9" > "d10" > "D9", so d9 is ranked first
    res = rankmeter.evaluate(qrels, run, ["rr", "p@1"])
    assert res["rr"] == 0.5 and res["p@1"] == 0.0


def test_unicode_ids() -> None:
    qrels = {"q": {"é": 1, "e": 0, "日本": 2}}
    run = {"q": {"e": 1.0, "é": 1.0, "日本": 0.5}}
    res = rankmeter.evaluate(qrels, run, ["p@1", "num_rel_ret"])
    assert res["p@1"] == 1.0  # "é" (U+00E9) > "e" in code-point order
    assert res["num_rel_ret"] == 2


def test_docno_with_non_breaking_space_parses_the_same_on_both_paths(write) -> None:
    text = "301 0 D\u00a01 1\n301 0 D2 0\n"
    plain = rankmeter.read_qrels(write("plain.txt", text))
    commented = rankmeter.read_qrels(write("commented.txt", "# header\n" + text))
    # fields are split on ASCII whitespace only (C isspace, as trec_eval): U+00A0 stays in the docno
    assert plain.doc_ids.tolist() == commented.doc_ids.tolist() == ["D\u00a01", "D2"]


# --- missing / run-only queries --------------------------------------------------------------------------
MISSING_QRELS = {"a": {"d1": 1}, "b": {"d1": 1, "d2": 1}, "c": {"d1": 1}}
MISSING_RUN = {"a": {"d1": 1.0}, "c": {"d2": 1.0, "d1": 0.5}, "z": {"d1": 1.0}}


def test_missing_zero() -> None:
    res = rankmeter.evaluate(MISSING_QRELS, MISSING_RUN, ["map", "p@1", "num_q", "num_ret"])
    assert res.query_ids.tolist() == ["a", "b", "c"]
    assert res.by_query("map") == {"a": 1.0, "b": 0.0, "c": 0.5}
    assert res["map"] == pytest.approx(1.5 / 3)
    assert res["num_q"] == 3 and res["num_ret"] == 3
    meta = res.metadata
    assert meta["missing"] == "zero"
    assert meta["queries_missing"] == 1 and meta["missing_query_ids"] == ["b"]
    assert meta["queries_run_only"] == 1 and meta["run_only_query_ids"] == ["z"]
    assert meta["queries_judged"] == 3 and meta["queries_in_run"] == 3


def test_missing_skip() -> None:
    res = rankmeter.evaluate(MISSING_QRELS, MISSING_RUN, ["map", "num_q"], missing="skip")
    assert res.query_ids.tolist() == ["a", "c"]
    assert res["map"] == pytest.approx(0.75) and res["num_q"] == 2
    assert res.metadata["queries_missing"] == 1 and res.metadata["queries_run_only"] == 1


def test_missing_error() -> None:
    with pytest.raises(rankmeter.PolicyError, match="judged queries have no documents in the run"):
        rankmeter.evaluate(MISSING_QRELS, MISSING_RUN, "map", missing="error")
    # no missing query: no error, run-only queries still only counted
    res = rankmeter.evaluate({"a": {"d1": 1}}, MISSING_RUN, "map", missing="error")
    assert res.metadata["queries_run_only"] == 2 and res["map"] == 1.0


# --- empty queries ----------------------------------------------------------------------------------------
EMPTY_QRELS = {"a": {"d1": 1, "d2": 0}, "e": {"d1": 0, "d2": -1}}
EMPTY_RUN = {"a": {"d2": 2.0, "d1": 1.0}, "e": {"d1": 2.0, "d2": 1.0}}


@pytest.mark.parametrize(
    ("empty", "value", "included", "mean"),
    [
        ("zero", 0.0, True, 0.25),
        ("one", 1.0, True, 0.75),
        ("nan", math.nan, True, 0.5),
        ("skip", math.nan, False, 0.5),
    ],
)
def test_empty_policies(empty, value, included, mean) -> None:
    res = rankmeter.evaluate(EMPTY_QRELS, EMPTY_RUN, ["map", "num_q", "num_ret"], empty=empty)
    mi = res.measure_names.index("map")
    assert res.values[0, mi] == 0.5
    got = res.values[1, mi]
    assert (math.isnan(got) and math.isnan(value)) or got == value
    assert bool(res.included[1, mi]) is included
    assert res["map"] == pytest.approx(mean)
    assert res.metadata["empty"] == empty and res.metadata["queries_empty"] == 1
    rows = [r for r in res.per_query if r["measure"] == "map"]
    assert [r["query_id"] for r in rows] == (["a", "e"] if included else ["a"])
    assert res.by_query("map").keys() == ({"a", "e"} if included else {"a"})
    # counting measures keep their values except under skip
    if empty == "skip":
        assert res["num_q"] == 1 and res["num_ret"] == 2
    else:
        assert res["num_q"] == 2 and res["num_ret"] == 4


def test_empty_error() -> None:
    with pytest.raises(rankmeter.PolicyError, match="for map: e"):
        rankmeter.evaluate(EMPTY_QRELS, EMPTY_RUN, "map", empty="error")


def test_empty_follows_the_measure_threshold() -> None:
    # with min_rel=2 query "a" (grade 1 only) is empty too
    res = rankmeter.evaluate(EMPTY_QRELS, EMPTY_RUN, ["map", "map(min_rel=2)"], empty="skip")
    assert res.by_query("map") == {"a": 0.5}
    assert res.by_query("map(min_rel=2)") == {}
    assert math.isnan(res["map(min_rel=2)"])


def test_judged_at_k_of_a_query_without_relevant_documents() -> None:
    res = rankmeter.evaluate(EMPTY_QRELS, EMPTY_RUN, ["judged@2"])
    assert res.by_query("judged@2") == {"a": 1.0, "e": 1.0}


# --- duplicates -------------------------------------------------------------------------------------------
def test_duplicates_in_tables() -> None:
    qrels = pd.DataFrame({"query_id": ["q", "q", "q"], "doc_id": ["a", "b", "a"], "relevance": [0, 1, 2]})
    run = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["b", "a", "c", "a"], "score": [1.0, 0.5, 0.7, 3.0]})
    with pytest.raises(rankmeter.DuplicateEntryError):
        rankmeter.evaluate(qrels, run, "p@1")
    first = rankmeter.evaluate(qrels, run, ["p@1", "num_rel", "num_ret"], duplicates="first")
    assert first["p@1"] == 1.0 and first["num_rel"] == 1 and first["num_ret"] == 3  # b ranked first
    top = rankmeter.evaluate(qrels, run, ["p@1", "num_rel", "ndcg@1"], duplicates="max")
    assert top["p@1"] == 1.0 and top["num_rel"] == 2 and top["ndcg@1"] == 1.0  # a (grade 2, score 3) first
    assert first.metadata["duplicates_dropped"] == top.metadata["duplicates_dropped"] == 2


# --- depth (trec_eval -M) and judged_only (trec_eval -J) ------------------------------------------------
DEPTH_QRELS = {"q": {"d1": 1, "d2": 0, "d4": 1, "d5": 1}}
DEPTH_RUN = {"q": {"d1": 5.0, "u": 4.0, "d2": 3.0, "d4": 2.0, "d5": 1.0}}


def test_depth_truncates_the_ranking() -> None:
    res = rankmeter.evaluate(DEPTH_QRELS, DEPTH_RUN, ["map", "num_ret", "num_rel_ret", "p@5", "rprec"], depth=3)
    # top 3: d1 (rel), u, d2; R = 3
    assert res["num_ret"] == 3 and res["num_rel_ret"] == 1
    assert res["map"] == pytest.approx(1 / 3)
    assert res["p@5"] == pytest.approx(1 / 5)
    assert res["rprec"] == pytest.approx(1 / 3)
    full = rankmeter.evaluate(DEPTH_QRELS, DEPTH_RUN, ["map"])
    assert full["map"] == pytest.approx((1 + 2 / 4 + 3 / 5) / 3)
    assert rankmeter.evaluate(DEPTH_QRELS, DEPTH_RUN, ["map"], depth=100)["map"] == full["map"]


def test_judged_only_drops_unjudged_before_ranking() -> None:
    res = rankmeter.evaluate(DEPTH_QRELS, DEPTH_RUN, ["map", "num_ret", "judged@4"], judged_only=True)
    # u removed: d1, d2, d4, d5 -> relevant at 1, 3, 4
    assert res["map"] == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    assert res["num_ret"] == 4 and res["judged@4"] == 1.0
    assert res.metadata["unjudged_dropped"] == 1
    both = rankmeter.evaluate(DEPTH_QRELS, DEPTH_RUN, ["map"], judged_only=True, depth=2)
    assert both["map"] == pytest.approx(1 / 3)  # d1, d2


# --- ties -------------------------------------------------------------------------------------------------
TIE_QRELS = {f"q{i}": {f"d{j}": j % 2 for j in range(8)} for i in range(6)}
TIE_RUN = {f"q{i}": {f"d{j}": float(j // 4) for j in range(8)} for i in range(6)}


def test_shuffle_is_reproducible_with_a_seed() -> None:
    measures = ["map", "ndcg@3", "rr", "p@2"]
    a = rankmeter.evaluate(TIE_QRELS, TIE_RUN, measures, ties="shuffle", seed=123)
    b = rankmeter.evaluate(TIE_QRELS, TIE_RUN, measures, ties="shuffle", seed=123)
    assert np.array_equal(a.values, b.values)
    assert a.metadata["seed"] == 123
    seen = {
        tuple(rankmeter.evaluate(TIE_QRELS, TIE_RUN, measures, ties="shuffle", seed=s).values.ravel()) for s in range(8)
    }
    assert len(seen) > 1  # the seed matters
    lo = rankmeter.evaluate(TIE_QRELS, TIE_RUN, measures, ties="pessimistic").values
    hi = rankmeter.evaluate(TIE_QRELS, TIE_RUN, measures, ties="optimistic").values
    for values in seen:
        v = np.array(values).reshape(lo.shape)
        assert np.all(lo <= v + 1e-12) and np.all(v <= hi + 1e-12)


def test_shuffle_does_not_depend_on_how_the_run_is_read(tmp_path) -> None:
    """Keys come from (seed, query id, document id): blocks of a streamed file and row order change nothing."""
    lines = [f"{q} Q0 {d} 0 {score} t" for q, docs in TIE_RUN.items() for d, score in docs.items()]
    path = tmp_path / "tied.run"
    path.write_text("\n".join(lines) + "\n")
    measures = ["map", "ndcg@3", "rr", "p@2"]
    whole = rankmeter.evaluate(TIE_QRELS, TIE_RUN, measures, ties="shuffle", seed=9)
    streamed = rankmeter.evaluate_stream(TIE_QRELS, path, measures, ties="shuffle", seed=9, block_bytes=64)
    reversed_run = {q: dict(reversed(list(docs.items()))) for q, docs in reversed(list(TIE_RUN.items()))}
    backwards = rankmeter.evaluate(TIE_QRELS, reversed_run, measures, ties="shuffle", seed=9)
    assert np.array_equal(whole.values, streamed.values)
    assert np.array_equal(whole.values, backwards.values)


def test_tie_diagnostics() -> None:
    qrels = {"a": {"x": 1}, "b": {"x": 1}, "c": {"x": 1}}
    run = {
        "a": {"x": 3.0, "y": 2.0, "z": 2.0, "w": 1.0},  # tied group at ranks 2-3
        "b": {"x": 3.0, "y": 2.0, "z": 1.0},  # no tie
        "c": {"x": 1.0, "y": 1.0, "z": 1.0},  # tied group at ranks 1-3
    }
    at2 = rankmeter.evaluate(qrels, run, ["p@2"])
    assert at2.metadata["queries_with_ties"] == 2
    assert at2.metadata["queries_with_ties_at_cutoff"] == 2  # a (2|3) and c (1..3) straddle k = 2
    at3 = rankmeter.evaluate(qrels, run, ["p@3"])
    assert at3.metadata["queries_with_ties_at_cutoff"] == 0  # both groups end at rank 3
    at1 = rankmeter.evaluate(qrels, run, ["p@1", "map"])
    assert at1.metadata["queries_with_ties_at_cutoff"] == 1  # only c
    rprec = rankmeter.evaluate({"a": {"x": 1, "y": 1}, "b": {"x": 1}}, run, ["rprec"])  # R = 2 for a
    assert rprec.metadata["queries_with_ties_at_cutoff"] == 1


# --- results and exports ----------------------------------------------------------------------------------
def test_exports_carry_the_same_numbers(reference, tmp_path) -> None:
    res = reference["trec"]
    rows = res.per_query
    assert len(rows) == res.included.sum()
    expected = {(r["query_id"], r["measure"]): r["value"] for r in rows}

    df = res.to_pandas()
    assert list(df.columns) == ["query_id", "measure", "value"]
    assert {(q, m): v for q, m, v in df.itertuples(index=False)} == expected

    pdf = res.to_polars()
    assert pdf.columns == ["query_id", "measure", "value"]
    assert {(q, m): v for q, m, v in pdf.iter_rows()} == expected

    tbl = res.to_arrow()
    assert tbl.column_names == ["query_id", "measure", "value"]
    assert {
        (q, m): v for q, m, v in zip(*(tbl.column(c).to_pylist() for c in tbl.column_names), strict=True)
    } == expected

    d = res.to_dict()
    assert set(d) == {"aggregate", "per_query", "metadata"}
    assert d["aggregate"] == res.aggregate and d["per_query"] == rows

    js = json.loads(res.to_json(tmp_path / "out.json"))
    assert js["aggregate"] == res.aggregate
    assert {(r["query_id"], r["measure"]): r["value"] for r in js["per_query"]} == expected
    assert json.loads((tmp_path / "out.json").read_text()) == js

    text = res.to_csv(tmp_path / "out.csv")
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert {(r["query_id"], r["measure"]): float(r["value"]) for r in parsed if r["query_id"] != "all"} == expected
    assert {r["measure"]: float(r["value"]) for r in parsed if r["query_id"] == "all"} == res.aggregate
    assert (tmp_path / "out.csv").read_text() == text

    trec = res.to_trec_eval(per_query=True)
    for line in trec.splitlines():
        name, qid, value = line.split("\t")
        want = res.aggregate[name.strip()] if qid == "all" else expected[(qid, name.strip())]
        if name.startswith("num_"):
            assert int(value) == round(want)
        else:
            assert value == f"{want:.4f}"


def test_json_writes_nan_as_null() -> None:
    res = rankmeter.evaluate(EMPTY_QRELS, EMPTY_RUN, ["map"], empty="nan")
    data = json.loads(res.to_json())
    assert [r["value"] for r in data["per_query"]] == [0.5, None]


def test_result_lookup_by_alias() -> None:
    res = rankmeter.evaluate({"q": {"a": 1}}, {"q": {"b": 2.0, "a": 1.0}}, ["recip_rank", "P@2", "nDCG@2"])
    assert res.measure_names == ["rr", "p@2", "ndcg@2"]
    assert res["MRR"] == res["rr"] == 0.5
    assert res["P@2"] == 0.5
    assert res.by_query("nDCG@2") == {"q": pytest.approx(1 / log2(3))}


# --- dense input --------------------------------------------------------------------------------------------
def test_dense_mask_removes_items() -> None:
    y_true = [[3, 0, 2, 1], [0, 1, 1, 0]]
    y_score = [[0.1, 0.9, 0.5, 0.2], [0.4, 0.3, 0.2, 0.1]]
    mask = [[True, False, True, True], [False, True, True, True]]
    measures = ["ndcg", "ndcg@2", "map", "p@2", "rr", "num_ret", "num_rel"]
    masked = rankmeter.evaluate_arrays(y_true, y_score, measures, mask=mask)
    kept = rankmeter.evaluate_lists([[3, 2, 1], [1, 1, 0]], [[0.1, 0.5, 0.2], [0.3, 0.2, 0.1]], measures)
    assert np.array_equal(masked.values, kept.values)
    assert masked["num_ret"] == 6
    # the masked grade-3 item is not ranked, and not in the ideal either: list 0 is ideal-less than 1
    assert masked.by_query("ndcg")["0"] == pytest.approx(
        (2 / log2(2) + 1 / log2(3) + 3 / log2(4)) / (3 / log2(2) + 2 / log2(3) + 1 / log2(4))
    )


def test_sample_weight_per_list_gives_a_weighted_mean() -> None:
    y_true = [[1, 0, 2], [0, 1, 0], [1, 1, 0]]
    y_score = [[0.2, 0.9, 0.1], [0.5, 0.4, 0.3], [0.9, 0.1, 0.5]]
    w = [1.0, 3.0, 0.5]
    measures = ["ndcg", "map", "p@1", "rr"]
    plain = rankmeter.evaluate_arrays(y_true, y_score, measures)
    weighted = rankmeter.evaluate_arrays(y_true, y_score, measures, sample_weight=w)
    # per-list weights leave every per-list value as it is (ndcg is scale-free) and weight the mean
    assert np.allclose(weighted.values, plain.values, rtol=0, atol=1e-12)
    for name in measures:
        v = plain.values[:, plain.measure_names.index(name)]
        assert weighted[name] == pytest.approx(float(np.dot(w, v) / sum(w)), abs=1e-12), name
    assert weighted.metadata["weighted"] is True and plain.metadata["weighted"] is False
    scalar = rankmeter.evaluate_arrays(y_true, y_score, measures, sample_weight=2.0)
    assert scalar.aggregate == pytest.approx(plain.aggregate, abs=1e-12)


def test_dense_query_ids_are_row_indices() -> None:
    res = rankmeter.evaluate_arrays([[1, 0]] * 12, [[0.5, 0.1]] * 12, "p@1")
    assert res.query_ids.tolist() == [str(i) for i in range(12)]
    assert res.metadata["input"] == "dense"
    assert rankmeter.evaluate_lists([[1]], [[0.3]], "p@1").metadata["input"] == "ragged"


def test_dense_one_dimensional_input_is_one_list() -> None:
    one = rankmeter.evaluate_arrays([3, 2, 3, 0, 1, 2], [6, 5, 4, 3, 2, 1], "ndcg@6")
    two = rankmeter.evaluate_arrays([[3, 2, 3, 0, 1, 2]], [[6, 5, 4, 3, 2, 1]], "ndcg@6")
    assert one.aggregate == two.aggregate
