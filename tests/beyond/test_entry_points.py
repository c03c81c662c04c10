"""Beyond-accuracy measures from dense scores and embeddings equal the same top-k lists given to evaluate; list-set
values per segment and from merged partial states."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import rankmeter
from rankmeter.errors import InputFormatError, InvalidScoreError, PolicyError
from rankmeter.io.recsys import run_from_lists
from rankmeter.measures import parse
from rankmeter.measures.kernels.beyond_lists import ListsContext
from rankmeter.measures.kernels.list_sets import ListSetState, finish, partial

N_USERS, N_ITEMS = 9, 11
IDS = [f"i{j:02d}" for j in range(N_ITEMS)]
MEASURES = ["catalog_coverage@[3,5]", "entropy@3", "recbole_entropy@3", "gini@3", "personalization@3",
            "personalization(metric=jaccard)@3", "novelty@3", "ms_novelty@3", "ild@3", "arp@3", "aplt@3", "aclt@3",
            "pop_recall@3", "ms_serendipity@3", "exposure(group=g0)@3", "exposure_ratio(attention=cascade)@3",
            "exposure_diff@3"]  # fmt: skip


def _items(rng: np.random.Generator) -> rankmeter.Items:
    train = {f"t{u}": list(rng.choice(IDS, size=3, replace=False)) for u in range(6)}
    return rankmeter.Items(interactions=train, features=rng.normal(size=(N_ITEMS, 4)), catalog=IDS,
                           groups=[f"g{j % 3}" for j in range(N_ITEMS)])  # fmt: skip


def _data(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Grades, integer scores with ties (never straddling a cutoff under ties="stable"/"trec"), removed items."""
    rng = np.random.default_rng(seed)
    y = (rng.random((N_USERS, N_ITEMS)) < 0.3).astype(np.float64)
    s = rng.integers(0, 4, (N_USERS, N_ITEMS)).astype(np.float64)
    removed = rng.random((N_USERS, N_ITEMS)) < 0.2
    return y, s, removed


def _as_lists(y: np.ndarray, s: np.ndarray, keep: np.ndarray, users: list[str]) -> tuple[dict, dict]:
    """The truth and the run of the same matrices as dicts, items in column order (the list path's input)."""
    run = {u: {IDS[j]: s[i, j] for j in range(N_ITEMS) if keep[i, j]} for i, u in enumerate(users)}
    truth = {u: {IDS[j]: y[i, j] for j in range(N_ITEMS) if keep[i, j] and y[i, j] > 0} for i, u in enumerate(users)}
    return {u: t for u, t in truth.items() if t}, {u: r for u, r in run.items() if r}


def _same(got: rankmeter.EvaluationResult, want: rankmeter.EvaluationResult, names: list[str]) -> None:
    for name in names:
        assert got[name] == pytest.approx(want[name], rel=1e-12, abs=1e-12, nan_ok=True), name
    per_user = [n for n in names if n not in got.metadata["list_set_measures"]]
    for name in per_user:
        assert got.by_query(name) == pytest.approx(want.by_query(name), rel=1e-12, abs=1e-12), name


@pytest.mark.parametrize("ties", ["stable", "trec"])
@pytest.mark.parametrize("seed", [0, 1])
def test_dense_scores_equal_the_list_path(seed: int, ties: str) -> None:
    y, s, removed = _data(seed)
    items = _items(np.random.default_rng(seed))
    got = rankmeter.evaluate_arrays(y, s, MEASURES, items=items, exclude=removed, ties=ties)
    truth, run = _as_lists(y, s, ~removed, [str(i) for i in range(N_USERS)])
    want = rankmeter.evaluate(truth, run, MEASURES, items=items, ties=ties)
    names = [str(x) for m in MEASURES for x in parse(m).expand()]
    _same(got, want, names)
    assert got.query_ids.tolist() == [str(i) for i in range(N_USERS)]  # row order
    assert got.metadata["items_excluded"] == int(removed.sum())
    undefined = got.metadata["queries_undefined"]
    assert undefined["ms_serendipity@3"] == N_USERS  # no user of the lists has a training item (t0, t1, ...)
    assert undefined.get("pop_recall@3", 0) == int((((y > 0) & ~removed).sum(axis=1) == 0).sum())  # none relevant
    assert undefined == want.metadata["queries_undefined"]


def test_dense_ties_follow_the_tie_policy_of_the_list_path() -> None:
    # row 0: items 1, 2 and 3 tie for the top 2; stable keeps columns 1 and 2, trec the ids i03 and i02
    s = np.array([[0.1, 0.5, 0.5, 0.5]])
    items = rankmeter.Items(interactions={"t": ["i01"]}, catalog=IDS[:4])
    stable = rankmeter.evaluate_arrays([[0, 0, 0, 0]], s, "aclt(tail_max=0)@2", items=items, ties="stable")
    trec = rankmeter.evaluate_arrays([[0, 0, 0, 0]], s, "aclt(tail_max=0)@2", items=items, ties="trec")
    assert stable.by_query("aclt(tail_max=0)@2") == {"0": 1.0}  # i01 (seen once) and i02
    assert trec.by_query("aclt(tail_max=0)@2") == {"0": 2.0}  # i03 and i02, both unseen
    with pytest.raises(PolicyError, match=re.escape("user '0': tied items straddle the cutoff")):
        rankmeter.evaluate_arrays([[0, 0, 0, 0]], s, "aclt@2", items=items)  # ties="expected", the default


def test_dense_accuracy_and_beyond_in_one_call_keep_the_rows() -> None:
    y, s, removed = _data(2)
    items = _items(np.random.default_rng(2))
    both = rankmeter.evaluate_arrays(y, s, ["ndcg@3", "novelty@3", "gini@3"], items=items, mask=~removed, ties="stable")
    alone = rankmeter.evaluate_arrays(y, s, "ndcg@3", mask=~removed, ties="stable")
    assert both["ndcg@3"] == alone["ndcg@3"] and both.by_query("ndcg@3") == alone.by_query("ndcg@3")
    assert both.query_ids.tolist() == alone.query_ids.tolist()
    assert both.metadata["list_set_measures"] == ["gini@3"]
    first = rankmeter.evaluate_arrays(
        y, s, ["novelty@3", "gini@3", "ndcg@3"], items=items, mask=~removed, ties="stable"
    )
    assert first.measure_names == ["novelty@3", "ndcg@3"] and list(first.aggregate) == ["novelty@3", "gini@3", "ndcg@3"]


def test_dense_columns_are_the_catalogue_without_one() -> None:
    res = rankmeter.evaluate_arrays([[0, 1, 0], [1, 0, 0]], [[3, 2, 1], [3, 2, 1]], "catalog_coverage@1",
                                    items=rankmeter.Items())  # fmt: skip
    assert res["catalog_coverage@1"] == 1 / 3  # column 0 of three columns


@pytest.mark.parametrize("seed", [0, 3])
def test_embeddings_equal_the_list_path(seed: int) -> None:
    rng = np.random.default_rng(seed)
    users = rng.integers(-2, 3, (N_USERS, 3)).astype(np.float64)
    vectors = rng.integers(-2, 3, (N_ITEMS, 3)).astype(np.float64)  # integer products: many exact ties
    y = (rng.random((N_USERS, N_ITEMS)) < 0.3).astype(np.float64)
    seen = rng.random((N_USERS, N_ITEMS)) < 0.2
    uids = [f"u{i}" for i in range(N_USERS)]
    items = _items(rng)
    measures = [m for m in MEASURES if "exposure(" not in m]
    got = rankmeter.evaluate_embeddings(users, vectors, sp.csr_array(y), measures, items=items, exclude=sp.csr_array(seen),
                                        user_ids=uids, item_ids=IDS, ties="trec", batch_size=2)  # fmt: skip
    truth, run = _as_lists(y, users @ vectors.T, ~seen, uids)
    want = rankmeter.evaluate(truth, run, measures, items=items, ties="trec")
    _same(got, want, [str(x) for m in measures for x in parse(m).expand()])


def test_embeddings_without_item_ids_name_items_by_index() -> None:
    res = rankmeter.evaluate_embeddings([[1.0, 0.0]], [[3.0, 0.0], [1.0, 1.0], [0.0, 2.0]], sp.csr_array([[0, 1, 0]]),
                                        ["catalog_coverage@2", "r@2"], items=rankmeter.Items(), ties="trec")  # fmt: skip
    assert res["catalog_coverage@2"] == 2 / 3 and res["r@2"] == 1.0


def test_list_set_values_per_segment_are_those_of_the_segments_lists() -> None:
    recs = {"u1": ["a", "c", "e"], "u2": ["b", "a", "f"], "u3": ["e", "b", "f"], "u4": ["a", "b", "c"]}
    items = rankmeter.Items(catalog=list("abcdef"), groups=list("xxyyyy"))
    measures = ["catalog_coverage@3", "entropy@3", "gini@3", "personalization@3", "exposure_ratio@3"]
    segments = {"u1": "s", "u2": "s", "u3": "t", "u4": "t"}
    res = rankmeter.evaluate(None, recs, measures, items=items, group_by=segments)
    for label in ("s", "t"):
        alone = rankmeter.evaluate(None, {u: r for u, r in recs.items() if segments[u] == label}, measures, items=items)
        for m in measures:
            assert res.by_group(m)[label] == pytest.approx(alone[m], abs=1e-12)
    # written out: segment s recommends a, b, c, e, f (a twice) of six items; its lists share a
    assert res.by_group("catalog_coverage@3")["s"] == 5 / 6
    assert res.by_group("personalization@3")["s"] == pytest.approx(1 - 1 / 3)
    rows = [r for r in res.group_rows() if r["measure"] == "gini@3"]
    assert [(r["segment"], r["n_queries"]) for r in rows] == [("s", 2), ("t", 2)]


def test_dense_list_set_values_per_segment() -> None:
    res = rankmeter.evaluate_arrays([[0, 1, 0], [1, 0, 0], [0, 0, 1]], [[3, 2, 1], [3, 2, 1], [1, 2, 3]],
                                    "catalog_coverage@1", items=rankmeter.Items(), group_by=["a", "a", "b"])  # fmt: skip
    assert res.by_group("catalog_coverage@1") == {"a": 1 / 3, "b": 1 / 3}


def test_merged_partial_states_equal_the_whole() -> None:
    rng = np.random.default_rng(5)
    lists = {f"u{u}": list(rng.choice(IDS, size=rng.integers(1, 5), replace=False)) for u in range(12)}
    items = _items(rng)
    ctx = ListsContext.build(run_from_lists(lists), 4, items=items, truth=None)
    parts = [ctx.subset(np.arange(a, min(a + 5, 12))) for a in range(0, 12, 5)]
    for text in ["catalog_coverage@4", "entropy@3", "recbole_entropy@4", "gini@4", "personalization@4",
                 "ms_novelty@2", "exposure_ratio@4", "exposure_diff(attention=rbp)@3"]:  # fmt: skip
        m = parse(text)
        k = m.cutoffs[0]
        whole = finish(partial(ctx, m, k), m, items)
        merged = finish(ListSetState.merged([partial(p, m, k) for p in parts]), m, items)
        assert merged == pytest.approx(whole, abs=1e-12), text
    # personalization with k items in every list: w_i = c_i / sqrt(k), so 1 - (sum c_i^2 / k - U) / (U (U - 1))
    full = {u: items_[:2] for u, items_ in lists.items() if len(items_) >= 2}
    ctx2 = ListsContext.build(run_from_lists(full), 2, items=items)
    c = np.unique(np.concatenate(list(full.values())), return_counts=True)[1]
    n = len(full)
    value = finish(partial(ctx2, parse("personalization@2"), 2), parse("personalization@2"), items)
    assert math.isclose(value, 1 - (float((c**2).sum()) / 2 - n) / (n * (n - 1)))
    # no part at all: no item, no list, so coverage 0 and no Gini
    empty = ListSetState.merged([])
    assert (empty.ids.tolist(), empty.sums.tolist(), empty.users) == ([], [], 0)
    assert finish(empty, parse("catalog_coverage@2"), items) == 0.0
    assert math.isnan(finish(empty, parse("gini@2"), items))
    assert finish(empty, parse("exposure_diff@2"), items) == 0.0  # every group's mean exposure is 0


# bad input: one test per message


def test_jaccard_personalization_has_no_partial_state() -> None:
    ctx = ListsContext.build(run_from_lists({"u": ["a"]}), 1, items=rankmeter.Items(catalog=["a"]))
    with pytest.raises(PolicyError, match=re.escape("Jaccard personalization is not a sum over the lists")):
        partial(ctx, parse("personalization(metric=jaccard)@1"), 1)


def test_dense_items_catalogue_must_name_every_column() -> None:
    with pytest.raises(InputFormatError, match=re.escape("items=: the catalogue has 2 items but the scores have 3")):
        rankmeter.evaluate_arrays([[0, 1, 0]], [[3, 2, 1]], "gini@1", items=rankmeter.Items(catalog=["a", "b"]))


def test_embeddings_item_ids_and_catalogue_must_agree() -> None:
    with pytest.raises(InputFormatError, match=re.escape("items=: item 'b' is in one of item_ids and Items(catalog=")):
        rankmeter.evaluate_embeddings([[1.0]], [[1.0], [2.0]], sp.csr_array([[1, 0]]), "gini@1", item_ids=["a", "b"],
                                      items=rankmeter.Items(catalog=["a", "c"]), ties="trec")  # fmt: skip


def test_dense_items_must_be_items() -> None:
    with pytest.raises(InputFormatError, match=re.escape("items= must be rankmeter.Items(...), got dict")):
        rankmeter.evaluate_arrays([[0, 1]], [[2, 1]], "gini@1", items={"a": 1})


def test_dense_items_refuse_sample_weight() -> None:
    with pytest.raises(
        PolicyError, match=re.escape("items=: the beyond-accuracy measures read each row's top-k list;")
    ):
        rankmeter.evaluate_arrays([[0, 1]], [[2, 1]], "gini@1", items=rankmeter.Items(), sample_weight=[2.0])


def test_dense_items_refuse_shuffled_ties() -> None:
    with pytest.raises(PolicyError, match=re.escape("items=: ties='shuffle' is not available for the top-k lists")):
        rankmeter.evaluate_arrays([[0, 1]], [[2, 1]], "gini@1", items=rankmeter.Items(), ties="shuffle", seed=1)


def test_dense_items_refuse_scores_that_are_not_finite() -> None:
    with pytest.raises(InvalidScoreError, match="nan"):
        rankmeter.evaluate_arrays([[0, 1]], [[np.nan, 1]], "gini@1", items=rankmeter.Items(), ties="trec")


def test_embedding_scores_that_overflow_are_located() -> None:
    big = np.full((1, 1), 1e200)
    with pytest.raises(InvalidScoreError, match=re.escape("the scores of users 0-0 are not all finite")):
        rankmeter.evaluate_embeddings(big, big, sp.csr_array([[1]]), "gini@1", items=rankmeter.Items(), ties="trec")


def test_partial_state_of_a_per_user_measure_is_refused() -> None:
    ctx = ListsContext.build(run_from_lists({"u": ["a"]}), 1, items=rankmeter.Items(catalog=["a"]))
    with pytest.raises(PolicyError, match=re.escape("novelty@1: not a list-set measure")):
        partial(ctx, parse("novelty@1"), 1)


def test_list_set_intervals_per_segment() -> None:
    from rankmeter.beyond import list_set_intervals

    recs = {"u1": ["a"], "u2": ["b"], "u3": ["c"], "u4": ["a"]}
    res = rankmeter.evaluate(None, recs, "catalog_coverage@1", items=rankmeter.Items(catalog="abcd"),
                             group_by={"u1": "x", "u2": "x", "u3": "y", "u4": "y"})  # fmt: skip
    rows = {r["segment"]: r for r in list_set_intervals(res, n_resamples=300, seed=1, method="bootstrap")}
    assert rows["all"]["value"] == 3 / 4 and rows["x"]["value"] == rows["y"]["value"] == 2 / 4
    # a resample of two users covers one or two items: the quantiles are 1/4 and 2/4
    assert (rows["x"]["ci_low"], rows["x"]["ci_high"], rows["x"]["n_lists"]) == (0.25, 0.5, 2)
    again = {r["segment"]: r for r in list_set_intervals(res, n_resamples=300, seed=1, method="bootstrap")}
    assert again == rows  # seeded


def test_list_set_jackknife_per_segment() -> None:
    from rankmeter.beyond import list_set_intervals

    recs = {"u1": ["a"], "u2": ["b"], "u3": ["c"], "u4": ["a"]}
    res = rankmeter.evaluate(None, recs, "catalog_coverage@1", items=rankmeter.Items(catalog="abcd"),
                             group_by={"u1": "x", "u2": "x", "u3": "y", "u4": "y"})  # fmt: skip
    rows = {r["segment"]: r for r in list_set_intervals(res, n_resamples=400, seed=1)}
    # all: d = 1, a subset keeps 3 of the 4 users and covers 3/4 (dropping u1 or u4) or 2/4 (u2, u3):
    # Var = 1/64 (over the draws), v = 3 Var; the interval is 3/4 -/+ 1.96 sqrt(v), bounded to coverage's [0, 1]
    half = 1.959964 * np.sqrt(3 * np.var([0.75, 0.5] * 2, ddof=0))
    assert rows["all"]["ci_low"] == pytest.approx(0.75 - half, abs=0.02)
    assert 0.75 + half > 1 and rows["all"]["ci_high"] == 1.0
    assert rows["all"]["method"] == "jackknife"
    # a segment of two users: d = 1, a subset is one user covering 1/4: no spread, the interval is the value
    assert (rows["x"]["ci_low"], rows["x"]["ci_high"], rows["x"]["value"]) == (0.5, 0.5, 0.5)


def test_list_set_intervals_method_is_checked() -> None:
    from rankmeter.beyond import list_set_intervals

    res = rankmeter.evaluate(None, {"u": ["a"]}, "gini@1", items=rankmeter.Items(catalog="ab"))
    with pytest.raises(PolicyError, match=re.escape("list_set_intervals: method must be one of ('jackknife', 'boot")):
        list_set_intervals(res, method="bca")


def test_list_set_intervals_need_the_lists() -> None:
    from rankmeter.beyond import list_set_intervals

    res = rankmeter.evaluate(
        {"u": {"a": 1}}, {"u": ["a"]}, "novelty@1", items=rankmeter.Items(interactions={"x": ["a"]})
    )
    with pytest.raises(PolicyError, match=re.escape("list_set_intervals: this result holds no lists to resample")):
        list_set_intervals(res)


def test_list_set_intervals_level_is_checked() -> None:
    from rankmeter.beyond import list_set_intervals

    res = rankmeter.evaluate(None, {"u": ["a"]}, "gini@1", items=rankmeter.Items(catalog="ab"))
    with pytest.raises(PolicyError, match=re.escape("list_set_intervals: level must be in (0, 1), got 95")):
        list_set_intervals(res, level=95)


@settings(max_examples=40, deadline=None)
@given(
    scores=arrays(np.float64, (4, 6), elements=st.integers(0, 3).map(float)),
    removed=arrays(bool, (4, 6)),
    k=st.integers(1, 7),
    ties=st.sampled_from(["stable", "trec"]),
)
def test_dense_lists_are_the_list_paths_for_any_ties(
    scores: np.ndarray, removed: np.ndarray, k: int, ties: str
) -> None:
    items = rankmeter.Items(interactions={"t": ["i01", "i03"], "v": ["i01"]}, catalog=IDS[:6], groups=list("xyxyxy"))
    measures = [f"catalog_coverage@{k}", f"gini@{k}", f"personalization@{k}", f"novelty@{k}", f"aclt@{k}",
                f"exposure_ratio@{k}"]  # fmt: skip
    y = np.zeros((4, 6))
    got = rankmeter.evaluate_arrays(y, scores, measures, items=items, exclude=removed, ties=ties)
    run = {str(i): {IDS[j]: scores[i, j] for j in range(6) if not removed[i, j]} for i in range(4)}
    want = rankmeter.evaluate(None, {u: r for u, r in run.items() if r}, measures, items=items, ties=ties)
    _same(got, want, measures)


def test_embeddings_lists_never_hold_the_score_matrix() -> None:
    import tracemalloc

    rng = np.random.default_rng(0)
    n = m = 3000
    users, vectors = rng.normal(size=(n, 4)), rng.normal(size=(m, 4))
    truth = sp.csr_array((rng.random((n, m)) < 0.001).astype(np.float64))
    tracemalloc.start()
    try:
        res = rankmeter.evaluate_embeddings(users, vectors, truth, ["gini@10", "catalog_coverage@10"],
                                            items=rankmeter.Items(), batch_size=100, threads=1)  # fmt: skip
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < n * m * 8 / 2  # the float64 users x items scores alone would take n * m * 8 bytes
    assert res.metadata["users_with_lists"] == n


def test_list_set_intervals_of_one_list() -> None:
    from rankmeter.beyond import list_set_intervals

    res = rankmeter.evaluate(None, {"u": ["a"]}, "catalog_coverage@1", items=rankmeter.Items(catalog="ab"))
    jack = list_set_intervals(res, n_resamples=50)[0]
    boot = list_set_intervals(res, n_resamples=50, method="bootstrap")[0]
    assert jack["value"] == 0.5 and np.isnan(jack["ci_low"]) and np.isnan(jack["ci_high"])  # nothing to leave out
    assert (boot["ci_low"], boot["ci_high"]) == (0.5, 0.5)  # every resample is the one list


def test_lists_alone_record_what_exclude_took_away() -> None:
    res = rankmeter.evaluate(None, {"u1": ["a", "b", "c"], "u2": ["b", "c"]}, "catalog_coverage@1",
                             items=rankmeter.Items(catalog="abcd"), exclude={"u1": ["a"]})  # fmt: skip
    assert res["catalog_coverage@1"] == 1 / 4  # u1's top 1 is b once a is excluded, as u2's
    assert res.metadata["semantics"]["candidates"] == "exclude"
    assert res.metadata["candidates"]["exclude_pairs"] == 1 and res.metadata["candidates"]["run_rows_excluded"] == 1
