"""map_processes: results in the items' order, from other processes; the first failure in order; a dead worker."""

from __future__ import annotations

import os
import time

import pytest

from rankmeter.core.processes import map_processes


def _pid_and_square(offset: int, item: int) -> tuple[int, int]:
    return os.getpid(), item * item + offset


def _fail_on_odd(delay: float, item: int) -> int:
    if item == 1:
        time.sleep(delay)  # the first failure in order comes last
        raise KeyError("one")
    if item == 3:
        raise IndexError("three")
    return item


def test_map_processes_keeps_the_order_and_runs_in_other_processes() -> None:
    found = list(map_processes(_pid_and_square, 5, list(range(12)), workers=2))
    assert [value for _, value in found] == [i * i + 5 for i in range(12)]
    assert os.getpid() not in {pid for pid, _ in found}
    assert {pid for pid, _ in map_processes(_pid_and_square, 0, [1, 2], workers=1)} == {os.getpid()}


def test_map_processes_raises_the_first_failure_in_the_items_order() -> None:
    with pytest.raises(KeyError, match="one"):
        list(map_processes(_fail_on_odd, 0.5, [0, 1, 2, 3], workers=2))
    assert list(map_processes(_fail_on_odd, 0.0, [0, 2, 4], workers=3)) == [0, 2, 4]


def _die_on_one(_: None, item: int) -> int:
    if item == 1:
        os._exit(3)  # as a worker killed for memory
    return item


def test_a_worker_that_dies_is_an_error_not_a_hang() -> None:
    from rankmeter.errors import WorkerDiedError

    with pytest.raises(WorkerDiedError, match="a worker process died"):
        list(map_processes(_die_on_one, None, [0, 1, 2, 3], workers=2))
