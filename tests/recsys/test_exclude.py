"""Candidate sets: ``exclude=`` (seen items leave the ranking and the ideal) and ``candidates=`` (given lists)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import streaming
from rankmeter.cli.main import main
from rankmeter.errors import InputFormatError, PolicyError
from rankmeter.io import load
from tests.recsys.data import as_dict, rank_frame, split

S = split(seed=3)
MEASURES = ["ndcg(gain=exp)@10", "r@20", "success@10", "rr@10", "p@10", "map", "ndcg", "bpref", "rprec"]


def _seen() -> pd.DataFrame:
    """The training pairs, a third of the test pairs (so the ideal changes too), all of the first user's test
    pairs (nothing relevant left) and a user the truth lacks."""
    some_test = S.test[(np.arange(len(S.test)) % 3 == 0) | (S.test["user_id"] == S.users[0])][["user_id", "item_id"]]
    stranger = pd.DataFrame({"user_id": [999, 999], "item_id": [1, 2]})
    return pd.concat([S.train, some_test, stranger], ignore_index=True)


SEEN = _seen()


def _without(frame: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    keys = set(zip(pairs["user_id"], pairs["item_id"], strict=True))
    mask = [(u, i) not in keys for u, i in zip(frame["user_id"], frame["item_id"], strict=True)]
    return frame[np.array(mask, dtype=bool)]


def _by_hand(test: pd.DataFrame, recs: pd.DataFrame, pairs: pd.DataFrame) -> rankmeter.EvaluationResult:
    """The rows removed from both tables by hand; the remaining ranks, with their gaps, as scores -rank."""
    kept = _without(recs, pairs)
    scores: dict[str, dict[str, float]] = {}
    for u, i, r in kept[["user_id", "item_id", "rank"]].itertuples(index=False):
        scores.setdefault(str(u), {})[str(i)] = -float(r)
    return rankmeter.evaluate(_without(test, pairs), scores, MEASURES, empty="skip")


def _sets(pairs: pd.DataFrame) -> dict[int, set[int]]:
    out: dict[int, set[int]] = {}
    for u, i in zip(pairs["user_id"], pairs["item_id"], strict=True):
        out.setdefault(int(u), set()).add(int(i))
    return out


def _sparse(pairs: pd.DataFrame) -> rankmeter.Qrels:
    users = np.unique(pairs["user_id"])
    rows = np.searchsorted(users, pairs["user_id"])
    matrix = sp.csr_matrix((np.ones(len(pairs)), (rows, pairs["item_id"])), shape=(len(users), 50))
    return rankmeter.interactions(matrix, users=users)


def _csv(pairs: pd.DataFrame, tmp_path: Path) -> Path:
    path = tmp_path / "seen.csv"
    pairs.assign(timestamp=0).to_csv(path, index=False)  # another column, not read
    return path


@pytest.mark.parametrize("form", ["frame", "dict of sets", "dict of lists", "sparse", "csv path", "qrels"])
def test_exclude_equals_removing_the_rows_by_hand(form, tmp_path) -> None:
    recs = rank_frame(S.top, S.users)
    exclude = {
        "frame": lambda: SEEN,
        "dict of sets": lambda: _sets(SEEN),
        "dict of lists": lambda: {u: sorted(v) for u, v in _sets(SEEN).items()},
        "sparse": lambda: _sparse(SEEN),
        "csv path": lambda: _csv(SEEN, tmp_path),
        "qrels": lambda: rankmeter.Qrels(SEEN["user_id"].astype(str), SEEN["item_id"].astype(str), np.ones(len(SEEN))),
    }[form]()
    got = rankmeter.evaluate(S.test, recs, MEASURES, exclude=exclude, empty="skip")
    expected = _by_hand(S.test, recs, SEEN)
    # users whose judged items were all removed stay, left out by empty="skip"; the others are the hand values
    kept = got.included.any(axis=1)
    assert got.query_ids[kept].tolist() == expected.query_ids.tolist()
    np.testing.assert_array_equal(got.values[kept], expected.values)
    assert got.aggregate == pytest.approx(expected.aggregate, abs=1e-15)
    assert got.metadata["semantics"]["candidates"] == "exclude"


def test_counts_account_for_every_removed_row() -> None:
    recs = rank_frame(S.top, S.users)
    got = rankmeter.evaluate(S.test, recs, MEASURES, exclude=SEEN)
    counts = got.metadata["candidates"]
    assert counts["exclude_pairs"] == len(SEEN)
    assert counts["exclude_users_unknown"] == 1  # user 999
    assert counts["run_rows_excluded"] == len(recs) - len(_without(recs, SEEN))
    assert counts["qrels_rows_excluded"] == len(S.test) - len(_without(S.test, SEEN))
    relevant_before = set(S.test["user_id"])
    relevant_after = set(_without(S.test, SEEN)["user_id"])
    assert counts["users_left_without_relevant"] == len(relevant_before - relevant_after) > 0
    assert got.metadata["queries_empty"] == counts["users_left_without_relevant"]
    assert counts["run_rows_not_candidates"] == counts["qrels_rows_not_candidates"] == 0


def test_exclude_removes_from_the_ideal_hand_computed() -> None:
    """u's truth: a, b, c; b was seen in training. The list b, a, x, c becomes a, x, c against truth a, c."""
    truth = pd.DataFrame({"user_id": ["u"] * 3, "item_id": ["a", "b", "c"]})
    seen = pd.DataFrame({"user_id": ["u"], "item_id": ["b"]})
    recs = {"u": ["b", "a", "x", "c"]}
    res = rankmeter.evaluate(truth, recs, ["r@2", "p@2", "rr", "ndcg@3", "map"], exclude=seen)
    assert res["r@2"] == 0.5
    assert res["p@2"] == 0.5
    assert res["rr"] == 1.0
    assert res["ndcg@3"] == pytest.approx((1 + 1 / np.log2(4)) / (1 + 1 / np.log2(3)), abs=1e-15)
    assert res["map"] == pytest.approx((1 / 1 + 2 / 3) / 2, abs=1e-15)
    plain = rankmeter.evaluate(truth, recs, ["r@2"])
    assert plain["r@2"] == pytest.approx(2 / 3, abs=1e-15)  # b counted as a hit without exclude


@pytest.mark.parametrize("empty", ["zero", "skip", "nan", "one"])
def test_a_user_with_nothing_left_follows_empty(empty) -> None:
    truth = {"u": {"a"}, "v": {"b", "c"}}
    recs = {"u": ["a", "x"], "v": ["b", "y"]}
    res = rankmeter.evaluate(truth, recs, ["r@2", "ndcg@2"], exclude={"v": ["b", "c"]}, empty=empty)
    assert res.metadata["candidates"]["users_left_without_relevant"] == 1
    assert res.metadata["queries_empty"] == 1
    v = {"zero": 0.0, "one": 1.0, "nan": None, "skip": None}[empty]
    if v is None:
        assert res["r@2"] == 1.0  # u alone
    else:
        assert res.by_query("r@2") == {"u": 1.0, "v": v}
        assert res["r@2"] == (1.0 + v) / 2


def test_empty_error_names_the_user() -> None:
    with pytest.raises(PolicyError, match=r"v"):
        rankmeter.evaluate(
            {"u": {"a"}, "v": {"b"}}, {"u": ["a"], "v": ["b"]}, "rr", exclude={"v": ["b"]}, empty="error"
        )


def test_candidates_rank_and_judge_only_the_given_items() -> None:
    """One positive and three sampled negatives per user: items outside the candidates are neither ranked nor judged."""
    truth = {"u": {"p", "q"}, "v": {"r"}}
    candidates = {"u": ["p", "n1", "n2", "n3"], "v": ["r", "n1", "n4", "n5"]}
    recs = {"u": ["q", "n2", "p", "n1", "n3"], "v": ["x", "n4", "r"]}
    res = rankmeter.evaluate(truth, recs, ["rr", "r@1", "ndcg@4"], candidates=candidates)
    # u: q is no candidate, so the ranking is n2, p, n1, n3 with p the only relevant item; v: x leaves, n4, r
    assert res.by_query("rr") == {"u": 0.5, "v": 0.5}
    assert res.by_query("r@1") == {"u": 0.0, "v": 0.0}
    assert res["ndcg@4"] == pytest.approx(1 / np.log2(3), abs=1e-15)
    counts = res.metadata["candidates"]
    assert res.metadata["semantics"]["candidates"] == "given"
    assert counts["run_rows_not_candidates"] == 2 and counts["qrels_rows_not_candidates"] == 1
    both = rankmeter.evaluate(truth, recs, ["rr"], candidates=candidates, exclude={"u": ["n2"]})
    assert both.by_query("rr") == {"u": 1.0, "v": 0.5}
    assert both.metadata["semantics"]["candidates"] == "given, exclude"


def test_users_without_a_candidate_list_are_counted() -> None:
    res = rankmeter.evaluate({"u": {"a"}, "v": {"b"}}, {"u": ["a"], "v": ["b"]}, "rr", candidates={"u": ["a"]})
    assert res.metadata["candidates"]["users_without_candidates"] == 1
    assert res.by_query("rr") == {"u": 1.0, "v": 0.0}


def test_many_runs_with_exclude_equal_each_alone() -> None:
    runs = {"model": as_dict(S.top, S.users), "reversed": as_dict(S.top[:, ::-1], S.users)}
    both = rankmeter.evaluate(S.test, runs, MEASURES, exclude=SEEN, workers=1)
    for name, run in runs.items():
        alone = rankmeter.evaluate(S.test, run, MEASURES, exclude=SEEN)
        np.testing.assert_array_equal(both[name].values, alone.values)
        assert both[name].metadata["candidates"] == alone.metadata["candidates"]


def _trec(path: Path, recs: pd.DataFrame) -> Path:
    lines = [
        f"{u} Q0 {i} {r} {-float(r)} model\n"
        for u, i, r in recs.sort_values(["user_id", "rank"]).itertuples(index=False)
    ]
    path.write_text("".join(lines))
    return path


def test_a_run_file_read_in_blocks_keeps_the_exclude(tmp_path, monkeypatch) -> None:
    """A run file large enough to be streamed is streamed with the pairs removed block by block: the same values."""
    recs = rank_frame(S.top, S.users)
    path = _trec(tmp_path / "run.txt", recs)
    monkeypatch.setattr(load, "BLOCK_BYTES", 256)
    assert load.run_file_in_blocks(path)
    got = rankmeter.evaluate(S.test, path, MEASURES, exclude=SEEN)
    expected = rankmeter.evaluate(S.test, recs, MEASURES, exclude=SEEN)
    np.testing.assert_array_equal(got.values, expected.values)
    assert got.metadata["candidates"]["run_rows_excluded"] == expected.metadata["candidates"]["run_rows_excluded"] > 0


def test_cli_exclude_end_to_end(tmp_path, capsys) -> None:
    test, recs, seen = tmp_path / "test.csv", tmp_path / "recs.csv", tmp_path / "seen.csv"
    S.test.to_csv(test, index=False)
    rank_frame(S.top, S.users).to_csv(recs, index=False)
    SEEN.to_csv(seen, index=False)
    assert main(["evaluate", str(test), str(recs), "-m", "r@20", "-m", "rr@10", "--exclude", str(seen),
                 "--format", "json"]) == 0  # fmt: skip
    import json

    data = json.loads(capsys.readouterr().out)
    expected = rankmeter.evaluate(S.test, rank_frame(S.top, S.users), ["r@20", "rr@10"], exclude=SEEN)
    assert data["aggregate"]["r@20"] == pytest.approx(expected["r@20"], abs=1e-15)
    assert data["metadata"]["candidates"] == expected.metadata["candidates"]
    run_file = _trec(tmp_path / "run.txt", rank_frame(S.top, S.users))
    assert main(["evaluate", str(test), str(run_file), "-m", "r@20", "--exclude", str(seen)]) == 0
    table = capsys.readouterr().out
    assert f"{expected['r@20']:.4f}" in table
    c = expected.metadata["candidates"]
    assert (
        f"candidates=exclude (removed {c['run_rows_excluded']} run rows, {c['qrels_rows_excluded']} qrels rows" in table
    )


def test_cli_exclude_with_stream(tmp_path, capsys) -> None:
    """``--stream`` with ``--exclude`` / ``--candidates``: the values and counts of the run read whole."""
    import json

    test, seen, given = tmp_path / "test.csv", tmp_path / "seen.csv", tmp_path / "given.csv"
    S.test.to_csv(test, index=False)
    SEEN.to_csv(seen, index=False)
    recs = rank_frame(S.top, S.users)
    recs[recs["rank"] <= 8][["user_id", "item_id"]].to_csv(given, index=False)
    run_file = _trec(tmp_path / "run.txt", recs)
    for extra in (
        ["--exclude", str(seen)],
        ["--candidates", str(given)],
        ["--exclude", str(seen), "--candidates", str(given)],
    ):
        outputs = []
        for stream_args in ([], ["--stream", "--block-mb", "1"]):
            argv = ["evaluate", str(test), str(run_file), "-m", "r@5", "-m", "rr", "--per-query", "--format", "json"]
            assert main([*argv, *extra, *stream_args]) == 0
            outputs.append(json.loads(capsys.readouterr().out))
        whole, streamed = outputs
        assert streamed["per_query"] == whole["per_query"]
        assert streamed["aggregate"] == whole["aggregate"]
        assert streamed["metadata"]["candidates"] == whole["metadata"]["candidates"]
        assert streamed["metadata"]["semantics"]["candidates"] == whole["metadata"]["semantics"]["candidates"]


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_evaluate_stream_exclude_and_candidates_equal_the_run_read_whole(tmp_path, missing: str) -> None:
    """Blocks of a few queries: every value and count equals the in-memory call's, users left with no run row too."""
    recs = rank_frame(S.top, S.users)
    path = _trec(tmp_path / "run.txt", recs)
    gone = recs[recs["user_id"] == S.users[1]][["user_id", "item_id"]]  # every run row of a user
    pairs = pd.concat([SEEN, gone], ignore_index=True)
    given = recs[recs["rank"] <= 8][["user_id", "item_id"]]
    for kwargs in ({"exclude": pairs}, {"candidates": given}, {"exclude": pairs, "candidates": given}):
        got = streaming.evaluate_stream(S.test, path, MEASURES, block_bytes=300, missing=missing, **kwargs)
        want = rankmeter.evaluate(S.test, path, MEASURES, missing=missing, **kwargs)
        assert [str(q) for q in got.query_ids] == [str(q) for q in want.query_ids]
        np.testing.assert_array_equal(got.values, want.values)
        assert got.metadata["candidates"] == want.metadata["candidates"]
        assert got.metadata["semantics"]["candidates"] == want.metadata["semantics"]["candidates"]
        assert got.metadata["queries_missing"] == want.metadata["queries_missing"]
    assert got.metadata["candidates"]["run_rows_excluded"] > len(gone)


# -- errors, one test per message -------------------------------------------------------------------------------


def test_exclude_table_without_an_item_column() -> None:
    with pytest.raises(
        InputFormatError,
        match=re.escape(
            "table has no column for doc_id (looked for 'doc_id', 'docno', 'docid', 'item_id'; columns: "
            "user_id, movie); pass exclude_columns={'doc_id': '<name>'}"
        ),  # fmt: skip
    ):
        rankmeter.evaluate(S.test, as_dict(S.top, S.users), "rr", exclude=pd.DataFrame({"user_id": [1], "movie": [2]}))


def test_exclude_of_a_bare_sparse_matrix() -> None:
    with pytest.raises(
        InputFormatError,
        match=re.escape(
            "cannot read exclude= from csr_matrix: a sparse matrix needs its ids: pass rankmeter.interactions("
        ),
    ):
        rankmeter.evaluate(S.test, as_dict(S.top, S.users), "rr", exclude=sp.csr_matrix((2, 2)))


def test_exclude_with_diversity_measures() -> None:
    with pytest.raises(PolicyError, match=re.escape("exclude= and candidates= do not apply to diversity measures")):
        rankmeter.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, "alpha_ndcg@5", exclude={"q": ["d"]})


def test_counts_with_categorical_ids_holding_unused_categories() -> None:
    """Dictionary-encoded ids may list users no row has: they are neither unknown users nor users left empty."""
    cats = pd.CategoricalDtype(["u", "v", "w", "ghost"])
    truth = pd.DataFrame({"user_id": pd.Series(["u", "v", "v"], dtype=cats), "item_id": ["a", "b", "c"]})
    seen = pd.DataFrame({"user_id": pd.Series(["u", "w"], dtype=cats), "item_id": ["a", "z"]})
    res = rankmeter.evaluate(truth, {"u": ["a"], "v": ["b"]}, "rr", exclude=seen)
    assert res.metadata["candidates"]["exclude_users_unknown"] == 1  # w
    assert res.metadata["candidates"]["users_left_without_relevant"] == 1  # u
    assert res.by_query("rr") == {"u": 0.0, "v": 1.0}


def test_compare_takes_exclude_through_evaluate_options() -> None:
    runs = {"a": as_dict(S.top, S.users), "b": as_dict(S.top[:, ::-1], S.users)}
    comparison = rankmeter.compare(S.test, runs, ["r@10"], evaluate_options={"exclude": SEEN})
    for name, run in runs.items():
        assert comparison.system(name, "r@10").mean == rankmeter.evaluate(S.test, run, "r@10", exclude=SEEN)["r@10"]


def test_cli_exclude_with_several_runs(tmp_path, capsys) -> None:
    test, seen = tmp_path / "test.csv", tmp_path / "seen.csv"
    S.test.to_csv(test, index=False)
    SEEN.to_csv(seen, index=False)
    a = _trec(tmp_path / "a.txt", rank_frame(S.top, S.users))
    b = _trec(tmp_path / "b.txt", rank_frame(S.top[:, ::-1], S.users))
    argv = ["evaluate", str(test), str(a), str(b), "-m", "r@20", "--exclude", str(seen), "--format", "json"]
    assert main([*argv, "--workers", "1"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    for name, top in (("a", S.top), ("b", S.top[:, ::-1])):
        expected = rankmeter.evaluate(S.test, rank_frame(top, S.users), "r@20", exclude=SEEN)["r@20"]
        assert data["aggregate"][name]["r@20"] == pytest.approx(expected, abs=1e-15)


ids = st.sampled_from(["1", "2", "3", "10", "x", "é"])


@settings(max_examples=60, deadline=None)
@given(
    truth=st.dictionaries(ids, st.dictionaries(ids, st.integers(0, 3), min_size=1, max_size=5), min_size=1, max_size=5),
    seen=st.dictionaries(ids, st.sets(ids, max_size=4), max_size=5),
    lists=st.dictionaries(ids, st.lists(ids, unique=True, max_size=6), max_size=5),
)
def test_exclude_equals_removal_by_hand_on_random_splits(truth, seen, lists) -> None:
    """For any truth, seen pairs and ranked lists: the values of users with a judgment left are those of the
    rows removed by hand; the others are empty; every count matches."""
    measures = ["ndcg@3", "r@2", "map", "rr", "p@2", "bpref"]
    got = rankmeter.evaluate(truth, lists, measures, exclude=seen, empty="nan")
    kept_truth = {u: {i: g for i, g in d.items() if i not in seen.get(u, set())} for u, d in truth.items()}
    kept_truth = {u: d for u, d in kept_truth.items() if d}
    kept_lists = {
        u: {i: -float(r) for r, i in enumerate(items) if i not in seen.get(u, set())} for u, items in lists.items()
    }
    by_hand = rankmeter.evaluate(kept_truth, kept_lists, measures, empty="nan") if kept_truth else None
    for user in truth:
        row = got.query_ids.tolist().index(user)
        relevant_left = any(g > 0 for g in kept_truth.get(user, {}).values())
        if relevant_left:
            assert by_hand is not None
            other = by_hand.query_ids.tolist().index(user)
            np.testing.assert_array_equal(got.values[row], by_hand.values[other])
        else:
            assert np.isnan(got.values[row]).all()
    counts = got.metadata["candidates"]
    assert counts["run_rows_excluded"] == sum(i in seen.get(u, set()) for u, items in lists.items() for i in items)
    assert counts["qrels_rows_excluded"] == sum(i in seen.get(u, set()) for u, d in truth.items() for i in d)
    assert counts["exclude_users_unknown"] == len({u for u, items in seen.items() if items} - set(truth))
    had = {u for u, d in truth.items() if any(g > 0 for g in d.values())}
    has = {u for u, d in kept_truth.items() if any(g > 0 for g in d.values())}
    assert counts["users_left_without_relevant"] == len(had - has)
