"""The benchmark harness attributes peak memory to the process that used it.

A child forked from a large process starts with that process's memory high-water mark, which
``ru_maxrss`` keeps across ``exec``; :func:`harness.launch` starts contenders from a small launcher
process instead. Here the test process holds 600 MB while it measures a child that allocates a known
amount: the child's peak is its own allocation plus a Python interpreter, not the test process's.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import harness  # noqa: E402

ALLOCATE = "import sys; b = bytearray(int(sys.argv[1]) << 20); b[::4096] = b'x' * len(b[::4096]); print('{}')"
"""A child that touches every page of ``argv[1]`` MB."""


def test_a_childs_peak_is_its_own_not_the_benchmark_processs() -> None:
    held = np.ones(600 << 17)  # 600 MB, touched
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 > 600
    _, _, small = harness.run_child(ALLOCATE, "1")
    _, _, large = harness.run_child(ALLOCATE, "200")
    assert held.sum() == held.size
    assert small < 100  # an interpreter and 1 MB, nowhere near the 600 MB of this process
    assert 190 <= large - small <= 215  # the 199 MB more it allocated, give or take the allocator


def test_a_commands_output_status_and_cpu_come_back() -> None:
    out, wall, rss, cpu = harness.run_command_cpu([sys.executable, "-c", "print('hello')"], env={"X_BENCH": "1"})
    assert out == "hello\n" and wall > 0 and 0 < rss < 100 and cpu > 0
    out, err, status, *_ = harness.launch(
        [sys.executable, "-c", "import os, sys; print(os.environ['X_BENCH']); sys.exit(3)"], {"X_BENCH": "seen"}
    )
    assert (out, status >> 8) == (b"seen\n", 3)


def test_a_command_that_cannot_start_exits_127_with_the_reason() -> None:
    out, err, status, *_ = harness.launch(["/nonexistent/tool"])
    assert (out, status >> 8) == (b"", 127) and err.startswith(b"/nonexistent/tool: [Errno 2]")
