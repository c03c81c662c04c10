r"""trec_eval's output: one line ``%-22s\t%s\t%s`` per (measure, topic), then the ``all`` summary.

Per-topic lines (``-q``) come topic by topic, each topic's measures in
trec_eval's table order; the summary follows in the same order. Values print
as ``%6.4f`` and counts as integers; ``runid`` prints the run tag and
``relstring`` a quoted string (topics only). With ``-Z`` every value is
replaced by its z-score against the reference means and deviations and the
name gets a ``Z`` prefix (``runid`` and ``relstring`` excepted; counts then
print as ``%6.4f`` too).

Summaries: ``mean`` measures are summed over topics in topic order and divided
by the number of topics; ``sum`` measures are summed; ``gmean`` measures
average log(max(v, 0.00001)) and print exp of that; ``num_q`` is the number of
topics.
"""

from __future__ import annotations

import math

import numpy as np

from rankmeter.trec_eval.engine import Table

MIN_GEO_MEAN = 1e-5
MISSING_ZSCORE = -1000000.0


def sequential_sum(values: np.ndarray) -> float:
    """Left-to-right double sum starting at 0.0, exactly as a C accumulation loop rounds.

    >>> sequential_sum(np.array([0.1, 0.2, 0.3]))
    0.6000000000000001
    """
    return float(np.cumsum(np.concatenate(([0.0], values)))[-1])


def zscores(
    table: Table, reference: dict[tuple[str, str], tuple[float, float]], internal: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Per-topic z-scores of every column: (value - mean) / stddev from the reference table.

    A topic or measure absent from the table gives -1000000; a zero deviation
    gives 0 when the value equals the mean, else -1000000 (trec_eval's rules).
    """
    known_q = {q for q, _ in reference}
    out: dict[str, np.ndarray] = {}
    for c in table.columns:
        if c.key not in internal:
            continue
        raw = internal[c.key]
        z = np.full(len(raw), MISSING_ZSCORE)
        for i, qid in enumerate(table.query_ids):
            if qid not in known_q or (qid, c.name) not in reference:
                continue
            mean, std = reference[(qid, c.name)]
            if std:
                z[i] = (raw[i] - mean) / std
            elif raw[i] == mean:
                z[i] = 0.0
        out[c.key] = z
    return out


def render(
    table: Table,
    *,
    per_query: bool = False,
    summary: bool = True,
    reference: dict[tuple[str, str], tuple[float, float]] | None = None,
) -> str:
    """The text trec_eval prints for ``table``.

    Parameters
    ----------
    table : Table
    per_query : bool
        ``-q``: per-topic lines before the summary.
    summary : bool
        ``False`` for ``-n``.
    reference : dict, optional
        ``-Z`` means and deviations, ``{(topic, printed measure name): (mean, stddev)}``.

    Returns
    -------
    str
    """
    z = reference is not None
    prefix = "Z" if z else ""
    internal: dict[str, np.ndarray] = {}
    for c in table.columns:
        if c.key in table.values:
            v = table.values[c.key]
            internal[c.key] = np.log(np.maximum(v, MIN_GEO_MEAN)) if c.spec.aggregate == "gmean" else v
    if reference is not None:
        internal = zscores(table, reference, internal)
    num_q = len(table.query_ids)
    lines: list[str] = []

    def number(c_count: bool, value: float) -> str:
        return f"{int(value)}" if c_count and not z else f"{value:6.4f}"

    if per_query:
        for i, qid in enumerate(table.query_ids):
            for c in table.columns:
                if not c.spec.per_query:
                    continue
                if c.key in table.texts:
                    lines.append(f"{c.name:<22}\t{qid}\t'{table.texts[c.key][i]}'")
                elif c.key in internal:
                    lines.append(f"{prefix}{c.name:<22}\t{qid}\t{number(c.spec.count, float(internal[c.key][i]))}")
    if summary:
        for c in table.columns:
            agg = c.spec.aggregate
            if c.key == "runid":
                lines.append(f"{'runid':<22}\tall\t{table.runid}")
            elif agg == "num_q":
                lines.append(f"{prefix}{c.name:<22}\tall\t{number(True, num_q)}")
            elif c.key in table.summaries:
                lines.append(f"{prefix}{c.name:<22}\tall\t{number(c.spec.count, table.summaries[c.key])}")
            elif c.key in internal and agg != "none":
                total = sequential_sum(internal[c.key])
                if agg == "mean":
                    value = total / num_q
                elif agg == "gmean":
                    value = math.exp(total / num_q)
                else:
                    value = total
                lines.append(f"{prefix}{c.name:<22}\tall\t{number(c.spec.count, value)}")
    return "".join(line + "\n" for line in lines)
