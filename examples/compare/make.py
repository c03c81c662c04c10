"""Writes the synthetic collection of docs/comparing.md: 50 queries, three runs (run from the repository root).

``python examples/compare/make.py`` rewrites ``qrels.txt`` and ``runs/{bm25,bm25_rm3,dense}.txt`` next to this
file, byte for byte the same every time (seeded). Each query has 40 judged documents (grades 0-2); each run
ranks 30 of them plus 5 unjudged ones, scoring a document by its grade times the run's skill plus noise.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SKILL = {"bm25": 0.7, "bm25_rm3": 0.8, "dense": 1.3}  # how strongly a run's scores follow the grades


def main() -> None:
    rng = np.random.default_rng(2026)
    queries = [f"q{q:03d}" for q in range(1, 51)]
    grades = {q: rng.choice(3, size=40, p=[0.6, 0.25, 0.15]) for q in queries}
    difficulty = {q: rng.uniform(0.1, 1.6) for q in queries}  # shared by the runs: what pairing cancels
    lines = [f"{q} 0 {q}-d{d:02d} {g}\n" for q in queries for d, g in enumerate(grades[q])]
    (HERE / "qrels.txt").write_text("".join(lines))
    (HERE / "runs").mkdir(exist_ok=True)
    for name, skill in SKILL.items():
        out = []
        for q in queries:
            docs = [f"{q}-d{d:02d}" for d in range(40)] + [f"{q}-u{u}" for u in range(5)]
            rel = np.concatenate([grades[q], np.zeros(5)])
            scores = skill * difficulty[q] * rng.lognormal(0.0, 0.4) * rel + rng.normal(0.0, 1.0, rel.size)
            for rank, i in enumerate(np.argsort(-scores)[:35], start=1):
                out.append(f"{q} Q0 {docs[i]} {rank} {scores[i]:.4f} {name}\n")
        (HERE / "runs" / f"{name}.txt").write_text("".join(out))


if __name__ == "__main__":
    main()
