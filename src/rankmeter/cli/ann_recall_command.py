"""``rankmeter retrieval QUERIES DATABASE --ann ANN.ivecs [-k K]``: ANN recall@k against exact kNN.

The ANN result is an id matrix (``.npy``, ``.ivecs``, ``.ibin``); the exact
neighbours are computed from QUERIES and DATABASE, or read from
``--exact-ids`` and ``--exact-distances`` (DATABASE then only tells identical
vectors apart). ``--metric`` is one of euclidean, cosine, inner. Id matrices
are read from ``.npy``, ``.ivecs`` or ``.ibin`` (text files read as floats
and are refused as ids). :func:`rankmeter.ann_recall` gives the definition.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def add_ann_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ANN recall on the ``retrieval`` parser."""
    p.add_argument("--ann", metavar="FILE", help="ANN id matrix (n_queries, k): report ANN recall@k instead")
    p.add_argument("-k", type=int, default=None, help="with --ann: the k of recall@k (default: the matrix's columns)")
    p.add_argument("--exact-ids", metavar="FILE", help="with --ann: exact neighbour ids instead of exact search")
    p.add_argument("--exact-distances", metavar="FILE", help="with --exact-ids: their distances, ascending")


def _matrix(spec: str, what: str, load_array: Callable[[str, str], np.ndarray]) -> np.ndarray:
    from rankmeter.agreement.matrix_files import BINS, VECS, read_matrix

    suffix = Path(spec).suffix.lower()
    return read_matrix(spec, what) if suffix in VECS or suffix in BINS else load_array(spec, what)


def run_ann(args: Any, load_array: Callable[[str, str], np.ndarray]) -> int:
    """Compute and print ANN recall@k (``--format`` table, json or csv)."""
    from rankmeter.agreement import ann_recall

    base = _matrix(args.database, "database", load_array)
    exact = args.exact_ids is not None
    result = ann_recall(
        _matrix(args.ann, "ann ids", load_array),
        args.k,
        queries=None if exact else _matrix(args.queries, "queries", load_array),
        base=base,
        exact_ids=_matrix(args.exact_ids, "exact ids", load_array) if exact else None,
        exact_distances=_matrix(args.exact_distances, "exact distances", load_array) if args.exact_distances else None,
        metric=args.metric,
    )
    return write_result(result, args)


def write_result(result: Any, args: Any) -> int:
    """Print ``result`` as ``--format`` asks (table, json or csv), to ``--output`` or stdout; return 0."""
    from rankmeter.cli.evaluate_command import render_table
    from rankmeter.cli.output import tables_for, write_output

    if args.format == "json":
        text = result.to_json() + "\n"
    elif args.format == "csv":
        text = result.to_csv()
    else:
        with tables_for(args.output):
            text = render_table(result, args.per_query, args.digits)
    write_output(text, args.output)
    return 0
