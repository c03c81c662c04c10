"""The trec_eval program: parse the command line, read the inputs, evaluate, print."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO

from rankmeter._version import __version__
from rankmeter.errors import RankmeterError
from rankmeter.io.escaping import printable
from rankmeter.io.load import BLOCK_BYTES
from rankmeter.trec_eval.engine import (
    NoQueriesError,
    Table,
    complete_num_rel,
    evaluate_qrels,
    evaluate_qrels_in_blocks,
)
from rankmeter.trec_eval.help import help_text
from rankmeter.trec_eval.measures import TrecMeasureError, resolve
from rankmeter.trec_eval.options import USAGE, UsageError, parse_options
from rankmeter.trec_eval.readers import read_qrels, read_run, read_zscores
from rankmeter.trec_eval.report import render

#: The trec_eval version whose output this reproduces.
TREC_EVAL_VERSION = "10.0-rc3"
REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")


def _evaluate(opts, requested, rel_path: str, run_path: str, stderr: TextIO) -> Table:  # type: ignore[no-untyped-def]
    if opts.rel_format == "qrels":
        qrels = read_qrels(rel_path)
        options = {
            "complete": opts.complete,
            "level": opts.level,
            "judged_only": opts.judged_only,
            "max_docs": opts.max_docs,
            "num_docs": opts.num_docs,
            "stderr": stderr,
        }
        table = None
        if run_path != "-" and os.path.isfile(run_path) and os.path.getsize(run_path) > BLOCK_BYTES:
            table = evaluate_qrels_in_blocks(requested, qrels, run_path, block_bytes=BLOCK_BYTES, **options)
        if table is None:
            table = evaluate_qrels(requested, qrels, read_run(run_path, arrow_ids=True), **options)
        if opts.complete:
            complete_num_rel(table, qrels)
        return table
    if opts.rel_format in ("prefs", "qrels_prefs"):
        from rankmeter.trec_eval.prefs import evaluate_prefs

        return evaluate_prefs(
            requested,
            rel_path,
            run_path,
            qrels_format=opts.rel_format == "qrels_prefs",
            complete=opts.complete,
            judged_only=opts.judged_only,
            max_docs=opts.max_docs,
            stderr=stderr,
        )
    from rankmeter.trec_eval.judgment_groups import evaluate_judgment_groups

    return evaluate_judgment_groups(
        requested,
        rel_path,
        run_path,
        complete=opts.complete,
        level=opts.level,
        judged_only=opts.judged_only,
        max_docs=opts.max_docs,
        stderr=stderr,
    )


def run_trec_eval(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run trec_eval with ``argv`` (without the program name); returns the exit status.

    Parameters
    ----------
    argv : sequence of str
        trec_eval's arguments, e.g. ``["-q", "-m", "all_trec", "qrels", "run"]``.
    stdout, stderr : text streams, optional
        Where the output and the messages go (default: the process streams).

    Returns
    -------
    int
        0 on success; 1 for usage errors and unknown measures; 2 for unreadable
        or malformed input; 4 for a measure that cannot be computed with the
        chosen relevance format; 7 when no topic has both judgments and results.

    Examples
    --------
    >>> import io, os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "qrels"), "w").write("1 0 a 1\\n1 0 b 0\\n")
    >>> _ = open(os.path.join(d, "run"), "w").write("1 Q0 a 1 2.0 r1\\n1 Q0 b 2 1.0 r1\\n")
    >>> out = io.StringIO()
    >>> run_trec_eval(["-m", "map", "-m", "P.1", os.path.join(d, "qrels"), os.path.join(d, "run")], out)
    0
    >>> out.getvalue().splitlines()
    ['map                   \\tall\\t1.0000', 'P_1                   \\tall\\t1.0000']
    """
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    try:
        opts = parse_options(argv)
    except UsageError as exc:
        stderr.write(f"trec_eval: {exc}\n{USAGE}")
        return 1
    try:
        if opts.help:
            names = [r.spec.name for r in resolve(opts.measures)] if opts.measures else []
            stdout.write(help_text(names))
            return 0
        if opts.version:
            stderr.write(f"trec_eval version {TREC_EVAL_VERSION} (rankmeter {__version__})\n")
            return 0
        if len(opts.files) != 2:
            stderr.write(USAGE)
            return 1
        requested = resolve(opts.measures)
        if opts.rel_format not in REL_FORMATS:
            stderr.write(f"trec_eval: Illegal rel_format '{opts.rel_format}'\n")
            return 2
        if opts.results_format != "trec_results":
            stderr.write(f"trec_eval: Illegal retrieval results format '{opts.results_format}'\n")
            return 2
        for req in requested:
            if opts.rel_format not in req.spec.formats:
                stderr.write(
                    f"trec_eval: Can't calculate measure '{req.spec.name}' with rel_info_format '{opts.rel_format}'\n"
                )
                return 4
        reference = read_zscores(opts.zscores) if opts.zscores is not None else None
        table = _evaluate(opts, requested, opts.files[0], opts.files[1], stderr)
        stdout.write(render(table, per_query=opts.query, summary=opts.summary, reference=reference))
        return 0
    except TrecMeasureError as exc:
        stderr.write(f"{printable(str(exc))}\n")
        return exc.status
    except NoQueriesError as exc:
        stderr.write(f"{printable(str(exc))}\n")
        return 7
    except RankmeterError as exc:
        message = str(exc).split("; pass duplicates=")[0]  # the API's advice; the command line has no such option
        stderr.write(f"rankmeter trec_eval: error: {printable(message)}\n")
        return 2
    except BrokenPipeError:  # e.g. piped into head
        return 0
