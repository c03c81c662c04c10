"""Judgment-free comparisons: rank-biased overlap and rank correlations between runs, system orderings.

- :func:`similarity`: two runs compared query by query (``rbo(p=0.9)``,
  ``rbo_min``, ``rbo_max``, ``rbo_res``, ``rbo_prefix@k``, ``kendall_tau``,
  ``tau_ap``), as an :class:`~rankmeter.results.EvaluationResult`;
- :func:`system_correlation`: Kendall's tau or tau_AP between the orderings of
  systems that two evaluations give (two measures, or two sets of qrels).

docs/similarity.md gives the formulas, the tie treatments and where the peers differ.
"""

from rankmeter.agreement.ann import ann_recall
from rankmeter.agreement.compare_runs import similarity
from rankmeter.agreement.systems import system_correlation

__all__ = ["ann_recall", "similarity", "system_correlation"]
