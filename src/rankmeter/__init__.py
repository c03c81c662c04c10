"""rankmeter: exact, explicit and fast evaluation of rankings.

The public surface is this module's ``__all__`` (docs/api.md lists it):

- entry points: :func:`evaluate` (qrels + run), :func:`evaluate_stream` (run
  files in blocks), :func:`evaluate_arrays` (dense matrices),
  :func:`evaluate_lists` (ragged lists), :func:`evaluate_vectors`
  (embeddings and hash codes), :func:`evaluate_embeddings` (user and item
  embeddings ranked over a whole catalogue), :func:`evaluate_diversity` (intent qrels:
  alpha-nDCG, ERR-IA, ...), :func:`compare` and :func:`compare_per_query`
  (significance tests);
- values: :class:`Semantics` (ties, empty and missing queries, duplicates,
  depth, judged-only, seed), :class:`EvaluationOptions` (columns, threads,
  exclude, candidates, segments, items), :func:`parse` and :class:`Measure`,
  :class:`EvaluationResult`, :class:`SystemResults` (several runs), :class:`Comparison`,
  :class:`ComparisonOptions` (the statistics' choices of :func:`compare`), :class:`Qrels` and
  :class:`Run` with :func:`read_qrels` / :func:`read_run`;
- namespaces: :mod:`rankmeter.measures` (the catalogue), :mod:`rankmeter.report`
  (tables and plots), :mod:`rankmeter.stats` (the statistics one by one),
  :mod:`rankmeter.vectors` (curves and distances), :mod:`rankmeter.sampled` (corrected estimates from
  sampled ranks);
- the errors, all subclasses of :class:`RankmeterError` (a ``ValueError``).

Every other module is internal and may change between releases.

>>> import rankmeter
>>> res = rankmeter.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 2.0, "d2": 1.0}}, "ndcg@10")
>>> res["ndcg@10"]
1.0
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rankmeter._version import __version__
from rankmeter.errors import (
    DuplicateEntryError,
    InputFormatError,
    InvalidScoreError,
    MeasureSyntaxError,
    PolicyError,
    QueryOrderError,
    RankmeterError,
)

if TYPE_CHECKING:
    from rankmeter import measures, report, sampled, stats, vectors
    from rankmeter.agreement import ann_recall, similarity, system_correlation
    from rankmeter.by_arrays import evaluate_arrays, evaluate_lists
    from rankmeter.by_ids import evaluate
    from rankmeter.core.options import EvaluationOptions
    from rankmeter.core.semantics import Semantics
    from rankmeter.diversity import evaluate_diversity
    from rankmeter.io.items import Items
    from rankmeter.io.recsys import interactions, ranked_lists
    from rankmeter.io.tables import Qrels, Run
    from rankmeter.io.trec import read_qrels, read_run
    from rankmeter.measures import Measure, parse
    from rankmeter.results import EvaluationResult, SystemResults
    from rankmeter.segments import GroupBy
    from rankmeter.stats.comparison import Comparison
    from rankmeter.stats.options import ComparisonOptions
    from rankmeter.stats.significance import compare, compare_per_query
    from rankmeter.streaming import evaluate_stream
    from rankmeter.vectors.embeddings import evaluate_embeddings
    from rankmeter.vectors.retrieval import evaluate_vectors

_LAZY = {
    "Semantics": ("rankmeter.core.semantics", "Semantics"),
    "EvaluationOptions": ("rankmeter.core.options", "EvaluationOptions"),
    "evaluate": ("rankmeter.by_ids", "evaluate"),
    "evaluate_arrays": ("rankmeter.by_arrays", "evaluate_arrays"),
    "evaluate_lists": ("rankmeter.by_arrays", "evaluate_lists"),
    "evaluate_stream": ("rankmeter.streaming", "evaluate_stream"),
    "EvaluationResult": ("rankmeter.results", "EvaluationResult"),
    "SystemResults": ("rankmeter.results", "SystemResults"),
    "GroupBy": ("rankmeter.segments", "GroupBy"),
    "Measure": ("rankmeter.measures", "Measure"),
    "parse": ("rankmeter.measures", "parse"),
    "measures": ("rankmeter.measures", None),
    "evaluate_vectors": ("rankmeter.vectors.retrieval", "evaluate_vectors"),
    "evaluate_embeddings": ("rankmeter.vectors.embeddings", "evaluate_embeddings"),
    "compare": ("rankmeter.stats.significance", "compare"),
    "evaluate_diversity": ("rankmeter.diversity", "evaluate_diversity"),
    "compare_per_query": ("rankmeter.stats.significance", "compare_per_query"),
    "Comparison": ("rankmeter.stats.comparison", "Comparison"),
    "ComparisonOptions": ("rankmeter.stats.options", "ComparisonOptions"),
    "Qrels": ("rankmeter.io.tables", "Qrels"),
    "Run": ("rankmeter.io.tables", "Run"),
    "read_qrels": ("rankmeter.io.trec", "read_qrels"),
    "read_run": ("rankmeter.io.trec", "read_run"),
    "ranked_lists": ("rankmeter.io.recsys", "ranked_lists"),
    "interactions": ("rankmeter.io.recsys", "interactions"),
    "Items": ("rankmeter.io.items", "Items"),
    "report": ("rankmeter.report", None),
    "stats": ("rankmeter.stats", None),
    "sampled": ("rankmeter.sampled", None),
    "vectors": ("rankmeter.vectors", None),
    "similarity": ("rankmeter.agreement", "similarity"),
    "ann_recall": ("rankmeter.agreement", "ann_recall"),
    "system_correlation": ("rankmeter.agreement", "system_correlation"),
}
"""Public names imported on first use: ``import rankmeter`` loads neither NumPy nor any entry point, so a
process can still choose settings read when NumPy loads (the command line limits OpenBLAS's threads)."""


def __getattr__(name: str) -> Any:
    """The lazy public names of :data:`_LAZY`."""
    if name in _LAZY:
        module_name, attribute = _LAZY[name]
        module = importlib.import_module(module_name)
        value = module if attribute is None else getattr(module, attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public surface only, so that ``rankmeter.<tab>`` lists the entry points."""
    return sorted(__all__)


__all__ = [
    "Comparison",
    "ComparisonOptions",
    "DuplicateEntryError",
    "EvaluationOptions",
    "EvaluationResult",
    "GroupBy",
    "InputFormatError",
    "InvalidScoreError",
    "Items",
    "Measure",
    "MeasureSyntaxError",
    "PolicyError",
    "Qrels",
    "QueryOrderError",
    "RankmeterError",
    "Run",
    "Semantics",
    "SystemResults",
    "__version__",
    "ann_recall",
    "compare",
    "compare_per_query",
    "evaluate",
    "evaluate_arrays",
    "evaluate_diversity",
    "evaluate_embeddings",
    "evaluate_lists",
    "evaluate_stream",
    "evaluate_vectors",
    "interactions",
    "measures",
    "parse",
    "ranked_lists",
    "read_qrels",
    "read_run",
    "report",
    "sampled",
    "similarity",
    "stats",
    "system_correlation",
    "vectors",
]
