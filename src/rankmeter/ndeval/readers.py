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

import numpy as np

from rankmeter.errors import DuplicateEntryError, InputFormatError, InvalidScoreError, where
from rankmeter.io.intents import IntentQrels
from rankmeter.io.tables import Run
from rankmeter.trec_eval.readers import read_records


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
    >>> q.query_ids.tolist(), q.relevance.tolist()
    (['1', '1'], [1.0, 0.0])
    >>> os.unlink(f.name)
    """
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
        order = np.lexsort((ranks, topics))
        same = (topics[order][1:] == topics[order][:-1]) & (ranks[order][1:] == ranks[order][:-1])
        if same.any():
            first, second = sorted(order[int(np.flatnonzero(same)[0]) : int(np.flatnonzero(same)[0]) + 2])
            raise DuplicateEntryError(
                f"{where(source, int(lines[second]))}duplicate rank ({ranks[second]}) for topic {topics[second]} "
                f"(first at line {int(lines[first])})"
            )
        scores = -ranks.astype(np.float64)
    run = Run(topics.astype(str), fields[:, 2].astype(str), scores, source=source, lines=lines)
    return run, str(fields[0, 5])


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
