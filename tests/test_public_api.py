"""The public surface: what ``rankmeter.<tab>`` shows, and that each name resolves."""

from __future__ import annotations

import subprocess
import sys

import pytest

import rankmeter


def test_dir_lists_the_surface_only() -> None:
    assert dir(rankmeter) == sorted(rankmeter.__all__)
    for internal in ("pipeline", "stream", "core", "io", "aggregate", "results", "errors", "cli", "trec_eval"):
        assert internal not in dir(rankmeter)


@pytest.mark.parametrize("name", rankmeter.__all__)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(rankmeter, name) is not None


def test_lazy_names_are_the_real_objects() -> None:
    import rankmeter.stats.significance
    import rankmeter.vectors

    assert rankmeter.evaluate_vectors is rankmeter.vectors.evaluate_vectors
    assert rankmeter.compare is rankmeter.stats.significance.compare
    assert rankmeter.compare_per_query is rankmeter.stats.compare_per_query
    assert rankmeter.Comparison is rankmeter.stats.Comparison
    assert rankmeter.report.render_markdown.__module__ == "rankmeter.report.tables"
    assert issubclass(rankmeter.PolicyError, rankmeter.RankmeterError)
    assert issubclass(rankmeter.RankmeterError, ValueError)


def test_import_rankmeter_loads_no_lazy_public_module() -> None:
    code = (
        "import sys, rankmeter\n"
        "print(sorted(m for m in ('rankmeter.stats', 'rankmeter.report', 'rankmeter.vectors', 'rankmeter.io.trec',"
        " 'scipy', 'matplotlib', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_unknown_attribute() -> None:
    with pytest.raises(AttributeError, match="module 'rankmeter' has no attribute 'evaluate_everything'"):
        _ = rankmeter.evaluate_everything  # type: ignore[attr-defined]
