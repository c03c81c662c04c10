"""Byte-level keys of ids (ids.buffers, ids.hashing, ids.order) and the exact joins built on them (ids.match, ids.duplicates)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.ids import hashing
from rankmeter.ids.buffers import StringBuffers
from rankmeter.ids.convert import as_ids
from rankmeter.ids.duplicates import duplicate_rows
from rankmeter.ids.hashing import hash_keys
from rankmeter.ids.match import match_pairs
from rankmeter.ids.order import order_words, string_ranks

ids_text = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=0x2FFF), min_size=0, max_size=40)


def _utf8_sorted_ranks(values: list[str]) -> list[int]:
    order = sorted(range(len(values)), key=lambda i: (values[i].encode("utf-8"), i))
    ranks = [0] * len(values)
    for r, i in enumerate(order):
        ranks[i] = r
    return ranks


@settings(max_examples=200, deadline=None)
@given(st.lists(ids_text, min_size=1, max_size=60))
def test_hash_keys_equal_exactly_for_equal_strings(values: list[str]) -> None:
    keys = hash_keys(as_ids(pa.array(values, pa.string())), chunk=7)
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            if a == b:
                assert keys[i] == keys[j]


@settings(max_examples=100, deadline=None)
@given(ids_text, st.lists(ids_text, max_size=20), st.integers(1, 8))
def test_a_key_depends_on_its_string_only(value: str, others: list[str], chunk: int) -> None:
    # run and qrels columns are keyed separately: a document must get the same key in both
    alone = hash_keys(as_ids(pa.array([value], pa.string())))[0]
    among = hash_keys(as_ids(pa.array([*others, value], pa.string())), chunk=chunk)[-1]
    assert alone == among


def test_hash_keys_separate_ids_that_differ_only_in_the_middle() -> None:
    values = [f"clueweb09-en{i:04d}-{j:02d}-00000" for i in range(300) for j in range(10)]
    keys = hash_keys(as_ids(pa.array(values)))
    assert len(np.unique(keys)) == len(values)


def test_hash_keys_ignore_bytes_of_neighbouring_strings() -> None:
    # "ab" followed by different neighbours must keep one key
    a = hash_keys(as_ids(pa.array(["ab", "xyz"])))[0]
    b = hash_keys(as_ids(pa.array(["ab", "q"])))[0]
    c = hash_keys(as_ids(pa.array(["zz", "ab"])))[1]
    assert a == b == c


def test_words_read_zeros_past_the_end_of_the_data() -> None:
    b = StringBuffers(as_ids(pa.array(["abc"])))
    assert int(b.words(np.array([1]))[0]) == int.from_bytes(b"bc", "little")


@settings(max_examples=200, deadline=None)
@given(st.lists(ids_text, min_size=1, max_size=60))
def test_string_ranks_follow_utf8_byte_order(values: list[str]) -> None:
    arr = as_ids(pa.array(values, pa.string()))
    ranks = string_ranks(arr, np.arange(len(values)))
    expected = _utf8_sorted_ranks(values)
    # equal strings may swap ranks among themselves; compare the strings at each rank
    by_rank = [values[i] for i in np.argsort(ranks)]
    assert by_rank == [values[i] for i in np.argsort(expected)]


def test_order_words_refuses_very_long_ids_and_string_ranks_still_orders_them() -> None:
    values = ["x" * 80 + "b", "x" * 80 + "a", "a"]
    arr = as_ids(pa.array(values))
    assert order_words(arr, np.arange(3)) is None
    assert string_ranks(arr, np.arange(3)).tolist() == [2, 1, 0]


def _naive_match(rq: list[int], rd: list[str], qq: list[int], qd: list[str]) -> list[int]:
    where = {(q, d): i for i, (q, d) in enumerate(zip(qq, qd, strict=True))}
    return [where.get((q, d), -1) for q, d in zip(rq, rd, strict=True)]


pairs = st.lists(st.tuples(st.integers(0, 4), st.sampled_from(["d1", "d2", "d10", "D1_0", "é", "d1 ", ""])))


@settings(max_examples=200, deadline=None)
@given(pairs, pairs)
def test_match_pairs_agrees_with_a_dictionary_for_arrow_and_numpy_ids(run: list, qrels: list) -> None:
    qrels = list(dict.fromkeys(qrels))  # distinct pairs, as align passes them
    rq = np.array([q for q, _ in run], dtype=np.int64)
    rd = [d for _, d in run]
    qq = np.array([q for q, _ in qrels], dtype=np.int64)
    qd = [d for _, d in qrels]
    expected = _naive_match(rq.tolist(), rd, qq.tolist(), qd)
    arrow = match_pairs(rq, as_ids(pa.array(rd, pa.string())), qq, as_ids(pa.array(qd, pa.string())))
    numpy = match_pairs(rq, as_ids(np.array(rd, dtype=str)), qq, as_ids(np.array(qd, dtype=str)))
    assert arrow.tolist() == expected
    assert numpy.tolist() == expected


def test_match_pairs_is_exact_when_every_key_collides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hashing, "hash_keys", lambda arr: np.zeros(len(arr), dtype=np.uint64))
    rq, qq = np.array([0, 0, 1]), np.array([0, 1])
    got = match_pairs(rq, as_ids(pa.array(["a", "b", "b"])), qq, as_ids(pa.array(["b", "b"])))
    assert got.tolist() == [-1, 0, 1]


def test_duplicate_rows_is_exact_when_keys_collide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hashing, "hash_keys", lambda arr: np.zeros(len(arr), dtype=np.uint64))
    got = duplicate_rows(np.array([0, 0, 0, 1, 0]), as_ids(pa.array(["a", "b", "c", "a", "b"])))
    assert got.tolist() == [[1, 4]]


_M64 = (1 << 64) - 1


def _reference_key(value: str) -> int:
    """hash_keys of one string, written out with Python integers: the definition the vectorised fold keeps."""
    from rankmeter.ids.hashing import _MIX, _MULT

    mult, mix, data = int(_MULT), int(_MIX), value.encode("utf-8")
    length = len(data)

    def word(at: int, size: int = 8) -> int:
        return int.from_bytes(data[at : at + size], "little")

    key = (length * mult) & _M64
    key = (key * mix + (word(0) if length >= 8 else word(0, length))) & _M64
    for j in range(1, (length + 7) // 8):
        key = (key * mix + word(min(8 * j, length - 8))) & _M64
    key ^= key >> 29
    key = (key * mult) & _M64
    return key ^ (key >> 32)


@settings(max_examples=200, deadline=None)
@given(st.lists(ids_text, min_size=1, max_size=60), st.integers(1, 70))
def test_hash_keys_follow_their_definition_in_every_chunk_shape(values: list[str], chunk: int) -> None:
    # chunks mixing short, 8-byte and long strings take different paths through the fold
    keys = hash_keys(as_ids(pa.array(values, pa.string())), chunk=chunk)
    assert keys.tolist() == [_reference_key(v) for v in values]


def test_hash_keys_follow_their_definition_when_few_or_most_strings_are_long() -> None:
    few = ["abcdefgh"] * 9 + ["abcdefgh-and-more-than-sixteen-bytes"]
    most = ["a", "abcdefghijklmnopq", "abcdefghijklmnopqrstu", "x" * 40, "12345678z"]
    sliced = pa.array(["skip", *most])[1:]  # an array with an offset
    for arr in (pa.array(few), pa.array(most), sliced):
        assert hash_keys(as_ids(arr)).tolist() == [_reference_key(v) for v in arr.to_pylist()]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2**62), 2**62), max_size=40), st.integers(0, 2**64 - 1))
def test_pair_keys_mix_each_code_the_same_way_on_both_paths(codes: list[int], key: int) -> None:
    from rankmeter.ids.hashing import _mix_codes, pair_keys

    keys = np.full(len(codes), key, dtype=np.uint64)
    arr = np.array(codes, dtype=np.int64)
    expected = _mix_codes(arr.astype(np.uint64)) ^ keys  # row by row
    assert pair_keys(arr, keys).tolist() == expected.tolist()
    small = np.abs(arr) % 7  # small non-negative codes: mixed once per value and gathered
    assert pair_keys(small, keys).tolist() == (_mix_codes(small.astype(np.uint64)) ^ keys).tolist()
    assert pair_keys(small.astype(np.int32), keys).tolist() == pair_keys(small, keys).tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 2**40), st.integers(0, 2**64 - 1)), max_size=40), st.booleans())
def test_pair_halves_are_one_half_of_the_pair_keys(rows: list[tuple[int, int]], small: bool) -> None:
    from rankmeter.ids.hashing import half, pair_halves, pair_keys

    codes = np.array([abs(c) % 9 if small else c for c, _ in rows], dtype=np.int64)
    keys = np.array([k for _, k in rows], dtype=np.uint64)
    got = pair_halves(codes, keys)
    assert got.dtype == np.uint32 and got.flags.c_contiguous
    assert got.tolist() == half(pair_keys(codes, keys)).tolist()


def test_pair_keys_return_a_new_array() -> None:
    from rankmeter.ids.hashing import pair_keys

    keys = np.array([1, 2, 3], dtype=np.uint64)
    out = pair_keys(np.array([0, 1, 0]), keys)
    out.sort()
    assert keys.tolist() == [1, 2, 3]


@settings(max_examples=100, deadline=None)
@given(st.lists(ids_text, min_size=1, max_size=12))
def test_word_pairs_are_two_word_reads_up_to_the_end_of_the_data(values: list[str]) -> None:
    b = StringBuffers(as_ids(pa.array(values, pa.string())))
    at = np.arange(len(b.data) + 1)
    for offsets in (at, at[:-20], at[::-1][20:]):
        for step in (1, 3, 4096):
            first, second = b.word_pairs(offsets, step=step)
            assert first.tolist() == b.words(offsets).tolist()
            assert second.tolist() == b.words(offsets + 8).tolist()
