"""Core layer: id interning, tie ordering and the canonical :class:`RankedLists` layout."""

from rankmeter.core.layout import RankedLists
from rankmeter.core.semantics import TIE_POLICIES

__all__ = ["RankedLists", "TIE_POLICIES"]
