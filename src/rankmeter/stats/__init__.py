"""Statistics for comparing systems: paired tests, corrections, bootstrap CIs, effect sizes.

Everything works on plain per-query arrays; :func:`rankmeter.stats.significance.compare` ties it together
for evaluated runs and returns a :class:`Comparison`. SciPy is imported only
when a function that needs it is called.

Modules
-------
paired
    Paired t and Wilcoxon tests, and :func:`paired_test` to run any paired test by name.
resampling
    Seeded randomization (sign-flip) and bootstrap tests, p = (b + 1) / (m + 1).
tukey
    Tukey HSD (SciPy) and randomized Tukey HSD over many systems.
corrections
    Holm, Bonferroni and Benjamini–Hochberg adjusted p-values (NaN-safe).
bootstrap
    Bootstrap confidence interval of a mean (BCa or percentile).
effects
    Mean difference, Cohen's d_z, wins / ties / losses.
align
    Align per-query results of several systems by query id.
compare, comparison
    :func:`compare.compare`, :func:`compare_per_query` and the :class:`Comparison` result.

The function ``compare`` is deliberately not re-exported here, so that
``rankmeter.stats.significance`` stays the module: use
``from rankmeter.stats.significance import compare``.
"""

from rankmeter.stats._types import ConfidenceInterval, TestResult, monte_carlo_error
from rankmeter.stats.bootstrap import mean_ci
from rankmeter.stats.comparison import Comparison, PairRow, SystemRow
from rankmeter.stats.corrections import CORRECTIONS, adjust, benjamini_hochberg, bonferroni, holm
from rankmeter.stats.effects import WinsTiesLosses, cohens_dz, mean_difference, wins_ties_losses
from rankmeter.stats.options import TESTS, ComparisonOptions
from rankmeter.stats.paired import paired_test, t_test, wilcoxon_test
from rankmeter.stats.resampling import bootstrap_test, randomization_test
from rankmeter.stats.significance import compare_per_query
from rankmeter.stats.tukey import TukeyResult, randomized_tukey_hsd, tukey_hsd

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "Comparison",
    "ComparisonOptions",
    "ConfidenceInterval",
    "PairRow",
    "SystemRow",
    "TestResult",
    "TukeyResult",
    "WinsTiesLosses",
    "adjust",
    "benjamini_hochberg",
    "bonferroni",
    "bootstrap_test",
    "cohens_dz",
    "compare_per_query",
    "holm",
    "mean_ci",
    "mean_difference",
    "monte_carlo_error",
    "paired_test",
    "randomization_test",
    "randomized_tukey_hsd",
    "t_test",
    "tukey_hsd",
    "wilcoxon_test",
    "wins_ties_losses",
]
