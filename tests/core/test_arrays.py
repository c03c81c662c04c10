"""The NumPy and pyarrow helpers of the core and the readers agree with the functions they stand in for."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rankmeter.core.arrays import code_counts, count_distinct_sorted, sorted_unique

codes = st.lists(st.integers(0, 30), max_size=3000)


@given(values=codes)
def test_sorted_unique_is_np_unique(values):
    a = np.array(values, dtype=np.int64)
    np.testing.assert_array_equal(sorted_unique(a), np.unique(a))
    text = a.astype(str)
    np.testing.assert_array_equal(sorted_unique(text), np.unique(text))


@given(values=codes)
def test_count_distinct_sorted(values):
    a = np.sort(np.array(values, dtype=np.int64))
    assert count_distinct_sorted(a) == len(set(values))


@given(runs=st.lists(st.tuples(st.integers(0, 30), st.integers(1, 400)), max_size=40), shuffle=st.booleans())
def test_code_counts_is_bincount(runs, shuffle):
    """Rows in runs of one code (the per-run path, from 1024 rows) or shuffled (one count per row)."""
    a = np.repeat([c for c, _ in runs], [n for _, n in runs]).astype(np.int64)
    if shuffle:
        a = np.random.default_rng(len(a)).permutation(a)
    got = code_counts(a, 31)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.bincount(a, minlength=31))


@given(
    strings=st.lists(st.text(max_size=12), min_size=1, max_size=60),
    picks=st.lists(st.integers(0, 10_000), max_size=80),
    offset=st.integers(0, 5),
    dictionary=st.booleans(),
)
def test_take_rows_is_pyarrow_take(strings, picks, offset, dictionary):
    import pyarrow as pa

    from rankmeter.io.arrow import take_rows

    arr = pa.array(strings, type=pa.string())
    arr = arr.slice(min(offset, len(arr) - 1))
    if dictionary:
        arr = arr.dictionary_encode()
    rows = np.array([p % len(arr) for p in picks], dtype=np.int64)
    got = take_rows(arr, rows)
    assert got.to_pylist() == [arr[int(r)].as_py() for r in rows]
    assert got.type == arr.type
