"""Every ``>>>`` block of the guides and of the report page runs, with its output checked (doctest).

The examples read ``examples/`` relative to the repository root, where the test suite runs.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted((DOCS / "guides").glob("*.md")) + [DOCS / "report.md"]


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_guide_examples(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DOCS.parent)
    failures, attempted = doctest.testfile(
        str(page), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True
    )
    assert failures == 0
    if page.stem not in ("trainers", "large-scale"):
        assert attempted >= 4, f"{page.name}: only {attempted} examples"
