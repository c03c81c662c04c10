"""Retrieval with embeddings and binary hash codes: labels give relevance, a distance gives the ranking.

>>> from rankmeter.vectors import evaluate_vectors
>>> res = evaluate_vectors([[1, -1]], [[1, -1], [-1, -1], [1, 1]], ["ndcg", "map"],
...                        query_labels=[0], database_labels=[0, 1, 0])
>>> round(res["ndcg"], 6), round(res["map"], 6)  # item 2 ties with item 1 at distance 1
(0.95986, 0.916667)

Entry points: :func:`evaluate_vectors` (every measure of the registry, tie-aware,
plus precision/recall within a Hamming radius), :func:`evaluate_embeddings`
(user and item embeddings, every user ranking the whole catalogue, seen items
excluded), :func:`pr_curve` and
:func:`precision_at_k_curve` (arrays for plots), and the helpers
:func:`hamming_distance` and :func:`relevance_matrix`. See docs/vectors.md.
"""

from rankmeter.vectors.curves import Curve, pr_curve, precision_at_k_curve
from rankmeter.vectors.distances import METRICS, hamming_distance
from rankmeter.vectors.embeddings import evaluate_embeddings
from rankmeter.vectors.relevance import RELEVANCE_RULES, relevance_matrix
from rankmeter.vectors.retrieval import VECTOR_TIES, evaluate_vectors

__all__ = [
    "METRICS",
    "RELEVANCE_RULES",
    "VECTOR_TIES",
    "Curve",
    "evaluate_embeddings",
    "evaluate_vectors",
    "hamming_distance",
    "pr_curve",
    "precision_at_k_curve",
    "relevance_matrix",
]
