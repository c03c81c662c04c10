"""Input forms, invariances and error contracts of evaluate_vectors."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter
from rankmeter import evaluate_arrays
from rankmeter.errors import InputFormatError, InvalidScoreError, MeasureSyntaxError, PolicyError, RankmeterError
from rankmeter.vectors import evaluate_vectors, hamming_distance, relevance_matrix

MEASURES = ["ndcg@[1,10,100]", "ndcg(gain=exp)", "map@50", "map", "p@10", "r@50", "acg@5", "wap@20", "rr"]


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    q = rng.choice([-1, 1], size=(23, 70))
    db = rng.choice([-1, 1], size=(150, 70))
    db[::7] = q[0]  # exact duplicates of a query: ties at distance 0
    ql = (rng.random((23, 6)) < 0.3).astype(int)
    dl = (rng.random((150, 6)) < 0.3).astype(int)
    return q, db, ql, dl


def _run(q, db, ql, dl, **kw):
    return evaluate_vectors(q, db, MEASURES, query_labels=ql, database_labels=dl, **kw)


# --- code forms ------------------------------------------------------------------------------------
def test_packed_binary_and_pm1_codes_agree(data) -> None:
    q, db, ql, dl = data
    ref = _run(q, db, ql, dl)
    binary = _run((q > 0).astype(np.uint8), (db > 0).astype(np.uint8), ql, dl)
    packed8 = _run(np.packbits(q > 0, axis=1), np.packbits(db > 0, axis=1), ql, dl)
    as_bool = _run(q > 0, db > 0, ql, dl)
    assert binary.metadata["codes"] == "binary" and packed8.metadata["codes"] == "packed"
    for other in (binary, packed8, as_bool):
        assert np.array_equal(other.values, ref.values)
    # 70 bits -> 9 bytes; packbits pads with zeros, which never changes a distance
    assert packed8.metadata["bits"] == 72 and ref.metadata["bits"] == 70


def test_uint64_words_agree(data) -> None:
    q, db, ql, dl = data
    pad = lambda x: np.pad(np.packbits(x > 0, axis=1), ((0, 0), (0, 7)))  # noqa: E731 - 16 bytes
    words_q, words_db = pad(q).view(np.uint64), pad(db).view(np.uint64)
    assert words_q.shape == (23, 2)
    assert np.array_equal(_run(words_q, words_db, ql, dl).values, _run(q, db, ql, dl).values)
    assert np.array_equal(hamming_distance(words_q, words_db), hamming_distance(q, db))


def test_packed_uint8_with_only_zero_one_bytes_is_read_as_packed_when_asked() -> None:
    q = np.array([[1, 0]], dtype=np.uint8)  # 2 bytes = 16 bits, bytes happen to be 0/1
    db = np.array([[1, 1], [0, 0]], dtype=np.uint8)
    assert hamming_distance(q, db).tolist() == [[1, 1]]  # read as 2 unpacked bits
    assert hamming_distance(q, db, codes="packed").tolist() == [[1, 1]]
    db2 = np.array([[3, 0], [0, 0]], dtype=np.uint8)  # a byte > 1: the pair is packed
    assert hamming_distance(q, db2).tolist() == [[1, 1]]


def test_hamming_distance_matches_definition(data) -> None:
    q, db, _, _ = data
    assert np.array_equal(hamming_distance(q, db), (q[:, None, :] != db[None, :, :]).sum(axis=2))


# --- labels ----------------------------------------------------------------------------------------
def test_label_forms(data) -> None:
    q, db, _, _ = data
    rng = np.random.default_rng(4)
    cq, cd = rng.integers(0, 5, 23), rng.integers(0, 5, 150)
    as_ints = _run(q, db, cq, cd)
    as_onehot = _run(q, db, np.eye(5)[cq], np.eye(5)[cd], relevance="same_class")
    as_strings = _run(q, db, cq.astype(str), cd.astype(str))
    as_lists = _run(q.tolist(), db.tolist(), cq.tolist(), cd.tolist())
    for other in (as_onehot, as_strings, as_lists):
        assert np.array_equal(other.values, as_ints.values)
    # class vectors: every rule is class equality
    for rule in ("any_shared", "same_class"):
        assert np.array_equal(_run(q, db, cq, cd, relevance=rule).values, as_ints.values)


def test_relevance_rules(data) -> None:
    _, _, ql, dl = data
    shared = relevance_matrix(ql, dl)
    assert np.array_equal(shared, (ql @ dl.T).astype(float))
    assert np.array_equal(relevance_matrix(ql, dl, "any_shared"), (ql @ dl.T > 0).astype(float))
    weights = ql * 0.5
    assert np.allclose(relevance_matrix(weights, dl), 0.5 * shared)


def test_callable_relevance_and_non_integer_grades(data) -> None:
    q, db, ql, dl = data

    def half_shared(a, b):
        return 0.5 * (np.asarray(a) @ np.asarray(b).T)

    res = _run(q, db, ql, dl, relevance=half_shared)
    ref = evaluate_arrays(0.5 * relevance_matrix(ql, dl), -hamming_distance(q, db).astype(float), MEASURES)
    assert np.allclose(res.values, ref.values, atol=1e-12, rtol=0)
    assert res.metadata["relevance"] == "half_shared"
    assert set(res.metadata["paths"].values()) == {"sort"}  # float grades: no integer buckets


def test_integer_valued_label_weights_use_buckets(data) -> None:
    q, db, ql, dl = data
    res = _run(q, db, 2 * ql, dl)
    ref = evaluate_arrays(2 * relevance_matrix(ql, dl), -hamming_distance(q, db).astype(float), MEASURES)
    assert np.allclose(res.values, ref.values, atol=1e-12, rtol=0)
    assert set(res.metadata["paths"].values()) == {"bucket"}


# --- exclude_self and batches ---------------------------------------------------------------------
def test_exclude_self(data) -> None:
    _, db, _, dl = data
    res = evaluate_vectors(db, db, MEASURES, query_labels=dl, database_labels=dl, exclude_self=True)
    mask = ~np.eye(150, dtype=bool)
    ref = evaluate_arrays(relevance_matrix(dl, dl), -hamming_distance(db, db).astype(float), MEASURES, mask=mask)
    assert np.allclose(res.values, ref.values, atol=1e-12, rtol=0)
    kept = evaluate_vectors(db, db, "p@1", query_labels=dl, database_labels=dl)
    dropped = evaluate_vectors(db, db, "p@1", query_labels=dl, database_labels=dl, exclude_self=True)
    labelled = dl.any(axis=1)
    # with itself in the list, a labelled query finds itself first (its duplicates tie with it)
    assert kept["p@1"] > dropped["p@1"]
    assert kept.values[labelled, 0].min() > 0


def test_exclude_self_with_more_queries_than_items() -> None:
    rng = np.random.default_rng(5)
    q, db = rng.choice([-1, 1], size=(6, 8)), rng.choice([-1, 1], size=(4, 8))
    ql, dl = rng.integers(0, 2, 6), rng.integers(0, 2, 4)
    res = evaluate_vectors(q, db, ["ndcg", "p@2"], query_labels=ql, database_labels=dl, exclude_self=True, empty="nan")
    mask = np.ones((6, 4), dtype=bool)
    mask[np.arange(4), np.arange(4)] = False  # queries 4 and 5 keep every item
    ref = evaluate_arrays(
        relevance_matrix(ql, dl), -hamming_distance(q, db).astype(float), ["ndcg", "p@2"], mask=mask, empty="nan"
    )
    assert np.allclose(res.values, ref.values, atol=1e-12, rtol=0, equal_nan=True)


@pytest.mark.parametrize(
    ("metric", "ties"),
    [
        ("hamming", "expected"),
        ("hamming", "pessimistic"),
        ("hamming", "stable"),
        ("hamming", "shuffle"),
        ("cosine", "expected"),
        ("euclidean", "stable"),
        ("inner", "optimistic"),
    ],
)
def test_batch_size_invariance(data, metric: str, ties: str) -> None:
    q, db, ql, dl = data
    if metric != "hamming":
        q, db = q[:, :5] + 0.5 * np.arange(5), db[:, :5] * 1.5
    runs = [
        evaluate_vectors(
            q,
            db,
            MEASURES + ["p(radius=30)"] * (metric == "hamming"),
            query_labels=ql,
            database_labels=dl,
            metric=metric,
            ties=ties,
            seed=9,
            batch_size=bs,
            exclude_self=False,
        )
        for bs in (1, 7, None)
    ]
    for other in runs[1:]:
        assert np.array_equal(other.values, runs[0].values)
        assert other.aggregate == runs[0].aggregate
        for key in ("queries_with_ties", "queries_with_ties_at_cutoff", "queries_empty"):
            assert other.metadata[key] == runs[0].metadata[key]


def test_batch_size_invariance_with_float_grades_and_features() -> None:
    rng = np.random.default_rng(8)
    q, db = rng.standard_normal((70, 6)), rng.standard_normal((90, 6))
    ql, dl = rng.random((70, 4)) * (rng.random((70, 4)) < 0.5), rng.random((90, 4)) * (rng.random((90, 4)) < 0.5)
    runs = [
        evaluate_vectors(
            q, db, ["ndcg@[5,30]", "map", "wap@10"], query_labels=ql, database_labels=dl, metric="cosine", batch_size=bs
        )
        for bs in (1, 7, 64, None)
    ]
    for other in runs[1:]:
        assert np.array_equal(other.values, runs[0].values)


def test_shuffle_is_seeded(data) -> None:
    q, db, ql, dl = data
    a = _run(q, db, ql, dl, ties="shuffle", seed=1)
    b = _run(q, db, ql, dl, ties="shuffle", seed=1)
    c = _run(q, db, ql, dl, ties="shuffle", seed=2)
    assert np.array_equal(a.values, b.values)
    assert not np.array_equal(a.values, c.values)
    assert a.metadata["seed"] == 1


# --- empty queries, metadata, result ------------------------------------------------------------
def test_empty_policies() -> None:
    q = np.array([[1, 1], [1, -1]])
    db = np.array([[1, 1], [1, -1], [-1, -1]])
    ql, dl = np.array([[1, 0], [0, 1]]), np.array([[1, 0], [1, 0], [0, 0]])  # query 1 has no relevant item
    zero = evaluate_vectors(q, db, ["ndcg", "num_q"], query_labels=ql, database_labels=dl)
    assert zero.by_query("ndcg") == {"0": 1.0, "1": 0.0} and zero["ndcg"] == 0.5
    assert zero["num_q"] == 2
    skip = evaluate_vectors(q, db, "ndcg", query_labels=ql, database_labels=dl, empty="skip")
    assert skip.by_query("ndcg") == {"0": 1.0} and skip["ndcg"] == 1.0
    assert zero.metadata["queries_empty"] == 1
    with pytest.raises(PolicyError, match="1 queries have no relevant judged document for ndcg: 1"):
        evaluate_vectors(q, db, "ndcg", query_labels=ql, database_labels=dl, empty="error")


def test_result_exports(data) -> None:
    q, db, ql, dl = data
    res = evaluate_vectors(q, db, ["ndcg@10", "map"], query_labels=ql, database_labels=dl)
    assert res.query_ids.tolist() == [str(i) for i in range(23)]
    assert res.metadata["input"] == "vectors" and res.metadata["metric"] == "hamming"
    assert '"ndcg@10"' in res.to_json()
    assert res.to_csv().startswith("query_id,measure,value\n0,ndcg@10,")
    assert isinstance(res, rankmeter.EvaluationResult)


def test_zero_queries() -> None:
    res = evaluate_vectors(
        np.zeros((0, 4)), np.ones((3, 4)), "ndcg", query_labels=np.zeros((0, 2)), database_labels=np.ones((3, 2))
    )
    assert res.values.shape == (0, 1) and np.isnan(res["ndcg"])


# --- error contracts -----------------------------------------------------------------------------
Q = np.array([[1, -1, 1, 1]])
DB = np.array([[1, 1, 1, 1], [-1, -1, -1, -1]])
QL, DL = np.array([[1, 0]]), np.array([[1, 0], [0, 1]])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"queries": np.array([1, -1, 1, 1])},
            InputFormatError,
            r"queries must have shape \(n, dim\), got shape \(4,\); for one row use queries\[None, :\]",
        ),
        (
            {"database": DB[:, :3]},
            InputFormatError,
            r"queries have 4 code columns \(shape \(1, 4\)\) but database has 3 \(shape \(2, 3\)\)",
        ),
        (
            {"queries": np.array([[1, 0.5, 1, 1]])},
            InputFormatError,
            r"queries: metric='hamming' needs binary codes .* found 0.5 at \[0, 1\]",
        ),
        ({"queries": np.array([[1, -1, 0, 1]])}, InputFormatError, r"found 0 at \[0, 2\]"),
        (
            {"query_labels": np.array([[1, 0], [0, 1]])},
            InputFormatError,
            r"query_labels has 2 rows \(shape \(2, 2\)\) but queries has 1",
        ),
        (
            {"database_labels": np.array([[1, 0, 0], [0, 1, 0]])},
            InputFormatError,
            r"query_labels has 2 label columns \(shape \(1, 2\)\) but database_labels has 3 \(shape \(2, 3\)\)",
        ),
        (
            {"database_labels": np.array([1, 0])},
            InputFormatError,
            r"query_labels has shape \(1, 2\) but database_labels has shape \(2,\)",
        ),
        (
            {"database_labels": np.array([[[1, 0]], [[0, 1]]])},
            InputFormatError,
            r"database_labels must be a multi-hot matrix .* got shape \(2, 1, 2\)",
        ),
        (
            {"database_labels": np.array([[3], [1]]), "query_labels": np.array([[1]])},
            InputFormatError,
            r"database_labels has shape \(2, 1\) with values other than 0/1: for class indices pass a 1-D vector",
        ),
        (
            {"database_labels": np.array([[1, 1], [0, 1]]), "relevance": "same_class"},
            InputFormatError,
            r"relevance='same_class' needs one label per row; database_labels row 0 has 2 nonzero labels",
        ),
        (
            {"database_labels": np.array([[1, np.nan], [0, 1]])},
            InvalidScoreError,
            r"database_labels\[0, 1\] is nan; labels must be finite",
        ),
        (
            {"metric": "cosine", "queries": np.array([[1.0, np.inf, 0, 0]])},
            InvalidScoreError,
            r"queries\[0, 1\] is inf; features must be finite numbers",
        ),
        ({"metric": "manhattan"}, PolicyError, r"unknown metric 'manhattan'; choose one of hamming, cosine"),
        ({"relevance": "jaccard"}, PolicyError, r"unknown relevance 'jaccard'"),
        ({"ties": "trec"}, PolicyError, r"ties='trec' is not available for vectors"),
        ({"ties": "random"}, PolicyError, r"unknown ties policy 'random'"),
        ({"metric": "cosine", "radius": 2}, PolicyError, r"Hamming radius needs metric='hamming'"),
        ({"batch_size": 0}, PolicyError, r"batch_size must be a positive integer, got 0"),
        ({"database": np.zeros((0, 4))}, InputFormatError, r"database is empty"),
        (
            {"relevance": lambda a, b: np.ones((3, 3))},
            InputFormatError,
            r"relevance callable '<lambda>' returned shape \(3, 3\) for query rows 0:1; expected \(1, 2\)",
        ),
        (
            {"relevance": lambda a, b: np.full((1, 2), np.nan)},
            InvalidScoreError,
            r"grade of query 0, database item 0 is nan",
        ),
        ({"measures": []}, MeasureSyntaxError, r"no measures given"),
        ({"measures": "ndgc@10"}, MeasureSyntaxError, r"unknown measure 'ndgc'"),
        ({"codes": "packed"}, InputFormatError, r"queries: codes='packed' needs uint8 or uint64 arrays"),
        ({"codes": "gray"}, PolicyError, r"unknown codes form 'gray'"),
        (
            {"queries": np.packbits([[1, 0, 1, 1, 0, 0, 1, 0, 1]], axis=1)},
            InputFormatError,
            r"queries look packed \(shape \(1, 2\), dtype uint8\) but database looks pm1",
        ),
    ],
)
def test_error_contracts(kwargs: dict, error: type, message: str) -> None:
    args = {"queries": Q, "database": DB, "measures": "ndcg", "query_labels": QL, "database_labels": DL}
    args.update(kwargs)
    with pytest.raises(error, match=message) as info:
        evaluate_vectors(args.pop("queries"), args.pop("database"), args.pop("measures"), **args)
    assert isinstance(info.value, RankmeterError)


# --- complete rows read through their relevant items -------------------------------------------------
@pytest.mark.parametrize("ties", ["stable", "optimistic", "pessimistic", "shuffle", "expected"])
@pytest.mark.parametrize("metric", ["hamming", "cosine"])
def test_relevant_items_give_the_values_of_the_complete_rows(
    data, ties: str, metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The general path evaluates complete rows on their relevant items alone (core.lists.positive_items):
    the same values, to the last bit, as the complete rows, whatever the batch (float grades too)."""
    import importlib

    module = importlib.import_module("rankmeter.vectors.retrieval")
    q, db, ql, dl = data
    if metric == "cosine":
        q, db = q + 0.3 * np.arange(q.shape[1]), db + 0.1  # float features: few ties
    dl = dl * np.linspace(0.5, 1.5, dl.shape[1])  # float grades (shared label weights)
    measures = [*MEASURES, "rprec", "success@3"]
    kw = dict(query_labels=ql, database_labels=dl, metric=metric, ties=ties, seed=4)
    runs = {bs: evaluate_vectors(q, db, measures, batch_size=bs, **kw) for bs in (1, 5, None)}
    assert all(set(r.metadata["paths"].values()) == {"sort"} for r in runs.values()) or metric == "hamming"
    monkeypatch.setattr(module, "positive_items_suffice", lambda *_: False)
    complete = evaluate_vectors(q, db, measures, batch_size=5, **kw)
    for res in runs.values():
        assert np.array_equal(res.values, complete.values, equal_nan=True)
        for key in ("queries_with_ties", "queries_with_ties_at_cutoff", "queries_empty"):
            assert res.metadata[key] == complete.metadata[key], key
