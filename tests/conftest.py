"""Fixtures shared by every test folder: where the shared fixtures live, TREC files and parsers.

The real data are in ``tests/realdata`` (data files copied unchanged from public repositories, with
their licences; ``tests/realdata/SOURCES.md``); ``$RANKMETER_SHARED`` may name another folder holding a
``realdata`` folder of the same layout.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _shared_dir() -> Path | None:
    candidates = [os.environ.get("RANKMETER_SHARED"), REPO / "tests"]
    for c in candidates:
        if c and (Path(c) / "realdata" / "trec_eval_test").is_dir():
            return Path(c)
    return None


SHARED = _shared_dir()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared fixture folder (fails the test when it is not available)."""
    if SHARED is None:
        pytest.fail("tests/realdata not found (or set RANKMETER_SHARED)", pytrace=False)
    return SHARED


@pytest.fixture(scope="session")
def trec_eval_dir(shared_dir: Path) -> Path:
    """``tests/realdata/trec_eval_test``: trec_eval's own test files (NIST, unchanged)."""
    return shared_dir / "realdata" / "trec_eval_test"


def _parse_trec_eval_output(path: Path) -> dict[tuple[str, str], str]:
    """``{(trec_eval measure name, query id or 'all'): printed value}`` of a trec_eval output file."""
    out: dict[tuple[str, str], str] = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        name, qid, value = line.split("\t")
        out[(name.strip(), qid)] = value
    return out


@pytest.fixture(scope="session")
def parse_trec_eval_output() -> Callable[[Path], dict[tuple[str, str], str]]:
    return _parse_trec_eval_output


_CUT = re.compile(r"(P|recall|ndcg_cut|map_cut|success)_(\d+)")
_CUT_FAMILY = {"P": "p", "recall": "r", "ndcg_cut": "ndcg", "map_cut": "map", "success": "success"}
_PLAIN = {
    "map": "map",
    "Rprec": "rprec",
    "recip_rank": "rr",
    "ndcg": "ndcg",
    "num_q": "num_q",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    # trec_eval -m ndcg.1=3,2=9,4=4.5 (out.test.meas_params): a gain table
    "ndcg_1=3,2=9,4=4.5": "ndcg(gain={1:3,2:9,4:4.5})",
}


def _rankmeter_name(trec_name: str, min_rel: float | None = None) -> str | None:
    """rankmeter's name for a trec_eval measure row, or None when rankmeter has no equivalent.

    ``min_rel`` is trec_eval's ``-l``: it applies to every binary measure (not to ndcg, num_q, num_ret).
    """
    m = _CUT.fullmatch(trec_name)
    if m:
        family, cutoff = _CUT_FAMILY[m.group(1)], m.group(2)
    elif trec_name in _PLAIN:
        family, cutoff = _PLAIN[trec_name], None
    else:
        return None
    if min_rel is not None and not family.startswith("ndcg") and family not in ("num_q", "num_ret"):
        family = f"{family}(min_rel={min_rel:g})"
    return family if cutoff is None else f"{family}@{cutoff}"


@pytest.fixture(scope="session")
def rankmeter_name() -> Callable[..., str | None]:
    return _rankmeter_name


def _format_like_trec_eval(trec_name: str, value: float) -> str:
    if trec_name.startswith("num_"):
        return str(int(round(value)))
    return f"{value:.4f}"


@pytest.fixture(scope="session")
def format_like_trec_eval() -> Callable[[str, float], str]:
    return _format_like_trec_eval


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str | bytes], Path]:
    """Write a text (or bytes) file under tmp_path and return its path."""

    def _write(name: str, content: str | bytes) -> Path:
        p = tmp_path / name
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)
        return p

    return _write
