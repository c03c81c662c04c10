"""The ndeval program: parse the command line, read the files, evaluate, print ndeval's CSV lines."""

from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

from rankmeter.core.intents import align_intents
from rankmeter.core.semantics import Semantics
from rankmeter.diversity import evaluate_intent_lists
from rankmeter.ids.intern import vocabulary
from rankmeter.io.intents import IntentQrels
from rankmeter.io.tables import Run
from rankmeter.measures import Measure
from rankmeter.measures.grammar import measure
from rankmeter.measures.kernels.diversity import IntentContext
from rankmeter.ndeval.options import USAGE, NdevalOptions, UsageError, parse_options
from rankmeter.ndeval.readers import read_ndeval_qrels, read_ndeval_run

NDEVAL_VERSION = "version 4.5 (Mon 29 Apr 2013 20:51:02 EDT)"
"""The ndeval release whose command line and output this reproduces."""

CUTOFFS = (5, 10, 20)
COLUMNS = [
    *(f"ERR-IA@{k}" for k in CUTOFFS),
    *(f"nERR-IA@{k}" for k in CUTOFFS),
    *(f"alpha-DCG@{k}" for k in CUTOFFS),
    *(f"alpha-nDCG@{k}" for k in CUTOFFS),
    "NRBP",
    "nNRBP",
    "MAP-IA",
    *(f"P-IA@{k}" for k in CUTOFFS),
    *(f"strec@{k}" for k in CUTOFFS),
]
"""ndeval's columns, in its order."""
NNRBP = COLUMNS.index("nNRBP")

HELP = """\
rankmeter ndeval [options] qrels run
  Diversity evaluation as NIST's ndeval 4.5 computes it (TREC Web track), one CSV
  line per topic of the run and an 'amean' line, on standard output.

  qrels: 'topic subtopic docno judgment' lines (judgments above 1 count as 1)
  run:   'topic Q0 docno rank score runid' lines

  options:
    -alpha A         redundancy penalty of alpha-(n)DCG, (n)ERR-IA and (n)NRBP (default 0.5)
    -beta B          patience of NRBP (default 0.5)
    -traditional     order each topic by score, then docno descending (TREC's order),
                     instead of by the rank column
    -M depth         keep only the first 'depth' documents of each topic
    -c               average over every topic of the qrels (absent topics count 0)
                     rather than over the topics of both the qrels and the run
    -baseline RUN    risk-sensitive evaluation against RUN: each value becomes
                     v - b when v >= b, else (1 + riskAlpha) (v - b)
    -riskAlpha A     risk sensitivity, >= 0 (default 0)
    -a               accepted, as ndeval accepts it (no effect)
    -help, -version

  Measures (cutoffs 5, 10, 20): ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG, NRBP, nNRBP,
  MAP-IA, P-IA, strec -- rankmeter's err_ia, nerr_ia, alpha_dcg, alpha_ndcg, nrbp, nnrbp,
  map_ia, p_ia and strec (see 'rankmeter measures' and docs/diversity.md).
"""


def ndeval_measures(alpha: float, beta: float) -> list[Measure]:
    """rankmeter's measures for ndeval's columns (in :data:`COLUMNS` order once expanded).

    >>> [str(m) for m in ndeval_measures(0.5, 0.8)][4:7]
    ['nrbp(beta=0.8)', 'nnrbp(beta=0.8)', 'map_ia']
    """
    k = list(CUTOFFS)
    return [
        measure("err_ia", k, alpha=alpha),
        measure("nerr_ia", k, alpha=alpha),
        measure("alpha_dcg", k, alpha=alpha),
        measure("alpha_ndcg", k, alpha=alpha),
        measure("nrbp", alpha=alpha, beta=beta),
        measure("nnrbp", alpha=alpha, beta=beta),
        measure("map_ia"),
        measure("p_ia", k),
        measure("strec", k),
    ]


def topic_values(qrels: IntentQrels, run: Run, opts: NdevalOptions) -> tuple[dict[int, np.ndarray], int]:
    """Every run topic's values in :data:`COLUMNS` order, and how many topics the run shares with the qrels.

    Topics of the run without judgments get zeros (ndeval prints them so);
    topics without a relevant judgment get zeros and NaN for nNRBP (0 / 0).
    """
    sem = Semantics(ties="trec" if opts.traditional else "stable", missing="skip", depth=opts.depth)
    lists, info = align_intents(qrels, run, sem)
    result = evaluate_intent_lists(lists, ndeval_measures(opts.alpha, opts.beta), empty="nan")
    values = result.values.copy()
    empty = IntentContext(lists).n_intents(None) == 0
    values[empty] = 0.0
    values[empty, NNRBP] = np.nan
    table = {int(q): values[i] for i, q in enumerate(lists.query_ids.tolist())}
    for q in info.run_only_queries:
        table[int(q)] = np.zeros(len(COLUMNS))
    return table, len(lists.query_ids)


def _risk(run: np.ndarray, base: np.ndarray, risk_alpha: float) -> np.ndarray:
    """ndeval's risk-sensitive value: v - b when v >= b, else (1 + a) (v - b) (NaN stays NaN)."""
    diff = run - base
    return np.where(run >= base, diff, (risk_alpha + 1.0) * diff)


def _format(value: float) -> str:
    """C's ``%.6f``; NaN prints as glibc prints the NaN of 0/0 on x86: ``-nan``."""
    return "-nan" if np.isnan(value) else f"{value:.6f}"


def render(
    runid: str,
    table: dict[int, np.ndarray],
    denominator: int,
    *,
    complete: bool,
    baseline: dict[int, np.ndarray] | None = None,
    baseline_id: str = "",
    risk_alpha: float = 0.0,
    risk_alpha_text: str = "0",
) -> str:
    """ndeval's output: the header, one line per topic (ascending), the ``amean`` line.

    With a baseline, topics are merged as ndeval merges them: a topic of
    either run counts (a missing side is 0), except that topics only in the
    baseline count only with ``-c``; the mean is over ``denominator`` topics or
    over the topics printed, whichever is more.
    """
    label = runid
    rows: list[tuple[int, np.ndarray]] = []
    zeros = np.zeros(len(COLUMNS))
    if baseline is None or not baseline:
        rows = [(t, _risk(table[t], zeros, risk_alpha)) for t in sorted(table)]
    else:
        label = f"{runid} (rel to. {baseline_id}; rs=1+a; a={risk_alpha_text})"
        topics = sorted(set(table) | (set(baseline) if complete else set(baseline) & set(table)) | set(table))
        for t in topics:
            rows.append((t, _risk(table.get(t, zeros), baseline.get(t, zeros), risk_alpha)))
        denominator = max(denominator, len(rows))
    line = "%s,%d" + ",%.6f" * len(COLUMNS)
    lines = ["runid,topic," + ",".join(COLUMNS)]
    lines += [(line % (label, t, *row.tolist())).replace(",nan", ",-nan") for t, row in rows]
    total = np.sum([row for _, row in rows], axis=0) if rows else zeros
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / float(denominator) if denominator else np.full(len(COLUMNS), np.nan)
    lines.append(f"{label},amean," + ",".join(_format(v) for v in mean))
    return "\n".join(lines) + "\n"


def run_ndeval(argv: list[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``ndeval`` with ``argv`` (without the program name); returns the exit status."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        opts = parse_options(argv)
    except UsageError as exc:
        print(f"rankmeter ndeval: {exc}\n{USAGE}", file=err)
        return 1
    if opts.show == "version":
        print(f"rankmeter ndeval: {NDEVAL_VERSION}", file=out)
        return 0
    if opts.show == "help":
        out.write(HELP)
        return 0
    qrels = read_ndeval_qrels(opts.qrels)
    run, runid = read_ndeval_run(opts.run, opts.traditional)
    table, matched = topic_values(qrels, run, opts)
    baseline, baseline_id = None, ""
    if opts.baseline is not None:
        base_run, baseline_id = read_ndeval_run(opts.baseline, opts.traditional)
        baseline, _ = topic_values(qrels, base_run, opts)
    denominator = len(vocabulary(qrels.query_ids)) if opts.complete else matched
    out.write(
        render(
            runid,
            table,
            denominator,
            complete=opts.complete,
            baseline=baseline,
            baseline_id=baseline_id,
            risk_alpha=opts.risk_alpha,
            risk_alpha_text=opts.risk_alpha_text,
        )
    )
    return 0
