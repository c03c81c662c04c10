"""Progress bars: drawn on stderr when asked (or for long jobs on a terminal), never changing a value."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter
from rankmeter.progress import progress_bar, wanted


def test_bar_is_drawn_only_when_asked(capsys) -> None:
    rng = np.random.default_rng(4)
    y, s = rng.integers(0, 3, (300, 40)), rng.random((300, 40))
    quiet = rankmeter.evaluate_arrays(y, s, ["ndcg@5", "map"])
    assert capsys.readouterr().err == ""  # stderr is not a terminal here: no bar by default
    shown = rankmeter.evaluate_arrays(y, s, ["ndcg@5", "map"], progress=True)
    err = capsys.readouterr().err
    assert "rankmeter evaluate_arrays" in err and "300/300 lists" in err
    np.testing.assert_array_equal(quiet.values, shown.values)


def test_bar_over_blocks_reaches_the_last_row(capsys, monkeypatch) -> None:
    from rankmeter.core import lists

    monkeypatch.setattr(lists, "EVALUATION_BLOCK_ITEMS", 40 * 7)  # blocks of 7 rows
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 3, (50, 40)), rng.random((50, 40))
    shown = rankmeter.evaluate_arrays(y, s, "ndcg", progress=True)
    assert "50/50 lists" in capsys.readouterr().err
    assert shown.values.shape == (50, 1)


@pytest.mark.parametrize(("asked", "long_job", "tty", "expected"), [
    (True, False, False, True), (False, True, True, False), (None, True, True, True),
    (None, True, False, False), (None, False, True, False),
])  # fmt: skip
def test_wanted(monkeypatch, asked, long_job, tty, expected) -> None:
    monkeypatch.setattr("sys.stderr.isatty", lambda: tty)
    assert wanted(asked, long_job) is expected


def test_progress_bar_reports_bytes(capsys) -> None:
    with progress_bar(2048, "reading", show=True, unit="bytes") as done:
        done(1024)
        done(2048)
    err = capsys.readouterr().err
    assert "reading" in err and "2.0" in err and "kB" in err
