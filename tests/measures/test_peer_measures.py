"""The measures of other tools (hits, fall_out, auroc, lrap, coverage_error, label_ranking_loss, p(divisor=min)):
the worked example of docs/measures.md, and formulas on random lists.

Agreement with the tools themselves is in tests/oracles/test_oracle_peer_names.py; expectations over every tie
ordering in test_ties_bruteforce.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import rankmeter

DOCS = Path(__file__).resolve().parents[2] / "docs" / "measures.md"
GRADES = [1.0, 0.0, 1.0, 0.0, 0.0]
SCORES = [0.9, 0.8, 0.8, 0.3, 0.1]
FORMULAS = {
    "hits@2": 1 + 1 / 2,
    "hits@3": 2.0,
    "fall_out@2": (1 / 2) / 3,
    "auroc": (3 + 2.5) / 6,
    "lrap": (1 + 2 / 3) / 2,
    "coverage_error": 3.0,
    "label_ranking_loss": 1 / 6,
    "p@10": 0.2,
    "p(divisor=min)@10": 0.4,
}


def test_docs_worked_example() -> None:
    section = DOCS.read_text().split("### Measures and names of other tools", 1)[1].split("###", 1)[0]
    rows = dict(re.findall(r"^\| `([^`]+)` \| [^|]+ \| ([0-9.]+) \|$", section, flags=re.M))
    assert set(rows) == set(FORMULAS)
    res = rankmeter.evaluate_lists([GRADES], [SCORES], list(FORMULAS), ties="expected")
    for name, value in FORMULAS.items():
        assert res[name] == pytest.approx(value, abs=1e-15), name
        assert float(rows[name]) == pytest.approx(value, abs=5e-7), name


def _py(y: np.ndarray, s: np.ndarray) -> dict[str, float]:
    """The sklearn-style definitions written out pair by pair for one list."""
    rel, non = np.flatnonzero(y > 0), np.flatnonzero(y <= 0)
    n_pos, n_neg = len(rel), len(non)
    rank = np.array([(s >= s[i]).sum() for i in range(len(s))])
    lrap = 1.0 if n_pos in (0, len(y)) else np.mean([(s[rel] >= s[i]).sum() / rank[i] for i in rel])
    wrong = sum(s[j] >= s[i] for i in rel for j in non)
    half = sum((s[i] > s[j]) + 0.5 * (s[i] == s[j]) for i in rel for j in non)
    return {
        "lrap": lrap,
        "coverage_error": float(rank[rel].max()) if n_pos else 0.0,
        "label_ranking_loss": wrong / (n_pos * n_neg) if n_pos and n_neg else 0.0,
        "auroc": half / (n_pos * n_neg) if n_pos and n_neg else (1.0 if n_pos else 0.0),
    }


@pytest.mark.parametrize("seed", range(3))
def test_pairwise_formulas_on_random_ragged_lists(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ys = [rng.integers(0, 3, rng.integers(1, 12)).astype(float) for _ in range(60)]
    ss = [rng.integers(0, 4, len(y)).astype(float) for y in ys]
    names = ["lrap", "coverage_error", "label_ranking_loss", "auroc"]
    res = rankmeter.evaluate_lists(ys, ss, names, ties="expected", empty="zero")
    for i, (y, s) in enumerate(zip(ys, ss, strict=True)):
        want = _py(y, s)
        for j, name in enumerate(names):
            assert res.values[i, j] == pytest.approx(want[name], abs=1e-12), (name, y, s)
