"""The drop-in's columnar fast path reads exactly what its line-by-line reader reads."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from rankmeter.trec_eval.app import run_trec_eval
from rankmeter.trec_eval.readers import read_qrels, read_records, read_run

QRELS = "1 0 a 1.5\n1 0 b 2e3\n1 0 c -1\n1 0 d 0\n2 0 x 3\n2 0 y .9\n"
RUN = "1 Q0 a 1 2.5 first\n1 Q0 c 2 2.5 first\n1 Q0 b 3 1.0 first\n1 Q0 z 4 0.5 first\n2 Q0 y 1 9 first\n2 Q0 x 2 8 last\n"


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_fast_qrels_apply_atol_to_every_grade(tmp_path: Path) -> None:
    fast = read_qrels(_write(tmp_path, "q.txt", QRELS))
    slow = read_qrels(_write(tmp_path, "q_tabs.txt", QRELS.replace(" ", "\t")))  # tabs: the exact reader
    assert fast.relevance.tolist() == slow.relevance.tolist() == [1.0, 2.0, -1.0, 0.0, 3.0, 0.0]
    assert fast.doc_ids.to_pylist() == slow.doc_ids.tolist()


def test_fast_run_keeps_the_last_lines_tag_as_runid(tmp_path: Path) -> None:
    fast = read_run(_write(tmp_path, "r.txt", RUN), arrow_ids=True)
    assert fast.runid == "last"
    assert fast.run.scores.tolist() == [2.5, 2.5, 1.0, 0.5, 9.0, 8.0]
    assert hasattr(fast.run.doc_ids, "to_pylist")  # arrow ids on the fast path


def test_output_is_identical_on_both_paths(tmp_path: Path) -> None:
    outputs = []
    for sep in (" ", "\t"):
        qrels = _write(tmp_path, f"q{sep == ' '}.txt", QRELS.replace(" ", sep))
        run = _write(tmp_path, f"r{sep == ' '}.txt", RUN.replace(" ", sep))
        out, err = io.StringIO(), io.StringIO()
        assert run_trec_eval(["-q", "-c", "-m", "all_trec", qrels, run], stdout=out, stderr=err) == 0
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1]
    assert "runid                 \tall\tlast" in outputs[0]
    # q1 ranks c, a (tie: higher docno first), b; relevant a, b (atol: 1.5 -> 1, 2e3 -> 2): AP = (1/2 + 2/3) / 2
    # q2: y (.9 -> 0) then x: AP = 1/2
    assert np.isclose(
        float(outputs[0].split("map                   \tall\t")[1].split()[0]), (7 / 12 + 1 / 2) / 2, atol=5e-5
    )


def test_non_ascii_ids_take_the_exact_reader(tmp_path: Path) -> None:
    # "dö" and "ß" are UTF-8 bytes the ASCII fast path cannot split: the line-by-line reader reads them
    qrels = _write(tmp_path, "q.txt", "1 0 dö 1\n1 0 ß 0\n\n1 0 e 1\n")
    fields, lines, source = read_records(qrels, 4, True, "qid iter docno rel")
    assert fields.tolist() == [["1", "0", "dö", "1"], ["1", "0", "ß", "0"], ["1", "0", "e", "1"]]
    assert lines.tolist() == [1, 2, 4] and source == qrels


def test_a_comment_line_of_four_words_is_skipped(tmp_path: Path) -> None:
    # "# x y z" has as many words as a qrels line: only the line-by-line reader knows it is a comment
    qrels = _write(tmp_path, "q.txt", "1 0 a 1\n# x y z\n1 0 b 0\n")
    fields, lines, _ = read_records(qrels, 4, True, "qid iter docno rel")
    assert fields.tolist() == [["1", "0", "a", "1"], ["1", "0", "b", "0"]] and lines.tolist() == [1, 3]
