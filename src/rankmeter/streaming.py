"""Streaming evaluation: a run file larger than memory, evaluated query block by query block.

The result is exactly the in-memory one: per-query values do not depend on
other queries, and the aggregates are computed once from all per-query values.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter.core.candidates import candidate_choice, record
from rankmeter.core.join import (
    AlignInfo,
    JudgmentsByQuery,
    align,
    check_run_duplicates,
    dedupe_qrels,
    merge_infos,
    qrels_rows,
)
from rankmeter.core.lists import map_blocks
from rankmeter.core.options import EvaluationOptions, StreamKeywords, option_names, split_keywords
from rankmeter.core.semantics import Semantics
from rankmeter.errors import InputFormatError, PolicyError
from rankmeter.io.load import BLOCK_BYTES, as_qrels, table_format
from rankmeter.io.tables import Qrels, Run
from rankmeter.measures.traits import refuse_expected_ties
from rankmeter.pipeline import (
    MeasuresArg,
    alignment_metadata,
    concatenate_results,
    evaluate_ranked,
    judged_items_suffice,
    parse_measures,
)
from rankmeter.progress import progress_bar, wanted
from rankmeter.results import EvaluationResult

if TYPE_CHECKING:
    from typing_extensions import Unpack


def evaluate_stream(
    qrels: Any,
    run_path: str | os.PathLike[str],
    measures: MeasuresArg,
    *,
    semantics: Semantics | None = None,
    block_bytes: int = BLOCK_BYTES,
    options: EvaluationOptions | None = None,
    **keywords: Unpack[StreamKeywords],
) -> EvaluationResult:
    """Evaluate a TREC run file in blocks of whole queries, with memory bounded by ``block_bytes``.

    Takes the same options as :func:`rankmeter.evaluate` and returns the same
    result; the run must list each query's lines together.

    Parameters
    ----------
    qrels : path, table, dict or Qrels
        Judgments (held in memory; they are small next to runs).
    run_path : path
        TREC run file (``.gz`` accepted).
    measures : str, Measure or iterable of them
    semantics : Semantics, optional
        As for :func:`rankmeter.evaluate` (a seeded shuffle gives the same
        values as reading the run whole).
    block_bytes : int, default 8 MiB (:data:`BLOCK_BYTES`)
        Bytes of run text parsed at a time.
    options : EvaluationOptions, optional
        The fields of :class:`rankmeter.EvaluationOptions` that apply:
        ``progress`` (reading the file), ``threads`` (blocks ranked and
        evaluated at once), ``exclude`` and ``candidates`` (the qrels are
        restricted once; each block of the run as it is read, and
        ``metadata["candidates"]`` sums what they removed over the blocks).
    **keywords
        Fields of :class:`~rankmeter.Semantics` and of those options given
        one by one, as for :func:`rankmeter.evaluate`.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".run", delete=False) as f:
    ...     _ = f.write("1 Q0 a 1 2.0 t\\n1 Q0 b 2 1.0 t\\n2 Q0 a 1 3.0 t\\n")
    >>> res = evaluate_stream({"1": {"b": 1}, "2": {"a": 1}}, f.name, "rr", block_bytes=16)
    >>> res.by_query("rr")
    {'1': 0.5, '2': 1.0}
    >>> seen = evaluate_stream({"1": {"b": 1}, "2": {"a": 1}}, f.name, "rr", block_bytes=16, exclude={"1": ["a"]})
    >>> seen.by_query("rr"), seen.metadata["candidates"]["run_rows_excluded"]
    ({'1': 1.0, '2': 1.0}, 1)
    >>> os.unlink(f.name)
    """
    from rankmeter.io.run_blocks import iter_run_chunks, read_ahead  # the TREC reader, only when a file is streamed

    if table_format(run_path) is not None:
        raise PolicyError(
            f"{run_path}: a {table_format(run_path)} table, not a TREC text run: streaming reads TREC text "
            "in blocks; evaluate the table without streaming (it is read whole, as its format says)"
        )
    opts, semantic_keywords = split_keywords("evaluate_stream", options, keywords, option_names(StreamKeywords))
    sem = Semantics.build(semantics, "qrels", **semantic_keywords)
    progress, threads, exclude, candidates = opts.progress, opts.threads, opts.exclude, opts.candidates
    ties, empty, missing, seed = sem.tie_policy, sem.empty, sem.missing, sem.seed
    parsed = parse_measures(measures)
    refuse_expected_ties(ties, parsed)
    choice = candidate_choice(exclude, candidates)
    q, counts = as_qrels(qrels), None
    if choice is not None:  # before duplicates are resolved, as when the run is read whole
        q, counts = choice.restrict_qrels(q)
    q, qrels_dropped = dedupe_qrels(q, sem.duplicates)
    judgments = JudgmentsByQuery(q)
    try:
        size = Path(run_path).stat().st_size
    except OSError as exc:
        raise InputFormatError(f"{run_path}: cannot read file: {exc.strerror or exc}") from None
    parts: list[EvaluationResult] = []
    infos: list[AlignInfo] = []
    name = None
    show = wanted(progress, size > (256 << 20))

    def tasks() -> Iterator[tuple[int, Run, Qrels, int] | Exception]:
        """Each block with the judgments of its queries, in file order (bookkeeping on the caller's thread).

        A block that cannot be read ends the tasks with its error, raised when its turn comes: problems
        are reported in file order.
        """
        nonlocal name
        try:
            check = check_run_duplicates if sem.duplicates == "error" else None  # a repeat is reported when read
            blocks = read_ahead(iter_run_chunks(run_path, block_bytes=block_bytes, check_piece=check))
            for index, (run, done_bytes) in enumerate(blocks):
                name = name or run.name
                if choice is not None and counts is not None:  # a query with no row left is missing, as read whole
                    run, removed = choice.restrict_run_part(run)
                    for key, value in removed.items():
                        counts[key] += value
                yield index, run, judgments.of(run), done_bytes
        except Exception as exc:  # handed over, raised in its turn
            yield exc

    def evaluate_block(
        task: tuple[int, Run, Qrels, int] | Exception,
    ) -> tuple[AlignInfo, EvaluationResult | None, int]:
        if isinstance(task, Exception):
            raise task
        index, run, judged, done_bytes = task
        ranked, info = align(
            judged,
            run,
            sem.replace(seed=seed, missing="skip"),
            judged_items=judged_items_suffice(ties, parsed),
            threads=1,
        )
        return info, evaluate_ranked(ranked, parsed, empty=empty) if ranked.n_queries else None, done_bytes

    with progress_bar(size, "rankmeter evaluate", show=show, unit="bytes") as done:
        # blocks are ranked and evaluated on a thread per CPU, results taken in file order (so is any error)
        for info, part, done_bytes in map_blocks(evaluate_block, tasks(), threads):
            infos.append(info)  # run-only queries of the block too
            if part is not None:
                parts.append(part)
            done(done_bytes)
    missing_ids = judgments.unmet_ids()
    if missing_ids and missing != "skip":  # judged queries without results: empty rankings
        ranked, _ = align(judgments.unmet(), Run.empty(str(run_path)), sem)
        parts.append(evaluate_ranked(ranked, parsed, empty=empty))
    if not parts:  # nothing to evaluate: the empty result still carries every metadata field
        nothing = qrels_rows(q, np.zeros(0, dtype=np.int64))
        parts.append(evaluate_ranked(align(nothing, Run.empty(str(run_path)), sem)[0], parsed, empty=empty))
    info = merge_infos(infos)
    info.judged_queries = len(judgments.vocabulary)
    info.missing_queries = missing_ids
    info.run_only_queries = sorted(info.run_only_queries)
    info.duplicates_dropped += qrels_dropped
    extra = alignment_metadata(info, sem, q.source, str(run_path), name, qrels_columns=q.columns)
    extra.update({"ties": ties, "streamed": True})
    if choice is not None and counts is not None:
        record(extra, choice.name, counts)
    extra["empty"] = empty
    return concatenate_results(parts, parsed, extra, sort_by_query=True)
