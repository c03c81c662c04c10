"""Measures: values with a canonical name (:class:`Measure`), the grammar and the registry."""

from rankmeter.measures.base import Measure
from rankmeter.measures.grammar import measure, parse
from rankmeter.measures.params import GainTable, Jarvelin
from rankmeter.measures.registry import FAMILIES

__all__ = ["FAMILIES", "GainTable", "Jarvelin", "Measure", "measure", "parse"]
