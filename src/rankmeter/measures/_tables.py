"""The measure tables :data:`FAMILIES` and :data:`ALIASES`, built by :mod:`rankmeter.measures.registry`,
and the look-ups that answer from the core families without them.

The names are looked up in the registry on first use (this module's ``__getattr__``): reading
either imports the registry, with every family and its kernels, once; ``import rankmeter`` imports
neither. Both are the registry's own dicts, the same objects wherever they are imported from.
:func:`family_row` and :func:`canonical_name` look in :mod:`rankmeter.measures.core_families`
first and read the whole tables only for a name not found there, so a job that asks for ``ndcg``
and ``map`` imports no other family module and none of their kernels.

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
    raise AttributeError(f"module {__package__!r} has no attribute {name!r}")  # (the package's __getattr__ too)


def family_row(name: str) -> Family:
    """The family named ``name`` (canonical), as ``FAMILIES[name]``; a core family without the whole table.

    A name that is no family raises ``KeyError``, as the table does.

    >>> from rankmeter.measures import FAMILIES
    >>> family_row("ndcg").name, family_row("bpref").aggregate, family_row("ndcg") is FAMILIES["ndcg"]
    ('ndcg', 'mean', True)
    """
    from rankmeter.measures.core_families import BY_NAME

    row = BY_NAME.get(name)
    return row if row is not None else __getattr__("FAMILIES")[name]


def canonical_name(key: str) -> str | None:
    """The canonical family a lower-case family name or alias stands for, or None when it names none.

    >>> canonical_name("mrr"), canonical_name("map"), canonical_name("infap"), canonical_name("nope")
    ('rr', 'map', 'infap', None)
    """
    from rankmeter.measures.core_families import ALIASES as CORE_ALIASES
    from rankmeter.measures.core_families import BY_NAME

    if key in BY_NAME:
        return key
    if key in CORE_ALIASES:
        return CORE_ALIASES[key]
    family = __getattr__("ALIASES").get(key, key)
    return family if family in __getattr__("FAMILIES") else None
