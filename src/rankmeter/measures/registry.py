"""The one table of measure families: names, parameters, cutoffs, aggregation and kernels.

The API, the CLI (``rankmeter measures``), the docs and the invariance tests
all iterate :data:`FAMILIES`. Adding a measure = one :class:`Family` row, one
kernel and one row of reference values in the tests.

:data:`FAMILIES` and :data:`ALIASES` live in :mod:`rankmeter.measures._tables`,
which imports this module (and so every kernel) only when a table is first
used, and then calls :func:`fill`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures._tables import ALIASES, FAMILIES
from rankmeter.measures.kernels import average_precision, counts, dcg, precision, reciprocal_rank
from rankmeter.measures.params import GainTable, Jarvelin


@dataclass(frozen=True)
class Param:
    """A family parameter: default value, parser for names and validator for Python values."""

    default: Any
    parse_text: Callable[[str, str], Any]
    check: Callable[[Any, str], Any]
    doc: str

    def parse(self, text: str, source: str) -> Any:
        return self.parse_text(text, source)

    def convert(self, value: Any, family: str) -> Any:
        return self.check(value, family)


def _number(text: str, source: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise MeasureSyntaxError(f"measure {source!r}: {text!r} is not a number") from None


def _check_min_rel(value: Any, family: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = _number(value, family)
    if not isinstance(value, int | float | np.integer | np.floating) or not np.isfinite(value):
        raise MeasureSyntaxError(f"measure {family!r}: min_rel must be a finite number, got {value!r}")
    return float(value)


def _parse_gain(text: str, source: str) -> Any:
    if text in ("linear", "exp"):
        return text
    if text.startswith("{") and text.endswith("}"):
        table: dict[float, float] = {}
        for item in filter(None, (t.strip() for t in text[1:-1].split(","))):
            if ":" not in item:
                raise MeasureSyntaxError(f"measure {source!r}: gain table entry {item!r} must be grade:gain")
            k, v = item.split(":", 1)
            table[_number(k.strip(), source)] = _number(v.strip(), source)
        return GainTable.of(table)
    raise MeasureSyntaxError(
        f"measure {source!r}: gain must be linear, exp or a table {{grade:gain,...}}, got {text!r}"
    )


def _check_gain(value: Any, family: str) -> Any:
    if isinstance(value, str):
        return _parse_gain(value, family)
    if isinstance(value, dict):
        return GainTable.of(value)
    if isinstance(value, GainTable) or callable(value):
        return value
    raise MeasureSyntaxError(f"measure {family!r}: unsupported gain {value!r}")


def _parse_discount(text: str, source: str) -> Any:
    if text == "log2":
        return "log2"
    m = re.fullmatch(r"jarvelin(?:\(\s*([0-9.eE+-]+)\s*\))?", text)
    if m:
        base = _number(m.group(1), source) if m.group(1) else 2.0
        if base <= 1:
            raise MeasureSyntaxError(f"measure {source!r}: jarvelin base must be > 1, got {base}")
        return Jarvelin(base)
    raise MeasureSyntaxError(f"measure {source!r}: discount must be log2 or jarvelin(b), got {text!r}")


def _check_discount(value: Any, family: str) -> Any:
    if isinstance(value, str):
        return _parse_discount(value, family)
    if isinstance(value, Jarvelin) or callable(value):
        return value
    raise MeasureSyntaxError(f"measure {family!r}: unsupported discount {value!r}")


def _check_ideal(value: Any, family: str) -> str:
    if value not in ("judged", "retrieved"):
        raise MeasureSyntaxError(f"measure {family!r}: ideal must be 'judged' or 'retrieved', got {value!r}")
    return str(value)


MIN_REL = Param(
    None,
    lambda t, s: _check_min_rel(_number(t, s), s),
    _check_min_rel,
    "relevance threshold for binary relevance: grade >= min_rel (default: grade > 0); trec_eval -l",
)
GAIN = Param("linear", _parse_gain, _check_gain, "linear (r) | exp (2^r - 1) | {grade:gain,...} | callable")
DISCOUNT = Param(
    "log2",
    _parse_discount,
    _check_discount,
    "log2 (1/log2(i+1)) | jarvelin(b) (1 for i < b, else 1/log_b(i)) | callable",
)
IDEAL = Param(
    "judged",
    lambda t, s: _check_ideal(t, s),
    _check_ideal,
    "judged (all judged documents, trec_eval) | retrieved (the ranked list only, scikit-learn/keras-rs)",
)

Kernel = Callable[[Any, Any], np.ndarray]


@dataclass(frozen=True)
class Family:
    """A measure family: how it is named, parameterised, cut off, computed and aggregated."""

    name: str
    kernel: Kernel
    description: str
    cutoff: str = "optional"  # "required" | "optional" | "none"
    params: dict[str, Param] = field(default_factory=dict)
    aggregate: str = "mean"  # "mean" | "sum" | "gmean"
    trec_name: str | None = None
    needs_relevant: bool = True  # False: defined without relevant documents (counts, judged@k)

    @property
    def is_count(self) -> bool:
        return self.aggregate == "sum"

    @property
    def empty_exempt(self) -> bool:
        """Whether the empty-query policy keeps this family's values (except ``skip``/``error``)."""
        return self.is_count or not self.needs_relevant


_GRADED = {"gain": GAIN, "discount": DISCOUNT, "ideal": IDEAL}
_BINARY = {"min_rel": MIN_REL}

_CORE_FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        Family(
            "ndcg",
            dcg.ndcg,
            "normalised discounted cumulative gain, DCG@k / IDCG@k",
            params=_GRADED,
            trec_name="ndcg / ndcg_cut.k",
        ),
        Family(
            "dcg",
            dcg.dcg,
            "discounted cumulative gain, sum of g(r_i) d(i) over the top k",
            params={"gain": GAIN, "discount": DISCOUNT},
            trec_name="dcg",
        ),
        Family("idcg", dcg.idcg, "DCG of the ideal ranking at k", params=_GRADED, trec_name="ideal_dcg"),
        Family("cg", dcg.cg, "cumulative gain, sum of g(r_i) over the top k (no discount)", params={"gain": GAIN}),
        Family(
            "map",
            average_precision.average_precision,
            "average precision: sum of precision at each relevant rank <= k, / number relevant",
            params=_BINARY,
            trec_name="map / map_cut.k",
        ),
        Family(
            "ap", average_precision.average_precision, "average precision (same as map; per-query name)", params=_BINARY
        ),
        Family(
            "p",
            precision.precision,
            "precision: relevant in the top k / k",
            cutoff="required",
            params=_BINARY,
            trec_name="P.k",
        ),
        Family(
            "r",
            precision.recall,
            "recall: relevant in the top k / number relevant",
            params=_BINARY,
            trec_name="recall.k",
        ),
        Family("f1", precision.f1, "F1 of p@k and r@k: 2 rel@k / (k + R)", params=_BINARY),
        Family(
            "rr",
            reciprocal_rank.reciprocal_rank,
            "reciprocal rank of the first relevant document (0 past k)",
            params=_BINARY,
            trec_name="recip_rank",
        ),
        Family(
            "rprec",
            precision.rprec,
            "R-precision: relevant in the top R / R (R = number relevant)",
            cutoff="none",
            params=_BINARY,
            trec_name="Rprec",
        ),
        Family(
            "success",
            precision.success,
            "1 if a relevant document is in the top k (hit rate)",
            cutoff="required",
            params=_BINARY,
            trec_name="success.k",
        ),
        Family(
            "judged", precision.judged, "judged documents in the top k / k", cutoff="required", needs_relevant=False
        ),
        Family("acg", precision.acg, "average cumulative gain: mean grade of the top k", cutoff="required"),
        Family(
            "wap",
            average_precision.weighted_average_precision,
            "weighted average precision: AP with ACG@i in place of precision@i (multi-level relevance)",
            params=_BINARY,
        ),
        Family("num_q", counts.num_q, "number of evaluated queries", cutoff="none", aggregate="sum", trec_name="num_q"),
        Family(
            "num_ret",
            counts.num_ret,
            "number of documents retrieved",
            cutoff="none",
            aggregate="sum",
            trec_name="num_ret",
        ),
        Family(
            "num_rel",
            counts.num_rel,
            "number of relevant judged documents",
            cutoff="none",
            params=_BINARY,
            aggregate="sum",
            trec_name="num_rel",
        ),
        Family(
            "num_rel_ret",
            counts.num_rel_ret,
            "number of relevant documents retrieved",
            cutoff="none",
            params=_BINARY,
            aggregate="sum",
            trec_name="num_rel_ret",
        ),
    ]
}


def _register_extensions() -> None:
    """Add families defined outside this file (e.g. trec_eval's full set in ``trec_families``)."""
    import importlib

    for module_name in ("rankmeter.measures.trec_families",):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        for fam in module.FAMILIES:
            if fam.name in FAMILIES:
                raise RuntimeError(f"measure family {fam.name!r} registered twice")
            FAMILIES[fam.name] = fam
        ALIASES.update(getattr(module, "ALIASES", {}))


_CORE_ALIASES: dict[str, str] = {
    "precision": "p",
    "recall": "r",
    "mrr": "rr",
    "recip_rank": "rr",
    "r-prec": "rprec",
    "r_prec": "rprec",
    "r-precision": "rprec",
    "hit_rate": "success",
    "hits": "success",
    "hit": "success",
    "f": "f1",
    "f1_score": "f1",
    "mean_average_precision": "map",
    "average_precision": "ap",
}


def fill() -> None:
    """Add every family and alias to the (empty) tables: the core ones first, then the extensions'."""
    FAMILIES.update(_CORE_FAMILIES)
    ALIASES.update(_CORE_ALIASES)
    _register_extensions()
