"""Results per segment (``group_by=``) and query ids that keep their type.

Every per-segment value is checked against pandas' groupby of the result's own
tidy per-query frame, computed independently (the mean, sum and geometric mean
written out), and against the overall value of an evaluation of the segment's
queries alone.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import GroupBy
from rankmeter.errors import InputFormatError, PolicyError

MEASURES = ["ndcg(gain=exp)@10", "r@20", "success@10", "rr@10", "p@10"]


def _split(seed: int = 0, users: int = 60, items: int = 40) -> tuple[pd.DataFrame, pd.DataFrame, dict[int, str]]:
    """A recommender split: test interactions (user_id, item_id, rating), top-20 recommendations, segments."""
    rng = np.random.default_rng(seed)
    test = []
    recs = []
    for u in range(users):
        for i in rng.choice(items, size=int(rng.integers(0, 6)), replace=False):
            test.append((u, int(i), int(rng.integers(1, 4))))
        for rank, i in enumerate(rng.choice(items, size=20, replace=False)):
            recs.append((u, int(i), float(20 - rank)))
    segments = {u: ("cold" if u % 3 == 0 else "warm" if u % 3 == 1 else "hot") for u in range(users)}
    return (
        pd.DataFrame(test, columns=["user_id", "item_id", "rating"]),
        pd.DataFrame(recs, columns=["user_id", "item_id", "score"]),
        segments,
    )


def _groupby(frame: pd.DataFrame, how: str) -> dict[tuple[str, str], float]:
    """pandas' groupby of the tidy per-query frame, aggregated as written out here."""
    funcs = {
        "mean": lambda v: v.mean(),
        "sum": lambda v: v.sum(),
        "gmean": lambda v: math.exp(np.log(np.maximum(v.to_numpy(), 1e-5)).mean()),
    }
    return frame.groupby(["segment", "measure"])["value"].agg(funcs[how]).to_dict()


def test_the_interface_as_written_dict_and_frame_segments() -> None:
    test, recs, segments = _split()
    res = rankmeter.evaluate(test, recs, MEASURES, group_by=segments)
    plain = rankmeter.evaluate(test, recs, MEASURES)
    assert res.aggregate == plain.aggregate
    frame = pd.DataFrame({"user_id": list(segments), "segment": list(segments.values())})
    by_frame = rankmeter.evaluate(test, recs, MEASURES, group_by=frame)
    assert by_frame.by_group("r@20") == res.by_group("r@20")
    evaluated = set(res.query_ids.tolist())
    for segment in ("cold", "hot", "warm"):
        users = [u for u, s in segments.items() if s == segment and u in evaluated]
        expected = np.mean([plain.by_query("r@20")[u] for u in users])
        assert res.by_group("r@20")[segment] == expected
        alone = rankmeter.evaluate(test[test.user_id.isin(users)], recs[recs.user_id.isin(users)], "r@20")
        assert res.by_group("r@20")[segment] == pytest.approx(alone["r@20"], abs=1e-15)


@pytest.mark.parametrize("empty", ["zero", "skip", "nan"])
def test_every_aggregation_kind_equals_pandas_groupby(empty: str) -> None:
    test, recs, segments = _split(seed=1)
    measures = ["ndcg@10", "rr", "num_q", "num_rel_ret", "num_rel", "gm_map", "map"]
    res = rankmeter.evaluate(test, recs, measures, group_by=segments, empty=empty)
    frame = res.to_pandas()
    kinds = {"num_q": "sum", "num_rel_ret": "sum", "num_rel": "sum", "gm_map": "gmean"}
    expected: dict[tuple[str, str], float] = {}
    for how in ("mean", "sum", "gmean"):
        names = [m for m in measures if kinds.get(m, "mean") == how]
        expected |= {k: v for k, v in _groupby(frame[frame.measure.isin(names)].dropna(), how).items()}
    table = res.to_pandas(kind="groups")
    got = {(r.segment, r.measure): r.value for r in table.itertuples()}
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert got[key] == value, key  # exactly: the same values summed in the same order
    counts = frame.dropna().groupby(["segment", "measure"]).size().to_dict()
    assert {(r.segment, r.measure): r.n_queries for r in table.itertuples()} == counts
    per_segment = res.metadata["groups"]["queries_per_segment"]
    assert per_segment == {s: sum(1 for u in res.query_ids.tolist() if segments[u] == s) for s in per_segment}


def test_a_segment_without_queries_is_nan_with_count_zero() -> None:
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    run = {"u1": {"a": 1.0}, "u2": {"x": 2.0, "b": 1.0}}
    res = rankmeter.evaluate(qrels, run, ["rr", "num_q"], group_by={"u1": "a", "u2": "a", "u9": "z"})
    assert res.by_group("rr") == {"a": 0.75, "z": pytest.approx(float("nan"), nan_ok=True)}
    assert math.isnan(res.by_group("num_q")["z"])
    rows = {(r["segment"], r["measure"]): r["n_queries"] for r in res.group_rows()}
    assert rows == {("a", "rr"): 2, ("a", "num_q"): 2, ("z", "rr"): 0, ("z", "num_q"): 0}
    assert res.metadata["groups"]["segments_without_queries"] == ["z"]


def test_queries_without_a_segment_follow_the_named_policy() -> None:
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"c": 1}}
    run = {"u1": {"a": 1.0}, "u2": {"x": 2.0, "b": 1.0}, "u3": {"y": 3.0, "z": 2.0, "c": 1.0}}
    with pytest.raises(InputFormatError, match=re.escape("group_by: 2 evaluated queries have no segment ('u2', 'u3')")):
        rankmeter.evaluate(qrels, run, "rr", group_by={"u1": "x"})
    skip = rankmeter.evaluate(qrels, run, "rr", group_by=GroupBy({"u1": "x"}, missing="skip"))
    assert skip.by_group("rr") == {"x": 1.0}
    assert skip.aggregate["rr"] == (1 + 1 / 2 + 1 / 3) / 3
    assert skip.metadata["groups"]["queries_without_segment"] == 2
    none = rankmeter.evaluate(qrels, run, "rr", group_by=GroupBy({"u1": "x"}, missing="none"))
    assert none.by_group("rr") == {"x": 1.0, None: (1 / 2 + 1 / 3) / 2}
    assert none.metadata["groups"]["missing"] == "none"
    assert "all,(none),rr," in none.to_csv()
    with pytest.raises(PolicyError, match=re.escape("group_by: unknown missing='drop'")):
        GroupBy({}, missing="drop")


def test_a_column_of_the_truth_or_run_table() -> None:
    test, recs, segments = _split(seed=2)
    test = test.assign(cohort=test.user_id.map(segments))
    res = rankmeter.evaluate(test, recs, "r@20", group_by="cohort")
    users_with_rows = set(test.user_id)
    assert res.by_group("r@20") == rankmeter.evaluate(
        test, recs, "r@20", group_by={u: s for u, s in segments.items() if u in users_with_rows}
    ).by_group("r@20")
    assert res.metadata["groups"]["source"] == "column 'cohort'"
    recs = recs.assign(cohort=recs.user_id.map(segments))
    assert rankmeter.evaluate(test.drop(columns="cohort"), recs, "r@20", group_by="cohort").by_group("r@20") == (
        res.by_group("r@20")
    )


def test_two_segments_for_one_user_is_a_located_error() -> None:
    test = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [5, 6, 5], "rating": [1, 1, 1], "cohort": ["a", "b", "a"]})
    recs = pd.DataFrame({"user_id": [1, 2], "item_id": [5, 5], "score": [1.0, 1.0]})
    with pytest.raises(
        InputFormatError,
        match=re.escape(
            "group_by: column 'cohort' of the qrels table: query '1' has two segments: 'a' (row 0) and 'b' (row 1)"
        ),
    ):
        rankmeter.evaluate(test, recs, "rr", group_by="cohort")
    with pytest.raises(InputFormatError, match=re.escape("group_by: mapping: query '1' has two segments: 'a' (row 0)")):
        rankmeter.evaluate(test, recs, "rr", group_by={1: "a", "1": "b"})


def test_tables_with_other_column_names() -> None:
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    run = {"u1": {"a": 1.0}, "u2": {"x": 2.0, "b": 1.0}}
    table = pl.DataFrame({"uid": ["u1", "u2"], "cohort": ["new", "old"]})
    with pytest.raises(InputFormatError, match=re.escape("group_by: the table has no column for the query id")):
        rankmeter.evaluate(qrels, run, "rr", group_by=table)
    res = rankmeter.evaluate(qrels, run, "rr", group_by=GroupBy(table, key="uid", segment="cohort"))
    assert res.by_group("rr") == {"new": 1.0, "old": 0.5}
    arrow = pa.table({"query_id": ["u1", "u2"], "group": [2, 1]})
    assert rankmeter.evaluate(qrels, run, "rr", group_by=arrow).by_group("rr") == {1: 0.5, 2: 1.0}
    series = pd.Series({"u1": "s", "u2": "t"})
    assert rankmeter.evaluate(qrels, run, "rr", group_by=series).by_group("rr") == {"s": 1.0, "t": 0.5}
    with pytest.raises(InputFormatError, match=re.escape("group_by 'nope': no column of that name")):
        rankmeter.evaluate(qrels, run, "rr", group_by="nope")
    with pytest.raises(InputFormatError, match=re.escape("group_by: a sequence gives one segment per row")):
        rankmeter.evaluate(qrels, run, "rr", group_by=["a", "b"])


def test_a_segments_file(tmp_path) -> None:
    path = tmp_path / "segments.csv"
    path.write_text("user_id,segment\n007,a\n7,b\n")
    qrels = {"007": {"d": 1}, "7": {"d": 1}}
    run = {"007": {"d": 1.0}, "7": {"x": 1.0, "d": 0.5}}
    assert rankmeter.evaluate(qrels, run, "rr", group_by=str(path)).by_group("rr") == {"a": 1.0, "b": 0.5}
    text = tmp_path / "segments.txt"
    text.write_text("007 a\n")
    with pytest.raises(
        InputFormatError, match=re.escape("segments.txt': a segments file is read as a table by its suffix")
    ):
        rankmeter.evaluate(qrels, run, "rr", group_by=str(text))


def test_dense_ragged_and_vectors_take_one_segment_per_row() -> None:
    y_true = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]])
    y_score = np.array([[3.0, 2, 1], [3.0, 2, 1], [3.0, 2, 1], [1.0, 2, 3]])
    res = rankmeter.evaluate_arrays(y_true, y_score, ["rr", "p@1"], group_by=["a", "b", "a", "b"])
    assert res.by_group("rr") == {"a": (1 + 1 / 3) / 2, "b": (1 / 2 + 1 / 2) / 2}
    assert res.by_group("p@1") == {"a": 0.5, "b": 0.0}
    assert rankmeter.evaluate_arrays(y_true, y_score, "rr", group_by={0: "a", 1: "b", 2: "a", 3: "b"}).by_group(
        "rr"
    ) == res.by_group("rr")
    lists = rankmeter.evaluate_lists(
        [[1, 0], [0, 1, 0]], [[0.2, 0.1], [0.3, 0.2, 0.1]], "rr", group_by=np.array([5, 6])
    )
    assert lists.by_group("rr") == {5: 1.0, 6: 0.5}
    assert all(type(segment) is int for segment in lists.by_group("rr"))  # NumPy's int64 labels as Python ints
    with pytest.raises(InputFormatError, match=re.escape("group_by: a sequence of 3 segments for 4 rows")):
        rankmeter.evaluate_arrays(y_true, y_score, "rr", group_by=["a", "b", "a"])
    with pytest.raises(PolicyError, match=re.escape("group_by: per-segment values of weighted input")):
        rankmeter.evaluate_arrays(y_true, y_score, "rr", sample_weight=[1, 2, 1, 1], group_by=["a"] * 4)
    q = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    vec = rankmeter.evaluate_vectors(
        q, q, "p@1", query_labels=[0, 1, 0], database_labels=[0, 1, 0], metric="cosine", group_by=["x", "y", "x"]
    )
    assert vec.by_group("p@1") == {"x": 1.0, "y": 1.0}
    assert vec.metadata["groups"]["queries_per_segment"] == {"x": 2, "y": 1}


def test_many_runs_each_get_their_segments() -> None:
    test, recs, segments = _split(seed=3)
    other = recs.assign(score=-recs.score)
    many = rankmeter.evaluate(test, {"model": recs, "reversed": other}, ["r@10", "ndcg@10"], group_by=segments)
    for name, run in (("model", recs), ("reversed", other)):
        alone = rankmeter.evaluate(test, run, ["r@10", "ndcg@10"], group_by=segments)
        assert many.by_group("ndcg@10")[name] == alone.by_group("ndcg@10")
        assert many[name].query_ids.tolist() == alone.query_ids.tolist()
    rows = many.to_pandas(kind="groups")
    assert list(rows.columns) == ["system", "segment", "measure", "value", "n_queries"]
    assert len(rows) == 2 * 3 * 2
    assert list(many.to_pandas().columns) == ["system", "query_id", "segment", "measure", "value"]
    by_column = rankmeter.evaluate(
        test, {"model": recs.assign(cohort=recs.user_id.map(segments)), "reversed": other}, "r@10", group_by="cohort"
    )
    assert by_column.by_group("r@10") == many.by_group("r@10")
    lines = many.to_csv().splitlines()
    assert lines[0] == "system,query_id,segment,measure,value"
    value = many.by_group("r@10")["reversed"]["hot"]
    assert f"reversed,all,hot,r@10,{value!r}" in lines
    assert many.to_csv(kind="groups").splitlines()[0] == "system,segment,measure,value,n_queries"


def test_every_export_carries_the_segments() -> None:
    qrels = {2: {"a": 1}, 10: {"b": 1}, 1: {"c": 1}}
    run = {2: {"a": 1.0}, 10: {"x": 2.0, "b": 1.0}, 1: {"x": 1.0}}
    res = rankmeter.evaluate(qrels, run, "rr", group_by={1: "s", 2: "s", 10: "t"})
    assert res.to_dict()["groups"] == [
        {"segment": "s", "measure": "rr", "value": 0.5, "n_queries": 2},
        {"segment": "t", "measure": "rr", "value": 0.5, "n_queries": 1},
    ]
    assert json.loads(res.to_json())["groups"] == res.to_dict()["groups"]
    assert res.to_csv().splitlines() == [
        "query_id,segment,measure,value",
        "1,s,rr,0.0",
        "2,s,rr,1.0",
        "10,t,rr,0.5",
        "all,,rr,0.5",
        "all,s,rr,0.5",
        "all,t,rr,0.5",
    ]
    assert res.to_csv(kind="groups").splitlines() == ["segment,measure,value,n_queries", "s,rr,0.5,2", "t,rr,0.5,1"]
    polars = res.to_polars()
    assert polars.schema["query_id"] == pl.Int64 and polars["segment"].to_list() == ["s", "s", "t"]
    assert res.to_arrow(kind="groups").column("n_queries").to_pylist() == [2, 1]
    with pytest.raises(PolicyError, match=re.escape("kind='groups': this result has no segments")):
        rankmeter.evaluate(qrels, run, "rr").to_pandas(kind="groups")
    with pytest.raises(PolicyError, match=re.escape("by_group: this result has no segments")):
        rankmeter.evaluate(qrels, run, "rr").by_group("rr")


def test_integer_query_ids_stay_integers_in_numeric_order() -> None:
    qrels = {0: {"a": 1}, 1: {"b": 1}, 10: {"c": 1}, 2: {"d": 1}}
    run = {0: {"a": 1.0}, 1: {"x": 1.0, "b": 0.5}, 10: {"c": 1.0}, 2: {"d": 1.0}, 99: {"z": 1.0}}
    res = rankmeter.evaluate(qrels, run, "rr")
    assert list(res.by_query("rr").items()) == [(0, 1.0), (1, 0.5), (2, 1.0), (10, 1.0)]
    assert [row["query_id"] for row in res.per_query] == [0, 1, 2, 10]
    assert res.to_pandas()["query_id"].tolist() == [0, 1, 2, 10]
    assert res.to_pandas()["query_id"].dtype == np.int64
    assert res.metadata["run_only_query_ids"] == [99]
    assert rankmeter.evaluate({str(k): v for k, v in qrels.items()}, run, "rr").query_ids.tolist() == [
        "0", "1", "10", "2",
    ]  # fmt: skip
    test, recs, _ = _split(seed=4, users=12)
    framed = rankmeter.evaluate(test, recs, "rr")
    assert framed.query_ids.dtype == np.int64 and framed.query_ids.tolist() == sorted(set(test.user_id))
    assert rankmeter.evaluate(pl.from_pandas(test), recs, "rr").query_ids.tolist() == framed.query_ids.tolist()
    assert rankmeter.evaluate(pa.Table.from_pandas(test), recs, "rr").by_query("rr") == framed.by_query("rr")
    as_text = rankmeter.evaluate(test.astype({"user_id": str}), recs, "rr")
    assert as_text.by_query("rr") == {str(k): v for k, v in framed.by_query("rr").items()}


def test_integer_ids_give_the_text_layouts_of_their_text(tmp_path) -> None:
    """trec_eval's text, CSV and JSON of integer ids: the ids written as numbers, the values unchanged."""
    qrels = {1: {"a": 1}, 2: {"b": 1}}
    run = {1: {"a": 1.0}, 2: {"x": 1.0, "b": 0.5}}
    typed = rankmeter.evaluate(qrels, run, ["rr", "num_q"])
    text = rankmeter.evaluate({str(k): v for k, v in qrels.items()}, run, ["rr", "num_q"])
    assert typed.to_trec_eval(per_query=True) == text.to_trec_eval(per_query=True)
    assert typed.to_csv() == text.to_csv()
    assert json.loads(typed.to_json())["per_query"][0]["query_id"] == 1


def test_cli_evaluate_group_by_a_file_or_a_column(tmp_path, capsys) -> None:
    from rankmeter.cli.main import main

    test, recs, segments = _split(seed=6, users=15)
    test.to_csv(tmp_path / "test.csv", index=False)
    recs.assign(cohort=recs.user_id.map(segments)).to_parquet(tmp_path / "recs.parquet")
    pd.DataFrame({"user_id": list(segments), "segment": list(segments.values())}).to_csv(
        tmp_path / "seg.csv", index=False
    )
    expected = rankmeter.evaluate(test, recs, ["r@20", "num_q"], group_by=segments)
    args = ["evaluate", str(tmp_path / "test.csv"), str(tmp_path / "recs.parquet"), "-m", "r@20", "-m", "num_q"]
    assert main([*args, "--group-by", str(tmp_path / "seg.csv"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # the file's ids are text, so the users come in text order and are summed in that order: equal to rounding
    assert [{**row, "value": pytest.approx(row["value"], rel=1e-15)} for row in data["groups"]] == json.loads(
        expected.to_json()
    )["groups"]
    assert main([*args, "--group-by", "cohort"]) == 0
    text = capsys.readouterr().out
    header, rule, *rows = text.split("\n\n")[1].splitlines()
    assert header.split() == ["segment", "┃", "queries", "┃", "r@20", "┃", "num_q"]
    for row in rows[:3]:
        segment, _, queries, _, recall, _, count = row.split()
        assert float(recall) == round(expected.by_group("r@20")[segment], 4)
        assert int(queries) == int(count) == expected.metadata["groups"]["queries_per_segment"][segment]
    assert rows[3] == "segments from column 'cohort'; missing=error"
    assert main([*args, "--group-by", "cohort", "--per-query"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["query", "┃", "segment", "┃", "r@20", "┃", "num_q"]
    for line in lines[2 : 2 + len(expected.query_ids)]:
        user, _, segment, *_ = line.split()
        assert segment == segments[int(user)]
    assert main([*args, "--group-by", str(tmp_path / "seg.csv"), "--format", "trec"]) == 0
    assert "cold" not in capsys.readouterr().out  # trec_eval's layout has no segments


def test_a_run_file_read_in_blocks_gives_the_same_typed_and_grouped_result(tmp_path, monkeypatch) -> None:
    from rankmeter.io import load

    qrels = {q: {f"d{d}": int((q + d) % 3 == 0) for d in range(6)} for q in range(1, 13)}
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 d{d} {r} {6 - r} x\n" for q in range(1, 13) for r, d in enumerate(range(6), 1)))
    segments = {q: q % 2 for q in range(1, 13)}
    whole = rankmeter.evaluate(qrels, str(path), ["rr", "ndcg@3"], group_by=segments)
    monkeypatch.setattr(load, "BLOCK_BYTES", 200)
    assert load.run_file_in_blocks(str(path))
    blocks = rankmeter.evaluate(qrels, str(path), ["rr", "ndcg@3"], group_by=segments)
    assert blocks.query_ids.tolist() == whole.query_ids.tolist() == list(range(1, 13))
    assert blocks.by_group("ndcg@3") == whole.by_group("ndcg@3")
    assert whole.by_group("rr") == {
        s: np.mean([whole.by_query("rr")[q] for q in range(1, 13) if q % 2 == s]) for s in (0, 1)
    }


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.integers(0, 2), min_size=1, max_size=6), st.sampled_from(["a", "b", "c"]), st.integers(0, 1000)
        ),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["zero", "skip", "nan"]),
)
def test_a_segment_equals_evaluating_its_lists_alone(lists, empty) -> None:
    """Property: each segment's values are those of an evaluation of the segment's lists alone."""
    grades = [g for g, _, _ in lists]
    scores = [list(np.random.default_rng(seed).random(len(g))) for g, _, seed in lists]
    labels = [s for _, s, _ in lists]
    measures = ["ndcg@3", "rr", "p@2", "num_rel"]
    res = rankmeter.evaluate_lists(grades, scores, measures, group_by=labels, empty=empty)
    for segment in sorted(set(labels)):
        rows = [i for i, s in enumerate(labels) if s == segment]
        alone = rankmeter.evaluate_lists([grades[i] for i in rows], [scores[i] for i in rows], measures, empty=empty)
        for m in measures:
            got = res.by_group(m)[segment]
            assert got == alone[m] or (math.isnan(got) and math.isnan(alone[m])), (segment, m)


def test_per_query_weights_of_an_aggregate_apply_within_each_segment() -> None:
    """A measure aggregated with per-query weights (a pooled ratio of sums) uses each segment's own weights."""
    from rankmeter.segments import group_values, segment_map

    values = np.array([[1.0], [0.25], [0.5], [0.0]])
    weights = np.array([1.0, 4.0, 2.0, 3.0])
    groups = group_values(
        np.array(["u1", "u2", "u3", "u4"]),
        values,
        np.ones((4, 1), dtype=bool),
        ["mean"],
        segment_map({"u1": "a", "u2": "a", "u3": "b", "u4": "b"}),
        [weights],
    )
    assert groups.values[:, 0].tolist() == [(1 * 1.0 + 4 * 0.25) / 5, (2 * 0.5 + 3 * 0.0) / 5]
