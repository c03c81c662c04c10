"""Runs given as ranked id lists without scores: the order is the ranking, in every form."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankmeter
from rankmeter.errors import DuplicateEntryError, InputFormatError
from rankmeter.io.recsys import integer_ids
from rankmeter.measures import FAMILIES
from rankmeter.measures.diversity_families import NAMES as DIVERSITY
from tests.recsys.data import as_dict, rank_frame, score_dict, split

S = split(seed=1)
RECSYS = ["ndcg(gain=exp)@10", "r@20", "success@10", "rr@10", "p@10"]


def _measure_names() -> list[str]:
    """Every measure family of the registry that reads qrels + run, with a cutoff where it takes one."""
    names = []
    for name, family in FAMILIES.items():
        if name in DIVERSITY or family.reads == "lists":  # intent qrels; top-k lists and items=
            continue
        base = name + family.example
        if str(family.cutoff) == "required":
            names.append(f"{base}@5")
        else:
            names += [base, f"{base}@5"] if str(family.cutoff) == "optional" else [base]
    return names


MEASURES = _measure_names()


def test_every_family_is_covered() -> None:
    assert len(MEASURES) > 60
    assert {"ndcg@5", "map", "rr@5", "p@5", "r@5", "success@5", "bpref", "err@5", "auroc"} <= set(MEASURES)


def test_ranked_lists_equal_the_same_lists_given_as_scores() -> None:
    """``{user: [item, ...]}`` gives what ``{user: {item: -rank}}`` gives, measure by measure, user by user."""
    lists = rankmeter.evaluate(S.test, as_dict(S.top, S.users), MEASURES)
    scores = rankmeter.evaluate(S.test, score_dict(S.top, S.users), MEASURES)
    assert lists.measure_names == scores.measure_names
    np.testing.assert_array_equal(lists.values, scores.values)
    assert lists.query_ids.tolist() == scores.query_ids.tolist()
    # the lists' own order, not its reverse: ranking by score ascending would give other values
    reversed_scores = {u: {i: -s for i, s in d.items()} for u, d in score_dict(S.top, S.users).items()}
    assert rankmeter.evaluate(S.test, reversed_scores, "rr")["rr"] != lists["rr"]


@pytest.mark.parametrize(
    "form", ["dict", "pandas rank", "polars rank", "arrow rank", "array", "polars list", "arrow list", "pandas list"]
)
def test_every_form_gives_the_same_values(form) -> None:
    expected = rankmeter.evaluate(S.test, score_dict(S.top, S.users), RECSYS + ["map", "ndcg"])
    frame = rank_frame(S.top, S.users)
    lists = pl.DataFrame({"user_id": S.users, "items": S.top.tolist()})
    run = {
        "dict": as_dict(S.top, S.users),
        "pandas rank": frame,
        "polars rank": pl.from_pandas(frame),
        "arrow rank": pa.Table.from_pandas(frame),
        "array": rankmeter.ranked_lists(S.top, users=S.users),
        "polars list": lists,
        "arrow list": lists.to_arrow(),
        "pandas list": pd.DataFrame({"user_id": S.users, "recs": list(S.top)}),
    }[form]
    got = rankmeter.evaluate(S.test, run, RECSYS + ["map", "ndcg"])
    np.testing.assert_array_equal(got.values, expected.values)
    assert got.query_ids.tolist() == expected.query_ids.tolist()


@pytest.mark.parametrize("alias", ["rank", "rank_position", "position", "pos"])
def test_rank_columns_are_found_by_name(alias) -> None:
    got = rankmeter.evaluate(S.test, rank_frame(S.top, S.users, alias), RECSYS)
    assert got.aggregate == rankmeter.evaluate(S.test, as_dict(S.top, S.users), RECSYS).aggregate
    assert got.metadata["run_columns"] == {"query_id": "user_id", "doc_id": "item_id", "rank": alias}


def test_a_rank_column_named_by_run_columns() -> None:
    frame = rank_frame(S.top, S.users).rename(columns={"rank": "place"})
    got = rankmeter.evaluate(S.test, frame, RECSYS, run_columns={"rank": "place"})
    assert got.aggregate == rankmeter.evaluate(S.test, as_dict(S.top, S.users), RECSYS).aggregate


def test_a_score_column_wins_over_a_rank_column() -> None:
    """A TREC-like table with both: ranked by score, as trec_eval does (the rank column is not read)."""
    frame = rank_frame(S.top, S.users).assign(score=lambda f: f["rank"].astype(float))  # higher rank, higher score
    got = rankmeter.evaluate(S.test, frame, ["rr"])
    by_score = {u: {i: float(r + 1) for r, i in enumerate(row)} for u, row in zip(S.users, S.top, strict=True)}
    assert got["rr"] == rankmeter.evaluate(S.test, by_score, ["rr"])["rr"]


def test_hand_computed_values_on_two_users() -> None:
    """u1 has 3 relevant items (a: grade 2, c, d), u2 one (x); the lists miss some of them."""
    test = pd.DataFrame({"user_id": ["u1", "u1", "u1", "u2"], "item_id": ["a", "c", "d", "x"], "rating": [2, 1, 1, 1]})
    recs = pd.DataFrame(
        {"user_id": ["u1"] * 3 + ["u2"] * 2, "item_id": ["b", "a", "c", "y", "z"], "rank": [1, 2, 3, 1, 2]}
    )
    res = rankmeter.evaluate(test, recs, ["r@2", "r@3", "p@2", "rr", "ndcg(gain=exp)@3", "success@2"])
    assert res["r@2"] == pytest.approx((1 / 3 + 0) / 2, abs=1e-15)
    assert res["r@3"] == pytest.approx((2 / 3 + 0) / 2, abs=1e-15)
    assert res["p@2"] == pytest.approx((1 / 2 + 0) / 2, abs=1e-15)
    assert res["rr"] == pytest.approx((1 / 2 + 0) / 2, abs=1e-15)
    assert res["success@2"] == pytest.approx(0.5, abs=1e-15)
    dcg = (2**2 - 1) / math.log2(3) + (2**1 - 1) / math.log2(4)
    idcg = (2**2 - 1) / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)  # from all three relevant items
    assert res.by_query("ndcg(gain=exp)@3")["u1"] == pytest.approx(dcg / idcg, abs=1e-15)
    assert res.by_query("ndcg(gain=exp)@3")["u2"] == 0.0


def test_many_runs_of_ranked_lists() -> None:
    other = S.top[:, ::-1]
    runs = {"a": as_dict(S.top, S.users), "b": as_dict(other, S.users)}
    both = rankmeter.evaluate(S.test, runs, RECSYS)
    for name, top in (("a", S.top), ("b", other)):
        assert both[name].aggregate == rankmeter.evaluate(S.test, score_dict(top, S.users), RECSYS).aggregate


def test_array_pads_and_item_ids() -> None:
    top = np.array([[4, 2, -1], [1, -1, -1]])
    run = rankmeter.ranked_lists(top, users=["u", "v"])
    assert run.query_ids.tolist() == ["u", "u", "v"]
    assert run.doc_ids.tolist() == ["4", "2", "1"]
    assert run.scores.tolist() == [-1.0, -2.0, -1.0]
    named = rankmeter.ranked_lists(np.array([[2, 0]]), item_ids=np.array(["x", "y", "z"]))
    assert named.query_ids.tolist() == ["0", "0"] and named.doc_ids.tolist() == ["z", "x"]
    unpadded = rankmeter.ranked_lists(np.array([[-1, 3]]), pad=None)
    assert unpadded.doc_ids.tolist() == ["-1", "3"]
    strings = rankmeter.ranked_lists(np.array([["a", "b"], ["c", ""]]), users=[1, 2], pad="")
    assert strings.doc_ids.tolist() == ["a", "b", "c"]


# -- errors, one test per message -------------------------------------------------------------------------------


def test_score_named_like_a_rank_is_refused() -> None:
    with pytest.raises(
        InputFormatError,
        match=re.escape(
            "run_columns={'score': 'rank'}: a column named 'rank' holds ranks (1 = top), which order the other way "
            "from scores; pass run_columns={'rank': 'rank'} to rank by it"
        ),
    ):
        rankmeter.evaluate(S.test, rank_frame(S.top, S.users), RECSYS, run_columns={"score": "rank"})


def test_score_and_rank_both_named_is_refused() -> None:
    frame = rank_frame(S.top, S.users).assign(score=1.0)
    with pytest.raises(InputFormatError, match=re.escape("run_columns= names both a score and a rank column")):
        rankmeter.evaluate(S.test, frame, RECSYS, run_columns={"score": "score", "rank": "rank"})


def test_no_score_and_no_rank_column_names_both_ways() -> None:
    frame = rank_frame(S.top, S.users).drop(columns="rank")
    with pytest.raises(
        InputFormatError,
        match=re.escape("pass run_columns={'score': '<name>'} (or run_columns={'rank': '<name>'} for ranks, 1 = top)"),
    ):
        rankmeter.evaluate(S.test, frame, RECSYS)


def _recs(ranks: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"user_id": ["u"] * len(ranks), "item_id": list("abcd")[: len(ranks)], "rank": ranks})


def test_rank_gap_is_located() -> None:
    with pytest.raises(
        InputFormatError,
        match=re.escape(
            "<run table>:3: user 'u', item 'c': rank 4 follows rank 2; ranks run 1, 2, 3, ... without gaps "
            "(column 'rank')"
        ),
    ):
        rankmeter.evaluate({"u": {"a"}}, _recs([1, 2, 4]), "rr")


def test_rank_repeat_is_located() -> None:
    with pytest.raises(
        InputFormatError,
        match=re.escape("<run table>:3: user 'u', item 'c': rank 2 is given twice (also to item 'b')"),
    ):
        rankmeter.evaluate({"u": {"a"}}, _recs([1, 2, 2]), "rr")


def test_ranks_not_starting_at_one_are_located() -> None:
    with pytest.raises(
        InputFormatError, match=re.escape("<run table>:1: user 'u', item 'a': rank 0 is the user's first")
    ):
        rankmeter.evaluate({"u": {"a"}}, _recs([0, 1, 2]), "rr")


def test_fractional_rank_is_located() -> None:
    with pytest.raises(
        InputFormatError, match=re.escape("<run table>:2: user 'u', item 'b': rank 1.5 is not a whole number")
    ):
        rankmeter.evaluate({"u": {"a"}}, _recs([1, 1.5]), "rr")


def test_item_listed_twice_names_user_and_item() -> None:
    with pytest.raises(
        DuplicateEntryError,
        match=re.escape(
            "<run lists>:3: query 'u', document 'a' appears twice in the ranked list (first at line 1; rank 3 "
            "here, 1 there); pass duplicates='first' or 'max' to keep one"
        ),
    ):
        rankmeter.evaluate({"u": {"a"}}, {"u": ["a", "b", "a"]}, "rr")


def test_duplicates_first_keeps_the_first_place() -> None:
    res = rankmeter.evaluate({"u": {"a"}}, {"u": ["b", "a", "a"]}, ["rr", "p@3"], duplicates="first")
    assert res["rr"] == 0.5
    assert res["p@3"] == pytest.approx(1 / 3, abs=1e-15)
    assert res.metadata["duplicates_dropped"] == 1


def test_a_set_is_not_a_ranked_list() -> None:
    with pytest.raises(InputFormatError, match=re.escape("run: user 'u' maps to a set, which has no order")):
        rankmeter.evaluate({"u": {"a"}}, {"u": {"a", "b"}}, "rr")


def test_mixed_lists_and_dicts() -> None:
    with pytest.raises(InputFormatError, match=re.escape("run: user 'v' maps to dict, expected a list of items")):
        rankmeter.evaluate({"u": {"a"}}, {"u": ["a"], "v": {"a": 1.0}}, "rr")


def test_bare_array_asks_for_its_users() -> None:
    with pytest.raises(
        InputFormatError,
        match=re.escape(
            "cannot read a run from ndarray: a 2-D array of item ids needs its users: pass "
            "rankmeter.ranked_lists(items, users=user_ids)"
        ),
    ):
        rankmeter.evaluate(S.test, S.top, RECSYS)


def test_array_users_of_another_length() -> None:
    with pytest.raises(InputFormatError, match=re.escape("ranked_lists: items has 2 rows but users= has 3 ids")):
        rankmeter.ranked_lists(np.zeros((2, 3), dtype=int), users=[1, 2, 3])


def test_array_not_2d() -> None:
    with pytest.raises(
        InputFormatError, match=re.escape("ranked_lists: items must be 2-D (users x k), got shape (3,)")
    ):
        rankmeter.ranked_lists(np.zeros(3, dtype=int))


def test_array_of_floats() -> None:
    with pytest.raises(InputFormatError, match=re.escape("ranked_lists: items holds float64 values")):
        rankmeter.ranked_lists(np.zeros((2, 3)))


def test_pad_before_an_item() -> None:
    with pytest.raises(
        InputFormatError,
        match=re.escape("ranked_lists: row 1 (user 'v'): item 7 at rank 3 follows the pad -1; pads fill the end"),
    ):
        rankmeter.ranked_lists(np.array([[1, 2, 3], [5, -1, 7]]), users=["u", "v"])


def test_index_outside_item_ids() -> None:
    with pytest.raises(
        InputFormatError,
        match=re.escape("ranked_lists: row 1 (user '1'): 3 is not an index into item_ids (0 to 2)"),
    ):
        rankmeter.ranked_lists(np.array([[0, 1], [2, 3]]), item_ids=["a", "b", "c"])


def test_list_column_with_a_missing_item() -> None:
    frame = pl.DataFrame({"user_id": [1, 2], "items": [[1, 2], [3, None]]})
    with pytest.raises(InputFormatError, match=re.escape("<run table>: row 1: user 2: the list has a missing item")):
        rankmeter.evaluate(S.test, frame, RECSYS)


def test_list_column_missing_user_list() -> None:
    frame = pl.DataFrame({"user_id": [1, 2], "items": [[1, 2], None]})
    with pytest.raises(
        InputFormatError,
        match=re.escape("<run table>: row 1: user or list of items missing (columns 'user_id', 'items')"),
    ):
        rankmeter.evaluate(S.test, frame, RECSYS)


def test_two_list_columns() -> None:
    frame = pl.DataFrame({"user_id": [1], "items": [[1, 2]], "other": [[3]]})
    with pytest.raises(
        InputFormatError,
        match=re.escape("table has several list columns of items: 'items', 'other'; pass run_columns={'doc_id': "),
    ):
        rankmeter.evaluate(S.test, frame, RECSYS)
    picked = rankmeter.evaluate({"1": {"3"}}, frame, "rr", run_columns={"doc_id": "other"})
    assert picked["rr"] == 1.0


def test_list_column_of_floats() -> None:
    frame = pl.DataFrame({"user_id": [1], "items": [[1.0, 2.0]]})
    with pytest.raises(InputFormatError, match=re.escape("<run table>: column 'items' holds double values")):
        rankmeter.evaluate(S.test, frame, RECSYS)


@given(st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1), max_size=50), st.sampled_from(["int64", "int32"]))
def test_integer_ids_are_their_decimal_text(values, dtype) -> None:
    """Integer ids (2-D arrays, pandas columns) become exactly ``str(v)``: what any other reader makes of them."""
    info = np.iinfo(dtype)
    kept = np.array([v for v in values if info.min <= v <= info.max], dtype=dtype)
    assert integer_ids(kept).tolist() == [str(v) for v in kept.tolist()]
    unsigned = np.abs(kept.astype(np.int64) // 2).astype(np.uint64) * np.uint64(2)
    assert integer_ids(unsigned).tolist() == [str(v) for v in unsigned.tolist()]


def test_score_named_like_a_rank_in_capitals_is_refused() -> None:
    frame = rank_frame(S.top, S.users, "Rank")
    with pytest.raises(InputFormatError, match=re.escape("pass run_columns={'rank': 'Rank'} to rank by it")):
        rankmeter.evaluate(S.test, frame, RECSYS, run_columns={"score": "Rank"})
