"""``results.result_json``: the indented JSON of a result, each per-query row on one line.

Whatever the ids, values and metadata, the text must parse to what ``json.dumps(json_safe(d))`` gives, lay
out everything but the rows as ``json.dumps(..., indent=2)`` does, and hold one row per line.
"""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.results import EvaluationResult, SystemResults, json_safe, result_json

ids = st.text(min_size=1, max_size=6)  # quotes, backslashes, %, braces, line breaks, non-ASCII
values = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, 1e-300, 5e-324])


@st.composite
def system_results(draw: st.DrawFn) -> SystemResults:
    query_ids = np.array(draw(st.lists(ids, min_size=1, max_size=5, unique=True)), dtype=object).astype(str)
    names = draw(st.lists(ids, min_size=1, max_size=3, unique=True))
    results = {}
    for name in names:
        cells = draw(st.lists(values, min_size=2 * len(query_ids), max_size=2 * len(query_ids)))
        included = np.array(draw(st.lists(st.booleans(), min_size=len(cells), max_size=len(cells))))
        meta = {"note": draw(ids), "counts": {draw(ids): draw(values)}}
        results[name] = EvaluationResult(
            query_ids,
            ["ndcg@10", "map"],
            np.array(cells).reshape(-1, 2),
            included.reshape(-1, 2),
            {"ndcg@10": draw(values), "map": draw(values)},
            meta,
        )
    return SystemResults.of(results)


@settings(max_examples=150, deadline=None)
@given(system_results(), st.booleans())
def test_result_json_parses_to_the_strict_json_of_the_dict(res: SystemResults, one: bool) -> None:
    result = next(iter(res.values())) if one else res
    text = result.to_json()
    expected = json_safe(result.to_dict())
    assert json.loads(text) == expected
    assert json.loads(json.dumps(expected)) == expected  # (no NaN left to compare unequal to itself)
    lines = text.splitlines()
    rows = [line for line in lines if line.startswith("    {")]
    assert len(rows) == len(result.per_query)
    for line, row in zip(rows, result.per_query, strict=True):
        parsed = json.loads(line.rstrip(","))
        assert parsed == json_safe(row)
        assert math.isnan(row["value"]) or not math.isfinite(row["value"]) or parsed["value"] == row["value"]


def test_everything_but_the_rows_is_laid_out_as_json_dumps_indents_it() -> None:
    res = rankmeter.evaluate(
        {"q1": {"a": 1}, "q2": {"b": 2}}, {"q1": {"a": 0.3, "b": 0.9}, "q2": {"b": 1.0}}, ["rr", "p@2"]
    )
    data = res.to_dict()
    rows = data.pop("per_query")
    text = res.to_json()
    start, end = text.index('  "per_query": ['), text.index("  ],\n") + len("  ],\n")
    assert text[:start] + text[end:] == json.dumps(json_safe(data), indent=2)
    assert text[start:end].splitlines()[1:-1] == [
        '    {"query_id": "q1", "measure": "rr", "value": 0.5},',
        '    {"query_id": "q1", "measure": "p@2", "value": 0.5},',
        '    {"query_id": "q2", "measure": "rr", "value": 1.0},',
        '    {"query_id": "q2", "measure": "p@2", "value": 0.5}',
    ]
    assert len(rows) == 4


def test_rows_of_mixed_keys_or_types_are_still_exact() -> None:
    data = {"per_query": [{"a": 1, "b": np.float64("nan")}, {"b": "x", "a": [1, 2]}], "z": {}}
    assert json.loads(result_json(data)) == json_safe(data)
    assert result_json({}) == "{}"
