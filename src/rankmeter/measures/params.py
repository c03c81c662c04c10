"""Parameter values of measures: gains, discounts and how they print.

Gains (``gain=``): ``linear`` (g = r), ``exp`` (g = 2^r - 1), a
:class:`GainTable` ``{grade: gain}`` or any vectorised callable. Negative and
unjudged grades always get gain 0 (except through an explicit table entry for
a judged grade). Discounts (``discount=``): ``log2`` (1 / log2(i + 1)),
:class:`Jarvelin` ``jarvelin(b)`` (1 for ranks i < b, else 1 / log_b(i)) or a
callable of the 1-based rank returning the multiplier.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


def format_number(x: float) -> str:
    """Shortest exact text of a number: ``2`` rather than ``2.0``.

    >>> format_number(2.0), format_number(0.5), format_number(-1)
    ('2', '0.5', '-1')
    """
    xf = float(x)
    if xf.is_integer() and abs(xf) < 1e15:
        return str(int(xf))
    return repr(xf)


@dataclass(frozen=True)
class GainTable:
    """Explicit gains per grade, e.g. ``{0: 0, 1: 1, 2: 3}``.

    A grade missing from the table gains its own value if positive, else 0
    (trec_eval's rule for ``-m ndcg.1=3,2=9``).

    >>> t = GainTable.of({2: 0.3, 1: 0.5})
    >>> str(t)
    '{1:0.5,2:0.3}'
    >>> t(np.array([1.0, 2.0, 3.0, -1.0])).tolist()
    [0.5, 0.3, 3.0, 0.0]
    """

    entries: tuple[tuple[float, float], ...]

    @classmethod
    def of(cls, mapping: dict[float, float]) -> GainTable:
        return cls(tuple(sorted((float(k), float(v)) for k, v in mapping.items())))

    def __call__(self, grades: np.ndarray) -> np.ndarray:
        out = np.maximum(grades, 0.0).astype(np.float64)
        for grade, gain in self.entries:
            out[grades == grade] = gain
        return out

    def __str__(self) -> str:
        return "{" + ",".join(f"{format_number(k)}:{format_number(v)}" for k, v in self.entries) + "}"


@dataclass(frozen=True)
class Jarvelin:
    """Järvelin–Kekäläinen (2002) discount with log base ``b``: 1 for ranks i < b, else 1 / log_b(i).

    >>> Jarvelin(2)(np.array([1, 2, 4])).tolist()
    [1.0, 1.0, 0.5]
    """

    base: float = 2.0

    def __call__(self, ranks: np.ndarray) -> np.ndarray:
        r = np.asarray(ranks, dtype=np.float64)
        safe = np.maximum(r, self.base)
        return np.where(r < self.base, 1.0, np.log(self.base) / np.log(safe))

    def __str__(self) -> str:
        return f"jarvelin({format_number(self.base)})"


def gain_values(gain: Any, grades: np.ndarray) -> np.ndarray:
    """Gains of ``grades`` under a gain parameter.

    >>> gain_values("exp", np.array([3.0, 0.0, -1.0])).tolist()
    [7.0, 0.0, 0.0]
    """
    g = np.asarray(grades, dtype=np.float64)
    if gain == "linear":
        return np.maximum(g, 0.0)
    if gain == "exp":
        with np.errstate(over="ignore"):  # grades over 1023: inf, refused by the kernels with the query named
            return np.where(g > 0, np.exp2(np.maximum(g, 0.0)) - 1.0, 0.0)
    return np.asarray(gain(g), dtype=np.float64)


def discount_values(discount: Any, ranks: np.ndarray) -> np.ndarray:
    """Discount multipliers at 1-based ``ranks``.

    >>> discount_values("log2", np.array([1, 3])).tolist()
    [1.0, 0.5]
    """
    r = np.asarray(ranks, dtype=np.float64)
    if discount == "log2":
        return 1.0 / np.log2(r + 1.0)
    return np.asarray(discount(r), dtype=np.float64)


def format_value(value: Any) -> str:
    """Text of a parameter value inside a canonical measure name."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float | np.integer | np.floating):
        return format_number(float(value))
    if isinstance(value, str | GainTable | Jarvelin):
        return str(value)
    if callable(value):
        return "<" + getattr(value, "__name__", type(value).__name__) + ">"
    return str(value)


GainParam = str | GainTable | Callable[[np.ndarray], np.ndarray]
