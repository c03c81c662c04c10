"""The :class:`Comparison` result of :func:`rankmeter.stats.significance.compare` and its exports."""

from __future__ import annotations

import copy
import csv
import io
import json
import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np

from rankmeter.errors import PolicyError
from rankmeter.io.escaping import csv_quoting, spreadsheet_safe

TABLES = ("pairs", "systems", "segment_pairs", "segment_systems")


@dataclass(frozen=True)
class SystemRow:
    """Mean of one measure for one system, with its bootstrap confidence interval."""

    name: str
    measure: str
    mean: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class PairRow:
    """One system compared with one baseline on one measure.

    ``statistic`` depends on the test (t, Wilcoxon's W, or the mean difference
    for the resampling and Tukey tests). ``effect_size`` is the raw effect
    ``mean(system - baseline)``, equal to ``mean_difference`` (kept under both
    names for the fixed export schema); ``effect_size_standardized`` is
    Cohen's :math:`d_z`. ``wins`` / ``ties`` / ``losses`` count queries where
    the system is above / equal to / below the baseline. ``significant`` is
    ``p_adjusted < alpha``. ``p_value_mc_se`` is the Monte Carlo standard error
    of a resampled p-value (``None`` for analytic tests).
    """

    measure: str
    baseline: str
    system: str
    test: str
    statistic: float
    p_value: float
    p_adjusted: float
    effect_size: float
    wins: int
    ties: int
    losses: int
    effect_size_standardized: float
    mean_difference: float
    significant: bool
    p_value_mc_se: float | None = None
    note: str | None = None


@dataclass(frozen=True)
class SegmentComparison:
    """The comparison within one segment: its queries' means with CIs and paired tests.

    ``pairs`` hold p-values adjusted over every (segment x system x measure)
    pair of the comparison (``Comparison.metadata["groups"]["family"]``).
    """

    segment: Any
    n_queries: int
    systems: list[SystemRow]
    pairs: list[PairRow]
    monte_carlo_se: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def pair(self, measure: str, system: str) -> PairRow | None:
        """The :class:`PairRow` of ``system`` on ``measure`` in this segment (None when not tested)."""
        return next((r for r in self.pairs if r.measure == measure and system in (r.system, r.baseline)), None)


def _jsonable(obj: Any) -> Any:
    """Plain-Python copy of ``obj`` with non-finite floats as ``None`` (strict JSON)."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    return obj


@dataclass(frozen=True)
class Comparison:
    """Per-system means with confidence intervals and paired tests against a baseline.

    Attributes
    ----------
    systems : list of SystemRow
        One row per (system, measure): ``name, measure, mean, ci_low, ci_high``.
    pairs : list of PairRow
        One row per compared (baseline, system, measure).
    metadata : dict
        Test, correction, alpha, n_resamples, seed, CI level and method, query
        counts, Monte Carlo standard errors and notes (JSON-serializable).
    query_ids : ndarray of str or int64
        The queries compared (after alignment); integers where every
        system's query ids were integers.
    per_query : dict
        System name -> per-query values, shape (n_queries, n_measures), in the
        order of ``query_ids`` and ``metadata["measures"]`` (used by the plots).
    groups : list of SegmentComparison or None
        With ``group_by=``: the comparison within each segment, p-values
        corrected over segments x systems x measures (``metadata["groups"]``).

    Examples
    --------
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["q1", "q2", "q3", "q4"]
    >>> cmp = compare_per_query({"bm25": (q, ["map"], [[.2], [.4], [.1], [.5]]),
    ...                          "dense": (q, ["map"], [[.3], [.5], [.1], [.7]])}, test="wilcoxon")
    >>> cmp.baseline, cmp.names, cmp.measures
    ('bm25', ['bm25', 'dense'], ['map'])
    >>> pair = cmp.pair("map", "dense")
    >>> pair.test, (pair.wins, pair.ties, pair.losses), pair.p_value
    ('wilcoxon', (3, 1, 0), 0.25)
    >>> sorted(cmp.to_dict())
    ['metadata', 'pairs', 'systems']
    >>> print(cmp.to_csv("systems").splitlines()[0])
    name,measure,mean,ci_low,ci_high
    """

    systems: list[SystemRow]
    pairs: list[PairRow]
    metadata: dict[str, Any]
    query_ids: np.ndarray = field(default_factory=lambda: np.array([], dtype=str), repr=False, compare=False)
    per_query: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    groups: list[SegmentComparison] | None = field(default=None, repr=False)

    # -- lookup ---------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """System names, in the order given."""
        return list(self.metadata["systems"])

    @property
    def measures(self) -> list[str]:
        """Measure names, in the order of the evaluation."""
        return list(self.metadata["measures"])

    @property
    def baseline(self) -> str:
        """Name of the baseline system."""
        return str(self.metadata["baseline"])

    def values(self, name: str, measure: str) -> np.ndarray:
        """Per-query values of system ``name`` on ``measure`` (aligned with :attr:`query_ids`)."""
        if name not in self.per_query:
            raise PolicyError(f"unknown system {name!r}; systems are {', '.join(self.names)}")
        if measure not in self.measures:
            raise PolicyError(f"unknown measure {measure!r}; measures are {', '.join(self.measures)}")
        return self.per_query[name][:, self.measures.index(measure)]

    def system(self, name: str, measure: str) -> SystemRow:
        """The :class:`SystemRow` of ``name`` on ``measure``."""
        for row in self.systems:
            if row.name == name and row.measure == measure:
                return row
        raise PolicyError(f"no row for system {name!r} and measure {measure!r}")

    def pair(self, measure: str, system: str, baseline: str | None = None) -> PairRow | None:
        """The :class:`PairRow` comparing ``system`` with ``baseline`` (default: the baseline).

        Rows are found in either orientation; ``None`` when the pair was not tested.
        """
        other = self.baseline if baseline is None else baseline
        for row in self.pairs:
            if row.measure == measure and {row.baseline, row.system} == {other, system} and other != system:
                return row
        return None

    # -- exports --------------------------------------------------------------------------

    def segment(self, segment: Any) -> SegmentComparison:
        """The :class:`SegmentComparison` of one segment."""
        for group in self.groups or []:
            if group.segment == segment and type(group.segment) is type(segment):
                return group
        raise PolicyError(f"no segment {segment!r} in this comparison (compare with group_by=)")

    def within(self, segment: Any) -> Comparison:
        """The comparison within one segment, as a :class:`Comparison` (for the renderers of the overall one).

        Its p-values are those corrected over segments x systems x measures;
        ``metadata`` is the overall one with the segment's query count,
        family, notes and Monte Carlo errors.
        """
        group = self.segment(segment)
        meta = copy.deepcopy(self.metadata)
        family = meta.pop("groups", {})
        meta.update(
            segment=segment,
            correction=family.get("correction", meta["correction"]),
            family_size=family.get("family_size", meta["family_size"]),
            family=family.get("family"),
            monte_carlo_se=list(group.monte_carlo_se),
            notes=list(group.notes),
        )
        meta["queries"] = {**meta["queries"], "compared": group.n_queries}
        return Comparison(systems=list(group.systems), pairs=list(group.pairs), metadata=meta)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict ``{"systems": [...], "pairs": [...], "metadata": {...}}``; with segments also
        ``"segment_systems"`` and ``"segment_pairs"`` (the rows with a leading ``segment``).

        Floats stay Python floats (``nan`` / ``inf`` included); see :meth:`to_json`.
        """
        out = {
            "systems": [asdict(r) for r in self.systems],
            "pairs": [asdict(r) for r in self.pairs],
            "metadata": copy.deepcopy(self.metadata),
        }
        if self.groups is not None:
            out["segment_systems"] = self._records("segment_systems")[1]
            out["segment_pairs"] = self._records("segment_pairs")[1]
        return out

    def to_json(self, indent: int | None = 2) -> str:
        """Strict JSON of :meth:`to_dict`; NaN and infinite numbers become ``null``."""
        return json.dumps(_jsonable(self.to_dict()), indent=indent, allow_nan=False)

    def _records(self, table: str) -> tuple[list[str], list[dict[str, Any]]]:
        if table == "pairs":
            return [f.name for f in fields(PairRow)], [asdict(r) for r in self.pairs]
        if table == "systems":
            return [f.name for f in fields(SystemRow)], [asdict(r) for r in self.systems]
        if table in ("segment_pairs", "segment_systems"):
            if self.groups is None:
                raise PolicyError(f"table {table!r}: this comparison has no segments; compare with group_by=")
            kind = PairRow if table == "segment_pairs" else SystemRow
            columns = ["segment", "n_queries", *(f.name for f in fields(kind))]
            rows = [
                {"segment": g.segment, "n_queries": g.n_queries, **asdict(r)}
                for g in self.groups
                for r in (g.pairs if table == "segment_pairs" else g.systems)
            ]
            return columns, rows
        raise PolicyError(f"unknown table {table!r}; choose one of {', '.join(TABLES)}")

    def to_pandas(self, table: str = "pairs") -> Any:
        """A :class:`pandas.DataFrame` of the ``"pairs"`` or ``"systems"`` rows (needs pandas), or of a
        grouped comparison's ``"segment_pairs"`` / ``"segment_systems"``."""
        import pandas as pd

        columns, records = self._records(table)
        return pd.DataFrame.from_records(records, columns=columns)

    def to_csv(self, table: str = "pairs", *, safe: bool = False) -> str:
        """CSV text of the rows of one of :data:`TABLES` (header line first).

        With ``safe``, names a spreadsheet would run as formulas get a leading ``'``
        (:func:`~rankmeter.io.escaping.spreadsheet_safe`; off by default: the names then do not read back).
        """
        columns, records = self._records(table)
        if safe:
            records = [{k: spreadsheet_safe(v) if isinstance(v, str) else v for k, v in r.items()} for r in records]
        buf = io.StringIO()
        quoting = csv_quoting(r.values() for r in records)  # a name holding a lone CR: every field quoted
        writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n", quoting=quoting)
        writer.writeheader()
        writer.writerows(records)
        return buf.getvalue()
