"""``rankmeter retrieval QUERIES DATABASE --query-labels QL --database-labels DL -m MEASURE ...``.

Evaluates embedding or hash-code retrieval (:func:`rankmeter.vectors.evaluate_vectors`)
from array files: ``.npy``, ``.npz`` (a single array, or ``FILE.npz:NAME``), or
text (``.txt``/``.tsv`` whitespace-separated, ``.csv`` comma-separated).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from rankmeter.cli.ann_recall_command import add_ann_arguments, run_ann, write_result
from rankmeter.cli.options import MAX_DIGITS, MAX_INT64, MAX_SEED, integer
from rankmeter.core.semantics import EMPTY_POLICIES, Semantics
from rankmeter.core.ties import VECTOR_TIES
from rankmeter.errors import InputFormatError

DEFAULT_MEASURES = ["ndcg@10", "ndcg@100", "ndcg", "map@1000", "map", "p@10"]
_METRICS = ("hamming", "cosine", "euclidean", "inner")
_RELEVANCE = ("shared_labels", "any_shared", "same_class")


def add_parser(sub: Any) -> None:
    """Register the ``retrieval`` subcommand."""
    p = sub.add_parser(
        "retrieval",
        help="evaluate embedding / hash-code retrieval from array files",
        description="Rank the whole database for every query by a distance (Hamming by default) and evaluate "
        "with relevance derived from labels. Arrays: .npy, .npz (FILE.npz:NAME picks an array), .txt/.csv.",
    )
    p.add_argument("queries", help="query features or binary codes, shape (n_queries, dim)")
    p.add_argument("database", help="database features or binary codes, shape (n_database, dim)")
    p.add_argument(
        "--query-labels",
        metavar="FILE",
        help="multi-hot matrix (n_queries, n_labels) or class-index vector (n_queries,); required unless --ann",
    )
    p.add_argument(
        "--database-labels",
        metavar="FILE",
        help="multi-hot matrix (n_database, n_labels) or class-index vector (n_database,); required unless --ann",
    )
    add_ann_arguments(p)
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measure name, repeatable (e.g. ndcg@100, 'ndcg(gain=exp)@[10,100]', map@1000, "
        f"'p(radius=2)'); default: {' '.join(DEFAULT_MEASURES)}",
    )
    p.add_argument("--metric", choices=_METRICS, default="hamming", help="distance (default: hamming)")
    p.add_argument(
        "--relevance",
        choices=_RELEVANCE,
        default="shared_labels",
        help="grade from labels (default: shared_labels = number of shared labels)",
    )
    p.add_argument("--ties", choices=VECTOR_TIES, default="expected", help="tie policy (default: expected)")
    p.add_argument(
        "--exclude-self",
        action="store_true",
        help="leave database item i out of query i's ranking (queries = database)",
    )
    p.add_argument(
        "--batch-size", type=integer(1, MAX_INT64), default=None, help="queries per block (memory ~ N x batch size)"
    )
    p.add_argument(
        "--radius",
        type=integer(0, MAX_INT64),
        action="append",
        default=None,
        metavar="R",
        help="add precision/recall within Hamming radius R (repeatable)",
    )
    p.add_argument(
        "--codes",
        choices=("auto", "pm1", "binary", "packed"),
        default="auto",
        help="form of Hamming codes (default: auto)",
    )
    p.add_argument(
        "--empty", choices=EMPTY_POLICIES, default="zero", help="queries with no relevant database item (default: zero)"
    )
    p.add_argument("--seed", type=integer(0, MAX_SEED), default=None, help="seed for --ties shuffle")
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: only for long jobs on a terminal)",
    )
    p.add_argument("--per-query", action="store_true", help="also print per-query values in the table")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    p.add_argument(
        "--digits",
        type=integer(0, MAX_DIGITS),
        default=4,
        help=f"decimals in the table, 0 to {MAX_DIGITS} (default: 4)",
    )
    p.add_argument("-o", "--output", default=None, help="write to this file instead of stdout")
    p.set_defaults(handler=run)


def check_npy_size(fh: BinaryIO, size: int, label: str) -> None:
    """Refuse an ``.npy`` stream of ``size`` bytes whose header claims more data than it holds, before allocating.

    NumPy allocates the whole array the header describes before reading it, so a 200-byte file whose
    header claims 5.8 TiB raised ``MemoryError``; it is now an :class:`InputFormatError` naming the file.

    >>> import io
    >>> buf = io.BytesIO(); np.save(buf, np.zeros((2, 3)))
    >>> check_npy_size(io.BytesIO(buf.getvalue()), len(buf.getvalue()), "x.npy")
    >>> check_npy_size(io.BytesIO(buf.getvalue()[:-8]), len(buf.getvalue()) - 8, "x.npy")
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputFormatError: x.npy: the header claims shape (2, 3) of float64, 48 bytes, but ...
    """
    from numpy.lib import format as npy

    version = npy.read_magic(fh)
    read_header = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
    shape, _, dtype = read_header(fh)
    claimed = math.prod(shape) * dtype.itemsize
    held = size - fh.tell()
    if claimed > held:
        raise InputFormatError(
            f"{label}: the header claims shape {shape} of {dtype}, {claimed} bytes, but the file holds {held} bytes "
            "of data (truncated, or not written by NumPy)"
        )


def load_array(spec: str, what: str) -> np.ndarray:
    """Load one array from ``.npy``, ``.npz`` (``FILE.npz:NAME``) or a text file.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "x.csv")
    >>> _ = open(path, "w").write("1,0\\n0,1\\n")
    >>> load_array(path, "labels").tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    name = None
    path = Path(spec)
    if not path.exists() and ":" in spec:
        head, _, name = spec.rpartition(":")
        path = Path(head)
    if not path.exists():
        raise InputFormatError(f"{what}: file not found: {spec}")
    suffix = path.suffix.lower()
    try:
        if suffix == ".npy":
            with open(path, "rb") as fh:
                check_npy_size(fh, path.stat().st_size, f"{what}: {spec}")
            return np.load(path, allow_pickle=False)
        if suffix == ".npz":
            with np.load(path, allow_pickle=False) as archive:
                keys = list(archive.keys())
                if name is None:
                    if len(keys) != 1:
                        raise InputFormatError(
                            f"{what}: {path} holds {len(keys)} arrays ({', '.join(keys)}); pick one with {path}:NAME"
                        )
                    name = keys[0]
                if name not in keys:
                    raise InputFormatError(f"{what}: {path} has no array {name!r} (arrays: {', '.join(keys)})")
                member = archive.zip.getinfo(name if name in archive.zip.namelist() else f"{name}.npy")
                with archive.zip.open(member) as fh:
                    check_npy_size(fh, member.file_size, f"{what}: {path}:{name}")
                return archive[name]
        delimiter = "," if suffix == ".csv" else None
        return np.loadtxt(path, delimiter=delimiter)
    except (OSError, ValueError) as exc:
        if isinstance(exc, InputFormatError):
            raise
        raise InputFormatError(f"{what}: cannot read {spec} ({exc})") from None


def run(args: argparse.Namespace) -> int:
    """Execute ``rankmeter retrieval``."""
    from rankmeter.vectors import evaluate_vectors

    if args.ann is not None:
        return run_ann(args, load_array)
    if args.query_labels is None or args.database_labels is None:
        raise InputFormatError("--query-labels and --database-labels are required (or --ann FILE for ANN recall)")
    result = evaluate_vectors(
        load_array(args.queries, "queries"),
        load_array(args.database, "database"),
        args.measures or DEFAULT_MEASURES,
        query_labels=load_array(args.query_labels, "query labels"),
        database_labels=load_array(args.database_labels, "database labels"),
        metric=args.metric,
        relevance=args.relevance,
        semantics=Semantics(ties=args.ties, empty=args.empty, seed=args.seed),
        exclude_self=args.exclude_self,
        batch_size=args.batch_size,
        progress=args.progress,
        radius=args.radius,
        codes=args.codes,
    )
    return write_result(result, args)
