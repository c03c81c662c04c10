"""Exit statuses of the command line: 0 done, 1 the input is wrong, 2 the command line is wrong.

A script looping over runs can tell a bad run file (1: fix the data) from a bad invocation (2: fix the
command, as argparse's own usage errors do). An input past a resource limit (a line over
``RANKMETER_MAX_LINE_BYTES``, a ``.gz`` file expanding past ``RANKMETER_MAX_GZIP_RATIO``) is bad input: 1.
The trec_eval and ndeval drop-ins keep their tools' own statuses. The console scripts end their process
with the status as soon as the command is done (:func:`end_process`).
"""

from __future__ import annotations

import os
import sys

from rankmeter.errors import LimitError, MeasureSyntaxError, PolicyError

INPUT_ERROR = 1
"""A file, line, query, document or value of the input is wrong (or a file cannot be read)."""

USAGE_ERROR = 2
"""An option, its value or a measure name is wrong, or arguments are missing (argparse's status too)."""


def exit_status(exc: BaseException) -> int:
    """The status for an error raised while running a command.

    >>> from rankmeter.errors import InputFormatError
    >>> missing = FileNotFoundError(2, "No such file or directory", "run.txt")
    >>> exit_status(InputFormatError("run.txt:3: ...")), exit_status(PolicyError("ties must be ...")), exit_status(
    ...     missing), exit_status(LimitError("run.txt:1: line ..."))
    (1, 2, 1, 1)
    """
    if isinstance(exc, LimitError):
        return INPUT_ERROR
    return USAGE_ERROR if isinstance(exc, PolicyError | MeasureSyntaxError) else INPUT_ERROR


def end_process(status: int) -> int:
    """End the console script's process with ``status`` once its command is done, without tearing Python down.

    What an exit does for the outside world still happens, in the same order: the standard streams are
    flushed and the :mod:`atexit` functions run. What is skipped is freeing every module and object one
    by one, which a command's result does not depend on (its cost: docs/performance.md, "The small job").
    A thread still running keeps the ordinary exit (Python waits for it), as does an interpreter without
    CPython's ``atexit._run_exitfuncs``: ``status`` is then returned.

    >>> import threading
    >>> done = threading.Event()
    >>> worker = threading.Thread(target=done.wait)
    >>> worker.start()
    >>> end_process(3)  # a thread is running: no early exit
    3
    >>> done.set(); worker.join()
    """
    import atexit
    import threading

    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)  # CPython's; elsewhere the ordinary exit
    if threading.active_count() > 1 or run_exit_functions is None:
        return status
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # (None without a console: pythonw)
                stream.flush()
        except (BrokenPipeError, ValueError):  # a reader that left (`rankmeter ... | head`), a closed stream
            pass
    run_exit_functions()
    os._exit(status)
