"""recmetrics 0.1.5's personalization and novelty against rankmeter's ``personalization@k`` and ``novelty@k``.

recmetrics takes lists of one length (a NumPy array of them) and divides novelty by that length; its
``pop`` is each item's training interactions (distinct pairs here, so the training users) and ``u`` the
training users. Every recommended item is seen in training (recmetrics reads ``pop[i]``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import recmetrics

import rankmeter


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_personalization_and_novelty(seed: int) -> None:
    rng = np.random.default_rng(seed)
    train = pd.DataFrame({"user_id": rng.integers(0, 30, 300), "item_id": rng.integers(0, 25, 300)}).drop_duplicates()
    seen = sorted(train["item_id"].unique())
    lists = [list(rng.choice(seen, 6, replace=False)) for _ in range(20)]
    pop = train["item_id"].value_counts().to_dict()
    n_users = train["user_id"].nunique()
    items = rankmeter.Items(interactions=train)
    run = {f"v{j}": [str(i) for i in lst] for j, lst in enumerate(lists)}
    res = rankmeter.evaluate(None, run, ["personalization@6", "novelty@6"], items=items)
    assert res["personalization@6"] == pytest.approx(recmetrics.personalization(lists), abs=1e-12)
    novelty, per_list = recmetrics.novelty(lists, pop, n_users, 6)
    assert res["novelty@6"] == pytest.approx(novelty, abs=1e-12)
    ours = res.by_query("novelty@6")
    for j, value in enumerate(per_list):
        assert ours[f"v{j}"] == pytest.approx(value, abs=1e-12)
