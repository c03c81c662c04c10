"""``evaluate_lists(..., sample_weight=)``: the values of ``evaluate_arrays`` on the lists padded with masked items."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter

MEASURES = ["ndcg@2", "dcg@3", "map", "p@2", "rr", "r@3"]
Y_TRUE = [[1, 0, 2], [0, 3], [1, 1, 0, 2]]
Y_SCORE = [[0.5, 0.9, 0.1], [0.4, 0.2], [0.3, 0.8, 0.8, 0.1]]
ITEM_WEIGHTS = [[1.0, 2.0, 0.5], [3.0, 0.0], [1.0, 1.0, 2.0, 4.0]]


def _padded(rows: list[list[float]], fill: float = 0.0) -> np.ndarray:
    width = max(map(len, rows))
    return np.array([[*r, *([fill] * (width - len(r)))] for r in rows], dtype=np.float64)


def _mask() -> np.ndarray:
    return np.array([[j < len(r) for j in range(4)] for r in Y_TRUE])


@pytest.mark.parametrize("ties", ["expected", "stable"])
@pytest.mark.parametrize(
    "weights, dense",
    [
        (2.5, 2.5),
        ([1.0, 3.0, 0.5], np.array([1.0, 3.0, 0.5])),
        (ITEM_WEIGHTS, _padded(ITEM_WEIGHTS, 1.0)),
        ([2.0, [3.0, 1.0], 1.0], _padded([[2.0] * 3, [3.0, 1.0], [1.0] * 4], 1.0)),
    ],
)
def test_weighted_lists_equal_the_weighted_padded_rows(weights, dense, ties: str) -> None:
    got = rankmeter.evaluate_lists(Y_TRUE, Y_SCORE, MEASURES, sample_weight=weights, ties=ties)
    want = rankmeter.evaluate_arrays(_padded(Y_TRUE), _padded(Y_SCORE), MEASURES, mask=_mask(),
                                     sample_weight=dense, ties=ties)  # fmt: skip
    assert got.aggregate == pytest.approx(want.aggregate, rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(got.values, want.values, rtol=1e-12, atol=1e-15)
    assert got.metadata["weighted"] is True


def test_list_weights_written_out() -> None:
    # rr per list: 1/2 (list 0: score 0.9 is not relevant), 1/2 (list 1: the grade-3 item scores 0.2) and 1
    # (list 2: the relevant item of score 0.8 comes first, stable); the mean weighs each list by
    # sum(w * rel) / sum(rel), which for one weight per list is that weight: 1, 3 and 0.5
    res = rankmeter.evaluate_lists(Y_TRUE, Y_SCORE, "rr", sample_weight=[1.0, 3.0, 0.5], ties="stable")
    assert res.by_query("rr") == {"0": 0.5, "1": 0.5, "2": 1.0}
    assert res["rr"] == pytest.approx((1.0 * 0.5 + 3.0 * 0.5 + 0.5 * 1.0) / 4.5, rel=1e-15)


def test_an_item_of_weight_zero_leaves_its_list() -> None:
    res = rankmeter.evaluate_lists([[0, 1]], [[0.9, 0.1]], "rr", sample_weight=[[0.0, 1.0]])
    assert res["rr"] == 1.0  # the item of score 0.9 is gone: the relevant item is first


def test_weights_of_the_wrong_shape_or_value_are_refused() -> None:
    with pytest.raises(rankmeter.InputFormatError, match=r"sample_weight has 2 entries but there are 3 lists"):
        rankmeter.evaluate_lists(Y_TRUE, Y_SCORE, "rr", sample_weight=[1.0, 2.0])
    with pytest.raises(rankmeter.InputFormatError, match=r"list 1: y_true has 2 items but sample_weight\[1\] has 3"):
        rankmeter.evaluate_lists(Y_TRUE, Y_SCORE, "rr", sample_weight=[1.0, [1.0, 2.0, 3.0], 1.0])
    with pytest.raises(rankmeter.InvalidScoreError, match=r"sample_weight\[2\]\[1\] is -1.0; weights must be finite"):
        rankmeter.evaluate_lists(Y_TRUE, Y_SCORE, "rr", sample_weight=[1.0, 1.0, [1.0, -1.0, 1.0, 1.0]])
    with pytest.raises(rankmeter.InvalidScoreError, match=r"sample_weight\[0\]\[0\] is nan"):
        rankmeter.evaluate_lists(Y_TRUE, Y_SCORE, "rr", sample_weight=float("nan"))
    with pytest.raises(rankmeter.InputFormatError, match=r"sample_weight: cannot convert to float weights"):
        rankmeter.evaluate_lists(Y_TRUE, Y_SCORE, "rr", sample_weight=["a", 1.0, 1.0])
    with pytest.raises(rankmeter.PolicyError, match=r"group_by: per-segment values of weighted input"):
        rankmeter.evaluate_lists(Y_TRUE, Y_SCORE, "rr", sample_weight=1.0, group_by=["a", "b", "a"])
