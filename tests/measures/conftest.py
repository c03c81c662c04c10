"""Fixtures of the measure-family tests: the shared real data (see ``tests/conftest.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import shared_dir

__all__ = ["realdata", "shared_dir"]


@pytest.fixture(scope="session")
def realdata(shared_dir: Path) -> Path:
    """``tests/realdata``: data files copied unchanged from public repositories (see its SOURCES.md)."""
    return shared_dir / "realdata"
