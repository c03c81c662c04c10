"""Integer ids are coded without text and give the values of the same ids written as text, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.ids.convert import as_ids
from rankmeter.ids.integers import INTEGER_SPAN, integer_column
from rankmeter.ids.match import coded_join, match_pairs

MEASURES = ["ndcg@10", "map", "rr", "p@5", "r@20", "num_rel_ret", "map(divisor=min)@10", "success@3"]


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(**{c: frame[c].astype(str) for c in ("user_id", "item_id")})


@pytest.mark.parametrize(
    "values",
    [
        np.array([30, 7, 30, -2, 0, 10, 9], dtype=np.int32),  # a narrow span: coded through a table
        np.array([2**62, -(2**63), 5, 2**62, 10**18], dtype=np.int64),  # a wide one: coded by a sort
        np.array([2**64 - 1, 2**63, 1, 2**63], dtype=np.uint64),  # beyond int64
        np.array([255, 0, 255], dtype=np.uint8),
        np.array([-100, 100, 27, -100], dtype=np.int8),  # a span wider than int8 holds
        np.array([-(2**31), 2**31 - 1], dtype=np.int32),  # a span beyond int32's, coded by a sort
    ],
)
def test_integer_column_holds_the_decimal_text_of_each_value(values: np.ndarray) -> None:
    ids = integer_column(values)
    assert ids.is_coded
    assert ids.tolist() == [str(v) for v in values.tolist()]
    assert sorted(ids.dictionary.tolist(), key=int) == [str(v) for v in sorted(set(values.tolist()))]
    assert ids.dictionary.tolist()[0] == str(min(values.tolist()))  # the dictionary in numeric order
    assert as_ids(values).tolist() == ids.tolist()


def test_integer_column_of_no_rows() -> None:
    ids = integer_column(np.zeros(0, dtype=np.int64))
    assert len(ids) == 0 and ids.tolist() == [] and len(ids.dictionary) == 0


def test_booleans_are_refused_and_floats_stay_text_ids() -> None:
    # bool is not an integer id, and has no single text form (tests/io/test_bool_ids.py)
    with pytest.raises(rankmeter.InputFormatError, match=r"id column: the ids are booleans"):
        as_ids(np.array([True, False]))
    # a float id is its text: 1.0 is the id "1.0", which the integer 1 does not match
    qrels = pd.DataFrame({"user_id": [1, 1], "item_id": [1, 2], "relevance": [1, 1]})
    run = pd.DataFrame({"user_id": [1, 1], "item_id": [1.0, 2.0], "score": [2.0, 1.0]})
    assert rankmeter.evaluate(qrels, run, "num_rel_ret")["num_rel_ret"] == 0


def test_an_integer_id_matches_its_text_and_nothing_else() -> None:
    # qrels with integer item ids, run with text ids: 7 is "7", never "07" or "7.0"
    qrels = pd.DataFrame({"user_id": [1, 1, 1], "item_id": [7, 10, 9], "relevance": [1, 1, 0]})
    run = pd.DataFrame({"user_id": ["1"] * 4, "item_id": ["07", "7.0", "7", "10"], "score": [4.0, 3.0, 2.0, 1.0]})
    res = rankmeter.evaluate(qrels, run, ["num_rel_ret", "rr"])
    assert res["num_rel_ret"] == 2
    assert res["rr"] == 1 / 3
    assert res.query_ids.tolist() == [1]


def test_ties_are_broken_by_the_ids_text_order_as_for_text_ids() -> None:
    # equal scores: trec_eval order is docno descending as strings, so "9" ranks above "10"
    qrels = pd.DataFrame({"user_id": [1, 1], "item_id": [10, 9], "relevance": [1, 0]})
    run = pd.DataFrame({"user_id": [1, 1], "item_id": [10, 9], "score": [1.0, 1.0]})
    assert rankmeter.evaluate(qrels, run, "rr")["rr"] == 0.5
    assert rankmeter.evaluate(_as_text(qrels), _as_text(run), "rr")["rr"] == 0.5


def test_integer_categories_are_read_as_their_integers() -> None:
    qrels = pd.DataFrame({"user_id": [3, 3, 4], "item_id": [10, 9, 10], "relevance": [1, 1, 1]})
    run = pd.DataFrame({"user_id": [3, 3, 4, 4], "item_id": [9, 10, 10, 2], "score": [1.0, 1.0, 2.0, 1.0]})
    categorical = run.assign(item_id=run["item_id"].astype("category"), user_id=run["user_id"].astype("category"))
    plain = rankmeter.evaluate(qrels, run, MEASURES)
    assert rankmeter.evaluate(qrels, categorical, MEASURES).aggregate == plain.aggregate
    assert rankmeter.evaluate(_as_text(qrels), _as_text(run), MEASURES).aggregate == plain.aggregate


def _frames(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    wide = draw(st.booleans())
    high = 2**62 if wide else draw(st.integers(3, 40))
    ints = st.integers(-high if wide else -3, high)
    users = draw(st.lists(ints, min_size=1, max_size=6, unique=True))
    rows = draw(st.lists(st.tuples(st.sampled_from(users), ints, st.integers(0, 3)), max_size=40))
    qrels = pd.DataFrame(rows, columns=["user_id", "item_id", "relevance"]).drop_duplicates(["user_id", "item_id"])
    run_rows = draw(st.lists(st.tuples(st.sampled_from(users), ints, st.integers(0, 4)), max_size=60))
    run = pd.DataFrame(run_rows, columns=["user_id", "item_id", "score"]).drop_duplicates(["user_id", "item_id"])
    run["score"] = run["score"].astype(np.float64)  # few distinct scores: many ties
    exclude = pd.DataFrame(draw(st.lists(st.tuples(st.sampled_from(users), ints), max_size=10)),
                           columns=["user_id", "item_id"])  # fmt: skip
    dtype = draw(st.sampled_from([np.int64, np.int32])) if not wide else np.int64
    qrels = qrels.astype({"user_id": np.int64, "item_id": dtype, "relevance": np.int64})
    return qrels, run.astype({"user_id": np.int64, "item_id": dtype}), exclude.astype(np.int64)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_integer_frames_give_the_values_of_their_text(data: st.DataObject) -> None:
    qrels, run, exclude = _frames(data.draw)
    if not len(qrels):
        return
    as_int = rankmeter.evaluate(qrels, run, MEASURES, exclude=exclude)
    as_text = rankmeter.evaluate(_as_text(qrels), _as_text(run), MEASURES, exclude=_as_text(exclude))
    assert as_int.query_ids.tolist() == sorted(int(q) for q in as_text.query_ids.tolist())  # integers in numeric order
    for m in MEASURES:
        assert as_int.by_query(m) == {int(k): v for k, v in as_text.by_query(m).items()}  # bit for bit
    mixed = rankmeter.evaluate(qrels, _as_text(run), MEASURES, exclude=exclude)  # one side text: the same
    assert mixed.aggregate == as_int.aggregate


def test_large_integer_columns_span_and_sort_paths_agree() -> None:
    rng = np.random.default_rng(5)
    n = 5000
    items = rng.integers(0, 300, n)
    narrow = integer_column(items)
    wide = integer_column(items * (INTEGER_SPAN * 100))  # the same order of distinct values, far apart
    assert narrow.codes.tolist() == wide.codes.tolist()
    assert [int(s) * INTEGER_SPAN * 100 for s in narrow.dictionary.tolist()] == list(map(int, wide.dictionary))


def test_ranked_lists_and_interactions_of_integers_equal_their_text_forms() -> None:
    rng = np.random.default_rng(3)
    n_users, n_items, k = 40, 60, 8
    lists = np.stack([rng.choice(n_items, k, replace=False) for _ in range(n_users)]) * 3 - 50  # negatives too
    truth = sp.random(n_users, n_items, density=0.1, random_state=4, format="csr")
    truth.data[:] = 1.0
    items = np.arange(n_items) * 3 - 50
    ints = rankmeter.evaluate(rankmeter.interactions(truth, items=items), rankmeter.ranked_lists(lists), MEASURES)
    text = rankmeter.evaluate(
        rankmeter.interactions(truth, users=np.arange(n_users).astype(str), items=items.astype(str)),
        rankmeter.ranked_lists(lists.astype(str), users=np.arange(n_users).astype(str)),
        MEASURES,
    )
    assert ints.aggregate == text.aggregate
    assert ints.query_ids.tolist() == list(range(n_users))
    by_index = rankmeter.ranked_lists(lists // 3 + 17, item_ids=items)  # indices into integer item ids
    assert (
        rankmeter.evaluate(rankmeter.interactions(truth, items=items), by_index, MEASURES).aggregate == ints.aggregate
    )


def test_pyarrow_integer_columns_are_coded_without_text() -> None:
    table = pa.table({"user_id": pa.array([5, 5], pa.int16()), "item_id": pa.array([2**40, 3], pa.uint64()),
                      "score": [1.0, 2.0]})  # fmt: skip
    run = rankmeter.io.frames.run_from_frame(table)
    assert run.doc_ids.is_coded and run.doc_ids.tolist() == [str(2**40), "3"]
    assert run.query_ids.tolist() == ["5", "5"]


def _large(seed: int, repeat: bool, apart: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """About 3,000 run rows (enough for the coded join) with ties; a repeated pair, or a query's rows apart."""
    rng = np.random.default_rng(seed)
    users, per = 60, 50
    run = pd.DataFrame({"user_id": np.repeat(rng.permutation(users) * 7, per),
                        "item_id": np.concatenate([rng.choice(400, per, replace=False) for _ in range(users)]),
                        "score": rng.integers(0, 5, users * per).astype(float)})  # fmt: skip
    if repeat:
        run.loc[len(run) - 1, "item_id"] = run.loc[len(run) - 2, "item_id"]
    if apart:
        run = pd.concat([run.iloc[per // 2 :], run.iloc[: per // 2]], ignore_index=True)
    qrels = pd.DataFrame({"user_id": rng.integers(0, users, 1500) * 7, "item_id": rng.integers(0, 400, 1500),
                          "relevance": rng.integers(0, 3, 1500)})  # fmt: skip
    return qrels.drop_duplicates(["user_id", "item_id"]).sort_values("user_id"), run


@pytest.mark.parametrize(("repeat", "apart"), [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("duplicates", ["first", "max"])
def test_the_coded_join_gives_the_values_of_the_text_join(repeat: bool, apart: bool, duplicates: str) -> None:
    qrels, run = _large(11, repeat, apart)
    seen = run.iloc[:-2].sample(frac=0.3, random_state=1)[
        ["user_id", "item_id"]
    ]  # with repeats of its own when sampled twice
    seen = pd.concat([seen, seen.head(3)]).sample(frac=1.0, random_state=2)
    as_int = rankmeter.evaluate(qrels, run, MEASURES, duplicates=duplicates, exclude=seen)
    as_text = rankmeter.evaluate(
        _as_text(qrels), _as_text(run), MEASURES, duplicates=duplicates, exclude=_as_text(seen)
    )
    for m in MEASURES:
        assert as_int.by_query(m) == {int(k): v for k, v in as_text.by_query(m).items()}
    assert as_int.metadata["duplicates_dropped"] == as_text.metadata["duplicates_dropped"] == int(repeat)


def test_a_repeated_integer_pair_is_the_text_error() -> None:
    qrels, run = _large(12, True, False)
    with pytest.raises(rankmeter.DuplicateEntryError) as as_int:
        rankmeter.evaluate(qrels, run, "rr")
    with pytest.raises(rankmeter.DuplicateEntryError) as as_text:
        rankmeter.evaluate(_as_text(qrels), _as_text(run), "rr")
    assert str(as_int.value) == str(as_text.value)
    assert "appears twice in the run" in str(as_int.value)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 40))
def test_coded_join_equals_the_hash_join(seed: int, n_queries: int, n_docs: int) -> None:
    rng = np.random.default_rng(seed)
    run_q = np.repeat(rng.permutation(n_queries), rng.integers(0, 12, n_queries))  # each query's rows together
    run_docs = np.concatenate([rng.choice(n_docs, np.count_nonzero(run_q == q), replace=n_docs < 12)
                               for q in dict.fromkeys(run_q.tolist())] or [np.zeros(0, int)])  # fmt: skip
    qrels_q = np.sort(rng.integers(0, n_queries + 1, 30))
    qrels_docs = rng.integers(0, n_docs + 3, 30)
    rows = np.flatnonzero(~pd.DataFrame({"q": qrels_q, "d": qrels_docs}).duplicated().to_numpy())
    coded = coded_join(run_q, as_ids(run_docs), qrels_q, as_ids(qrels_docs), rows)
    repeats = pd.DataFrame({"q": run_q, "d": run_docs}).duplicated().any()
    if repeats:
        assert coded is None
        return
    assert coded is not None
    hashed = match_pairs(run_q, as_ids(run_docs.astype(str)), qrels_q, as_ids(qrels_docs.astype(str)), qrels_rows=rows)
    assert coded.tolist() == hashed.tolist()


def test_dicts_with_integer_keys_give_the_values_of_their_text() -> None:
    rng = np.random.default_rng(9)
    qrels = {int(u): {int(i): int(g) for i, g in zip(rng.choice(50, 6, replace=False), rng.integers(0, 3, 6), strict=True)}
             for u in rng.choice(1000, 30, replace=False)}  # fmt: skip
    run = {u: {int(i): float(s) for i, s in zip(rng.choice(50, 12, replace=False), rng.integers(0, 4, 12), strict=True)}
           for u in qrels}  # fmt: skip
    lists = {u: [int(i) for i in rng.choice(50, 12, replace=False)] for u in qrels}
    text = {str(u): {str(i): g for i, g in docs.items()} for u, docs in qrels.items()}
    as_int = rankmeter.evaluate(qrels, run, MEASURES)
    as_text = rankmeter.evaluate(text, {str(u): {str(i): s for i, s in d.items()} for u, d in run.items()}, MEASURES)
    for m in MEASURES:
        assert as_int.by_query(m) == {int(k): v for k, v in as_text.by_query(m).items()}
    from_lists = rankmeter.evaluate(qrels, lists, MEASURES)
    text_lists = rankmeter.evaluate(text, {str(u): [str(i) for i in items] for u, items in lists.items()}, MEASURES)
    assert from_lists.aggregate == text_lists.aggregate


def test_python_integers_beyond_int64_are_text_and_booleans_refused() -> None:
    big = 2**70
    qrels = {"q": {big: 1, "True": 1, 5: 0}}
    run = {"q": {str(big): 3.0, "True": 2.0, "5": 1.0}}
    assert rankmeter.evaluate(qrels, run, "num_rel_ret")["num_rel_ret"] == 2
    with pytest.raises(rankmeter.InputFormatError, match=r"qrels dict: document: id True is a boolean"):
        rankmeter.evaluate({"q": {big: 1, True: 1}}, run, "num_rel_ret")


@pytest.mark.parametrize("dtype", ["Int64", "UInt32", "int64[pyarrow]"])
def test_pandas_extension_integer_columns(dtype: str) -> None:
    qrels = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 9, 10], "relevance": [1, 1, 1]})
    run = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [9, 10, 3], "score": [1.0, 1.0, 2.0]})
    typed = run.astype({"user_id": dtype, "item_id": dtype})
    assert rankmeter.evaluate(qrels, typed, MEASURES).aggregate == rankmeter.evaluate(qrels, run, MEASURES).aggregate
    typed.loc[1, "item_id"] = pd.NA
    with pytest.raises(rankmeter.InputFormatError, match=r"column 'item_id' has 1 missing values; the first in row 1"):
        rankmeter.evaluate(qrels, typed, "rr")
