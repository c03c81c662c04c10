"""The one table of measure families: names, parameters, cutoffs, aggregation and kernels.

The API, the CLI (``rankmeter measures``), the docs and the invariance tests
all iterate :data:`FAMILIES`. Adding a measure = one :class:`Family` row, one
kernel and one row of reference values in the tests.

Every fact a fast path needs is a :class:`~rankmeter.measures.traits.Traits`
field of the row, and the paths read only those (no module keeps a list of
family names): ``top_k`` lets dense rows rank only their top k,
``judged_items`` lets aligned lists keep only the judged items,
``positive_ideal`` / ``ideal_dcg`` / ``counts_judged`` decide the positive-only
dense lists, ``graded`` / ``gain_sum`` how relevance and item weights are read,
``full_as_cutoff`` and ``cut_at_relevant`` how the vector paths merge cutoffs
and count ties, ``sampled_rankings`` whether a run may be several sampled
rankings per user, ``expected_ties`` whether ``ties="expected"`` is exact (else
refused up front), ``zero_without_results`` how ``trec_eval -c`` scores a topic
without results, and ``array_api`` / ``keras`` / ``hamming`` name the formula
that computes the family on those backends. A new row declares none and takes
the general path everywhere; each trait it declares is a claim that the tests
check (``tests/measures/test_traits.py``, ``tests/frameworks/test_formula_table.py``).

:data:`FAMILIES` and :data:`ALIASES` are built here from :func:`tables` when this
module is first imported, which :mod:`rankmeter.measures._tables` does when a
table is first used. The core rows (:mod:`rankmeter.measures.core_families`) come
first; a name found there is looked up without importing this module.
"""

from __future__ import annotations

from rankmeter.measures import (
    beyond_families,
    core_families,
    diversity_families,
    ir_families,
    peer_names,
    recsys_families,
    trec_families,
)
from rankmeter.measures.family import Family


def tables() -> tuple[dict[str, Family], dict[str, str]]:
    """Every family and alias: the core ones first, then trec_eval's (:mod:`~rankmeter.measures.trec_families`).

    :data:`FAMILIES` and :data:`ALIASES` are these, built once. A family registered twice, or an alias
    given twice or spelled like a family, is refused: each name has one meaning, so a name of
    :mod:`~rankmeter.measures.core_families` means there what it means in the whole table.

    >>> families, aliases = tables()
    >>> families["ndcg"].name, aliases["mrr"], "bpref" in families
    ('ndcg', 'rr', True)
    """
    families: dict[str, Family] = {}
    for fam in [
        *core_families.FAMILIES,
        *trec_families.FAMILIES,
        *diversity_families.FAMILIES,
        *ir_families.FAMILIES,
        *recsys_families.FAMILIES,
        *beyond_families.FAMILIES,
    ]:
        if fam.name in families:
            raise RuntimeError(f"measure family {fam.name!r} registered twice")
        families[fam.name] = fam
    aliases: dict[str, str] = {}
    named = [
        core_families,
        trec_families,
        peer_names,
        diversity_families,
        ir_families,
        recsys_families,
        beyond_families,
    ]
    for alias, name in (pair for module in named for pair in module.ALIASES.items()):
        if alias in aliases or alias in families:
            raise RuntimeError(f"measure name {alias!r} registered twice")
        aliases[alias] = name
    return families, aliases


FAMILIES, ALIASES = tables()
"""Every measure family by canonical name, and the other spellings of family names (lower case) with the
canonical family each stands for."""
