"""pandas, polars and pyarrow tables -> :class:`Qrels` / :class:`Run`.

Columns are found by name: ``query_id``, ``doc_id`` and ``relevance`` (qrels)
or ``score`` (run), or the names other tools write (:data:`KNOWN_COLUMNS`:
ranx's ``q_id`` / ``doc_id`` / ``score``, TREC's ``qid`` / ``docno`` / ``rel``,
recommender logs' ``user_id`` / ``item_id`` / ``rating``); pass
``qrels_columns={"query_id": "topic", ...}`` (``run_columns=``) for any other
name or to settle a table with several candidates. Ids of any type are
converted to their exact string form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from rankmeter.errors import InputFormatError, InvalidScoreError
from rankmeter.ids.arrow import combined
from rankmeter.ids.booleans import bool_ids_error, check_python_ids, is_bool_column
from rankmeter.io.tables import Qrels, Run
from rankmeter.io.validate import UnreadableNumber, as_floats, check_finite


def is_frame(obj: Any) -> bool:
    """Whether ``obj`` is a pandas / polars DataFrame or a pyarrow Table."""
    module = type(obj).__module__.split(".")[0]
    return module in ("pandas", "polars", "pyarrow") and hasattr(
        obj, "column_names" if module == "pyarrow" else "columns"
    )


def _column_names(frame: Any) -> list[str]:
    names = frame.column_names if hasattr(frame, "column_names") else frame.columns
    return [str(c) for c in names]


def _column(frame: Any, name: str, qids: Any = None, dids: Any = None) -> np.ndarray:
    if hasattr(frame, "column_names"):  # pyarrow
        col = frame.column(name)
        if col.null_count:
            raise _missing(frame, name, col.null_count, qids, dids)
        return np.asarray(col.to_numpy(zero_copy_only=False))
    series = frame[name]
    try:
        nulls = int(series.null_count()) if hasattr(series, "null_count") else int(series.isna().sum())
    except ArithmeticError:  # pandas cannot test a Decimal signalling NaN for missing
        raise InvalidScoreError(
            f"column {name!r} holds a signalling NaN (Decimal('sNaN')); values must be numbers"
        ) from None
    if nulls:
        raise _missing(frame, name, nulls, qids, dids)
    return np.asarray(series.to_numpy())


def _missing(frame: Any, name: str, count: int, qids: Any = None, dids: Any = None) -> InputFormatError:
    """The error for ``count`` missing values in column ``name``, naming the first one's row, query and document.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "score": [1.0, None]})
    >>> str(_missing(frame, "score", 1, np.array(["q1", "q2"]), np.array(["a", "b"])))
    "column 'score' has 1 missing values; the first in row 1 (query 'q2', document 'b')"
    """
    if hasattr(frame, "column_names"):  # pyarrow
        nulls = np.asarray(frame.column(name).is_null().to_numpy(zero_copy_only=False))
    elif hasattr(frame[name], "null_count"):  # polars
        nulls = np.asarray(frame[name].is_null().to_numpy())
    else:  # pandas
        nulls = np.asarray(frame[name].isna().to_numpy())
    row = int(np.argmax(nulls))
    named = [f"{what} {_text_at(ids, row)!r}" for what, ids in (("query", qids), ("document", dids)) if ids is not None]
    where = f" ({', '.join(named)})" if named else ""
    return InputFormatError(f"column {name!r} has {count} missing values; the first in row {row}{where}")


def _text_at(ids: Any, row: int) -> str:
    """The id at ``row`` of an id column (NumPy text, or a pyarrow string or dictionary array)."""
    value = ids[row]
    return str(value.as_py() if hasattr(value, "as_py") else value)


def _ids(frame: Any, name: str, qids: Any = None) -> Any:
    """An id column as a pyarrow string array (the core's fast path), ids of other types as their text."""
    import pyarrow as pa

    if hasattr(frame, "column_names"):  # pyarrow
        col = frame.column(name)
    elif type(frame).__module__.startswith("polars"):
        col = frame[name].to_arrow()
    else:  # pandas
        series = frame[name]
        if is_bool_column(series):
            raise bool_ids_error(f"column {name!r}", bool(series.iloc[0]) if len(series) else True)
        if series.dtype == object and qids is None:  # query ids: few distinct values, each written once
            found = _factorized(frame, name)
            if found is not None:
                return found
        if series.dtype != object and series.isna().any():  # (an object column's nulls: Arrow's null count)
            raise _missing(frame, name, int(series.isna().sum()), qids)
        if series.dtype.kind in "iu":  # integers are coded without text (ids.integers.integer_column)
            return np.asarray(series.to_numpy(dtype=getattr(series.dtype, "numpy_dtype", series.dtype)))
        if series.dtype.kind == "f":
            return np.asarray(series.to_numpy()).astype(str)
        try:
            col = pa.Array.from_pandas(series)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # ids of several types: each one's text
            if series.isna().any():
                raise _missing(frame, name, int(series.isna().sum()), qids) from None
            values = np.asarray(series.to_numpy())
            text = values.astype(str)
            check_python_ids(values, text, f"column {name!r}")
            return text
    if col.null_count:
        raise _missing(frame, name, col.null_count, qids)
    if is_bool_column(col):  # (pyarrow and polars booleans; pandas object columns of bools)
        raise bool_ids_error(f"column {name!r}", combined(col)[0].as_py() if len(col) else True)
    if pa.types.is_dictionary(col.type):  # categorical / dictionary-encoded ids: their codes are used as they are
        if _is_text(col.type.value_type):
            return _text_dictionary(col)
        if pa.types.is_integer(col.type.value_type):  # integer categories: their codes and distinct values
            return combined(col)
        col = col.cast(col.type.value_type)  # other numbers with a dictionary: their text, as for plain numbers
    if pa.types.is_integer(col.type):
        return np.asarray(combined(col).to_numpy(zero_copy_only=False))
    if pa.types.is_floating(col.type):
        return np.asarray(col.to_pylist()).astype(str)
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    if pa.types.is_large_string(col.type):  # pandas' str dtype: no pyarrow.compute import for the cast
        chunks = [_narrow_offsets(chunk) for chunk in chunks]
    elif not pa.types.is_string(col.type):
        chunks = [chunk.cast(pa.string()) for chunk in chunks]
    return chunks[0] if len(chunks) == 1 else combined(pa.chunked_array(chunks, type=pa.string()))


def _factorized(frame: Any, name: str) -> Any:
    """A pandas object column of ``str`` ids as a dictionary array: codes by hashing, each distinct id converted once.

    None when the column holds other values than ``str`` or more than :data:`LARGE_DICTIONARY` distinct ids
    (read then as every row's text).

    >>> import pandas as pd
    >>> d = _factorized(pd.DataFrame({"q": ["b", "a", "b"]}, dtype=object), "q")
    >>> d.indices.to_pylist(), d.dictionary.to_pylist()
    ([0, 1, 0], ['b', 'a'])
    """
    import pandas as pd
    import pyarrow as pa

    codes, distinct = pd.factorize(frame[name].to_numpy())
    if len(codes) and int(codes.min()) < 0:
        raise _missing(frame, name, int(np.count_nonzero(codes < 0)))
    if len(distinct) > LARGE_DICTIONARY or not all(type(value) is str for value in distinct.tolist()):
        return None
    return pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(distinct, type=pa.string()))


def _is_text(arrow_type: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or pa.types.is_string_view(arrow_type)
    )


LARGE_DICTIONARY = 1 << 16
"""Dictionary-encoded ids with more distinct values are read as text: the core uses a dictionary's codes
only once it knows the values distinct, which takes a sort of their text; for large dictionaries that
costs more than Arrow's gather of every row's bytes."""


def _text_dictionary(col: Any) -> Any:
    """A dictionary-encoded text column with ``string`` dictionary values, its codes untouched.

    A column with more than :data:`LARGE_DICTIONARY` values becomes plain text.

    >>> import pyarrow as pa
    >>> col = pa.array(["b", "a", "b"], type=pa.large_string()).dictionary_encode()
    >>> d = _text_dictionary(col)
    >>> d.type.value_type, d.indices.to_pylist(), d.dictionary.to_pylist()
    (DataType(string), [0, 1, 0], ['b', 'a'])
    """
    import pyarrow as pa

    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    if sum(len(chunk.dictionary) for chunk in chunks) > LARGE_DICTIONARY:
        return combined(col.cast(col.type.value_type)).cast(pa.string())  # each row's text, taken by Arrow
    out = []
    for chunk in chunks:
        values = chunk.dictionary
        values = _narrow_offsets(values) if pa.types.is_large_string(values.type) else values.cast(pa.string())
        out.append(pa.DictionaryArray.from_arrays(chunk.indices, values))
    return out[0] if len(out) == 1 else combined(pa.chunked_array(out))


def _narrow_offsets(chunk: Any) -> Any:
    """A large_string array without nulls as a string array sharing its character data (int32 offsets).

    >>> import pyarrow as pa
    >>> _narrow_offsets(pa.array(["ab", "", "c"], type=pa.large_string()).slice(1)).to_pylist()
    ['', 'c']
    """
    import pyarrow as pa

    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int64)[chunk.offset : chunk.offset + len(chunk) + 1]
    first, last = (int(offsets[0]), int(offsets[-1])) if len(offsets) else (0, 0)
    if last - first >= 2**31:
        return chunk  # over 2 GiB of text: stays large (callers fall back to converting the strings)
    data = chunk.buffers()[2]
    return pa.Array.from_buffers(
        pa.string(),
        len(chunk),
        [
            None,
            pa.py_buffer((offsets - first).astype(np.int32)),
            None if data is None else data.slice(first, last - first),
        ],
    )


def _numbers(values: np.ndarray, name: str, qids: np.ndarray, dids: np.ndarray) -> np.ndarray:
    """A value column as float64 under the TREC readers' number grammar (:func:`~rankmeter.io.validate.as_floats`)."""
    try:
        return as_floats(values)
    except UnreadableNumber as exc:
        at = f"row {exc.row}: query '{qids[exc.row]}', document '{dids[exc.row]}'"
        raise InvalidScoreError(f"{at}: {name} {exc.describe()}") from None


KNOWN_COLUMNS: dict[str, dict[str, tuple[str, ...]]] = {
    "qrels": {
        "query_id": ("query_id", "q_id", "qid", "user_id"),
        "doc_id": ("doc_id", "docno", "docid", "item_id"),
        "relevance": ("relevance", "rel", "score", "rating"),
    },
    "run": {
        "query_id": ("query_id", "q_id", "qid", "user_id"),
        "doc_id": ("doc_id", "docno", "docid", "item_id"),
        "score": ("score",),
    },
}
"""Column names understood without a mapping, for each role: rankmeter's and ir_datasets' (``query_id``,
``doc_id``, ``relevance``, ``score``), ranx's (``q_id``, ``doc_id``, ``score`` -- ranx calls a qrels
grade ``score`` too), TREC's (``qid``, ``docno``, ``rel``) and recommender logs' (``user_id``,
``item_id``, ``rating``). A run table with a rank column and no score column is a ranked list
(:data:`RANK_COLUMNS`, the ``"ranked"`` roles)."""

RANK_COLUMNS = ("rank", "rank_position", "position", "pos")
"""Names of a run table's rank column (1 = top), read when the table has no score column: the item of
rank r gets the score -r, so that the ranking is the table's own, never its reverse."""
KNOWN_COLUMNS["ranked"] = {**{k: v for k, v in KNOWN_COLUMNS["run"].items() if k != "score"}, "rank": RANK_COLUMNS}
KNOWN_COLUMNS["pairs"] = {k: v for k, v in KNOWN_COLUMNS["qrels"].items() if k != "relevance"}
KNOWN_COLUMNS["users"] = {"query_id": KNOWN_COLUMNS["qrels"]["query_id"]}


def run_kind(names: list[str], columns: Mapping[str, str] | None = None) -> str:
    """``"run"`` for a run table with scores, ``"ranked"`` for one whose rank column is the ranking.

    A column named like a rank (:data:`RANK_COLUMNS`) given as the score is
    refused: ranks order the other way from scores.

    >>> run_kind(["user_id", "item_id", "rank"]), run_kind(["qid", "docno", "rank", "score"])
    ('ranked', 'run')
    >>> run_kind(["user_id", "item_id", "rank"], {"score": "rank"})
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputFormatError: run_columns={'score': 'rank'}: a column named 'rank' holds ranks ...
    """
    given = dict(columns or {})
    if str(given.get("score", "")).lower() in RANK_COLUMNS:  # also 'Rank', 'POSITION'...
        raise InputFormatError(
            f"run_columns={{'score': {given['score']!r}}}: a column named {given['score']!r} holds ranks (1 = top), "
            f"which order the other way from scores; pass run_columns={{'rank': {given['score']!r}}} to rank by it"
        )
    if "rank" in given:
        if "score" in given:
            raise InputFormatError("run_columns= names both a score and a rank column; a run is ranked by one of them")
        return "ranked"
    if "score" in given or any(c in names for c in KNOWN_COLUMNS["run"]["score"]):
        return "run"
    return "ranked" if any(c in names for c in RANK_COLUMNS) else "run"


def find_columns(
    names: list[str], kind: str, columns: Mapping[str, str] | None = None, argument: str = "columns"
) -> dict[str, str]:
    """The column of each role (``query_id``, ``doc_id``, ``relevance`` or ``score``) in a table of ``kind``.

    ``columns`` names a role's column explicitly; every other role takes the
    one column of :data:`KNOWN_COLUMNS` the table has. A role with no such
    column, or with several, is an error naming the candidates and the
    ``argument`` that settles it.

    >>> find_columns(["q_id", "doc_id", "score"], "qrels")
    {'query_id': 'q_id', 'doc_id': 'doc_id', 'relevance': 'score'}
    >>> find_columns(["topic", "docno", "rel"], "qrels", {"query_id": "topic"})
    {'query_id': 'topic', 'doc_id': 'docno', 'relevance': 'rel'}
    """
    if kind == "run":
        kind = run_kind(names, columns)
    roles = KNOWN_COLUMNS[kind]
    given = dict(columns or {})
    unknown = sorted(set(given) - set(roles))
    if unknown:
        raise InputFormatError(f"{argument}= names no role {unknown[0]!r}; the roles are {', '.join(roles)}")
    found: dict[str, str] = {}
    for role, candidates in roles.items():
        hint = f"pass {argument}={{'{role}': '<name>'}}" + (
            f" (or {argument}={{'rank': '<name>'}} for ranks, 1 = top)" if role == "score" else ""
        )
        if role in given:
            if given[role] not in names:
                raise InputFormatError(
                    f"table has no column {given[role]!r} for {role} (columns: {', '.join(names)}); {hint}"
                )
            found[role] = given[role]
            continue
        present = [c for c in candidates if c in names and c not in given.values()]
        if not present:
            raise InputFormatError(
                f"table has no column for {role} (looked for {', '.join(map(repr, candidates))}; "
                f"columns: {', '.join(names)}); {hint}"
            )
        if len(present) > 1:
            raise InputFormatError(f"table has several columns for {role}: {', '.join(map(repr, present))}; {hint}")
        found[role] = present[0]
    return found


def _read(
    frame: Any, kind: str, value_column: str, columns: Mapping[str, str] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, str]]:
    mapping = find_columns(_column_names(frame), kind, columns, f"{kind}_columns")
    qids = _ids(frame, mapping["query_id"])
    dids = _ids(frame, mapping["doc_id"], qids)
    values = _numbers(_column(frame, mapping[value_column], qids, dids), value_column, qids, dids)
    check_finite(values, value_column, qids, dids, None, None)
    return qids, dids, values, mapping


def qrels_from_frame(frame: Any, columns: Mapping[str, str] | None = None, source: str | None = None) -> Qrels:
    """Qrels from a table with columns query_id, doc_id, relevance (or another tool's names; renamable).

    A table without a grade column (``user_id, item_id`` interactions) makes
    every row relevant with grade 1 (``metadata["qrels_columns"]`` then has
    no ``relevance``).

    >>> import pandas as pd
    >>> qrels_from_frame(pd.DataFrame({"user_id": [1, 1], "item_id": [7, 9]})).relevance.tolist()
    [1.0, 1.0]
    """
    names = _column_names(frame)
    if "relevance" not in (columns or {}) and not any(c in names for c in KNOWN_COLUMNS["qrels"]["relevance"]):
        qids, dids, mapping = pair_columns(frame, columns, "qrels_columns")
        return Qrels(qids, dids, np.ones(len(qids)), source=source or "<qrels table>", columns=mapping)
    qids, dids, rel, mapping = _read(frame, "qrels", "relevance", columns)
    return Qrels(qids, dids, rel, source=source or "<qrels table>", columns=mapping)


def pair_columns(frame: Any, columns: Mapping[str, str] | None, argument: str) -> tuple[Any, Any, dict[str, str]]:
    """``(user ids, item ids, mapping)`` of a table of (query, document) pairs; other columns are not read."""
    given = {k: v for k, v in (columns or {}).items() if k in KNOWN_COLUMNS["pairs"]}
    mapping = find_columns(_column_names(frame), "pairs", given, argument)
    qids = _ids(frame, mapping["query_id"])
    return qids, _ids(frame, mapping["doc_id"], qids), mapping


def run_from_frame(frame: Any, columns: Mapping[str, str] | None = None, source: str | None = None) -> Run:
    """Run from a table with columns query_id, doc_id, score (or another tool's names; renamable).

    A table with a rank column and no score column (:func:`run_kind`), or
    with a list column of items per user, is a ranked list
    (:mod:`rankmeter.io.recsys`): scores ``-rank``.
    """
    from rankmeter.io import recsys

    names = _column_names(frame)
    items = recsys.list_column(names, _arrow_types(frame), columns) if _arrow_types(frame) else None
    if items is not None:
        given = {k: v for k, v in (columns or {}).items() if k == "query_id"}
        user = find_columns([n for n in names if n != items], "users", given, "run_columns")["query_id"]
        return recsys.run_from_list_column(_as_arrow(frame), user, items, source or "<run table>")
    if run_kind(names, columns) == "ranked":
        qids, dids, ranks, mapping = _read(frame, "ranked", "rank", columns)
        return recsys.run_from_rank_frame(qids, dids, ranks, mapping, source or "<run table>")
    qids, dids, scores, mapping = _read(frame, "run", "score", columns)
    return Run(qids, dids, scores, source=source or "<run table>", columns=mapping)


def _as_arrow(frame: Any) -> Any:
    """A pandas, polars or pyarrow table as a pyarrow Table."""
    if hasattr(frame, "column_names"):
        return frame
    if hasattr(frame, "to_arrow"):
        return frame.to_arrow()
    import pyarrow as pa

    return pa.Table.from_pandas(frame, preserve_index=False)


def _arrow_types(frame: Any) -> list[Any]:
    """The pyarrow type of each column when the table may hold list columns (empty when it cannot)."""
    if hasattr(frame, "schema") and hasattr(frame, "column_names"):  # pyarrow
        return list(frame.schema.types)
    if type(frame).__module__.startswith("polars"):
        if not any(str(t).startswith(("List", "Array")) for t in frame.dtypes):
            return []
        return list(frame.head(0).to_arrow().schema.types)
    if any(frame[c].dtype == object for c in frame.columns):  # pandas: lists live in object columns
        first = frame.head(1)
        if len(first) and any(isinstance(first[c].iloc[0], list | tuple | np.ndarray) for c in frame.columns):
            return list(_as_arrow(frame.head(1)).schema.types)
    return []
