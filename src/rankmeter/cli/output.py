"""Where a command's text goes: a file named by ``-o`` (written atomically, as UTF-8), or standard output.

Standard output is written in its own encoding. When that is not UTF-8 (``LC_ALL=C`` without Python's
UTF-8 mode, a Windows console code page) the table's box-drawing borders become ASCII (``|``, ``-``,
``=``, ``+``) and any other character the encoding lacks is written as a backslash escape, so that no
output ever fails half-way with a ``UnicodeEncodeError``.
"""

from __future__ import annotations

import codecs
import contextlib
import sys
from collections.abc import Iterator
from typing import TextIO

from rankmeter.cli.text_table import ASCII_BORDERS, ASCII_ONLY
from rankmeter.io.output import write_text_atomic


def is_utf8(stream: TextIO) -> bool:
    """Whether a text stream encodes as UTF-8.

    >>> import io
    >>> def stream(encoding):
    ...     return io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    >>> is_utf8(stream("ascii")), is_utf8(stream("utf8")), is_utf8(io.StringIO())
    (False, True, True)
    """
    encoding = getattr(stream, "encoding", None)
    if encoding is None:  # an in-memory text stream (io.StringIO) holds any character
        return True
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def for_stream(text: str, stream: TextIO) -> str:
    """``text`` as ``stream`` can write it: unchanged for UTF-8, else ASCII borders and escapes.

    >>> import io
    >>> ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    >>> for_stream(" q ┃ p@5\\n━━━╇━━━━\\n é │ 1.0\\n", ascii_out)
    ' q | p@5\\n===+====\\n \\\\xe9 | 1.0\\n'
    """
    if is_utf8(stream):
        return text
    encoding = stream.encoding or "ascii"
    return text.translate(ASCII_BORDERS).encode(encoding, "backslashreplace").decode(encoding)


@contextlib.contextmanager
def tables_for(path: str | None) -> Iterator[None]:
    """Draw the tables rendered inside in ASCII when they go to a standard output that is not UTF-8."""
    token = ASCII_ONLY.set(not path and not is_utf8(sys.stdout))
    try:
        yield
    finally:
        ASCII_ONLY.reset(token)


def write_output(text: str, path: str | None) -> None:
    """Write a command's text to ``path`` (atomically, UTF-8), or to standard output when ``path`` is None."""
    if path:
        write_text_atomic(path, text)
        return
    sys.stdout.write(for_stream(text, sys.stdout))
