"""Exit statuses of the command line: 0 done, 1 the input is wrong, 2 the command line is wrong.

A script looping over runs can tell a bad run file (1: fix the data) from a bad invocation (2: fix the
command, as argparse's own usage errors do). An input past a resource limit (a line over
``RANKMETER_MAX_LINE_BYTES``, a ``.gz`` file expanding past ``RANKMETER_MAX_GZIP_RATIO``) is bad input: 1.
The trec_eval and ndeval drop-ins keep their tools' own statuses.
"""

from __future__ import annotations

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
