"""The names of the judgment-free measures: ``rbo(p=0.9)``, ``rbo_min(p=0.9)@10``, ``kendall_tau@10``, ...

::

    name     := family [ "(" "p" "=" float ")" ] [ "@" depth ]
    family   := rbo | rbo_ext | rbo_min | rbo_max | rbo_res | rbo_prefix | kendall_tau | tau_ap

``rbo_ext`` is an alias of ``rbo`` (the extrapolated point estimate);
``rbo_prefix`` needs a depth; ``p`` (default 0.9) belongs to the RBO
families only. The canonical name always writes ``p`` for the RBO families.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures import similarity_families

FAMILIES = {f.name: f for f in similarity_families.FAMILIES}
"""The judgment-free families by name (:mod:`rankmeter.measures.similarity_families`)."""
ALIASES = similarity_families.ALIASES
"""Other spellings of a family."""
DEFAULT_P = similarity_families.PERSISTENCE.default
"""RBO's persistence when the name gives none."""

_NAME = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\(\s*([^)]*?)\s*\))?\s*(?:@\s*(\S+))?\s*$")


@dataclass(frozen=True)
class SimilarityMeasure:
    """One judgment-free measure: a family, RBO's persistence ``p`` and an evaluation depth.

    >>> m = parse_similarity("RBO_EXT(p=.8)@10")
    >>> m, str(m), parse_similarity(str(m)) == m
    (SimilarityMeasure(family='rbo', p=0.8, depth=10), 'rbo(p=0.8)@10', True)
    """

    family: str
    p: float | None = None
    depth: int | None = None

    def __str__(self) -> str:
        params = f"(p={self.p!r})" if self.p is not None else ""
        at = f"@{self.depth}" if self.depth is not None else ""
        return f"{self.family}{params}{at}"


def parse_similarity(text: str) -> SimilarityMeasure:
    """Parse a judgment-free measure name; :class:`MeasureSyntaxError` names what is wrong.

    >>> str(parse_similarity("rbo")), str(parse_similarity("kendall_tau@10"))
    ('rbo(p=0.9)', 'kendall_tau@10')
    >>> parse_similarity("rbo(p=1)")
    Traceback (most recent call last):
    ...
    rankmeter.errors.MeasureSyntaxError: measure 'rbo(p=1)': p must lie strictly between 0 and 1, got 1.0
    """
    match = _NAME.match(text) if isinstance(text, str) else None
    if match is None:
        raise MeasureSyntaxError(f"measure {text!r}: expected family[(p=...)][@depth], e.g. 'rbo(p=0.9)@10'")
    head, params, depth_text = match.groups()
    family = ALIASES.get(head.lower(), head.lower())
    if family not in FAMILIES:
        known = ", ".join((*FAMILIES, *ALIASES))
        raise MeasureSyntaxError(f"measure {text!r}: unknown judgment-free measure {head!r}; known: {known}")
    p = _persistence(text, family, params)
    depth = None
    if depth_text is not None:
        if not re.fullmatch(r"\d+", depth_text) or int(depth_text) < 1:
            raise MeasureSyntaxError(f"measure {text!r}: depth must be a positive integer, got {depth_text!r}")
        depth = int(depth_text)
    if FAMILIES[family].cutoff == "required" and depth is None:
        raise MeasureSyntaxError(f"measure {text!r}: {family} sums the agreements to a depth; write {family}@k")
    return SimilarityMeasure(family, p, depth)


def _persistence(text: str, family: str, params: str | None) -> float | None:
    """RBO's ``p`` from the text between the parentheses (None for a family without it, the tau ones)."""
    persistence = FAMILIES[family].params.get("p")
    if persistence is None:
        if params:
            raise MeasureSyntaxError(f"measure {text!r}: {family} takes no parameters")
        return None
    if not params:
        return float(persistence.default)
    name, _, value = params.partition("=")
    if name.strip() != "p" or not value.strip():
        raise MeasureSyntaxError(f"measure {text!r}: the only parameter is p (persistence), e.g. rbo(p=0.9)")
    return float(persistence.parse(value, text))
