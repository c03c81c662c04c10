"""The comparison options as one value: baseline, test, correction, alpha, resamples, seed, intervals, query sets.

:class:`ComparisonOptions` is what :func:`rankmeter.compare`,
:func:`rankmeter.compare_per_query` and :func:`rankmeter.report.html` take as
``options=``, or field by field as keyword arguments
(:data:`ComparisonKeywords` declares those names once for the type checker).

Examples
--------
>>> opts = ComparisonOptions(test="Tukey-HSD", correction=None)
>>> opts.test, opts.correction
('tukey', 'none')
>>> ComparisonOptions(alpha=1.5)
Traceback (most recent call last):
...
rankmeter.errors.PolicyError: alpha must be in (0, 1), got 1.5
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np

from rankmeter.core.options import merged
from rankmeter.errors import PolicyError
from rankmeter.stats._arrays import positive_int
from rankmeter.stats.bootstrap import canonical_ci_method
from rankmeter.stats.corrections import canonical_correction
from rankmeter.stats.paired import PAIRED_TESTS, canonical_test
from rankmeter.stats.pairing import QUERY_SET_POLICIES

#: Tests of all system pairs, whose p-values are already family-wise adjusted.
ALL_PAIRS_TESTS = ("tukey", "randomized-tukey")
#: Every test name :func:`rankmeter.compare` accepts.
TESTS = PAIRED_TESTS + ALL_PAIRS_TESTS

_TUKEY_ALIASES = {
    "tukey": "tukey",
    "tukey-hsd": "tukey",
    "hsd": "tukey",
    "randomized-tukey": "randomized-tukey",
    "randomised-tukey": "randomized-tukey",
    "tukey-randomized": "randomized-tukey",
    "randomized-tukey-hsd": "randomized-tukey",
}


def canonical_compare_test(name: str) -> str:
    """Canonical name of any test :func:`rankmeter.compare` accepts.

    Examples
    --------
    >>> canonical_compare_test("Tukey-HSD"), canonical_compare_test("permutation")
    ('tukey', 'randomization')
    """
    key = str(name).strip().lower()
    if key in _TUKEY_ALIASES:
        return _TUKEY_ALIASES[key]
    try:
        return canonical_test(key)
    except PolicyError:
        raise PolicyError(f"unknown test {name!r}; choose one of {', '.join(TESTS)}") from None


@dataclass(frozen=True)
class ComparisonOptions:
    """How systems are compared: the statistics' choices of :func:`rankmeter.compare`, validated when made.

    Parameters
    ----------
    baseline : str, optional
        Name of the baseline system; default the first one.
    test : {"t", "wilcoxon", "randomization", "bootstrap", "tukey", "randomized-tukey"}, default "t"
        The significance test (see :mod:`rankmeter.stats.paired`,
        :mod:`rankmeter.stats.resampling`, :mod:`rankmeter.stats.tukey`);
        aliases (``"permutation"``, ``"Tukey-HSD"``, ...) are kept as the
        canonical name.
    correction : {"holm", "bonferroni", "bh", "none"} or None, default "holm"
        Multiple-testing correction over all (system x measure) pairs (None:
        ``"none"``).
    alpha : float, default 0.05
        Significance level for ``PairRow.significant``, in (0, 1).
    n_resamples : int, default 10_000
        Resamples of the bootstrap CIs and of the resampling tests.
    seed : int or None, default 0
        Seed of every random draw; ``None`` draws fresh entropy when the
        comparison runs, recorded in ``metadata["seed"]`` so that the result
        can be reproduced.
    ci : float, default 0.95
        Confidence level of the intervals, in (0, 1).
    ci_method : {"BCa", "percentile", "basic"}, default "BCa"
        Bootstrap interval method.
    query_sets : {"error", "intersect"}, default "error"
        What to do when systems cover different queries (see
        :func:`rankmeter.stats.pairing.align_queries`).
    """

    baseline: str | None = None
    test: str = "t"
    correction: str | None = "holm"
    alpha: float = 0.05
    n_resamples: int = 10_000
    seed: int | None = 0
    ci: float = 0.95
    ci_method: str = "BCa"
    query_sets: str = "error"

    def __post_init__(self) -> None:
        if not 0.0 < float(self.alpha) < 1.0:
            raise PolicyError(f"alpha must be in (0, 1), got {self.alpha!r}")
        if not 0.0 < float(self.ci) < 1.0:
            raise PolicyError(f"ci (the confidence level) must be in (0, 1), got {self.ci!r}")
        if self.query_sets not in QUERY_SET_POLICIES:
            raise PolicyError(
                f"unknown query_sets policy {self.query_sets!r}; choose one of {', '.join(QUERY_SET_POLICIES)}"
            )
        seed = self.seed
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0):
            raise PolicyError(f"seed must be a non-negative integer or None, got {seed!r}")
        canonical = {
            "test": canonical_compare_test(self.test),
            "correction": canonical_correction(self.correction),
            "alpha": float(self.alpha),
            "n_resamples": positive_int(self.n_resamples, "n_resamples"),
            "seed": None if seed is None else int(seed),
            "ci": float(self.ci),
            "ci_method": canonical_ci_method(self.ci_method),
        }
        for name, value in canonical.items():
            object.__setattr__(self, name, value)

    def replace(self, **changes: Any) -> ComparisonOptions:
        """A copy with some fields changed (validated again).

        >>> ComparisonOptions().replace(test="wilcoxon").test
        'wilcoxon'
        """
        unknown = sorted(set(changes) - COMPARISON_FIELDS)
        if unknown:
            raise TypeError(
                f"unknown comparison option {unknown[0]!r}; the options are {', '.join(sorted(COMPARISON_FIELDS))}"
            )
        return dataclasses.replace(self, **changes)

    def changed(self) -> dict[str, Any]:
        """The fields that differ from the defaults, by name (the keyword arguments that give this value).

        >>> ComparisonOptions(test="wilcoxon", seed=None).changed()
        {'test': 'wilcoxon', 'seed': None}
        """
        default = ComparisonOptions()
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        }

    def seeded(self) -> ComparisonOptions:
        """This value with a seed: ``seed=None`` becomes fresh entropy (what a comparison records).

        >>> ComparisonOptions(seed=3).seeded().seed, ComparisonOptions(seed=None).seeded().seed is not None
        (3, True)
        """
        if self.seed is not None:
            return self
        entropy = np.random.SeedSequence().entropy
        return dataclasses.replace(self, seed=int(entropy) if isinstance(entropy, int) else 0)


COMPARISON_FIELDS = frozenset(f.name for f in dataclasses.fields(ComparisonOptions))
"""The names of :class:`ComparisonOptions`' fields."""


class ComparisonKeywords(TypedDict, total=False):
    """The fields of :class:`ComparisonOptions` as keyword arguments (their meanings are the fields')."""

    baseline: str | None
    test: str
    correction: str | None
    alpha: float
    n_resamples: int
    seed: int | None
    ci: float
    ci_method: str
    query_sets: str


def comparison_options(entry: str, options: ComparisonOptions | None, keywords: dict[str, Any]) -> ComparisonOptions:
    """The options of one call: ``options`` (or the defaults) with the keyword fields applied.

    Raises
    ------
    PolicyError
        A field set in ``options`` and given as a keyword with another value.
    TypeError
        ``options`` is not a :class:`ComparisonOptions`, or a keyword is not one of its fields.

    Examples
    --------
    >>> comparison_options("compare", ComparisonOptions(test="wilcoxon"), {"alpha": 0.01}).alpha
    0.01
    >>> comparison_options("compare", ComparisonOptions(test="wilcoxon"), {"test": "t"})
    Traceback (most recent call last):
    ...
    rankmeter.errors.PolicyError: compare: test='t' as a keyword but test='wilcoxon' in options=; give it once
    """
    unknown = sorted(set(keywords) - COMPARISON_FIELDS)
    if unknown:
        raise TypeError(
            f"{entry}: unknown option {unknown[0]!r}; the options are {', '.join(sorted(COMPARISON_FIELDS))}"
        )
    return merged(entry, ComparisonOptions, options, keywords)
