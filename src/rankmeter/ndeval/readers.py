"""ndeval's input files: subtopic qrels and runs, read with ndeval's rules.

* qrels lines hold ``topic subtopic docno judgment`` (fields after the fourth
  are ignored); topic, subtopic and judgment must be natural numbers, and a
  judgment above 1 counts as 1 (ndeval's assessment is binary);
* run lines hold ``topic Q0 docno rank score runid`` (fields after the sixth
  are ignored); the topic may carry a task prefix ending in ``-``
  (``wt09-1`` is topic 1), the rank must be a natural number; the run id is
  the first line's;
* topics are numbers: ``001`` and ``1`` are one topic, printed as ``1``.

Problems are reported as :class:`~rankmeter.errors.RankmeterError` naming
``file:line`` and the field, where ndeval prints ``syntax error``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankmeter.errors import DuplicateEntryError, InputFormatError, InvalidScoreError, where
from rankmeter.ids.arrow import combined, memory_pool
from rankmeter.io.arrow import arrow_to_numpy, dictionary_array
from rankmeter.io.intents import IntentQrels
from rankmeter.io.tables import Run
from rankmeter.io.validate import file_holds, is_regular_path
from rankmeter.trec_eval.readers import read_records


def _arrow_columns(path: str, n_columns: int, kinds: dict[int, str]) -> dict[int, Any] | None:
    """Fast path: the columns ``kinds`` (``d`` dictionary, ``s`` string, ``i`` int64, ``f`` float64) of a plain
    file of single-space separated lines, parsed by pyarrow; None when the exact reader must decide (blank lines,
    other separators, extra fields, values of another type, ``.gz`` or standard input)."""
    if path.endswith(".gz") or not is_regular_path(path) or file_holds(path, b"\r"):
        # standard input, a named pipe or a device is read once, by the exact reader; pyarrow would end
        # lines at a lone carriage return, which the exact reader refuses
        return None
    import pyarrow as pa
    import pyarrow.csv as pacsv

    types = {"d": pa.dictionary(pa.int32(), pa.string()), "s": pa.string(), "i": pa.int64(), "f": pa.float64()}
    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=[f"c{i}" for i in range(n_columns)], block_size=1 << 22),
            parse_options=pacsv.ParseOptions(
                delimiter=" ", quote_char=False, double_quote=False, escape_char=False, ignore_empty_lines=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={f"c{i}": types[k] for i, k in kinds.items()},
                include_columns=[f"c{i}" for i in kinds],
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
            memory_pool=memory_pool(),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
        return None
    if table.num_rows == 0:
        return None
    return {i: combined(table.column(f"c{i}")) for i in kinds}


def _dictionary_numbers(column: Any, run_topics: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """(codes, the number of each dictionary entry) of a dictionary column, or None if an entry is no number."""
    values = np.asarray(column.dictionary.to_pylist(), dtype=str)
    if run_topics:
        values = np.array([t if t[:1].isdigit() else t.partition("-")[2] for t in values.tolist()], dtype=str)
    if len(values) == 0 or not np.char.isdigit(values).all():
        return None
    return arrow_to_numpy(column.indices).astype(np.int64), values.astype(np.int64)


def _number_ids(codes: np.ndarray, numbers: np.ndarray) -> Any:
    """Ids as the text of each number (``001`` and ``1`` are one topic), as a pyarrow dictionary array."""
    distinct, inverse = np.unique(numbers, return_inverse=True)
    return dictionary_array(inverse.ravel()[codes], distinct.astype(str))


def _natural(
    values: np.ndarray, what: str, fields: np.ndarray, lines: np.ndarray, source: str, column: int
) -> np.ndarray:
    """A column of natural numbers (digits only) as int64, or an error naming the first bad line and field."""
    uniq, inverse = np.unique(values.astype(str), return_inverse=True)
    ok = np.char.isdigit(uniq) if len(uniq) else np.zeros(0, dtype=bool)
    if not ok.all():
        row = int(np.flatnonzero(~ok[inverse])[0])
        raise InputFormatError(
            f"{where(source, int(lines[row]))}{what} must be a natural number, got {str(fields[row, column])!r}: "
            f"{' '.join(map(str, fields[row]))!r}"
        )
    return np.asarray(uniq.astype(np.int64)[inverse])


def _run_topics(values: np.ndarray, fields: np.ndarray, lines: np.ndarray, source: str) -> np.ndarray:
    """ndeval's ``parseTopic``: a number, or what follows the first ``-`` of a task prefix (``wt09-1``)."""
    uniq, inverse = np.unique(values.astype(str), return_inverse=True)
    stripped = np.array([t if t[:1].isdigit() else t.partition("-")[2] for t in uniq.tolist()], dtype=str)
    numbers = _natural(stripped[inverse], "topic", fields, lines, source, 0)
    return numbers


def read_ndeval_qrels(path: str) -> IntentQrels:
    """Subtopic qrels as ndeval reads them (topics as their numbers, judgments 0 or 1).

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", delete=False) as f:
    ...     _ = f.write("001 1 a 2\\n1 2 b 0\\n")
    >>> q = read_ndeval_qrels(f.name)
    >>> q.query_ids.to_pylist(), q.relevance.tolist()
    (['1', '1'], [1.0, 0.0])
    >>> os.unlink(f.name)
    """
    fast = _arrow_columns(path, 4, {0: "d", 1: "d", 2: "s", 3: "i"})
    if fast is not None:
        topics_fast, intents_fast = _dictionary_numbers(fast[0], False), _dictionary_numbers(fast[1], False)
        judgment = arrow_to_numpy(fast[3])
        if topics_fast is not None and intents_fast is not None and (judgment >= 0).all():
            return IntentQrels(
                _number_ids(*topics_fast),
                _number_ids(*intents_fast),
                fast[2],
                np.minimum(judgment, 1).astype(np.float64),
                source=path,
            )
    fields, lines, source = read_records(path, 4, False, "topic subtopic docno judgment")
    topics = _natural(fields[:, 0], "topic", fields, lines, source, 0)
    subtopics = _natural(fields[:, 1], "subtopic", fields, lines, source, 1)
    judgments = _natural(fields[:, 3], "judgment", fields, lines, source, 3)
    return IntentQrels(
        topics.astype(str),
        subtopics.astype(str),
        fields[:, 2].astype(str),
        np.minimum(judgments, 1).astype(np.float64),
        source=source,
        lines=lines,
    )


def read_ndeval_run(path: str, traditional: bool) -> tuple[Run, str]:
    """A run as ndeval reads it, and its run id.

    The scores of the returned :class:`Run` order it as ndeval does: by the
    rank column (as minus the rank; a rank used twice in a topic is an
    error), or with ``traditional`` by the score column (ties then go by
    docno descending: ``ties="trec"``).

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", delete=False) as f:
    ...     _ = f.write("wt09-1 Q0 a 2 0.5 tag\\n1 Q0 b 1 0.1 other\\n")
    >>> run, runid = read_ndeval_run(f.name, traditional=False)
    >>> run.query_ids.tolist(), run.scores.tolist(), runid
    (['1', '1'], [-2.0, -1.0], 'tag')
    >>> os.unlink(f.name)
    """
    kinds = {0: "d", 2: "s", 3: "i", 4: "f"} if traditional else {0: "d", 2: "s", 3: "i"}
    fast = _arrow_columns(path, 6, kinds)
    if fast is not None:
        topics_fast = _dictionary_numbers(fast[0], True)
        ranks_fast = arrow_to_numpy(fast[3])
        if topics_fast is not None and (ranks_fast >= 0).all():
            codes, numbers = topics_fast
            if traditional:
                scores_fast = arrow_to_numpy(fast[4])
            else:
                _check_ranks(numbers[codes], ranks_fast, None, path)
                scores_fast = -ranks_fast.astype(np.float64)
            with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                runid = fh.readline().split()[5]  # the fast path saw six fields on every line
            return Run(_number_ids(codes, numbers), fast[2], scores_fast, source=path), runid
    fields, lines, source = read_records(path, 6, False, "topic Q0 docno rank score runid")
    topics = _run_topics(fields[:, 0], fields, lines, source)
    ranks = _natural(fields[:, 3], "rank", fields, lines, source, 3)
    if traditional:
        try:
            scores = np.asarray(fields[:, 4].astype(str), dtype=np.float64)
        except ValueError:
            bad = next(i for i, s in enumerate(fields[:, 4].tolist()) if not _is_float(s))
            raise InvalidScoreError(
                f"{where(source, int(lines[bad]))}topic {topics[bad]}, document '{fields[bad, 2]}': "
                f"score {fields[bad, 4]!r} is not a number"
            ) from None
    else:
        _check_ranks(topics, ranks, lines, source)
        scores = -ranks.astype(np.float64)
    run = Run(topics.astype(str), fields[:, 2].astype(str), scores, source=source, lines=lines)
    return run, str(fields[0, 5])


def _check_ranks(topics: np.ndarray, ranks: np.ndarray, lines: np.ndarray | None, source: str) -> None:
    """A rank used twice in a topic is an error (ndeval: "duplicate rank")."""
    step = (topics[1:] != topics[:-1]) | (ranks[1:] > ranks[:-1])
    changes = int(np.count_nonzero(topics[1:] != topics[:-1]))
    if step.all() and changes + 1 == len(np.unique(topics)):  # each topic's lines together, ranks increasing
        return
    order = np.lexsort((ranks, topics))
    same = (topics[order][1:] == topics[order][:-1]) & (ranks[order][1:] == ranks[order][:-1])
    if same.any():
        at = int(np.flatnonzero(same)[0])
        first, second = sorted(int(r) for r in order[at : at + 2])
        line = (lambda row: int(lines[row])) if lines is not None else (lambda row: row + 1)
        raise DuplicateEntryError(
            f"{where(source, line(second))}duplicate rank ({ranks[second]}) for topic {topics[second]} "
            f"(first at line {line(first)})"
        )


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
