"""The option sets are typed: the type checker names a misspelt option, or one an entry point does not read."""

from __future__ import annotations

from pathlib import Path

from mypy import api


def test_mypy_names_a_misspelt_or_unread_option_and_accepts_the_right_ones(tmp_path: Path) -> None:
    script = tmp_path / "call.py"
    script.write_text(
        "from rankmeter.report.page import html\n"
        "from rankmeter.stats.options import ComparisonOptions\n"
        "html('q.txt', {'a': 'a.run', 'b': 'b.run'}, 'map', test='t', n_resamples=200)\n"
        "html('q.txt', {'a': 'a.run', 'b': 'b.run'}, 'map', options=ComparisonOptions(seed=1))\n"
        "html('q.txt', {'a': 'a.run', 'b': 'b.run'}, 'map', tset='t')\n"
        "html('q.txt', {'a': 'a.run', 'b': 'b.run'}, 'map', alpha='high')\n"
        "from rankmeter.by_arrays import evaluate_lists\n"
        "evaluate_lists([[1]], [[0.5]], 'rr', group_by=['a'], ties='stable')\n"
        "evaluate_lists([[1]], [[0.5]], 'rr', exclude=[[0]])\n"
    )
    out, _, status = api.run(
        [
            str(script),
            "--follow-imports=silent",
            "--ignore-missing-imports",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-error-summary",
        ]
    )
    errors = [line.split(": error: ")[1] for line in out.splitlines() if ": error: " in line]
    assert status == 1
    assert [(line.split(":")[1]) for line in out.splitlines() if ": error: " in line] == ["5", "6", "9"]
    assert errors[0].startswith('Unexpected keyword argument "tset" for "html"')
    assert 'Argument "alpha" to "html" has incompatible type "str"; expected "float"' in errors[1]
    assert errors[2].startswith('Unexpected keyword argument "exclude" for "evaluate_lists"')
