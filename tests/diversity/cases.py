"""Seeded random diversity cases (intent qrels + run) shared by the diversity tests.

Cases are hostile on purpose: scores from a handful of values (most rankings
tie), docnos whose string and numeric orders disagree, 1-4 intents per query
with some intents judged only non-relevant, queries with no relevant
judgment at all, judged documents never retrieved, retrieved documents never
judged, judged queries missing from the run and run-only queries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DOC_POOL = [f"d{i}" for i in range(1, 25)] + ["10", "9", "D1", "d01", "zz", "a"]


@dataclass
class DiversityCase:
    qrels: list[tuple[str, str, str, int]]  # (query, intent, doc, grade), intents in numeric order
    run: dict[str, dict[str, float]]

    @property
    def judged_queries(self) -> set[str]:
        return {q for q, _, _, _ in self.qrels}


def random_case(rng: np.random.Generator, n_queries: int = 8) -> DiversityCase:
    qrels: list[tuple[str, str, str, int]] = []
    run: dict[str, dict[str, float]] = {}
    for q in range(1, n_queries + 1):
        qid = str(q)
        n_intents = int(rng.integers(1, 5))
        docs = rng.choice(DOC_POOL, size=int(rng.integers(1, 14)), replace=False)
        no_relevant = rng.random() < 0.15
        for intent in range(1, n_intents + 1):
            for d in docs:
                if rng.random() < 0.55:
                    grade = 0 if no_relevant else int(rng.choice([0, 1, 1, 2]))
                    qrels.append((qid, str(intent), str(d), grade))
        if not any(r[0] == qid for r in qrels):
            qrels.append((qid, "1", str(docs[0]), 0))
        if rng.random() < 0.12:
            continue  # judged query missing from the run
        retrieved = rng.choice(DOC_POOL, size=int(rng.integers(1, 26)), replace=False)
        scores = rng.choice([0.0, 1.0, 1.5, 2.0, 3.0], size=len(retrieved))
        run[qid] = {str(d): float(s) for d, s in zip(retrieved, scores, strict=True)}
    run["999"] = {"d1": 1.0, "d2": 0.5}  # run-only query
    qrels.sort(key=lambda r: (int(r[1]), int(r[0])))  # pyndeval numbers intents by first appearance
    return DiversityCase(qrels, run)


def trec_order(scores: dict[str, float]) -> list[str]:
    """ndeval -traditional / trec_eval order: score descending, then docno descending (strcmp)."""
    return sorted(scores, key=lambda d: (scores[d], d.encode()), reverse=True)
