"""Seeded simulation: how often list_set_intervals' 95% intervals cover theta_n, setting by setting.

A population of users whose top-k lists are weighted draws without replacement from a catalogue whose
item weights fall as 1 / rank^s (s = 0: every item alike); theta_n, the expected value of the lists of
n users, is the mean over ``truth`` samples of the formulas written out below. Each repetition draws n
users, evaluates them with rankmeter and asks whether its interval covers theta_n; the rate and the
intervals' mean half-width over the spread of the values themselves are reported per measure.

Run ``python -m tests.beyond.interval_coverage`` from the repository root (a few minutes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import rankmeter
from rankmeter.beyond import list_set_intervals

NAMES = ["catalog_coverage", "entropy", "gini", "personalization"]


@dataclass(frozen=True)
class Setting:
    """A population (catalogue size, top-k length, Zipf exponent) and the number n of users evaluated."""

    catalog: int = 200
    k: int = 10
    exponent: float = 1.0
    n: int = 50

    def weights(self) -> np.ndarray:
        w = 1 / np.arange(1, self.catalog + 1) ** self.exponent
        return w / w.sum()

    def sample(self, rng: np.random.Generator, n: int | None = None) -> np.ndarray:
        """n users' lists: k items each, drawn without replacement in proportion to the weights (Gumbel top-k)."""
        keys = np.log(self.weights())[None, :] - np.log(-np.log(rng.random((n or self.n, self.catalog))))
        return np.argsort(-keys, axis=1)[:, : self.k]

    def written_out(self, lists: np.ndarray) -> np.ndarray:
        """Coverage, entropy in bits, Gini over the catalogue and 1 - mean pairwise cosine similarity."""
        counts = np.bincount(lists.ravel(), minlength=self.catalog)
        share = counts[counts > 0] / counts.sum()
        ordered = np.sort(counts)
        i = np.arange(1, self.catalog + 1)
        gini = ((2 * i - self.catalog - 1) * ordered).sum() / (self.catalog * ordered.sum())
        n = len(lists)
        onehot = np.zeros((n, self.catalog))
        onehot[np.arange(n)[:, None], lists] = 1
        similarity = onehot @ onehot.T / self.k  # |A & B| / sqrt(|A| |B|) with |A| = |B| = k
        personalization = 1 - (similarity.sum() - np.trace(similarity)) / (n * (n - 1))
        return np.array([(counts > 0).mean(), -(share * np.log2(share)).sum(), gini, personalization])

    def names(self) -> list[str]:
        return [f"{name}@{self.k}" for name in NAMES]

    def evaluated(self, lists: np.ndarray) -> rankmeter.EvaluationResult:
        items = rankmeter.Items(catalog=np.arange(self.catalog))
        return rankmeter.evaluate(None, rankmeter.ranked_lists(lists), self.names(), items=items)


def coverage(setting: Setting, *, reps: int, truth: int, n_resamples: int = 60, seed: int = 11) -> dict[str, tuple]:
    """Per measure: (coverage rate of theta_n, mean interval half-width / standard deviation of the values)."""
    rng = np.random.default_rng(seed)
    values = np.array([setting.written_out(setting.sample(rng)) for _ in range(truth)])
    theta, spread = values.mean(axis=0), values.std(axis=0, ddof=1)
    covered = np.zeros(len(NAMES))
    widths = np.zeros(len(NAMES))
    for r in range(reps):
        rows = list_set_intervals(setting.evaluated(setting.sample(rng)), n_resamples=n_resamples, seed=r)
        covered += [row["ci_low"] <= t <= row["ci_high"] for row, t in zip(rows, theta, strict=True)]
        widths += [(row["ci_high"] - row["ci_low"]) / 2 for row in rows]
    z = 1.959963984540054
    return {
        name: (covered[j] / reps, widths[j] / reps / (z * spread[j]) if spread[j] > 0 else float("nan"))
        for j, name in enumerate(NAMES)
    }


SETTINGS = [
    Setting(),  # tests/beyond/test_list_set_intervals.py's population
    Setting(n=10),
    Setting(n=200),
    Setting(catalog=40),  # 50 lists of 10 from 40 items: coverage near 1
    Setting(exponent=0.0),  # every item alike
    Setting(catalog=1000, exponent=0.5),
]


def main() -> None:
    print("| catalogue | k | exponent | n | " + " | ".join(NAMES) + " |")
    print("|---" * (4 + len(NAMES)) + "|")
    for setting in SETTINGS:
        found = coverage(setting, reps=400, truth=4000)
        cells = [f"{rate:.3f} ({width:.2f})" for rate, width in found.values()]
        print(f"| {setting.catalog} | {setting.k} | {setting.exponent:g} | {setting.n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
