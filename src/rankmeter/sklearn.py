"""scikit-learn scorers: any rankmeter measure in ``GridSearchCV`` / ``cross_validate`` (``scoring=``).

For estimators that output a score matrix (one row per query, one column
per candidate: multi-output regressors, ``decision_function`` of multilabel
classifiers) and targets ``y`` holding the relevance grades of the same
shape. The value is :func:`rankmeter.evaluate_arrays` on
``(y, estimator output)`` with scikit-learn's conventions: ties averaged
(``ties="expected"``, as ``ndcg_score``), linear gain, the ideal from ``y``,
and 0 for a row without relevance (``empty="zero"``) -- so
``scorer("ndcg@10")`` gives ``ndcg_score(y, output, k=10)``.

>>> import numpy as np
>>> from sklearn.neighbors import KNeighborsRegressor
>>> X = np.arange(8.0).reshape(4, 2); y = np.array([[1, 0, 2], [0, 1, 0], [3, 0, 0], [0, 0, 1]])
>>> model = KNeighborsRegressor(n_neighbors=1).fit(X, y)
>>> scorer("ndcg@2")(model, X, y)
1.0
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from sklearn.metrics import make_scorer

from rankmeter.by_arrays import evaluate_arrays
from rankmeter.core.semantics import Semantics
from rankmeter.errors import InputFormatError, MeasureSyntaxError, PolicyError
from rankmeter.measures import Measure, parse


class RankingScore:
    """``score(y_true, y_score)``: one rankmeter measure's mean over the rows (picklable, for ``make_scorer``)."""

    def __init__(self, measure: str | Measure, options: dict[str, Any]) -> None:
        parsed = measure if isinstance(measure, Measure) else parse(measure)
        singles = parsed.expand()
        if len(singles) != 1:
            raise MeasureSyntaxError(
                f"measure: {str(parsed)!r} has {len(singles)} values; a scorer gives one "
                f"(use scorers({[str(s) for s in singles]!r}) for a dict of scorers)"
            )
        self.measure = singles[0]
        self.name = self.__name__ = str(self.measure)  # scikit-learn names a scorer by __name__
        self.options = {"ties": "expected", "empty": "zero", **options}
        Semantics.build(None, "dense", **self.options)  # bad options fail here, not in the search

    def __call__(self, y_true: Any, y_score: Any, sample_weight: Any = None, mask: Any = None) -> float:
        shape = np.shape(y_true)
        if len(shape) != 2 or shape[1] < 2:
            raise InputFormatError(
                f"y has shape {shape}; a ranking scorer needs y of shape (n_queries, n_candidates), one row of "
                "relevance grades per query and at least 2 columns, as scikit-learn's ndcg_score"
            )
        result = evaluate_arrays(y_true, y_score, self.measure, mask=mask, sample_weight=sample_weight, **self.options)
        return float(result[self.name])

    def __repr__(self) -> str:
        return f"RankingScore({self.name!r})"


def scorer(measure: str | Measure = "ndcg@10", *, response_method: Any = "predict", **options: Any) -> Any:
    """A scikit-learn scorer for one rankmeter measure (higher is better).

    Parameters
    ----------
    measure : str or Measure
        One value: ``"ndcg@10"``, ``"map"``, ``"p(min_rel=2)@5"`` ...
    response_method : str or tuple of str, default "predict"
        The estimator method giving the score matrix (``"decision_function"``, ...).
    **options
        Fields of :class:`rankmeter.Semantics` (``ties=``, ``empty=``, ``seed=``);
        scikit-learn's are the defaults (``expected`` ties, ``zero`` for empty rows).

    Returns
    -------
    sklearn scorer
        ``scorer(estimator, X, y)`` -> float. ``y`` must have shape
        ``(n_queries, n_candidates)`` with at least 2 columns (``ndcg_score``'s
        rule). ``sample_weight`` (per row or per item) and ``mask`` (boolean, the
        shape of ``y``) are rows of the data: scikit-learn splits them with the
        folds when metadata routing asks for them --
        ``sklearn.set_config(enable_metadata_routing=True)``,
        ``scorer(...).set_score_request(mask=True, sample_weight=True)``, then
        ``GridSearchCV(...).fit(X, y, mask=M)`` or ``cross_validate(..., params={"mask": M})``.
    """
    for name in ("mask", "sample_weight"):
        if name in options:
            raise PolicyError(
                f"{name} holds a value per row of y, split with the folds: don't give it to scorer(); ask for it "
                f"with scorer(...).set_score_request({name}=True) (sklearn.set_config(enable_metadata_routing=True)) "
                f"and pass it to fit / cross_validate(params={{{name!r}: ...}})"
            )
    return make_scorer(RankingScore(measure, options), response_method=response_method)


def scorers(measures: str | Measure | Iterable[str | Measure], **kwargs: Any) -> dict[str, Any]:
    """``{name: scorer}`` for every value of ``measures`` (``"ndcg@[5,10]"`` gives two), for multi-metric search.

    >>> sorted(scorers(["ndcg@[5,10]", "map"]))
    ['map', 'ndcg@10', 'ndcg@5']
    """
    items = [measures] if isinstance(measures, str | Measure) else list(measures)
    singles = [single for m in items for single in (m if isinstance(m, Measure) else parse(m)).expand()]
    return {str(m): scorer(m, **kwargs) for m in singles}
