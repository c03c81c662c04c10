"""A measure is a small frozen value with a canonical name that round-trips through :func:`parse`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rankmeter.measures.params import format_value


@dataclass(frozen=True)
class Measure:
    """One measure family with its non-default parameters and its cutoffs.

    Build measures with :func:`rankmeter.measures.parse` (``"ndcg(gain=exp)@[5,10]"``)
    or :func:`rankmeter.measures.measure` (``measure("ndcg", 10, gain="exp")``),
    which validate them; ``str(m)`` is the canonical name.

    Attributes
    ----------
    family : str
        Canonical family name (``ndcg``, ``p``, ``map``, ...).
    params : tuple of (name, value)
        Non-default parameters, sorted by name.
    cutoffs : tuple of int or None
        ``None`` means the whole ranked list.
    list_form : bool
        Whether the cutoffs were written as a list ``@[1,5,10]``.
    """

    family: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoffs: tuple[int, ...] | None = None
    list_form: bool = False

    def param(self, name: str, default: Any = None) -> Any:
        """Value of a parameter, or ``default`` when it was left at its default."""
        for key, value in self.params:
            if key == name:
                return value
        return default

    @property
    def stem(self) -> str:
        """Canonical name without the cutoff: ``ndcg(gain=exp)``."""
        if not self.params:
            return self.family
        inner = ",".join(f"{k}={format_value(v)}" for k, v in self.params)
        return f"{self.family}({inner})"

    def __str__(self) -> str:
        if self.cutoffs is None:
            return self.stem
        if self.list_form or len(self.cutoffs) != 1:
            return f"{self.stem}@[{','.join(str(k) for k in self.cutoffs)}]"
        return f"{self.stem}@{self.cutoffs[0]}"

    def expand(self) -> list[Measure]:
        """One measure per cutoff (the names results are reported under).

        >>> from rankmeter.measures import parse
        >>> [str(m) for m in parse("ndcg@[1,5]").expand()]
        ['ndcg@1', 'ndcg@5']
        """
        if self.cutoffs is None:
            return [replace(self, list_form=False)]
        return [replace(self, cutoffs=(k,), list_form=False) for k in self.cutoffs]
