"""Progress bars on stderr for long evaluations (rich, imported only when a bar is shown)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def wanted(progress: bool | None, long_job: bool) -> bool:
    """Whether to draw a bar: as asked, else for a long job when stderr is a terminal.

    >>> wanted(True, False), wanted(None, False), wanted(False, True)
    (True, False, False)
    """
    return progress if progress is not None else (long_job and sys.stderr.isatty())


@contextmanager
def progress_bar(total: int, description: str, *, show: bool, unit: str = "items") -> Iterator[Callable[[int], None]]:
    """A function that reports how much of ``total`` is done, drawing a bar on stderr when ``show``.

    ``unit`` is ``"bytes"`` (sizes and rate, for files) or a word for counted
    things (``"queries"``, ``"lists"``). On a terminal the bar is removed when
    the work ends; elsewhere (a log) its last state stays.

    >>> with progress_bar(3, "evaluating", show=False) as done:
    ...     for i in range(3):
    ...         done(i + 1)
    """
    if not show:
        yield lambda completed: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    count = DownloadColumn() if unit == "bytes" else TextColumn(f"{{task.completed}}/{{task.total}} {unit}")
    columns = (TextColumn("{task.description}"), BarColumn(), count, TimeElapsedColumn(), TimeRemainingColumn())
    console = Console(file=sys.stderr)
    with Progress(*columns, console=console, transient=console.is_terminal) as bar:  # a log keeps the last state
        task = bar.add_task(description, total=total)
        yield lambda completed: bar.update(task, completed=completed)
