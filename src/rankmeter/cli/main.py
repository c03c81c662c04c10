"""``rankmeter`` console script: dispatches to one module per subcommand.

Each subcommand module exposes ``add_parser(subparsers)`` and ``run(args) -> int``.
Errors derived from :class:`~rankmeter.errors.RankmeterError` are printed as one
line on stderr, never as a traceback: exit status 1 for bad input, 2 for a bad
command line (:mod:`rankmeter.cli.status`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from rankmeter._version import __version__
from rankmeter.cli.status import INPUT_ERROR, end_process, exit_status
from rankmeter.errors import RankmeterError
from rankmeter.io.escaping import printable

SUBCOMMANDS = ("evaluate", "measures", "compare", "report", "retrieval", "trec_eval", "ndeval")

_MODULES = {"evaluate": "evaluate_command", "compare": "compare_command"}
"""The module of a subcommand whose name is also a public function's (the others' modules bear their names)."""


class OneLineErrors(argparse.ArgumentParser):
    """argparse, with a bad command line reported on one line (the usage is on ``--help``), exit status 2.

    >>> OneLineErrors(prog="rankmeter x").error("argument --depth: must be ...")
    Traceback (most recent call last):
    ...
    SystemExit: 2
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {printable(message)} (see {self.prog} --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every available subcommand, or with ``command``'s only.

    Registering one subcommand spares the others' imports (``compare`` reads its choices from the
    statistics layer) when the command line names it; ``--help`` and unknown names get them all.

    >>> sorted(build_parser("evaluate")._subparsers._group_actions[0].choices)
    ['evaluate']
    """
    parser = OneLineErrors(prog="rankmeter", description="Exact, explicit and fast evaluation of rankings.")
    parser.add_argument("--version", action="version", version=f"rankmeter {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in (command,) if command in SUBCOMMANDS else SUBCOMMANDS:
        module_name = f"rankmeter.cli.{_MODULES.get(name, name)}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        module.add_parser(sub)
    return parser


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


def keep_freed_memory() -> bool:
    """Let glibc's malloc reuse the memory a command frees instead of returning it and faulting it in again.

    An evaluation allocates and frees arrays of a few megabytes one after the other; by default glibc
    maps each anew and returns it when freed, so every one is faulted in page by page (slow on VMs).
    Keeping up to 512 MiB of freed heap and mapping only blocks over 32 MiB separately cuts the page
    faults of ``rankmeter evaluate`` by about a third, and its system time with them, for a few MB more
    of peak memory (``python benchmarks/run.py --only CHOICES``). Only the command line does this: the library leaves
    its host process's allocator alone. Returns whether it was applied (glibc only).

    >>> keep_freed_memory() == (sys.platform == "linux" and bool(os.confstr("CS_GNU_LIBC_VERSION")))
    True
    """
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
        import ctypes

        libc = ctypes.CDLL(None)
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, 512 << 20))
    except (AttributeError, OSError, ValueError):  # not glibc (musl, macOS, Windows)
        return False


NO_BLAS_COMMANDS = frozenset({"evaluate", "measures", "trec_eval", "ndeval"})
"""Subcommands that multiply no matrices: they need no BLAS thread pool."""


def skip_blas_threads(command: str | None) -> bool:
    """Start NumPy's OpenBLAS with one thread for a command that does no linear algebra.

    OpenBLAS starts a thread per core when NumPy loads, a noticeable share of a small command's start-up
    (``python benchmarks/cli_startup.py``). It must be decided before NumPy loads, which ``import rankmeter`` does not
    do. A value the user set is kept; ``retrieval`` (matrix products of embeddings), ``compare`` and
    ``report`` keep OpenBLAS's default. Returns whether the setting was made.

    >>> skip_blas_threads("retrieval")
    False
    """
    if command not in NO_BLAS_COMMANDS or "numpy" in sys.modules or "OPENBLAS_NUM_THREADS" in os.environ:
        return False
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    return True


def escape_what_stdout_cannot_encode() -> bool:
    """On a standard output that is not UTF-8 (``LC_ALL=C``), write characters it lacks as ``\\xe9`` escapes.

    Every command then prints whatever its ids hold instead of failing half-way with a
    ``UnicodeEncodeError``. Returns whether the stream was changed.

    >>> escape_what_stdout_cannot_encode() in (True, False)
    True
    """
    from rankmeter.cli.output import is_utf8

    stream = sys.stdout
    if is_utf8(stream) or not hasattr(stream, "reconfigure"):
        return False
    stream.reconfigure(errors="backslashreplace")
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on ``argv`` (default ``sys.argv[1:]``) and return the exit status."""
    return run_command(sys.argv[1:] if argv is None else list(argv))


def script() -> int:
    """The ``rankmeter`` console script: :func:`main` on ``sys.argv``, then the process ends (:func:`end_process`)."""
    return end_process(main())


def run_command(argv: list[str]) -> int:
    """Parse ``argv`` and run its subcommand; returns the exit status (errors of the input: one line on stderr)."""
    keep_freed_memory()
    escape_what_stdout_cannot_encode()
    skip_blas_threads(argv[0] if argv else None)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    args.argv = argv  # the exact command, for reports
    try:
        return int(args.handler(args) or 0)
    except (RankmeterError, OSError) as exc:
        message = f"{exc.filename}: {exc.strerror or exc}" if isinstance(exc, OSError) and exc.filename else exc
        print(f"rankmeter {args.command}: error: {printable(str(message))}", file=sys.stderr)
        return exit_status(exc)
    except BrokenPipeError:  # pragma: no cover - e.g. `rankmeter ... | head`
        return 0
    except MemoryError:  # what no limit caught (an endless standard input of valid lines)
        print(
            f"rankmeter {args.command}: error: out of memory: the input or the request is too large for this "
            "machine (see the resource limits in docs/errors.md)",
            file=sys.stderr,
        )
        return INPUT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
