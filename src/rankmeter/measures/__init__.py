"""Measures: values with a canonical name (:class:`Measure`), the grammar and the registry."""

from typing import TYPE_CHECKING

from rankmeter.measures._tables import __getattr__ as __getattr__  # FAMILIES and ALIASES, on first use
from rankmeter.measures._tables import family_row
from rankmeter.measures.base import Measure
from rankmeter.measures.grammar import measure, parse
from rankmeter.measures.params import GainTable, Jarvelin
from rankmeter.measures.traits import Traits

if TYPE_CHECKING:
    from rankmeter.measures._tables import ALIASES, FAMILIES

__all__ = ["ALIASES", "FAMILIES", "GainTable", "Jarvelin", "Measure", "Traits", "measure", "parse", "traits_of"]


def traits_of(measure: Measure | str) -> Traits:
    """The traits of a measure's family (``measure``: a :class:`Measure` or a family name).

    >>> traits_of(parse("ndcg@10")).top_k, traits_of("bpref").top_k, traits_of(parse("ap@5")).array_api
    (True, False, 'map')
    """
    return family_row(measure if isinstance(measure, str) else measure.family).traits
