"""Bounded fuzzing in the normal test suite: every target of tests/fuzz/targets.py on random and mutated bytes.

The only outcomes allowed are a correct result (checked against an independent reader where there is one)
or a RankmeterError; see fuzz/campaign.py for the long coverage-guided campaign and docs/errors.md for its
totals. Each target gets about a second here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.targets import TARGETS

SEEDS = Path(__file__).resolve().parents[2] / "fuzz" / "seeds"
REGRESSIONS = Path(__file__).resolve().parent / "regressions"

# pieces the readers treat specially, so that random inputs reach past the first check
_PIECES = [
    b" ",
    b"\t",
    b"\n",
    b"\r\n",
    b"\x0b",
    b"#",
    b"1e309",
    b"-0",
    b"nan",
    b"inf",
    b"0x10",
    b"1_0",
    b"\x00",
    b"\xff",
    b"\xc3\xa9",
    b"(",
    b")",
    b"[",
    b"]",
    b"@",
    b",",
    b"=",
    b"Q0",
    b"1",
    b"2.5",
    b"  ",
    b"\r",
    b"\xef\xbb\xbf",
]


def _seed(target: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted((SEEDS / target).iterdir())]


def _mutated(target: str) -> st.SearchStrategy[bytes]:
    def splice(base: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
        out = bytearray(base)
        for pos, cut, piece in edits:
            at = pos % (len(out) + 1)
            out[at : at + cut] = piece
        return bytes(out)

    edit = st.tuples(st.integers(0, 4096), st.integers(0, 3), st.sampled_from(_PIECES) | st.binary(max_size=4))
    return st.one_of(
        st.binary(max_size=64),
        st.builds(splice, st.sampled_from(_seed(target)), st.lists(edit, min_size=1, max_size=6)),
    )


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_target_on_random_and_mutated_inputs(target: str) -> None:
    examples = 60 if target in ("frames", "trec_qrels", "trec_run", "cli", "csv_tables", "parquet_tables") else 200

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(_mutated(target))
    def run(data: bytes) -> None:
        TARGETS[target](data)

    run()


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_target_on_its_seeds(target: str) -> None:
    for data in _seed(target):
        TARGETS[target](data)


def _regressions() -> list[tuple[str, Path]]:
    return [(d.name, f) for d in sorted(REGRESSIONS.iterdir()) if d.is_dir() for f in sorted(d.iterdir())]


@pytest.mark.parametrize(("target", "path"), _regressions(), ids=lambda v: getattr(v, "name", v))
def test_inputs_that_once_found_a_problem(target: str, path: Path) -> None:
    TARGETS[target](path.read_bytes())
