"""Keras 3 metrics: keras-rs's six under their own names, and any rankmeter measure by name.

Each metric keeps two variables per reported value, the weighted sum of the
per-list values and the sum of the list weights, so its result is the
weighted mean over every list seen since the last reset (keras-rs's
aggregation through ``keras.metrics.Mean``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras
import numpy as np
from keras import ops

from rankmeter.core.semantics import EMPTY_POLICIES, TIE_POLICIES, choose
from rankmeter.errors import MeasureSyntaxError, PolicyError
from rankmeter.keras import kernels
from rankmeter.keras.inputs import Batch, standardise
from rankmeter.keras.ranking import Ranked, divide_no_nan, relu
from rankmeter.measures import FAMILIES, parse, traits_of
from rankmeter.measures.base import Measure
from rankmeter.measures.params import discount_values

Tensor = Any
PACKAGE = "rankmeter"


@keras.saving.register_keras_serializable(package=PACKAGE)
def default_gain_fn(label: Tensor) -> Tensor:
    """keras-rs's default gain, 2^label - 1."""
    return ops.power(2.0, label) - 1.0


@keras.saving.register_keras_serializable(package=PACKAGE)
def default_rank_discount_fn(rank: Tensor) -> Tensor:
    """keras-rs's default discount, 1 / log2(rank + 1) at 1-based ranks."""
    return 1.0 / ops.log2(rank + 1.0)


def _tie_policy(ties: str | None, shuffle_ties: bool | None) -> str:
    """``ties`` if given, else keras-rs's ``shuffle_ties`` (True: ``shuffle``, False: ``stable``), else ``expected``."""
    if ties is not None:
        return choose(ties, TIE_POLICIES, "ties")
    if shuffle_ties is None:
        return "expected"
    return "shuffle" if shuffle_ties else "stable"


def _check_k(k: Any) -> int | None:
    if k is not None and (isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1):
        raise PolicyError(f"k must be a positive integer or None; got {k!r}")
    return None if k is None else int(k)


class RankingMetric(keras.metrics.Metric):  # type: ignore[misc]
    """Shared state and update of the rankmeter Keras metrics (one value per column)."""

    def __init__(self, columns: list[str], ties: str, seed: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if ties == "trec":
            raise PolicyError("ties='trec' orders by document id; dense lists have none: use 'stable' or 'expected'")
        self.ties = ties
        self.seed = seed
        self.columns = columns
        self.seed_generator = keras.random.SeedGenerator(seed) if ties == "shuffle" else None
        shape = (len(columns),)
        self.total = self.add_variable(shape=shape, initializer="zeros", name="total", dtype=self.dtype)
        self.count = self.add_variable(shape=shape, initializer="zeros", name="count", dtype=self.dtype)

    def depth(self) -> int | None:
        """Ranked positions every value needs: the largest cutoff, None for the whole list."""
        return None

    def rank(self, batch: Batch, grades: Tensor) -> Ranked:
        """The batch ranked under this metric's tie policy (``grades``: the relevance the bounds order by)."""
        noise = None
        if self.seed_generator is not None:
            noise = keras.random.uniform(ops.shape(batch.scores), seed=self.seed_generator, dtype=self.dtype)
        return Ranked(batch.scores, batch.valid, self.ties, grades=grades, noise=noise, depth=self.depth())

    def per_list(self, batch: Batch) -> tuple[Tensor, Tensor]:  # pragma: no cover - every subclass defines it
        """Per-list values and weights, both ``(batch, C)``."""
        raise NotImplementedError

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add a batch: ``y_true`` labels or ``{"labels": ..., "mask": ...}``, ``y_pred`` scores of the same shape."""
        batch = standardise(y_true, y_pred, sample_weight, self.dtype)
        values, weights = self.per_list(batch)
        broken = ops.expand_dims(batch.bad, 1)  # a list with a NaN or infinite value: the result becomes NaN
        nan = ops.full_like(values, np.nan)
        self.total.assign_add(ops.sum(ops.where(broken, nan, values * weights), axis=0))
        self.count.assign_add(ops.sum(ops.where(broken, nan, weights), axis=0))

    def reset_state(self) -> None:
        """Forget every batch seen."""
        for variable in (self.total, self.count):
            variable.assign(ops.zeros(variable.shape, dtype=self.dtype))

    def result(self) -> Any:
        """The weighted mean of the per-list values (0 before any list with a weight; NaN after a non-finite value)."""
        return divide_no_nan(*self.sums())[0]

    def sums(self) -> tuple[Tensor, Tensor]:
        """The two variables' values as tensors (JAX's ``ones_like`` refuses a Keras variable)."""
        return ops.convert_to_tensor(self.total), ops.convert_to_tensor(self.count)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = super().get_config()
        config.update({"ties": self.ties, "seed": self.seed})
        return config


# --------------------------------------------------------------------------- keras-rs's six


class KerasRsMetric(RankingMetric):
    """keras-rs's constructor (``k``, ``shuffle_ties``, ``seed``, ``name``, ``dtype``) plus ``ties=``.

    ``ties`` defaults to ``expected`` (exact average over the orders of tied
    scores); ``shuffle_ties=True`` asks for keras-rs's ``shuffle`` and
    ``shuffle_ties=False`` for ``stable`` (input order) when ``ties`` is not given.
    """

    def __init__(
        self,
        k: int | None = None,
        shuffle_ties: bool | None = None,
        seed: Any = None,
        ties: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.k = _check_k(k)
        self.shuffle_ties = shuffle_ties
        super().__init__(["value"], _tie_policy(ties, shuffle_ties), seed, **kwargs)

    def depth(self) -> int | None:
        return self.k

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"k": self.k, "shuffle_ties": self.shuffle_ties})
        return config

    def binary(self, batch: Batch) -> Tensor:
        """keras-rs's binary relevance: label >= 1."""
        return ops.cast(ops.greater_equal(batch.labels, 1.0), self.dtype)

    def per_list(self, batch: Batch) -> tuple[Tensor, Tensor]:
        relevance = self.binary(batch)
        values = self.binary_value(batch, self.rank(batch, relevance), relevance)
        return values, ops.expand_dims(kernels.list_weights(batch.weights, relevance), 1)

    def binary_value(self, batch: Batch, ranked: Ranked, relevance: Tensor) -> Tensor:  # pragma: no cover
        raise NotImplementedError


class GainMetric(KerasRsMetric):
    """keras-rs's DCG and NDCG arguments: ``gain_fn`` (default 2^y - 1) and ``rank_discount_fn``."""

    def __init__(
        self,
        k: int | None = None,
        gain_fn: Callable[[Tensor], Tensor] = default_gain_fn,
        rank_discount_fn: Callable[[Tensor], Tensor] = default_rank_discount_fn,
        **kwargs: Any,
    ) -> None:
        super().__init__(k=k, **kwargs)
        self.gain_fn = gain_fn
        self.rank_discount_fn = rank_discount_fn

    def gains(self, batch: Batch) -> tuple[Tensor, Tensor, Ranked, Tensor]:
        """(unweighted gains, weighted gains, the ranking, the discounts)."""
        gain = ops.cast(self.gain_fn(batch.labels), self.dtype)
        weighted = gain * batch.weights
        ranked = self.rank(batch, gain)
        return gain, weighted, ranked, kernels.discounts(self.rank_discount_fn, ranked)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "gain_fn": keras.saving.serialize_keras_object(self.gain_fn),
                "rank_discount_fn": keras.saving.serialize_keras_object(self.rank_discount_fn),
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> GainMetric:
        config = dict(config)
        for key in ("gain_fn", "rank_discount_fn"):
            config[key] = keras.saving.deserialize_keras_object(config[key])
        return cls(**config)


@keras.saving.register_keras_serializable(package=PACKAGE)
class NDCG(GainMetric):
    """keras-rs's ``NDCG``: DCG@k / IDCG@k with the ideal sorted by weighted gain; 0 when IDCG@k is 0.

    >>> import numpy as np
    >>> m = NDCG(k=2)
    >>> m.update_state(np.array([[3.0, 0.0, 1.0]]), np.array([[0.1, 0.9, 0.5]]))
    >>> want = (0 + 1 / np.log2(3)) / (7 + 1 / np.log2(3))  # ranked labels 0, 1 (3 is third); ideal 3, 1
    >>> bool(abs(float(m.result()) - want) < 1e-6)
    True
    """

    def per_list(self, batch: Batch) -> tuple[Tensor, Tensor]:
        gain, weighted, ranked, discount = self.gains(batch)
        cut = [self.k]
        value = divide_no_nan(
            kernels.dcg_at(ranked, weighted, discount, cut), kernels.ideal_at(ranked, weighted, discount, cut)
        )
        return value, ops.expand_dims(kernels.list_weights(batch.weights, gain), 1)


@keras.saving.register_keras_serializable(package=PACKAGE)
class DCG(GainMetric):
    """keras-rs's ``DCG``: sum of weighted gain times discount over the top k, divided by the list weight."""

    def per_list(self, batch: Batch) -> tuple[Tensor, Tensor]:
        gain, weighted, ranked, discount = self.gains(batch)
        weight = ops.expand_dims(kernels.list_weights(batch.weights, gain), 1)
        return divide_no_nan(kernels.dcg_at(ranked, weighted, discount, [self.k]), weight), weight


@keras.saving.register_keras_serializable(package=PACKAGE)
class MeanReciprocalRank(KerasRsMetric):
    """keras-rs's ``MeanReciprocalRank``: 1 / rank of the first item with label >= 1 within k, else 0."""

    def binary_value(self, batch: Batch, ranked: Ranked, relevance: Tensor) -> Tensor:
        return kernels.first_hit_at(ranked, relevance, [self.k])


@keras.saving.register_keras_serializable(package=PACKAGE)
class MeanAveragePrecision(KerasRsMetric):
    """keras-rs's ``MeanAveragePrecision``: sum over the top k of P@i * w_i * rel_i, divided by sum(w * rel)."""

    def binary_value(self, batch: Batch, ranked: Ranked, relevance: Tensor) -> Tensor:
        total = kernels.precision_sum_at(ranked, batch.weights * relevance, relevance, [self.k])
        return divide_no_nan(total, ops.sum(batch.weights * relevance, axis=1, keepdims=True))


@keras.saving.register_keras_serializable(package=PACKAGE)
class PrecisionAtK(KerasRsMetric):
    """keras-rs's ``PrecisionAtK``: relevant items in the top k / min(k, unmasked items)."""

    def binary_value(self, batch: Batch, ranked: Ranked, relevance: Tensor) -> Tensor:
        size = ops.sum(ops.cast(batch.valid, self.dtype), axis=1, keepdims=True)
        if self.k is not None:
            size = ops.minimum(size, ops.full_like(size, float(self.k)))
        return divide_no_nan(kernels.relevant_at(ranked, relevance, [self.k]), size)


@keras.saving.register_keras_serializable(package=PACKAGE)
class RecallAtK(KerasRsMetric):
    """keras-rs's ``RecallAtK``: relevant items in the top k / relevant items in the list."""

    def binary_value(self, batch: Batch, ranked: Ranked, relevance: Tensor) -> Tensor:
        return divide_no_nan(
            kernels.relevant_at(ranked, relevance, [self.k]), ops.sum(relevance, axis=1, keepdims=True)
        )


# --------------------------------------------------------------------------- any rankmeter measure

_PARAMS = {"gain", "discount", "ideal", "min_rel"}


def _keras_measures(measures: Any) -> list[Measure]:
    items = [measures] if isinstance(measures, str | Measure) else list(measures)
    if not items:
        raise MeasureSyntaxError("no measures given; e.g. Metric('ndcg@10')")
    parsed = [m if isinstance(m, Measure) else parse(m) for m in items]
    for m in parsed:
        if traits_of(m).keras is None:
            known = ", ".join(name for name, family in FAMILIES.items() if family.traits.keras is not None)
            raise MeasureSyntaxError(
                f"measures: {str(m)!r} is not available in rankmeter.keras; choose among {known} "
                "(every measure: rankmeter.evaluate_arrays after training)"
            )
        extra = sorted({k for k, _ in m.params} - _PARAMS)
        gain = m.param("gain", "linear")
        if extra or gain not in ("linear", "exp"):
            what = f"parameter {extra[0]}" if extra else f"gain={gain}"
            raise MeasureSyntaxError(
                f"measures: {str(m)!r}: {what} is not available in rankmeter.keras (gain: linear or exp)"
            )
    return parsed


@keras.saving.register_keras_serializable(package=PACKAGE)
class Metric(RankingMetric):
    """Any rankmeter measure by name, with rankmeter's semantics, computed per batch in ``keras.ops``.

    ``Metric("ndcg(gain=exp)@[5,10]")`` reports one value per cutoff (a dict
    ``{"ndcg(gain=exp)@5": ..., "ndcg(gain=exp)@10": ...}``; a scalar for a
    single value). Every rankmeter.keras metric drops the same items:
    masked ones, labels < 0 (the padding of ``model.fit``) and items of
    weight 0, keras-rs's rule. On one batch the value equals
    ``rankmeter.evaluate_arrays(y_true, y_pred, measures, mask=mask & (y_true >= 0), sample_weight=..., ties=...,
    empty=...)``: ``p@k`` divides by k, AP and recall by all relevant items
    of the list (AP weighted by item weights, as keras-rs's).

    Parameters
    ----------
    measures : str, Measure or list of them
        Families ``ndcg``, ``dcg``, ``cg``, ``p``, ``r``, ``rr``, ``map``/``ap``,
        ``success`` with their cutoffs and parameters (gain ``linear`` or ``exp``,
        any discount, ``ideal``, ``min_rel``).
    ties : str, default "expected"
        Any tie policy but ``trec`` (dense lists have no document ids).
    empty : {"zero", "one", "skip", "nan"}, default "zero"
        Lists with no relevant item: value 0 or 1 in the mean, or left out
        (``skip`` and ``nan`` are the same for a mean).
    seed : int, optional
        For ``ties="shuffle"``.

    Examples
    --------
    >>> import numpy as np
    >>> m = Metric("p@[1,2]")
    >>> m.update_state(np.array([[1.0, 0.0, 1.0]]), np.array([[0.5, 0.5, 0.1]]))
    >>> {k: round(float(v), 6) for k, v in m.result().items()}
    {'p@1': 0.5, 'p@2': 0.5}
    """

    def __init__(
        self, measures: Any, ties: str = "expected", empty: str = "zero", seed: Any = None, **kwargs: Any
    ) -> None:
        self.measures = _keras_measures(measures)
        if choose(empty, EMPTY_POLICIES, "empty") == "error":
            raise PolicyError("empty='error' cannot raise inside a compiled training step; use zero, one, nan or skip")
        self.empty = empty
        columns = [str(single) for m in self.measures for single in m.expand()]
        kwargs.setdefault("name", ",".join(str(m) for m in self.measures))
        super().__init__(columns, choose(ties, TIE_POLICIES, "ties"), seed, **kwargs)

    def depth(self) -> int | None:
        cutoffs = [k for m in self.measures for k in (m.cutoffs if m.cutoffs is not None else [None])]
        return None if None in cutoffs else max(c for c in cutoffs if c is not None)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"measures": [str(m) for m in self.measures], "empty": self.empty})
        return config

    def result(self) -> Any:
        """A scalar for one value, else ``{name: value}``; NaN before any list with a weight."""
        total, count = self.sums()
        means = ops.where(count > 0, divide_no_nan(total, count), ops.full_like(total, np.nan))
        if len(self.columns) == 1:
            return means[0]
        return {name: means[i] for i, name in enumerate(self.columns)}

    def per_list(self, batch: Batch) -> tuple[Tensor, Tensor]:
        values, weights = [], []
        ranked_by: dict[str, Ranked] = {}
        for m in self.measures:
            value, relevance, count = self._measure(batch, m, ranked_by)
            weight = kernels.list_weights(batch.weights, relevance)
            empty = ops.expand_dims(ops.equal(count, 0.0), 1)
            if self.empty in ("zero", "one"):
                value = ops.where(empty, ops.full_like(value, 0.0 if self.empty == "zero" else 1.0), value)
                weight = ops.expand_dims(weight, 1) * ops.ones_like(value)
            else:
                weight = ops.where(empty, ops.zeros_like(value), ops.expand_dims(weight, 1))
                value = ops.where(empty, ops.zeros_like(value), value)
            values.append(value)
            weights.append(weight * ops.ones_like(value))
        return ops.concatenate(values, axis=1), ops.concatenate(weights, axis=1)

    def _measure(self, batch: Batch, m: Measure, ranked_by: dict[str, Ranked]) -> tuple[Tensor, Tensor, Tensor]:
        """(values (batch, C), the relevance that sets the list weight, the count deciding emptiness)."""
        cutoffs: list[int | None] = list(m.cutoffs) if m.cutoffs is not None else [None]
        valid = ops.cast(batch.valid, self.dtype)
        labels = batch.labels
        formula = traits_of(m).keras
        if traits_of(m).graded:
            if m.param("gain", "linear") == "exp":
                gain = ops.where(labels > 0, ops.power(2.0, relu(labels)) - 1.0, ops.zeros_like(labels))
            else:
                gain = relu(labels)
            weighted = gain * batch.weights
            ranked = self._ranked(batch, gain, f"gain={m.param('gain', 'linear')}", ranked_by)
            count = ops.sum(ops.cast(labels > 0, self.dtype) * valid, axis=1)
            if formula == "cg":
                discount = ops.ones_like(ranked.positions)
            else:
                width = int(ops.shape(labels)[1])
                ranks = np.arange(1, width + 1, dtype=np.float64)
                discount = kernels.discounts(discount_values(m.param("discount", "log2"), ranks), ranked)
            value = kernels.dcg_at(ranked, weighted, discount, cutoffs)
            weight = ops.expand_dims(kernels.list_weights(batch.weights, gain), 1)
            if formula == "ndcg":
                value = divide_no_nan(value, kernels.ideal_at(ranked, weighted, discount, cutoffs))
            else:
                value = divide_no_nan(value, weight)  # item weights scale the gains: divided out (keras-rs)
            return value, gain, count
        min_rel = m.param("min_rel")
        rel = ops.cast(labels > 0 if min_rel is None else labels >= min_rel, self.dtype) * valid
        ranked = self._ranked(batch, rel, f"min_rel={min_rel}", ranked_by)
        count = ops.sum(rel, axis=1)
        big_r = ops.expand_dims(count, 1)
        if formula == "p":
            sizes = [ops.sum(valid, axis=1) if k is None else ops.full_like(count, float(k)) for k in cutoffs]
            value = divide_no_nan(kernels.relevant_at(ranked, rel, cutoffs), ops.stack(sizes, axis=1))
        elif formula == "r":
            value = divide_no_nan(kernels.relevant_at(ranked, rel, cutoffs), big_r)
        elif formula == "map":  # keras-rs's item-weighted AP (plain AP with equal weights)
            weighted = rel * batch.weights
            total = ops.sum(weighted, axis=1, keepdims=True)
            value = divide_no_nan(kernels.precision_sum_at(ranked, weighted, rel, cutoffs), total)
        else:
            value = kernels.first_hit_at(ranked, rel, cutoffs, reciprocal=formula == "rr")
        return value, rel, count

    def _ranked(self, batch: Batch, grades: Tensor, key: str, ranked_by: dict[str, Ranked]) -> Ranked:
        """One ranking per batch; the bound policies order ties by the measure's relevance, so one per relevance."""
        key = key if self.ties in ("optimistic", "pessimistic") else ""
        if key not in ranked_by:
            ranked_by[key] = self.rank(batch, grades)
        return ranked_by[key]
