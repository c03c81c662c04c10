"""The measure tables :data:`FAMILIES` and :data:`ALIASES`, filled by the registry on first use.

Both tables exist from the start (one object each, which the grammar, the
entry points and :mod:`rankmeter.measures.registry` all share), but they stay
empty until something reads or writes them: only then is the registry
imported, with every kernel and trec_eval's families, and the rows added in
their usual order. So ``import rankmeter`` does not pay for measures nobody
asked for, and every dict operation on the tables behaves as on the filled dict.
"""

from __future__ import annotations

from _thread import RLock
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankmeter.measures.family import Family

_lock = RLock()
_filled = False
_filling = False


def _fill() -> None:
    """Fill both tables from the registry, once (a read during the filling sees them empty)."""
    global _filled, _filling
    with _lock:  # reentrant: only the filling thread itself gets past this while _filling is set
        if _filled or _filling:
            return
        _filling = True
        try:
            from rankmeter.measures import registry

            families, aliases = registry.tables()
            dict.update(FAMILIES, families)
            dict.update(ALIASES, aliases)
        except BaseException:
            dict.clear(FAMILIES)
            dict.clear(ALIASES)
            raise
        else:
            _filled = True
        finally:
            _filling = False


class LazyTable(dict):  # type: ignore[type-arg]
    """A ``dict`` that is filled by :mod:`rankmeter.measures.registry` before its first use.

    >>> from rankmeter.measures import FAMILIES
    >>> isinstance(FAMILIES, dict), "ndcg" in FAMILIES, FAMILIES["map"].aggregate
    (True, True, 'mean')
    """

    __slots__ = ()


def _filled_first(name: str) -> Callable[..., Any]:
    method = getattr(dict, name)

    def call(self: LazyTable, *args: Any, **kwargs: Any) -> Any:
        if not _filled:
            _fill()
        return method(self, *args, **kwargs)

    call.__name__, call.__qualname__ = name, f"LazyTable.{name}"
    call.__doc__ = method.__doc__
    return call


for _name in (
    "__contains__",
    "__delitem__",
    "__eq__",
    "__getitem__",
    "__ior__",
    "__iter__",
    "__len__",
    "__ne__",
    "__or__",
    "__repr__",
    "__reversed__",
    "__ror__",
    "__setitem__",
    "clear",
    "copy",
    "get",
    "items",
    "keys",
    "pop",
    "popitem",
    "setdefault",
    "update",
    "values",
):
    setattr(LazyTable, _name, _filled_first(_name))
del _name

FAMILIES: dict[str, Family] = LazyTable()
"""Every measure family by canonical name (see :mod:`rankmeter.measures.registry`)."""

ALIASES: dict[str, str] = LazyTable()
"""Other spellings of family names (lower case) and the canonical family each stands for."""
