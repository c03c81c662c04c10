"""No MemoryError, OverflowError, ValueError or BrokenProcessPool reaches a user of the command line.

Each case used to end in a traceback; each must now print exactly one ``error:`` line, naming the
option, the file or the runs, and exit with the documented status (1 bad input, 2 bad command line).
"""

from __future__ import annotations

import importlib
import io
import os
import signal
import zipfile
from pathlib import Path

import numpy as np
import pytest
from numpy.lib import format as npy

from rankmeter.core.processes import map_processes
from rankmeter.errors import WorkerDiedError
from tests.fuzz import catalogue

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n"


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("q.txt").write_text(QRELS)
    for name in ("a", "b", "c"):
        Path(f"{name}.txt").write_text(RUN)
    np.save("ok.npy", np.zeros((3, 4)))
    header = io.BytesIO()
    npy.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (800_000, 1_000_000)})
    Path("bomb.npy").write_bytes(header.getvalue().ljust(200, b"\0"))  # 200 bytes claiming 5.8 TiB
    with zipfile.ZipFile("bomb.npz", "w") as archive:
        archive.writestr("q.npy", Path("bomb.npy").read_bytes())
    return tmp_path


def run_cli(argv: list[str]) -> tuple[int, str]:
    """(exit status, stderr) of ``rankmeter ARGV`` run in this process."""
    try:
        catalogue._cli(argv)()
    except catalogue._CliFailure as exc:
        return exc.status, exc.stderr
    raise AssertionError("unreachable: the catalogue's call always raises")


def one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].count("error:") == 1
    return lines[0]


EVALUATE = ["evaluate", "q.txt", "a.txt", "-m", "map"]
NPY = ["--query-labels", "ok.npy", "--database-labels", "ok.npy", "-m", "map"]

# (argv, exit status, text the line must hold, what it used to raise)
CASES = [
    ([*EVALUATE[:3], "-m", "p@" + "9" * 5000], 2, "cutoff 999999999999...(5000 digits) is too large", "ValueError"),
    (
        [*EVALUATE, "--depth", "9" * 20],
        2,
        "argument --depth: must be an integer in [1, 9223372036854775807]",
        "Overflow",
    ),
    ([*EVALUATE, "--depth", "9223372036854775807"], 0, "", "the largest depth works"),
    (
        [*EVALUATE, "--ties", "shuffle", "--seed", str(2**70)],
        2,
        "argument --seed: must be an integer in [0, 1844",
        "Ov",
    ),
    ([*EVALUATE, "--ties", "shuffle", "--seed", str(2**64 - 1)], 0, "", "the largest seed works"),
    ([*EVALUATE, "--digits", "-1"], 2, "argument --digits: must be an integer in [0, 17], got '-1'", "ValueError"),
    ([*EVALUATE, "--digits", "100000"], 2, "argument --digits: must be an integer in [0, 17], got '100000'", "100k"),
    ([*EVALUATE, "--digits", "17"], 0, "", "17 decimals work"),
    ([*EVALUATE, "--digits", "0"], 0, "", "0 decimals work"),
    (
        [*EVALUATE, "--stream", "--block-mb", "99999999999"],
        2,
        "argument --block-mb: must be an integer in [1, 1024]",
        "Mem",
    ),
    ([*EVALUATE, "--stream", "--block-mb", "1024"], 0, "", "the largest block"),
    (
        [*EVALUATE, "--ci", "0.95", "--n-resamples", "0"],
        2,
        "argument --n-resamples: must be an integer in [1, 10000000]",
        "1",
    ),
    (
        [*EVALUATE, "--ci", "0.95", "--n-resamples", "1"],
        2,
        "--n-resamples 1 is too few for a 95% interval: at least 40",
        "",
    ),
    (
        [*EVALUATE, "--ci", "0.95", "--n-resamples", "39"],
        2,
        "--n-resamples 39 is too few",
        "a CI excluding the estimate",
    ),
    ([*EVALUATE, "--ci", "0.95", "--n-resamples", "40"], 0, "", "enough resamples for 95%"),
    ([*EVALUATE, "--ci", "0.5", "--n-resamples", "4"], 0, "", "enough resamples for 50%"),
    ([*EVALUATE, "--ci", "nan"], 2, "argument --ci: must be a number in (0, 1), got 'nan'", "accepted"),
    ([*EVALUATE, "--ci", "1"], 2, "argument --ci: must be a number in (0, 1), got '1'", "after the work"),
    ([*EVALUATE, "--threads", "0"], 2, "argument --threads: must be an integer in [1, 1024], got '0'", "accepted"),
    ([*EVALUATE, "--threads", "-1"], 2, "argument --threads: must be an integer in [1, 1024], got '-1'", "accepted"),
    (
        ["evaluate", "q.txt", "a.txt", "b.txt", "--workers", "0"],
        2,
        "argument --workers: must be an integer in [1, 1024]",
        "",
    ),
    (
        ["evaluate", "q.txt", "a.txt", "b.txt", "--workers", "-3"],
        2,
        "argument --workers: must be an integer",
        "accepted",
    ),
    (
        [*EVALUATE, "--partitions", "0"],
        2,
        "argument --partitions: must be an integer in [1, 1024], got '0'",
        "accepted",
    ),
    (
        [*EVALUATE, "--depth", "\u0665"],
        2,
        "argument --depth: must be an integer in [1, 9223372036854775807], got '\u0665'",
        "",
    ),
    (
        [*EVALUATE, "--depth", "1_0"],
        2,
        "argument --depth: must be an integer in [1, 9223372036854775807], got '1_0'",
        "10",
    ),
    ([*EVALUATE[:3], "-m", "p@\u0665"], 2, "measure 'p@\u0665': cutoff '\u0665' is not a positive integer", "p@5"),
    (["compare", "q.txt", "a.txt", "b.txt", "-m", "map", "--seed", "-1"], 2, "argument --seed: must be an integer", ""),
    (["compare", "q.txt", "a.txt", "b.txt", "-m", "map", "--n-resamples", "10"], 2, "--n-resamples 10 is too few", ""),
    (
        ["compare", "q.txt", "a.txt", "b.txt", "-m", "map", "--alpha", "0"],
        2,
        "argument --alpha: must be a number in (0, 1)",
        "",
    ),
    (
        ["retrieval", "bomb.npy", "ok.npy", *NPY],
        1,
        "queries: bomb.npy: the header claims shape (800000, 1000000)",
        "Mem",
    ),
    (
        ["retrieval", "bomb.npz", "ok.npy", *NPY],
        1,
        "queries: bomb.npz:q: the header claims shape (800000, 1000000)",
        "Mem",
    ),
    (
        ["retrieval", "ok.npy", "ok.npy", "--digits", "18", *NPY],
        2,
        "argument --digits: must be an integer in [0, 17]",
        "",
    ),
    (["retrieval", "ok.npy", "ok.npy", "--batch-size", "0", *NPY], 2, "argument --batch-size: must be an integer", ""),
]


@pytest.mark.parametrize(("argv", "status", "text", "before"), CASES, ids=[" ".join(c[0])[:60] for c in CASES])
def test_one_error_line_and_the_documented_status(
    files: Path, argv: list[str], status: int, text: str, before: str
) -> None:
    got, stderr = run_cli(argv)
    assert got == status, stderr
    if status:
        assert text in one_error_line(stderr)
    else:
        assert "error" not in stderr


def _kill_b(shared: object, item: tuple[str, object]) -> object:
    if item[0] == "b":
        os.kill(os.getpid(), signal.SIGKILL)  # what the OOM killer does
    return _evaluate_named(shared, item)


EVALUATE_MODULE = importlib.import_module("rankmeter.by_ids")
_evaluate_named = EVALUATE_MODULE._evaluate_named


def test_a_worker_killed_for_memory_is_one_line_naming_the_runs_in_flight(
    files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(EVALUATE_MODULE, "_evaluate_named", _kill_b)
    monkeypatch.setattr(EVALUATE_MODULE, "PROCESS_MIN_ROWS", 0)
    status, stderr = run_cli(["evaluate", "q.txt", "a.txt", "b.txt", "c.txt", "-m", "map", "--workers", "2"])
    assert status == 1
    line = one_error_line(stderr)
    assert line.startswith("rankmeter evaluate: error: a worker process died (killed by a signal, often by the system")
    assert "'b'" in line and "(--workers 1)" in line


def _die_on(shared: int, item: int) -> int:
    if item == shared:
        os.kill(os.getpid(), signal.SIGKILL)
    return item * 10


def test_map_processes_names_the_items_in_flight() -> None:
    """Item 2 kills its worker: the error names the first two unfinished items (2 among them) and the rest.

    Items 0 and 1 finish first unless the other worker is still on item 1 when item 2's worker dies.
    """
    got: list[int] = []
    with pytest.raises(WorkerDiedError) as info:
        for value in map_processes(_die_on, 2, list(range(7)), workers=2):
            got.append(value)
    assert got in ([0], [0, 10])
    n = len(got)
    assert f"while evaluating '{n}' or '{n + 1}'; {7 - n - 2} more not evaluated;" in str(info.value)


def test_map_processes_without_a_death_gives_every_result() -> None:
    assert list(map_processes(_die_on, -1, list(range(5)), workers=2)) == [0, 10, 20, 30, 40]
