"""``rankmeter evaluate`` names the values no ``empty=`` policy touches (metadata["queries_undefined"])."""

from __future__ import annotations

from rankmeter.cli.main import main


def test_the_table_counts_undefined_values(write, capsys) -> None:
    # q1 has a relevant document its list missed: no mean rank; q2 has one at rank 2
    qrels = write("qrels.txt", "q1 0 c 1\nq2 0 b 1\n")
    run = write("run.txt", "q1 Q0 a 1 2.0 s\nq2 Q0 a 1 2.0 s\nq2 Q0 b 2 1.0 s\n")
    assert main(["evaluate", str(qrels), str(run), "-m", "mean_rank", "-m", "rr"]) == 0
    out = capsys.readouterr().out
    assert "undefined values left out of the mean: mean_rank 1" in out
    assert "2.0000" in out  # the mean rank of q2 alone
    assert main(["evaluate", str(qrels), str(run), "-m", "rr"]) == 0
    assert "undefined" not in capsys.readouterr().out
