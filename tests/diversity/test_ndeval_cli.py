"""``rankmeter ndeval``: ndeval's output byte for byte, values against pyndeval, options and errors."""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pyndeval
import pytest

from rankmeter.cli.main import main
from rankmeter.errors import InputFormatError
from rankmeter.ndeval.app import COLUMNS, run_ndeval
from tests.diversity.cases import random_case

DATA = Path(__file__).parent / "data"


def _ndeval(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_ndeval(args, out, err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], "sample.ndeval.csv"),
        (["-c", "-traditional", "-M", "15", "-alpha", "0.3", "-beta", "0.8"], "sample_c_traditional.ndeval.csv"),
        (["-baseline", str(DATA / "sample_baseline.run"), "-riskAlpha", "1"], "sample_risk.ndeval.csv"),
    ],
)
def test_output_is_ndevals_byte_for_byte(flags: list[str], expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The files of tests/diversity/data were written by NIST's ndeval.c (see data/README.md)."""
    status = main(["ndeval", *flags, str(DATA / "sample.qrels"), str(DATA / "sample.run")])
    assert status == 0
    assert capsys.readouterr().out == (DATA / expected).read_text()


def _write_case(tmp_path: Path, seed: int) -> tuple[Path, Path, list[tuple[str, str, str, int]], dict]:
    case = random_case(np.random.default_rng(seed), n_queries=9)
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("".join(f"{q} {i} {d} {g}\n" for q, i, d, g in case.qrels))
    lines, ranked = [], {}
    rng = np.random.default_rng(seed + 1)
    for q, scores in case.run.items():
        docs = list(scores)
        ranks = rng.permutation(len(docs)) + 1  # the rank column decides the order, not the scores
        ranked[q] = dict(zip(docs, ranks.tolist(), strict=True))
        lines += [f"{q} Q0 {d} {k} {scores[d]} sys\n" for d, k in zip(docs, ranks, strict=True)]
    run.write_text("".join(lines))
    return qrels, run, case.qrels, ranked


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("complete", [False, True])
def test_every_line_against_pyndeval(tmp_path: Path, seed: int, complete: bool) -> None:
    qrels, run, judgments, ranks = _write_case(tmp_path, seed)
    status, out, _ = _ndeval((["-c"] if complete else []) + [str(qrels), str(run)])
    assert status == 0
    rows = [line.split(",") for line in out.splitlines()]
    assert rows[0] == ["runid", "topic", *COLUMNS]
    names = [c for c in COLUMNS]
    theirs = pyndeval.ndeval(
        judgments, [(q, d, -float(k)) for q, docs in ranks.items() for d, k in docs.items()], names
    )
    judged = {q for q, _, _, _ in judgments}
    topics = [r[1] for r in rows[1:-1]]
    assert topics == sorted(ranks, key=int)  # every run topic, in numeric order
    totals = np.zeros(len(COLUMNS))
    for row in rows[1:-1]:
        assert row[0] == "sys"
        reference = [theirs[row[1]][c] if row[1] in judged else 0.0 for c in COLUMNS]
        assert row[2:] == ["-nan" if math.isnan(v) else f"{v:.6f}" for v in reference]
        totals += reference
    denominator = len(judged) if complete else len(judged & set(ranks))
    assert rows[-1][:2] == ["sys", "amean"]
    assert rows[-1][2:] == ["-nan" if math.isnan(v) else f"{v:.6f}" for v in totals / denominator]


def test_rank_column_or_scores_topic_prefix_and_leading_zeros(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("007 1 a 1\n007 2 a 1\n007 1 b 1\n")
    (tmp_path / "r").write_text("wt09-7 Q0 b 1 0.1 tag\nwt09-7 Q0 a 2 0.9 tag\n")
    ideal_ideal = 2 * (1 + 0.5 / 2 + 0.25 / 3 + 0.125 / 4 + 0.0625 / 5)  # A = 2 intents at every rank
    _, by_rank, _ = _ndeval([str(tmp_path / "q"), str(tmp_path / "r")])
    _, by_score, _ = _ndeval(["-traditional", str(tmp_path / "q"), str(tmp_path / "r")])
    # by the rank column b comes first (intent 1), then a (intent 1 again: 0.5, intent 2: 1)
    assert by_rank.splitlines()[1].startswith(f"tag,7,{(1 + 1.5 / 2) / ideal_ideal:.6f},")
    # by score a comes first (both intents: 2), then b (intent 1 again: 0.5)
    assert by_score.splitlines()[1].startswith(f"tag,7,{(2 + 0.5 / 2) / ideal_ideal:.6f},")


def test_help_and_version() -> None:
    status, out, _ = _ndeval(["-help"])
    assert status == 0 and "-traditional" in out and "-riskAlpha" in out
    assert _ndeval(["-version"]) == (0, "rankmeter ndeval: version 4.5 (Mon 29 Apr 2013 20:51:02 EDT)\n", "")


def test_option_bounds_are_accepted_and_risk_alpha_defaults_to_0() -> None:
    files = [str(DATA / "sample.qrels"), str(DATA / "sample.run")]
    for bounds in (["-M", "1"], ["-alpha", "1", "-beta", "0"], ["-alpha", "0", "-beta", "1"], ["-riskAlpha", "0"]):
        status, out, err = _ndeval([*bounds, *files])
        assert status == 0 and err == "" and out.splitlines()[-1].startswith("runA,amean,"), bounds
    assert _ndeval(["-ca", *files]) == _ndeval(["-c", "-a", *files])  # flags run together
    baseline = ["-baseline", str(DATA / "sample_baseline.run")]
    assert _ndeval([*baseline, *files]) == _ndeval([*baseline, "-riskAlpha", "0", *files])
    assert _ndeval([*baseline, *files]) != _ndeval([*baseline, "-riskAlpha", "1", *files])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-alpha", "2", "q", "r"], "-alpha must lie in [0, 1], got '2'"),
        (["-M", "0", "q", "r"], "-M needs a depth > 0, got '0'"),
        (["-riskAlpha", "-1", "q", "r"], "-riskAlpha must be >= 0, got '-1'"),
        (["-beta", "x", "q", "r"], "-beta needs a number, got 'x'"),
        (["-x", "q", "r"], "unexpected argument '-x'"),
        (["q"], "unexpected argument 'q'"),
        (["-", "q", "r"], "unexpected argument '-'"),
    ],
)
def test_usage_errors(args: list[str], message: str) -> None:
    status, out, err = _ndeval(args)
    assert status == 1 and out == ""
    assert (
        err
        == f"rankmeter ndeval: {message}\nUsage: rankmeter ndeval [options] qrels run   (-help for full usage information)\n"
    )


@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        ("x 1 a 1\n", "1 Q0 a 1 1 t\n", r"q:1: topic must be a natural number, got 'x'"),
        ("1 x a 1\n", "1 Q0 a 1 1 t\n", r"q:1: subtopic must be a natural number, got 'x'"),
        ("1 1 a -1\n", "1 Q0 a 1 1 t\n", r"q:1: judgment must be a natural number, got '-1'"),
        ("1 1 a 1\n", "1 Q0 a 1 1 t\nabc Q0 b 2 1 t\n", r"r:2: topic must be a natural number, got 'abc'"),
        ("1 1 a 1\n", "1 Q0 a 1 1 t\n1 Q0 b one 1 t\n", r"r:2: rank must be a natural number, got 'one'"),
        ("1 1 a 1\n", "1 Q0 a 1 1 t\n1 Q0 b 1 2 t\n", r"r:2: duplicate rank \(1\) for topic 1 \(first at line 1\)"),
        ("1 1 a 1\n", "1 Q0 a 1 1 t\n1 Q0 a 2 2 t\n", r"query '1', document 'a' appears twice in the run"),
        (
            "1 1 a 1\n",
            "1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n1 Q0 c 1 1 t\n",
            r"r:3: duplicate rank \(1\) for topic 1 \(first at line 1\)",
        ),
        ("1 1 a 1\n1 1 a 0\n", "1 Q0 a 1 1 t\n", r"q:2: query '1', intent '1', document 'a' is judged twice"),
        ("1 1 a\n", "1 Q0 a 1 1 t\n", r"q:1: expected at least 4 whitespace-separated columns"),
    ],
)
def test_input_errors_name_file_and_line(tmp_path: Path, qrels: str, run: str, message: str) -> None:
    from rankmeter.errors import RankmeterError

    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    with pytest.raises(RankmeterError, match=message):
        _ndeval([str(tmp_path / "q"), str(tmp_path / "r")])


def test_traditional_score_that_is_no_number(tmp_path: Path) -> None:
    from rankmeter.errors import InvalidScoreError

    (tmp_path / "q").write_text("1 1 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 high t\n")
    with pytest.raises(InvalidScoreError, match=r"r:1: topic 1, document 'a': score 'high' is not a number"):
        _ndeval(["-traditional", str(tmp_path / "q"), str(tmp_path / "r")])
    (tmp_path / "r").write_text("1 Q0 a 1 2.5 t\n1\tQ0 b 2 high t\n")  # a tab: the exact reader
    with pytest.raises(InvalidScoreError, match=r"r:2: topic 1, document 'b': score 'high' is not a number"):
        _ndeval(["-traditional", str(tmp_path / "q"), str(tmp_path / "r")])


def test_cli_reports_errors_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "q").write_text("1 1 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n1 Q0 b 1 2 t\n")
    assert main(["ndeval", str(tmp_path / "q"), str(tmp_path / "r")]) == 1  # bad input
    assert capsys.readouterr().err.startswith("rankmeter ndeval: error: ")


def test_gzip_tabs_and_extra_fields_read_like_plain_files(tmp_path: Path) -> None:
    """The exact reader (any whitespace, fields past the last, .gz) gives what the fast Arrow path gives."""
    import gzip

    expected = (DATA / "sample.ndeval.csv").read_text()
    qrels = "".join(
        line.replace(" ", "\t", 1) + "  extra\n" for line in (DATA / "sample.qrels").read_text().splitlines()
    )
    run = "".join("  " + line.replace(" ", "   ") + "\n" for line in (DATA / "sample.run").read_text().splitlines())
    (tmp_path / "q.gz").write_bytes(gzip.compress(qrels.encode()))
    (tmp_path / "r").write_text(run)
    assert _ndeval([str(tmp_path / "q.gz"), str(tmp_path / "r")])[1] == expected
    flags = ["-c", "-traditional", "-M", "15", "-alpha", "0.3", "-beta", "0.8"]  # scores read by the exact reader
    traditional = (DATA / "sample_c_traditional.ndeval.csv").read_text()
    assert _ndeval([*flags, str(tmp_path / "q.gz"), str(tmp_path / "r")])[1] == traditional


def test_lone_carriage_return_is_refused(tmp_path: Path) -> None:
    (tmp_path / "q").write_bytes(b"1 1 a 1\r1 1 b 1\n")
    with pytest.raises(InputFormatError, match=r"q:1: a carriage return \(\\r\) not followed by a line feed"):
        _ndeval([str(tmp_path / "q"), str(DATA / "sample.run")])


def test_the_run_id_is_the_first_lines_on_both_readers(tmp_path: Path) -> None:
    from rankmeter.ndeval.readers import read_ndeval_run

    for sep, name in ((" ", "spaces.txt"), ("\t", "tabs.txt")):  # tabs: the line-by-line reader
        path = tmp_path / name
        path.write_text(sep.join("1 Q0 a 2 0.5 first".split()) + "\n" + sep.join("1 Q0 b 1 0.1 second".split()) + "\n")
        run, runid = read_ndeval_run(str(path), traditional=False)
        assert runid == "first" and run.scores.tolist() == [-2.0, -1.0]
