"""Measures: values with a canonical name (:class:`Measure`), the grammar and the registry."""

from rankmeter.measures._tables import ALIASES, FAMILIES
from rankmeter.measures.base import Measure
from rankmeter.measures.grammar import measure, parse
from rankmeter.measures.params import GainTable, Jarvelin

__all__ = ["ALIASES", "FAMILIES", "GainTable", "Jarvelin", "Measure", "measure", "parse"]
