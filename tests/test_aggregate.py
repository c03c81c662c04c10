"""``rankmeter.aggregate``: keras-rs's per-list weights written out."""

from __future__ import annotations

import numpy as np

from rankmeter.aggregate import keras_list_weights


def test_keras_list_weights_are_the_relevance_weighted_mean_of_the_item_weights() -> None:
    # w_q = sum_i w_i rel_i / sum_i rel_i; a list without relevance gets the mean of the others', one whose
    # weights sum to 0 gets 0
    weights = np.array([2.0, 4.0, 3.0, 5.0, 7.0, 0.0, 0.0])
    relevance = np.array([1.0, 0.0, 0.5, 0.0, 0.0, 1.0, 2.0])
    offsets = np.array([0, 2, 4, 5, 7])
    out = keras_list_weights(weights, relevance, offsets)
    assert out.tolist() == [2.0 * 1.0 / 1.0, 3.0 * 0.5 / 0.5, (2.0 + 3.0) / 2, 0.0]
    assert keras_list_weights(np.array([1.0, 2.0]), np.zeros(2), np.array([0, 2])).tolist() == [1.0]
