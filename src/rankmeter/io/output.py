"""Every file rankmeter writes goes through here: written whole to a temporary file, then renamed.

* A write that fails (disk full, a file size limit, an encoding problem, an interrupt) leaves the file
  that was there untouched, and no partial file under the target's name: the text is written to a
  temporary file in the target's directory, which is renamed over the target only once complete.
* Directories are never created: the target's directory must exist (the same rule for ``-o``,
  ``--output``, ``--plot``, ``to_csv(path)``, ``to_json(path)`` and the HTML report).
* Every failure is an :class:`OSError` whose ``filename`` is the target and whose message starts with
  ``cannot write file:``; the command line prints it as one line.
* Text is UTF-8 whatever the locale. An id read from a file with bytes that are not UTF-8 is written
  back as those same bytes.
* A target that exists and is not a regular file (``/dev/stdout``, a named pipe) is written in place,
  where a rename is impossible; a symbolic link is followed, and the file it names replaced.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from pathlib import Path


def encode_text(text: str) -> bytes:
    """``text`` as UTF-8; characters that stand for undecodable bytes (``surrogateescape``) become those bytes.

    >>> encode_text("caf\\u00e9"), encode_text("a\\udcff")
    (b'caf\\xc3\\xa9', b'a\\xff')
    >>> encode_text("\\ud800")  # a lone surrogate from elsewhere: written as an escape
    b'\\\\ud800'
    """
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace")


def _failure(path: str | os.PathLike[str], exc: OSError) -> OSError:
    return OSError(exc.errno, f"cannot write file: {exc.strerror or exc}", os.fspath(path))


def write_atomic(path: str | os.PathLike[str], write: Callable[[BinaryIO], Any]) -> Path:
    """Call ``write`` on a binary temporary file next to ``path``, then rename it to ``path``.

    Returns the path written. Raises :class:`OSError` naming ``path`` (its ``filename``) when the
    directory is missing or anything fails; the old file is then left as it was.

    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> target = os.path.join(folder, "out.txt")
    >>> _ = write_atomic(target, lambda fh: fh.write(b"new"))
    >>> open(target).read(), os.listdir(folder)
    ('new', ['out.txt'])
    >>> write_atomic(os.path.join(folder, "missing", "out.txt"), lambda fh: fh.write(b"x"))
    Traceback (most recent call last):
    ...
    FileNotFoundError: [Errno 2] cannot write file: directory ... does not exist (rankmeter creates no directories): ...
    """
    import tempfile  # here: a command that prints to stdout loads neither
    from pathlib import Path

    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):  # a device or a pipe: no rename possible
        try:
            with open(target, "wb") as fh:
                write(fh)
        except OSError as exc:
            raise _failure(path, exc) from exc
        return Path(path)
    directory = target.parent
    if not directory.is_dir():
        raise FileNotFoundError(
            errno.ENOENT,
            f"cannot write file: directory {str(directory)!r} does not exist (rankmeter creates no directories)",
            os.fspath(path),
        )
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise _failure(path, exc) from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.chmod(temporary, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
        os.replace(temporary, target)
    except OSError as exc:
        _remove(temporary)
        raise _failure(path, exc) from exc
    except BaseException:
        _remove(temporary)
        raise
    return Path(path)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` as UTF-8 (:func:`encode_text`), atomically (:func:`write_atomic`).

    >>> import tempfile, os
    >>> target = os.path.join(tempfile.mkdtemp(), "out.csv")
    >>> _ = write_text_atomic(target, "q\\u00e9,1\\n")
    >>> open(target, "rb").read()
    b'q\\xc3\\xa9,1\\n'
    """
    data = encode_text(text)
    return write_atomic(path, lambda fh: fh.write(data))


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:  # pragma: no cover - already gone
        pass
