"""Ids made harmless where they are shown: on a terminal, and in CSV files opened by a spreadsheet.

Query, document and system ids are data: rankmeter reads them byte for byte and writes them back
unchanged to JSON, CSV and the trec_eval format. Two places interpret text, and there an id is escaped:

* a terminal runs escape sequences (``\\x1b]0;title\\x07`` retitles the window, ``\\x1b[31m`` recolours):
  every message and table written to one passes through :func:`printable`;
* a spreadsheet runs a cell starting with ``=``, ``+``, ``-`` or ``@`` as a formula (CSV injection):
  :func:`spreadsheet_safe` prefixes such a cell with ``'`` when asked (``to_csv(safe=True)``,
  ``--csv-safe``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP's list)."""


def csv_quoting(rows: Iterable[Iterable[object]]) -> Literal[0, 1, 2, 3]:
    """The ``csv`` quoting that lets ``rows`` read back: every field quoted when a text field holds a carriage return.

    The ``csv`` module quotes a field holding ``\\n`` but not one holding a lone ``\\r``, which readers then
    split the row on.

    >>> import csv
    >>> csv_quoting([["a", 1.0]]) == csv.QUOTE_MINIMAL, csv_quoting([["a\\rb", 1.0]]) == csv.QUOTE_ALL
    (True, True)
    """
    import csv  # here: the command line imports this module for printable() alone

    lone_cr = any(isinstance(cell, str) and "\r" in cell for row in rows for cell in row)
    return csv.QUOTE_ALL if lone_cr else csv.QUOTE_MINIMAL


def printable(text: str) -> str:
    """``text`` with control and other unprintable characters written as escapes (``\\x1b``, ``\\t``, ``\\n``).

    An id can then neither move the cursor, recolour nor retitle the terminal, and a message stays on
    one line. Printable text (any script) is kept as it is.

    >>> printable("q1"), printable("\\u00e9t\\u00e9")
    ('q1', 'été')
    >>> print(printable("q\\x1b]0;PWNED\\x07\\x1b[31m"))
    q\\x1b]0;PWNED\\x07\\x1b[31m
    """
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


def spreadsheet_safe(cell: str) -> str:
    """``cell`` prefixed with ``'`` when a spreadsheet would run it as a formula, else unchanged.

    >>> spreadsheet_safe("=HYPERLINK(\\"http://x\\")"), spreadsheet_safe("q1"), spreadsheet_safe("-1")
    ('\\'=HYPERLINK("http://x")', 'q1', "'-1")
    """
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell
