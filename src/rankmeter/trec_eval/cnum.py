"""C library number parsing as trec_eval uses it: ``atol`` and ``atof`` on the leading part of a string.

trec_eval reads relevance grades, cutoffs and ``-l``/``-M``/``-N`` values with
``atol`` (the longest leading integer, 0 when there is none: ``"1.5"`` -> 1,
``"2e3"`` -> 2, ``"x"`` -> 0) and float parameters with ``atof``.
"""

from __future__ import annotations

import re

_INT_PREFIX = re.compile(r"\s*([+-]?\d+)")
_FLOAT_PREFIX = re.compile(
    r"\s*([+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))", re.IGNORECASE
)


def atol(text: str) -> int:
    """C ``atol``: the leading decimal integer of ``text`` (after blanks), 0 if there is none.

    >>> atol("12"), atol(" -3x"), atol("1.9"), atol("2e3"), atol(".5"), atol("abc")
    (12, -3, 1, 2, 0, 0)
    """
    m = _INT_PREFIX.match(text)
    return int(m.group(1)) if m else 0


def atof(text: str) -> float:
    """C ``atof``: the leading floating-point number of ``text``, 0.0 if there is none.

    >>> atof(".25"), atof("5.0,"), atof("-1e-2x"), atof("x")
    (0.25, 5.0, -0.01, 0.0)
    """
    m = _FLOAT_PREFIX.match(text)
    return float(m.group(1)) if m else 0.0
