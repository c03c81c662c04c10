"""Exact id interning (ids.intern) and repeated pairs (ids.duplicates), checked against plain, obvious versions."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.ids import hashing
from rankmeter.ids.convert import as_ids
from rankmeter.ids.duplicates import _repeated_pairs, duplicate_rows
from rankmeter.ids.intern import encode, intern

small_ids = st.sampled_from(["q1", "q10", "q2", "Q1", "é", "q1 ", "", "301", "0301"])


def _dictionary_column(values: list[str], rng: np.random.Generator, index_type: pa.DataType, extra: int) -> pa.Array:
    """``values`` as a dictionary array with a shuffled dictionary and ``extra`` unused entries."""
    dictionary = list(dict.fromkeys(values)) + [f"unused-{i}" for i in range(extra)]
    dictionary = [dictionary[i] for i in rng.permutation(len(dictionary))]
    where = {v: i for i, v in enumerate(dictionary)}
    indices = pa.array([where[v] for v in values], index_type)
    return pa.DictionaryArray.from_arrays(indices, pa.array(dictionary, pa.string()))


@settings(max_examples=150, deadline=None)
@given(st.lists(small_ids, max_size=30), st.lists(small_ids, max_size=30), st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_intern_of_dictionary_columns_equals_intern_of_their_strings(
    a: list[str], b: list[str], seed: int, extra: int
) -> None:
    rng = np.random.default_rng(seed)
    index_type = [pa.int8(), pa.int16(), pa.int32(), pa.int64()][seed % 4]
    da, db = _dictionary_column(a, rng, index_type, extra), _dictionary_column(b, rng, index_type, extra)
    vocab, (ca, cb) = intern(as_ids(da), as_ids(db))
    plain_vocab, (pa_codes, pb_codes) = intern(as_ids(np.array(a, dtype=str)), as_ids(pa.array(b, pa.string())))
    assert ca.dtype == cb.dtype == np.int64
    # the unused dictionary entries join the vocabulary (as before); the rows' ids are the same
    assert vocab.tolist() == sorted(set(plain_vocab.tolist()) | {f"unused-{i}" for i in range(extra)})
    assert vocab[ca].tolist() == a and vocab[cb].tolist() == b
    if not extra:
        assert vocab.tolist() == plain_vocab.tolist()
        assert ca.tolist() == pa_codes.tolist() and cb.tolist() == pb_codes.tolist()
    # codes follow the string order
    assert np.all(np.diff(np.unique(ca)) > 0) and list(vocab) == sorted(vocab)


def test_intern_of_a_dictionary_in_vocabulary_order_and_one_out_of_order() -> None:
    in_order = pa.DictionaryArray.from_arrays(pa.array([2, 0, 1, 2], pa.int8()), pa.array(["a", "b", "c"]))
    shuffled = pa.DictionaryArray.from_arrays(pa.array([2, 0, 1, 2], pa.int8()), pa.array(["c", "a", "b"]))
    vocab, (a, b) = intern(as_ids(in_order), as_ids(shuffled))
    assert vocab.tolist() == ["a", "b", "c"]
    assert a.dtype == b.dtype == np.int64
    assert a.tolist() == [2, 0, 1, 2] and b.tolist() == [1, 2, 0, 1]


def test_intern_of_a_dictionary_that_repeats_a_value() -> None:
    col = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 1, 0], pa.int32()), pa.array(["b", "a", "b"]))
    vocab, (codes,) = intern(as_ids(col))
    assert vocab.tolist() == ["a", "b"]
    assert codes.tolist() == [1, 0, 1, 0, 1]
    assert encode(as_ids(col))[1].tolist() == [1, 0, 1, 0, 1]


def test_intern_of_sliced_and_chunked_dictionary_columns() -> None:
    col = pa.DictionaryArray.from_arrays(pa.array([2, 0, 1, 2, 0], pa.int32()), pa.array(["c", "a", "b"]))
    vocab, (sliced, chunked) = intern(as_ids(col[1:4]), as_ids(pa.chunked_array([col[:2], col[2:]])))
    assert vocab[sliced].tolist() == ["c", "a", "b"]
    assert vocab[chunked].tolist() == ["b", "c", "a", "b", "c"]


def test_dictionary_columns_with_nulls_fail_as_string_columns_with_nulls() -> None:
    null_index = pa.DictionaryArray.from_arrays(pa.array([0, None, 1], pa.int32()), pa.array(["a", "b"]))
    null_value = pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), pa.array(["a", None]))
    for col in (null_index, null_value, pa.array(["a", None, "b"])):
        with pytest.raises(ValueError, match="without nulls"):
            as_ids(col)


def test_intern_of_empty_columns() -> None:
    empty = pa.DictionaryArray.from_arrays(pa.array([], pa.int32()), pa.array([], pa.string()))
    vocab, (a, b) = intern(as_ids(empty), as_ids(np.array(["x"])))
    assert vocab.tolist() == ["x"] and a.tolist() == [] and a.dtype == np.int64 and b.tolist() == [0]


def _repeated_naive(keys: list) -> list[int]:
    return [i for i, k in enumerate(keys) if keys.count(k) > 1]


def _repeated_rows(keys: np.ndarray, codes: np.ndarray | None = None) -> np.ndarray:
    return _repeated_pairs(np.zeros(len(keys), dtype=np.int64) if codes is None else codes, keys)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=40), st.lists(st.integers(0, 3), max_size=40))
def test_repeated_rows_compare_full_keys_when_halves_collide(lows: list[int], highs: list[int]) -> None:
    # keys built to share 32-bit halves often: only equal 64-bit keys count
    n = min(len(lows), len(highs))
    keys = [(highs[i] << 32) | lows[i] for i in range(n)]
    got = _repeated_rows(np.array(keys, dtype=np.uint64))
    assert got.tolist() == _repeated_naive(keys)
    swapped = [(k >> 32) | ((k & 0xFFFFFFFF) << 32) for k in keys]
    assert _repeated_rows(np.array(swapped, dtype=np.uint64)).tolist() == _repeated_naive(keys)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 2)), max_size=40))
def test_repeated_pairs_are_rows_whose_code_and_key_repeat(rows: list[tuple[int, int, int]]) -> None:
    codes = np.array([c for c, _, _ in rows], dtype=np.int64)
    keys = [(h << 32) | lo for _, h, lo in rows]
    expected = _repeated_naive([(int(c), k) for c, k in zip(codes, keys, strict=True)])
    assert _repeated_rows(np.array(keys, dtype=np.uint64), codes).tolist() == expected


def test_repeated_rows_of_many_random_keys() -> None:
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 2**63, 200_000, dtype=np.int64).view(np.uint64)
    keys[[10, 500, 199_999]] = keys[77]
    keys[1000] = keys[2000] ^ np.uint64(1 << 40)  # same low half only
    assert _repeated_rows(keys).tolist() == [10, 77, 500, 199_999]


def _duplicates_naive(queries: list[int], docs: list[str]) -> list[list[int]]:
    first: dict[tuple[int, str], int] = {}
    pairs = []
    for row, key in enumerate(zip(queries, docs, strict=True)):
        if key in first:
            pairs.append([first[key], row])
        else:
            first[key] = row
    return pairs


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["d1", "d2", "d10", "D1_0", "é", "d1 ", ""])), max_size=40)
)
def test_duplicate_rows_agree_with_a_dictionary(rows: list[tuple[int, str]]) -> None:
    queries = np.array([q for q, _ in rows], dtype=np.int64)
    docs = [d for _, d in rows]
    expected = _duplicates_naive(queries.tolist(), docs)
    assert duplicate_rows(queries, as_ids(pa.array(docs, pa.string()))).tolist() == expected
    assert duplicate_rows(queries, as_ids(np.array(docs, dtype=str))).tolist() == expected


def test_duplicate_rows_among_many_rows_and_under_colliding_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    queries = rng.integers(0, 50, 20_000)
    docs = [f"doc-{i}" for i in rng.integers(0, 400, 20_000)]
    expected = _duplicates_naive(queries.tolist(), docs)
    assert len(expected) > 1000
    assert duplicate_rows(queries, as_ids(pa.array(docs))).tolist() == expected
    monkeypatch.setattr(hashing, "hash_keys", lambda arr: np.zeros(len(arr), dtype=np.uint64))
    assert duplicate_rows(queries[:3000], as_ids(pa.array(docs[:3000]))).tolist() == _duplicates_naive(
        queries[:3000].tolist(), docs[:3000]
    )


def test_duplicates_max_keeps_one_row_per_pair_for_numpy_and_arrow_ids() -> None:
    import rankmeter
    from rankmeter import Qrels, Run

    qrels = Qrels(np.array(["1", "1"]), np.array(["a", "b"]), np.array([1.0, 0.0]))
    for docs in (np.array(["a", "a", "a", "b"]), pa.array(["a", "a", "a", "b"])):
        run = Run(np.array(["1"] * 4), docs, np.array([3.0, 1.0, 2.0, 5.0]))
        result = rankmeter.evaluate(qrels, run, ["num_ret", "rr"], duplicates="max").to_dict()
        assert result["aggregate"] == {"num_ret": 2.0, "rr": 0.5}
