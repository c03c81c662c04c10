"""Run arguments of the command line: files, directories and globs expanded, and each run named.

``rankmeter evaluate`` and ``rankmeter compare`` take several runs; a directory stands for the files
in it and a pattern with ``*``, ``?`` or ``[`` for the files it matches (both sorted by name, hidden
files left out), so ``rankmeter evaluate qrels.txt runs/`` and ``rankmeter evaluate qrels.txt 'runs/*.gz'``
work whatever the shell expands.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter

from rankmeter.errors import InputFormatError, PolicyError

_GLOB_CHARS = frozenset("*?[")


def expand_runs(arguments: list[str], *, qrels: str | None = None) -> list[str]:
    """The run files named by ``arguments``: each file as given, a directory's files, a pattern's matches.

    ``-`` (standard input) and paths that exist are kept as given; a directory or a pattern that
    matches no file is an :class:`~rankmeter.errors.InputFormatError` naming it. The ``qrels`` file is
    left out of directories and patterns (``rankmeter evaluate runs/qrels.txt runs/``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("b.txt", "a.txt", ".hidden", "c.gz"): _ = (d / name).write_text("")
    >>> [pathlib.Path(p).name for p in expand_runs([str(d)])]
    ['a.txt', 'b.txt', 'c.gz']
    >>> [pathlib.Path(p).name for p in expand_runs([str(d / "*.txt"), "-"])]
    ['a.txt', 'b.txt', '-']
    """
    paths: list[str] = []
    judged = os.path.realpath(qrels) if qrels is not None and qrels != "-" else None

    def runs_only(found: list[str]) -> list[str]:
        return [p for p in found if os.path.realpath(p) != judged]

    for argument in arguments:
        if argument == "-" or (os.path.exists(argument) and not os.path.isdir(argument)):
            paths.append(argument)
        elif os.path.isdir(argument):
            found = runs_only(
                sorted(
                    entry.path for entry in os.scandir(argument) if entry.is_file() and not entry.name.startswith(".")
                )
            )
            if not found:
                raise InputFormatError(f"{argument}: directory holds no run file")
            paths.extend(found)
        elif _GLOB_CHARS & set(argument):
            import glob

            found = runs_only(sorted(p for p in glob.glob(argument) if os.path.isfile(p)))
            if not found:
                raise InputFormatError(f"{argument}: pattern matches no run file")
            paths.extend(found)
        else:
            paths.append(argument)  # the reader names a missing file
    return paths


def _file_name(path: str) -> str:
    """The last part of ``path``, as ``pathlib.Path(path).name`` (pathlib's import is spared).

    >>> _file_name("runs/bm25.txt"), _file_name("runs/dense/"), _file_name("-")
    ('bm25.txt', 'dense', '-')
    """
    return os.path.basename(path.rstrip("/" + os.sep))


def _stem(path: str) -> str:
    """The file name less its last suffix, as ``pathlib.Path(path).stem``.

    >>> _stem("runs/bm25.txt"), _stem("runs/run.tar.gz"), _stem(".hidden"), _stem("run.")
    ('bm25', 'run.tar', '.hidden', 'run.')
    """
    name = _file_name(path)
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def system_names(paths: list[str]) -> list[str]:
    """Name each run after its file stem, falling back to file name, then to the path.

    Raises :class:`~rankmeter.errors.PolicyError` when the same path is given twice.

    Examples
    --------
    >>> system_names(["runs/bm25.txt", "runs/dense.txt"])
    ['bm25', 'dense']
    >>> system_names(["a/bm25.txt", "a/bm25.tsv", "b/dense.txt"])
    ['bm25.txt', 'bm25.tsv', 'dense.txt']
    >>> system_names(["a/bm25.txt", "b/bm25.txt"])
    ['a/bm25.txt', 'b/bm25.txt']
    """
    for naming in (_stem, _file_name, str):
        names = [naming(p) for p in paths]
        if len(set(names)) == len(names):
            return names
    twice = sorted(p for p, count in Counter(paths).items() if count > 1)
    raise PolicyError(f"the same run is given twice: {', '.join(twice)}")


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The positional ``QRELS RUN [RUN ...]`` of the commands that compare runs (``compare``, ``report``)."""
    parser.add_argument("qrels", metavar="QRELS", help="relevance judgments")
    parser.add_argument(
        "runs",
        metavar="RUN",
        nargs="+",
        help="two or more runs (files, directories or globs); named after their file stem",
    )


def named_runs(args: argparse.Namespace, at_least: int = 2) -> dict[str, str]:
    """``{system name: run path}`` of ``args.runs`` expanded (the qrels left out), at least ``at_least`` of them.

    >>> named_runs(argparse.Namespace(qrels="q.txt", runs=["runs/bm25.txt", "runs/dense.txt"]))
    {'bm25': 'runs/bm25.txt', 'dense': 'runs/dense.txt'}
    >>> named_runs(argparse.Namespace(qrels="q.txt", runs=["bm25.txt"]))
    Traceback (most recent call last):
    rankmeter.errors.PolicyError: need at least 2 runs to compare, got 1
    """
    paths = expand_runs(list(args.runs), qrels=args.qrels)
    if len(paths) < at_least:
        raise PolicyError(f"need at least {at_least} runs to compare, got {len(paths)}")
    return dict(zip(system_names(paths), paths, strict=True))
