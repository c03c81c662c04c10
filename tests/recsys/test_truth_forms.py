"""Ground truth in recommender form: long tables, dicts of sets or lists, sparse user x item matrices."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import polars as pl
import pytest
import scipy.sparse as sp

import rankmeter
from rankmeter.errors import InputFormatError
from tests.recsys.data import as_dict, split

S = split(seed=2)
MEASURES = ["ndcg@10", "r@5", "r@20", "p@10", "map", "rr", "success@3", "rprec"]


def _binary(test: pd.DataFrame) -> pd.DataFrame:
    return test[["user_id", "item_id"]]


def _reference(test: pd.DataFrame) -> dict[str, dict[str, int]]:
    """The truth as rankmeter's original dict-of-dicts form, every pair grade 1."""
    out: dict[str, dict[str, int]] = {}
    for u, i in zip(test["user_id"], test["item_id"], strict=True):
        out.setdefault(str(u), {})[str(i)] = 1
    return out


def _sparse(test: pd.DataFrame, kind: str) -> rankmeter.Qrels:
    users = np.unique(test["user_id"])
    items = np.arange(60)
    rows = np.searchsorted(users, test["user_id"])
    matrix = sp.coo_matrix((np.ones(len(test)), (rows, test["item_id"])), shape=(len(users), len(items)))
    return rankmeter.interactions(matrix.asformat(kind), users=users, items=items)


@pytest.mark.parametrize(
    "form", ["pandas", "polars", "arrow", "dict of sets", "dict of lists", "csr", "coo", "csc", "csr_array"]
)
def test_every_truth_form_gives_the_same_values(form) -> None:
    run = as_dict(S.top, S.users)
    expected = rankmeter.evaluate(_reference(S.test), run, MEASURES)
    binary = _binary(S.test)
    sets: dict[int, set[int]] = {}
    for u, i in zip(binary["user_id"], binary["item_id"], strict=True):
        sets.setdefault(int(u), set()).add(int(i))
    truth = {
        "pandas": lambda: binary,
        "polars": lambda: pl.from_pandas(binary),
        "arrow": lambda: pl.from_pandas(binary).to_arrow(),
        "dict of sets": lambda: sets,
        "dict of lists": lambda: {u: sorted(v) for u, v in sets.items()},
        "csr": lambda: _sparse(binary, "csr"),
        "coo": lambda: _sparse(binary, "coo"),
        "csc": lambda: _sparse(binary, "csc"),
        "csr_array": lambda: rankmeter.interactions(sp.csr_array(_matrix(binary)), users=np.unique(binary["user_id"])),
    }[form]()
    got = rankmeter.evaluate(truth, run, MEASURES)
    np.testing.assert_array_equal(got.values, expected.values)
    # integer user ids come back as integers (the reference's are text)
    assert got.query_ids.tolist() == [int(u) for u in expected.query_ids.tolist()]


def _matrix(test: pd.DataFrame) -> np.ndarray:
    users = np.unique(test["user_id"])
    dense = np.zeros((len(users), 60))
    dense[np.searchsorted(users, test["user_id"]), test["item_id"]] = 1
    return dense


def test_ratings_are_grades() -> None:
    """With a rating column the grades are the ratings; without, every row is grade 1."""
    graded = rankmeter.evaluate(S.test, as_dict(S.top, S.users), ["ndcg@10"])
    as_dicts: dict[str, dict[str, int]] = {}
    for u, i, g in S.test.itertuples(index=False):
        as_dicts.setdefault(str(u), {})[str(i)] = int(g)
    assert graded.values.tolist() == rankmeter.evaluate(as_dicts, as_dict(S.top, S.users), ["ndcg@10"]).values.tolist()
    assert graded.metadata["qrels_columns"] == {"query_id": "user_id", "doc_id": "item_id", "relevance": "rating"}
    binary = rankmeter.evaluate(_binary(S.test), as_dict(S.top, S.users), ["ndcg@10"])
    assert binary.metadata["qrels_columns"] == {"query_id": "user_id", "doc_id": "item_id"}
    assert binary["ndcg@10"] != graded["ndcg@10"]


def test_sparse_values_are_grades_and_stored_zeros_are_not_pairs() -> None:
    matrix = sp.csr_matrix(([3.0, 0.0, 1.0], ([0, 0, 1], [0, 1, 2])), shape=(2, 3))
    q = rankmeter.interactions(matrix, users=["u", "v"], items=["a", "b", "c"])
    assert q.query_ids.tolist() == ["u", "v"]
    assert q.doc_ids.tolist() == ["a", "c"]
    assert q.relevance.tolist() == [3.0, 1.0]
    positional = rankmeter.interactions(matrix)
    assert positional.query_ids.tolist() == ["0", "1"] and positional.doc_ids.tolist() == ["0", "2"]


def test_the_ideal_comes_from_all_the_truth_not_the_list() -> None:
    """u has 4 relevant items, its top-3 list finds 2: recall@3 = 2/4 and NDCG's ideal holds 3 relevant items."""
    truth = {"u": {"a", "b", "c", "d"}}
    lists = {"u": ["a", "x", "b"]}
    res = rankmeter.evaluate(truth, lists, ["r@3", "ndcg@3"])
    assert res["r@3"] == 0.5
    idcg = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert res["ndcg@3"] == pytest.approx((1 + 1 / np.log2(4)) / idcg, abs=1e-15)
    # evaluate_lists sees the list alone: its ideal is the list's 2 relevant items, recall 1 (documented)
    alone = rankmeter.evaluate_lists([[1, 0, 1]], [[3.0, 2.0, 1.0]], ["r@3"])
    assert alone["r@3"] == 1.0


def test_a_user_whose_list_has_no_relevant_item_still_counts() -> None:
    truth = {"u": {"a"}, "v": {"b"}}
    res = rankmeter.evaluate(truth, {"u": ["a"], "v": ["x", "y"]}, ["r@2", "success@2"])
    assert res.by_query("r@2") == {"u": 1.0, "v": 0.0}
    assert res["success@2"] == 0.5


# -- errors, one test per message -------------------------------------------------------------------------------


def test_sparse_rows_and_users_of_another_length() -> None:
    with pytest.raises(InputFormatError, match=re.escape("<interactions>: the matrix has 2 rows but users= has 3 ids")):
        rankmeter.interactions(sp.csr_matrix((2, 4)), users=["a", "b", "c"])


def test_sparse_columns_and_items_of_another_length() -> None:
    with pytest.raises(
        InputFormatError, match=re.escape("<interactions>: the matrix has 4 columns but items= has 2 ids")
    ):
        rankmeter.interactions(sp.csr_matrix((2, 4)), items=["a", "b"])


def test_not_a_sparse_matrix() -> None:
    with pytest.raises(InputFormatError, match=re.escape("<interactions>: expected a scipy.sparse matrix, got list")):
        rankmeter.interactions([[1, 0]])


def test_bare_sparse_matrix_asks_for_its_ids() -> None:
    with pytest.raises(
        InputFormatError,
        match=re.escape(
            "cannot read qrels from csr_matrix: a sparse matrix needs its ids: pass "
            "rankmeter.interactions(matrix, users=user_ids, items=item_ids)"
        ),
    ):
        rankmeter.evaluate(sp.csr_matrix((2, 2)), {"0": ["1"]}, "rr")


def test_truth_list_naming_an_item_twice() -> None:
    with pytest.raises(
        rankmeter.DuplicateEntryError,
        match=re.escape("<qrels sets>:2: query 'u', document 'a' appears twice in the qrels"),
    ):
        rankmeter.evaluate({"u": ["a", "a"]}, {"u": ["a"]}, "rr")
