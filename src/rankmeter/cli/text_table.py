"""Plain-text tables for the terminal, drawn with box characters, without importing a rendering library.

``rankmeter evaluate`` prints one table per call; drawing it here keeps the command's start-up free of
a library whose import costs far more than drawing the table (``python -X importtime``).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar

from rankmeter.io.escaping import printable

SECTION = None
"""A row of ``None`` draws a separator line between sections."""

ASCII_ONLY: ContextVar[bool] = ContextVar("rankmeter_ascii_tables", default=False)
"""Set (``ASCII_ONLY.set(True)``) to draw tables in ASCII: for a standard output that is not UTF-8."""

ASCII_BORDERS = str.maketrans({"┃": "|", "━": "=", "╇": "+", "│": "|", "─": "-", "┼": "+"})
"""The box-drawing characters of :func:`render_text_table` and their ASCII stand-ins."""


def render_text_table(header: Sequence[str], rows: Sequence[Sequence[str] | None], *, left: int = 1) -> str:
    """The table as text: the first ``left`` columns aligned left, the others right.

    Each cell has one space either side; the header is separated by a heavy rule, sections by a light one.

    Parameters
    ----------
    header : sequence of str
        Column titles.
    rows : sequence of (sequence of str or None)
        Cells of each row (as many as ``header``); ``None`` separates sections.
    left : int
        How many leading columns hold labels (aligned left).

    Examples
    --------
    >>> rows = [["q1", "0.4"], None, ["all", "0.4"]]
    >>> print(render_text_table(["query", "p@5"], rows), end="")  # doctest: +NORMALIZE_WHITESPACE
     query ┃ p@5
    ━━━━━━━╇━━━━━
     q1    │ 0.4
    ───────┼─────
     all   │ 0.4
    """
    ascii_only = ASCII_ONLY.get()
    header = [_cell(str(text), ascii_only) for text in header]
    rows = [None if row is None else [_cell(str(text), ascii_only) for text in row] for row in rows]
    cells = [list(row) for row in rows if row is not None]
    widths = [max(len(str(text)) for text in column) for column in zip(header, *cells, strict=True)]

    def line(row: Sequence[str], bar: str) -> str:
        padded = [
            f" {text:<{width}} " if i < left else f" {text:>{width}} "
            for i, (text, width) in enumerate(zip(row, widths, strict=True))
        ]
        return bar.join(padded)

    out = [line(header, "┃"), "╇".join("━" * (w + 2) for w in widths)]
    for row in rows:
        out.append("┼".join("─" * (w + 2) for w in widths) if row is None else line(row, "│"))
    text = "\n".join(out) + "\n"
    return text.translate(ASCII_BORDERS) if ascii_only else text


def _cell(text: str, ascii_only: bool) -> str:
    """A cell as shown: :func:`~rankmeter.io.escaping.printable`, and with ``ascii_only`` every other
    non-ASCII character escaped too (before the widths are measured, so that columns stay aligned).

    >>> _cell("caf\u00e9", False), _cell("caf\u00e9", True)
    ('café', 'caf\\\\xe9')
    """
    shown = printable(text)
    return shown.encode("ascii", "backslashreplace").decode("ascii") if ascii_only else shown
