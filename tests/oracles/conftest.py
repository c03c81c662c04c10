"""Seeded random-case generators shared by the oracle tests (pytrec_eval, scikit-learn, keras-rs).

Every generator takes a ``numpy.random.Generator`` so that a failing case is
reproducible from its seed alone. The generators are exposed as fixtures
(``trec_cases``, ``merge_trec_cases``, ``dense_batch``) rather than imported,
because ``tests/oracles`` is not a package.

TREC cases are deliberately hostile to evaluators:

* scores drawn from a handful of values (integers, one-decimal floats, a
  constant), so most rankings contain exact ties that trec_eval breaks by
  docno descending in ``strcmp`` order;
* docnos that sort differently as strings and as numbers (``d1 < d10 < d2``,
  ``10 < 9``, ``D7 < d7``, ``d01`` next to ``d1``) and that are shared between
  the queries of a case;
* ragged rankings (0..60 documents), graded qrels 0..3 with some ``-1``,
  judged-but-unretrieved and retrieved-but-unjudged documents, queries with
  no relevant document, judged queries missing from the run, queries whose
  run entry is an empty dict, and run-only queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

# Docnos whose string order disagrees with their numeric order, with case and
# punctuation variants; every query of a case draws from this one pool, so
# docnos are shared between queries.
DOC_POOL = np.array(
    [f"d{i}" for i in range(1, 41)]
    + [str(i) for i in range(1, 31)]
    + ["D1", "D2", "D10", "D7", "d01", "d001", "doc-7", "doc_7", "a", "B", "zz", "Z9"]
)

GRADES = np.array([-1, 0, 1, 2, 3])
GRADE_P = np.array([0.08, 0.42, 0.25, 0.15, 0.10])


@dataclass
class TrecCase:
    """One qrels/run pair in pytrec_eval's dict-of-dicts form, with what is special about its queries."""

    qrels: dict[str, dict[str, int]]
    run: dict[str, dict[str, float]]
    missing: list[str] = field(default_factory=list)  # judged, absent from the run dict
    empty_run: list[str] = field(default_factory=list)  # judged, run entry is {}
    run_only: list[str] = field(default_factory=list)  # in the run only


def _scores(rng: np.random.Generator, n: int) -> np.ndarray:
    """Tie-heavy scores: one of several small value sets per query."""
    mode = rng.integers(0, 7)
    if mode == 0:
        s = rng.integers(0, 6, n).astype(np.float64)  # integers 0..5
    elif mode == 1:
        s = np.round(rng.normal(0.0, 1.0, n), 1)  # one decimal, negatives too
    elif mode == 2:
        s = rng.choice(np.array([0.25, 0.5, 0.75]), n)
    elif mode == 3:
        s = np.full(n, float(rng.integers(-2, 3)))  # one big tie
    elif mode == 4:
        s = rng.integers(-3, 4, n) * 1e6  # large magnitudes
    elif mode == 5:
        s = np.round(rng.random(n), 2)  # two decimals: a few ties
    else:
        s = rng.random(n) * 100  # practically tie-free
    return s


def make_trec_case(rng: np.random.Generator, max_queries: int = 6, max_ret: int = 60) -> TrecCase:
    """A random TREC-style case with 1..max_queries queries."""
    n_q = int(rng.integers(1, max_queries + 1))
    qids = rng.choice(np.array(["1", "2", "10", "q1", "q2", "q10", "Q3", "301", "7a"]), n_q, replace=False)
    case = TrecCase({}, {})
    for qid in qids.tolist():
        kind = rng.random()
        if kind < 0.05:  # run-only query: ignored by both
            n = int(rng.integers(1, 8))
            docs = rng.choice(DOC_POOL, n, replace=False)
            case.run[qid] = dict(zip(docs.tolist(), _scores(rng, n).tolist(), strict=True))
            case.run_only.append(qid)
            continue
        r = rng.random()
        n_ret = 0 if r < 0.12 else int(rng.integers(1, 13)) if r < 0.55 else int(rng.integers(13, max_ret + 1))
        docs = rng.choice(DOC_POOL, n_ret, replace=False)
        scores = _scores(rng, n_ret)
        # judged among the retrieved, plus judged-but-never-retrieved documents
        judged_ret = docs[rng.random(n_ret) < rng.random()]
        rest = np.setdiff1d(DOC_POOL, docs)
        n_extra = int(rng.integers(0, 13))
        extra = rng.choice(rest, min(n_extra, len(rest)), replace=False)
        judged = np.concatenate([judged_ret, extra])
        if len(judged) == 0:
            judged = rng.choice(DOC_POOL, 1)
        if rng.random() < 0.12:  # no relevant document at all
            grades = rng.choice(np.array([-1, 0]), len(judged), p=[0.3, 0.7])
        else:
            grades = rng.choice(GRADES, len(judged), p=GRADE_P)
        case.qrels[qid] = dict(zip(judged.tolist(), (int(g) for g in grades), strict=True))
        if n_ret == 0:
            if rng.random() < 0.5:
                case.missing.append(qid)  # no run entry at all
            else:
                case.run[qid] = {}  # pytrec_eval evaluates it; rankmeter treats it as missing
                case.empty_run.append(qid)
        else:
            case.run[qid] = dict(zip(docs.tolist(), scores.tolist(), strict=True))
    return case


def merge_cases(cases: list[TrecCase]) -> TrecCase:
    """All cases in one qrels/run pair, query ids prefixed by the case index.

    Measures are per query, so a merged evaluation is a batch of independent
    cases; merging keeps the suite fast (one evaluator call per batch).
    """
    out = TrecCase({}, {})
    for i, c in enumerate(cases):
        out.qrels.update({f"c{i}:{q}": docs for q, docs in c.qrels.items()})
        out.run.update({f"c{i}:{q}": docs for q, docs in c.run.items()})
        out.missing += [f"c{i}:{q}" for q in c.missing]
        out.empty_run += [f"c{i}:{q}" for q in c.empty_run]
        out.run_only += [f"c{i}:{q}" for q in c.run_only]
    return out


@pytest.fixture
def trec_cases():
    """Factory ``trec_cases(seed, n_cases) -> list[TrecCase]``."""

    def make(seed: int, n_cases: int, **kwargs) -> list[TrecCase]:
        rng = np.random.default_rng(seed)
        return [make_trec_case(rng, **kwargs) for _ in range(n_cases)]

    return make


@pytest.fixture
def merge_trec_cases():
    return merge_cases


# --------------------------------------------------------------------------- dense


@dataclass
class DenseBatch:
    y_true: np.ndarray  # (n, m)
    y_score: np.ndarray  # (n, m)

    @property
    def shape(self) -> tuple[int, int]:
        return self.y_true.shape


def make_dense_batch(
    rng: np.random.Generator,
    *,
    labels: str = "int",
    scores: str = "ties",
    max_lists: int = 20,
    min_size: int = 2,
    max_size: int = 30,
    zero_rows: float = 0.15,
) -> DenseBatch:
    """A random dense batch.

    labels: ``int`` (0..4), ``float`` (0..4, two decimals, about a third 0) or
    ``binary`` (0/1). scores: ``ties`` (one decimal, many ties), ``coarse``
    (integers 0..3, ties everywhere) or ``distinct`` (a random permutation of
    0..m-1 per row: tie-free). About ``zero_rows`` of the rows get all-zero labels.
    """
    n = int(rng.integers(1, max_lists + 1))
    m = int(rng.integers(min_size, max_size + 1))
    if labels == "int":
        y = rng.integers(0, 5, (n, m)).astype(np.float64)
    elif labels == "binary":
        y = (rng.random((n, m)) < 0.3).astype(np.float64)
    elif labels == "float":
        y = np.round(rng.uniform(0, 4, (n, m)), 2) * (rng.random((n, m)) < 0.65)
    else:
        raise ValueError(labels)
    y[rng.random(n) < zero_rows] = 0.0
    if scores == "ties":
        s = np.round(rng.normal(0, 1, (n, m)), 1)
    elif scores == "coarse":
        s = rng.integers(0, 4, (n, m)).astype(np.float64)
    elif scores == "distinct":
        s = rng.permuted(np.tile(np.arange(m, dtype=np.float64), (n, 1)), axis=1)
    else:
        raise ValueError(scores)
    return DenseBatch(y, s)


@pytest.fixture
def dense_batch():
    """Factory ``dense_batch(rng, **options) -> DenseBatch`` (see :func:`make_dense_batch`)."""
    return make_dense_batch
