"""What aligning derives from the qrels once (``Qrels.judgments``): reused by the next run, or derived again."""

from __future__ import annotations

import pickle

import numpy as np

from rankmeter.core.join import align, prepare_qrels
from rankmeter.core.semantics import Semantics
from rankmeter.io.tables import Qrels, Run


def _qrels() -> Qrels:
    return Qrels(np.array(["q1", "q1", "q1", "q2"]), np.array(["a", "b", "a", "c"]), np.array([1.0, 0.0, 2.0, 1.0]))


def test_prepared_judgments_are_reused_by_every_run_whose_queries_the_qrels_cover() -> None:
    qrels = _qrels()
    prepare_qrels(qrels, Semantics(duplicates="max"))
    kept = qrels.judgments
    assert kept is not None and kept.dropped == 1 and kept.order.tolist() == [1, 2, 3]  # row 0 ("a", 1.0) goes
    for docs in (["a", "b"], ["c", "a"]):
        run = Run(np.array(["q1", "q2"]), np.array(docs), np.array([2.0, 1.0]))
        ranked, info = align(qrels, run, Semantics(duplicates="max", ties="stable"))
        assert qrels.judgments is kept and info.duplicates_dropped == 1
    assert ranked.ideal_grades.tolist() == [0.0, 2.0, 1.0]  # the kept rows, in file order within each query


def test_judgments_are_derived_again_for_another_policy_or_other_query_codes() -> None:
    qrels = _qrels()
    prepare_qrels(qrels, Semantics(duplicates="first"))
    first = qrels.judgments
    assert first is not None and first.order.tolist() == [0, 1, 3]
    align(qrels, Run(np.array(["q1"]), np.array(["a"]), np.array([1.0])), Semantics(duplicates="max"))
    assert qrels.judgments is not first and qrels.judgments.order.tolist() == [1, 2, 3]
    # a run query before the judged ones in string order moves the qrels' query codes
    again = qrels.judgments
    align(qrels, Run(np.array(["q0"]), np.array(["a"]), np.array([1.0])), Semantics(duplicates="max"))
    assert qrels.judgments is not again and qrels.judgments.query_codes.tolist() == [1, 1, 1, 2]


def test_pickled_qrels_leave_their_judgments_behind() -> None:
    qrels = _qrels()
    prepare_qrels(qrels, Semantics(duplicates="max"))
    copy = pickle.loads(pickle.dumps(qrels))
    assert copy.judgments is None and copy.doc_ids.tolist() == ["a", "b", "a", "c"]
    assert copy.doc_ids.keys is None and copy.doc_ids.reader is None
