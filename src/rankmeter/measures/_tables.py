"""The measure tables :data:`FAMILIES` and :data:`ALIASES`, built by :mod:`rankmeter.measures.registry`.

The names are looked up in the registry on first use (this module's ``__getattr__``): reading
either imports the registry, with every family and its kernels, once; ``import rankmeter`` imports
neither. Both are the registry's own dicts, the same objects wherever they are imported from.

>>> from rankmeter.measures import FAMILIES
>>> isinstance(FAMILIES, dict), "ndcg" in FAMILIES, FAMILIES["map"].aggregate
(True, True, 'mean')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankmeter.measures.family import Family

    FAMILIES: dict[str, Family]
    ALIASES: dict[str, str]


def __getattr__(name: str) -> Any:
    """:data:`FAMILIES` and :data:`ALIASES` of :mod:`rankmeter.measures.registry` (imported on first use)."""
    if name in ("FAMILIES", "ALIASES"):
        from rankmeter.measures import registry

        value = getattr(registry, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
