"""What a measure family is: :class:`Family` (name, kernel, cutoff rule, parameters, aggregation) and
:class:`Param` (a parameter's default, parser and validator), with the parameters families share.

:mod:`rankmeter.measures.registry` and :mod:`rankmeter.measures.trec_families` build their rows from
these; this module imports neither.

>>> MIN_REL.convert("2", "p"), GAIN.parse("exp", "ndcg(gain=exp)")
(2.0, 'exp')
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankmeter.errors import MeasureSyntaxError
from rankmeter.io.validate import UnreadableNumber, as_float
from rankmeter.measures.params import GainTable, Jarvelin
from rankmeter.measures.traits import Traits


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
    """A number in a measure name, under the TREC readers' grammar (ASCII decimal: no ``1_0``, no other digits)."""
    try:
        return as_float(text)
    except UnreadableNumber:
        raise MeasureSyntaxError(f"measure {source!r}: {text!r} is not a number") from None


def _finite_number(x: Any) -> bool:
    """Whether ``x`` is a real number (not a bool) that a float holds finitely.

    >>> _finite_number(2), _finite_number(10**400), _finite_number(float("nan")), _finite_number("2")
    (True, False, False, False)
    """
    if isinstance(x, bool) or not isinstance(x, int | float | np.integer | np.floating):
        return False
    try:
        return math.isfinite(float(x))
    except OverflowError:
        return False


def _gain_table(entries: dict[Any, Any], texts: dict[Any, str], source: str) -> GainTable:
    """A :class:`GainTable` whose grades and gains are all finite numbers (``texts``: each entry as written)."""
    for grade, gain in entries.items():
        for what, x in (("grade", grade), ("gain", gain)):
            if not _finite_number(x):
                raise MeasureSyntaxError(
                    f"measure {source!r}: gain table entry {texts[grade]!r}: the {what} must be a finite number, "
                    f"got {x!r}"
                )
    return GainTable.of(entries)


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
        texts: dict[float, str] = {}
        for item in filter(None, (t.strip() for t in text[1:-1].split(","))):
            if ":" not in item:
                raise MeasureSyntaxError(f"measure {source!r}: gain table entry {item!r} must be grade:gain")
            k, v = item.split(":", 1)
            grade = _number(k.strip(), source)
            table[grade], texts[grade] = _number(v.strip(), source), item
        return _gain_table(table, texts, source)
    raise MeasureSyntaxError(
        f"measure {source!r}: gain must be linear, exp or a table {{grade:gain,...}}, got {text!r}"
    )


def _check_gain(value: Any, family: str) -> Any:
    if isinstance(value, str):
        return _parse_gain(value, family)
    if isinstance(value, dict):
        return _gain_table(value, {k: f"{k!r}: {v!r}" for k, v in value.items()}, family)
    if isinstance(value, GainTable) or callable(value):
        return value
    raise MeasureSyntaxError(f"measure {family!r}: unsupported gain {value!r}")


def _parse_discount(text: str, source: str) -> Any:
    if text == "log2":
        return "log2"
    m = re.fullmatch(r"jarvelin(?:\(\s*([0-9.eE+-]+)\s*\))?", text)
    if m:
        base = _number(m.group(1), source) if m.group(1) else 2.0
        if not 1 < base < np.inf:
            raise MeasureSyntaxError(f"measure {source!r}: jarvelin base must be > 1 and finite, got {base}")
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

# ERR's stopping probability R(grade) (``err``, ``nerr``): the gain names of GAIN with ERR's meaning
STOP_GAIN = Param(
    "exp",
    _parse_gain,
    _check_gain,
    "exp ((2^g - 1) / 2^gmax, gdeval) | linear (g / gmax) | {grade:R,...} | callable giving R in [0, 1]",
)


def _check_gmax(value: Any, family: str) -> float:
    x = _number(value, family) if isinstance(value, str) else value
    if isinstance(x, bool) or not isinstance(x, int | float | np.integer | np.floating) or not 0 < x < np.inf:
        raise MeasureSyntaxError(f"measure {family!r}: gmax must be a finite number > 0, got {value!r}")
    return float(x)


STOP_GMAX = Param(
    4.0, lambda t, s: _check_gmax(_number(t, s), s), _check_gmax, "highest grade (gdeval: 4); R(gmax) < 1 for exp"
)


def _check_divisor(value: Any, family: str) -> str:
    if value not in ("k", "min"):
        raise MeasureSyntaxError(f"measure {family!r}: divisor must be 'k' or 'min', got {value!r}")
    return str(value)


# p@k's divisor: k (trec_eval's P, the default) or min(k, list length) (keras-rs' PrecisionAtK)
P_DIVISOR = Param("k", lambda t, s: _check_divisor(t, s), _check_divisor, "k (trec_eval) | min: min(k, list length)")


def _check_ap_divisor(value: Any, family: str) -> str:
    if value not in ("R", "min", "k"):
        raise MeasureSyntaxError(f"measure {family!r}: divisor must be 'R', 'min' or 'k', got {value!r}")
    return str(value)


# AP's denominator: R (trec_eval, the default), min(R, k) (Spark, RecBole, ml_metrics) or k (rectools divide_by_k)
AP_DIVISOR = Param(
    "R",
    lambda t, s: _check_ap_divisor(t, s),
    _check_ap_divisor,
    "R (trec_eval) | min: min(R, k) (Spark, RecBole, ml_metrics) | k (rectools divide_by_k)",
)


def _check_share(value: Any, family: str) -> float:
    x = _number(value, family) if isinstance(value, str) else value
    if isinstance(x, bool) or not isinstance(x, int | float | np.integer | np.floating) or not 0 <= x <= 1:
        raise MeasureSyntaxError(f"measure {family!r}: all_relevant must be a number in [0, 1], got {value!r}")
    return float(x)


def all_relevant_param(default: float) -> Param:
    """The value of a non-empty list whose items are all relevant (0 / 0 for fall_out and auroc).

    torchmetrics gives 1 for fall-out there (``RetrievalFallOut``'s ``empty_target_action="pos"``) and 0 for
    AUROC (``RetrievalAUROC``); its presets ``retrieval_fall_out`` and ``retrieval_auroc`` set these.

    >>> all_relevant_param(0.0).parse("1", "fall_out")
    1.0
    """
    return Param(
        default,
        lambda t, s: _check_share(_number(t, s), s),
        _check_share,
        "value of a list whose items are all relevant (torchmetrics: fall_out 1, auroc 0)",
    )


def _check_max_fpr(value: Any, family: str) -> float | None:
    x = _number(value, family) if isinstance(value, str) else value
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, int | float | np.integer | np.floating) or not 0 < x <= 1:
        raise MeasureSyntaxError(f"measure {family!r}: max_fpr must be a number in (0, 1], got {value!r}")
    return float(x)


MAX_FPR = Param(
    None,
    lambda t, s: _check_max_fpr(_number(t, s), s),
    _check_max_fpr,
    "McClish-standardised partial area below this false-positive rate (scikit-learn, torchmetrics max_fpr)",
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
    aggregate: str = "mean"  # "mean" | "sum" | "gmean" | "pooled" (sum of pool * value / sum of pool)
    trec_name: str | None = None
    needs_relevant: bool = True  # False: defined without relevant documents (counts, judged@k)
    example: str = ""  # parameters an example must give: those with no default, e.g. "(max_rel=3)"
    pool: Kernel | None = None  # per-query weights of a pooled aggregate, shape (Q, C)
    # "grades": the kernel reads RankedLists' grades; "lists": it reads the top-k item lists and the side
    # information of rankmeter.Items (rankmeter.beyond), through a ListsContext; "intents": intent qrels, through
    # an IntentContext (rankmeter.diversity)
    reads: str = "grades"
    list_set: bool = False  # a value of the whole set of lists (coverage, Gini), no per-user value
    traits: Traits = Traits()  # the shortcuts its values allow (rankmeter.measures.traits); none by default

    @property
    def is_count(self) -> bool:
        return self.aggregate == "sum"

    @property
    def empty_exempt(self) -> bool:
        """Whether the empty-query policy keeps this family's values (except ``skip``/``error``)."""
        return self.is_count or not self.needs_relevant
