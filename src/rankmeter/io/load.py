"""Turn whatever the user passed (path, table, dict, Qrels/Run) into a :class:`Qrels` or :class:`Run`.

Paths are read by their suffix: Parquet (``.parquet``, ``.pq``), Feather / Arrow
IPC (``.feather``, ``.arrow``, ``.ipc``) and CSV (``.csv``, ``.tsv``, ``.gz``
of either) files are tables whose columns are found as for data frames
(:mod:`rankmeter.io.frames`); any other path is a TREC file. The readers of
each format are imported when that format is first read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rankmeter.errors import InputFormatError, RankmeterError

if TYPE_CHECKING:
    from rankmeter.io.tables import Qrels, Run

TABLE_SUFFIXES = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".feather": "feather",
    ".arrow": "feather",
    ".ipc": "feather",
    ".csv": "csv",
    ".tsv": "tsv",
}
"""File suffixes read as tables rather than TREC text (``.gz`` is looked through for CSV and TSV)."""


def table_format(path: str | os.PathLike[str]) -> str | None:
    """The table format a path's suffix names, or None for TREC text.

    >>> table_format("runs/bm25.parquet"), table_format("qrels.tsv.gz"), table_format("run.txt")
    ('parquet', 'tsv', None)
    """
    name = os.path.basename(os.fspath(path).rstrip("/" + os.sep)).lower()  # pathlib.Path(path).suffixes
    suffixes = [] if name.endswith(".") else [f".{s}" for s in name.lstrip(".").split(".")[1:]]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
        found = TABLE_SUFFIXES.get(suffixes[-1]) if suffixes else None
        return found if found in ("csv", "tsv") else None
    return TABLE_SUFFIXES.get(suffixes[-1]) if suffixes else None


BLOCK_BYTES = 8 << 20
"""Bytes of run text parsed at a time when a run file is read in blocks (:mod:`rankmeter.streaming`).

Chosen with ``python benchmarks/run.py --only CHOICES`` (W1, blocks of 2 to 32 MiB): larger blocks
cost memory, smaller ones time.
"""


def run_file_in_blocks(run: Any) -> bool:
    """Whether ``run`` names a TREC text run file of more than one block, which :func:`rankmeter.evaluate` streams.

    Standard input, named pipes and table files (CSV, TSV, Parquet, Feather / Arrow, whatever their
    size: size never changes how a file is read) are read whole.

    >>> run_file_in_blocks({"q": {"d": 1.0}}), run_file_in_blocks("-"), run_file_in_blocks("big.parquet")
    (False, False, False)
    """
    return (
        isinstance(run, str | os.PathLike)
        and str(run) != "-"
        and table_format(run) is None
        and os.path.isfile(run)
        and os.path.getsize(run) > BLOCK_BYTES
    )


def read_table(path: str | os.PathLike[str], fmt: str, id_columns: tuple[str, ...] = ()) -> Any:
    """A pyarrow Table from a Parquet, Feather / Arrow IPC, CSV or TSV file.

    CSV columns named in ``id_columns`` are read as text, so that ids such as
    ``007`` keep their exact form; the others are inferred.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
    ...     _ = f.write("qid,docno,rel\\n007,d1,1\\n")
    >>> read_table(f.name, "csv", ("qid", "docno")).column("qid").to_pylist()
    ['007']
    >>> os.unlink(f.name)
    """
    source = os.fspath(path)
    try:
        if fmt in ("parquet", "feather"):
            from rankmeter.io.table_files import read_batches_bounded

            return read_batches_bounded(source, fmt)
        import pyarrow as pa
        import pyarrow.csv as pcsv

        # ids are text whatever they look like ('007' stays '007'); other columns are inferred
        types = {name: pa.string() for name in id_columns}
        table = pcsv.read_csv(
            _csv_source(source),
            parse_options=pcsv.ParseOptions(delimiter="\t" if fmt == "tsv" else ","),
            convert_options=pcsv.ConvertOptions(column_types=types),
        )
        table.column_names  # noqa: B018 - decoded here: a header that is not UTF-8 raises UnicodeDecodeError
        return table
    except UnicodeDecodeError as exc:
        raise InputFormatError(f"{source}:1: the header is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except RankmeterError:  # a limit of the reader (PolicyError), already located
        raise
    except FileNotFoundError as exc:
        raise InputFormatError(f"{source}: cannot read file: {exc.strerror or 'No such file or directory'}") from None
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError, its IO errors OSErrors
        raise InputFormatError(f"{source}: cannot read it as a {fmt} table: {exc}") from None


def _csv_source(source: str) -> Any:
    """A CSV or TSV file's path, or for ``.gz`` its bytes expanded under the gzip ratio limit."""
    if not source.lower().endswith(".gz"):
        return source
    import pyarrow as pa

    from rankmeter.io.validate import read_gzip

    return pa.py_buffer(read_gzip(source, source, text_checks=False))


def _judged(table: Any, kind: str) -> Any:
    """``table``, unless it is qrels without a row: an error, as for an empty qrels file or dict."""
    if kind == "qrels" and not len(table):
        raise InputFormatError(f"{table.source}: no judgments (the table has no rows)")
    return table


def _load(obj: Any, kind: str, columns: Mapping[str, str] | None) -> Any:
    """A :class:`Qrels` (``kind="qrels"``) or :class:`Run` from anything a user may pass."""
    from rankmeter.io import frames
    from rankmeter.io.tables import Qrels, Run

    wanted = Qrels if kind == "qrels" else Run
    from_frame = frames.qrels_from_frame if kind == "qrels" else frames.run_from_frame
    if isinstance(obj, wanted):
        return obj
    if isinstance(obj, str | os.PathLike):
        fmt = table_format(obj) if str(obj) != "-" else None
        if fmt is not None:
            roles = frames.KNOWN_COLUMNS[kind]
            ids = (*roles["query_id"], *roles["doc_id"], *(v for k, v in (columns or {}).items() if k.endswith("_id")))
            return _judged(from_frame(read_table(obj, fmt, ids), columns, source=os.fspath(obj)), kind)
        from rankmeter.io import trec

        return trec.read_qrels(obj) if kind == "qrels" else trec.read_run(obj)
    if frames.is_frame(obj):
        return _judged(from_frame(obj, columns), kind)
    if isinstance(obj, Mapping):
        from rankmeter.io import dicts, recsys

        if recsys.is_lists(obj):  # {user: [item, ...]}: a ranked list, or relevant items (grade 1)
            return recsys.qrels_from_sets(obj) if kind == "qrels" else recsys.run_from_lists(obj)
        return dicts.qrels_from_dict(obj) if kind == "qrels" else dicts.run_from_dict(obj)
    what = "qrels" if kind == "qrels" else "a run"
    raise InputFormatError(f"cannot read {what} from {type(obj).__name__}: {_hint(obj, kind)}")


def _hint(obj: Any, kind: str) -> str:
    """What to pass instead of ``obj``: a matrix needs the ids of its rows (and columns).

    >>> import numpy as np
    >>> _hint(np.zeros((2, 3), dtype=int), "run")
    'a 2-D array of item ids needs its users: pass rankmeter.ranked_lists(items, users=user_ids)'
    """
    if hasattr(obj, "tocoo") and hasattr(obj, "nnz"):
        return "a sparse matrix needs its ids: pass rankmeter.interactions(matrix, users=user_ids, items=item_ids)"
    if getattr(obj, "ndim", None) == 2 and kind == "run":
        return "a 2-D array of item ids needs its users: pass rankmeter.ranked_lists(items, users=user_ids)"
    return "pass a path, a table or a dict"


def as_qrels(obj: Any, columns: Mapping[str, str] | None = None) -> Qrels:
    """Qrels from a path (TREC, Parquet, Feather, CSV), a pandas/polars/pyarrow table, a dict-of-dicts or a Qrels."""
    result: Qrels = _load(obj, "qrels", columns)
    return result


def as_run(obj: Any, columns: Mapping[str, str] | None = None) -> Run:
    """Run from a path (TREC, Parquet, Feather, CSV), a pandas/polars/pyarrow table, a dict-of-dicts or a Run."""
    result: Run = _load(obj, "run", columns)
    return result


def as_pairs(obj: Any, what: str = "exclude", columns: Mapping[str, str] | None = None) -> Qrels:
    """(user, item) pairs, as :class:`Qrels` rows whose grades are not read, for ``exclude=`` and ``candidates=``.

    Takes a table with user and item columns (other columns ignored), a path
    to one (Parquet, Feather, CSV, TSV) or to a TREC qrels file (every line a
    pair, whatever its grade), ``{user: [item, ...]}`` (lists or sets),
    ``{user: {item: value}}``, :func:`rankmeter.interactions` of a sparse
    matrix, a :class:`Qrels` or a :class:`Run`.

    >>> as_pairs({"u1": {"a", "b"}}).doc_ids.tolist() in (["a", "b"], ["b", "a"])
    True
    """
    import numpy as np

    from rankmeter.io import frames
    from rankmeter.io.tables import Qrels, Run

    if isinstance(obj, Run):
        return Qrels(obj.query_ids, obj.doc_ids, np.ones(len(obj)), source=obj.source)
    if isinstance(obj, str | os.PathLike) and table_format(obj) is not None:
        obj = read_table(obj, str(table_format(obj)), (*frames.KNOWN_COLUMNS["pairs"]["query_id"],
                                                       *frames.KNOWN_COLUMNS["pairs"]["doc_id"]))  # fmt: skip
    if frames.is_frame(obj):
        qids, dids, mapping = frames.pair_columns(obj, columns, f"{what}_columns")
        return Qrels(qids, dids, np.ones(len(qids)), source=f"<{what} table>", columns=mapping)
    if isinstance(obj, Mapping) and not any(obj.values()):  # nothing to exclude (or no candidates): no pairs
        return Qrels(np.array([], dtype=str), np.array([], dtype=str), np.ones(0), source=f"<{what} dict>")
    if isinstance(obj, Qrels | str | os.PathLike | Mapping):
        return as_qrels(obj)
    raise InputFormatError(f"cannot read {what}= from {type(obj).__name__}: {_hint(obj, 'qrels')}")
