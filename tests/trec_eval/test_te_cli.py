"""``rankmeter trec_eval``: argument parsing, the measure table, output format, exit codes and input errors."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from rankmeter.cli import trec_eval as cli
from rankmeter.trec_eval.app import run_trec_eval
from rankmeter.trec_eval.measures import TrecMeasureError, build_columns, float_cut_name, resolve
from rankmeter.trec_eval.options import UsageError, parse_options

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 d 1.7\n2 0 x 1\n2 0 y 0\n3 0 z 1\n"
RUN = "1 Q0 a 1 3.0 sys\n1 Q0 b 2 2.0 sys\n1 Q0 e 3 2.0 sys\n1 Q0 c 4 1.0 sys\n2 Q0 y 1 5.0 last\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def te(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_trec_eval(list(argv), out, err)
    return status, out.getvalue(), err.getvalue()


# --- the command line ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        ["-mP.5,10", "q", "r"],
        ["-m", "P.5,10", "q", "r"],
        ["--measure=P.5,10", "q", "r"],
        ["--measure", "P.5,10", "q", "r"],
        ["--meas=P.5,10", "q", "r"],
        ["q", "-mP.5,10", "r"],
        ["q", "r", "-m", "P.5,10"],
    ],
)
def test_measure_option_spellings(argv: list[str]) -> None:
    o = parse_options(argv)
    assert o.measures == ["P.5,10"] and o.files == ["q", "r"]


def test_clustered_and_attached_options() -> None:
    o = parse_options(["-qcJn", "-M1000", "-l", "2", "-N", "77", "-Rqrels_jg", "-Zzs", "q", "-"])
    assert (o.query, o.complete, o.judged_only, o.summary) == (True, True, True, False)
    assert (o.max_docs, o.level, o.num_docs, o.rel_format, o.zscores, o.files) == (
        1000,
        2,
        77,
        "qrels_jg",
        "zs",
        ["q", "-"],
    )
    assert parse_options(["-qm", "map", "q", "r"]).measures == ["map"]
    assert parse_options(["-l2.7", "q", "r"]).level == 2  # atol
    assert parse_options(["--", "-q", "r"]).files == ["-q", "r"]


@pytest.mark.parametrize("argv", [["-x", "q", "r"], ["-m"], ["--bogus", "q", "r"], ["--help=1", "a", "b"]])
def test_bad_options(argv: list[str]) -> None:
    with pytest.raises(UsageError):
        parse_options(argv)
    status, out, err = te(*argv)
    assert status == 1 and out == "" and err.startswith("trec_eval: ") and "Usage: trec_eval" in err


def test_wrong_number_of_files(files: tuple[str, str]) -> None:
    assert te(files[0])[0] == 1
    assert te(files[0], files[1], files[1])[0] == 1


# --- the measure table ----------------------------------------------------------------------------------
def test_nicknames_and_trec_eval_order() -> None:
    names = [r.spec.name for r in resolve(["P", "map", "official"])]
    assert names == [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
    ]
    all_trec = [r.spec.name for r in resolve(["all_trec"])]
    assert len(all_trec) == 37 and "unj" in all_trec and "dcg" not in all_trec and "yaap" not in all_trec


def test_first_parameters_win_and_cutoffs_are_sorted() -> None:
    (p,) = resolve(["P.10,5", "P.7"])
    assert p.values == (5, 10)
    assert [c.name for c in build_columns(p)] == ["P_5", "P_10"]
    (cut,) = resolve(["ndcg_cut.10,23.4"])
    assert cut.values == (10, 23)


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ("foo", "illegal measure 'foo'"),
        ("P.0,5", "Negative cutoff"),
        ("P.5,5", "duplicate cutoffs"),
        ("Rprec_mult.0.5,.5", "duplicate cutoffs"),
        ("ndcg.1=2,", "malformed pair"),
        ("ndcg.3", "malformed pair"),
        ("P.", "improper measure"),
    ],
)
def test_bad_measures(arg: str, message: str, files: tuple[str, str]) -> None:
    with pytest.raises(TrecMeasureError, match=message):
        resolve([arg])
    status, out, err = te("-m", arg, *files)
    assert status in (1, 2) and out == "" and message in err and err.count("\n") == 1


def test_columns_map_to_canonical_rankmeter_names() -> None:
    def keys(arg: str, level: int = 1) -> list[tuple[str, str]]:
        return [(c.name, c.key) for r in resolve([arg]) for c in build_columns(r, level=level, num_docs=1000)]

    assert keys("iprec_at_recall.0.5") == [("iprec_at_recall_0.50", "iprec_at_recall(recall=0.5)")]
    assert keys("Rprec_mult.2", level=2) == [("Rprec_mult_2.00", "rprec_mult(min_rel=2,mult=2)")]
    assert keys("utility.2,-1,0,0.5") == [("utility_2,-1,0,0.5", "utility(a=2,collection=1000,d=0.5)")]
    assert keys("ndcg.1=3,2=9,x=4") == [("ndcg_1=3,2=9,x=4", "ndcg(gain={1:3,2:9})")]
    assert keys("rbp.p=0.5,2=1") == [("rbp_p=0.5,2=1", "rbp(gain={2:1},p=0.5)")]
    assert keys("ndcg.0=1,-1=4,2=9") == [("ndcg_0=1,-1=4,2=9", "ndcg(gain={0:1,2:9})")]  # levels >= 0 only
    assert keys("11pt_avg.0.2,0.8") == [("11pt_avg_0.2,0.8", "iprec_avg(levels=[0.2,0.8])")]
    assert keys("set_F.0.5") == [("set_F_0.5", "set_f(beta=0.5)")]
    assert keys("map_cut.5", level=3) == [("map_cut_5", "map(min_rel=3)@5")]
    assert keys("relstring.20") == [("relstring_20", "relstring:20")]
    assert keys("map.99") == [("map", "map")]  # parameters of a measure without parameters are ignored


def test_float_cutoff_names_are_cut_like_trec_eval() -> None:
    assert float_cut_name("iprec_at_recall", 0.25) == "iprec_at_recall_0.25"
    assert float_cut_name("Rprec_mult", 1234567.0) == "Rprec_mult_1234567."  # buffer of len(name)+10 bytes


# --- output ---------------------------------------------------------------------------------------------
def test_default_output_layout(files: tuple[str, str]) -> None:
    status, out, err = te(*files)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "runid                 \tall\tlast"  # the tag of the run's last line
    assert lines[1] == "num_q                 \tall\t2"
    assert lines[2] == "num_ret               \tall\t5"
    assert lines[3] == "num_rel               \tall\t4"  # grade 1.7 is read as 1 (atol)
    assert lines[5] == "map                   \tall\t0.2500"  # topic 1: a, e, b (ties: docno desc), c
    assert [line.split("\t")[0] for line in lines[-9:]] == [
        f"P_{k:<20}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    ]
    assert "topic without results ignored" in err and "3" in err


def test_per_query_rows_come_first_and_skip_summary_only_measures(files: tuple[str, str]) -> None:
    status, out, _ = te("-q", "-m", "num_q", "-m", "gm_map", "-m", "map", "-m", "relstring.3", *files)
    assert status == 0
    assert out.splitlines() == [
        "map                   \t1\t0.5000",
        "relstring_3           \t1\t'2-0'",
        "map                   \t2\t0.0000",
        "relstring_3           \t2\t'0'",
        "num_q                 \tall\t2",
        "map                   \tall\t0.2500",
        "gm_map                \tall\t0.0022",
    ]


def test_nosummary_and_complete(files: tuple[str, str]) -> None:
    status, out, err = te("-q", "-n", "-c", "-m", "num_rel", "-m", "utility", *files)
    assert status == 0 and err == ""
    assert out.splitlines()[-2:] == ["num_rel               \t3\t1", "utility               \t3\t0.0000"]
    assert "all" not in out


def test_missing_topics_warning_shows_ten_topics(tmp_path: Path) -> None:
    for n, shown in ((10, "101, 102, 103, 104, 105, 106, 107, 108, 109, 110\n"), (11, "108, 109, 110 ...\n")):
        (tmp_path / "q").write_text("".join(f"{100 + t} 0 a 1\n" for t in range(n + 1)))
        (tmp_path / "r").write_text("100 Q0 a 1 1 s\n")
        status, _, err = te("-m", "num_q", str(tmp_path / "q"), str(tmp_path / "r"))
        assert status == 0 and f"{n} judged topics without results ignored" in err and err.endswith(shown), err


def test_gain_table_is_exact_where_trec_eval_truncates(tmp_path: Path) -> None:
    """trec_eval sorts gains with an int-truncating comparator: -m ndcg.2=0.3,1=0.5 gives 0.0 there."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 2\n")
    (tmp_path / "r").write_text("1 Q0 b 1 2 s\n1 Q0 a 2 1 s\n")
    status, out, _ = te("-m", "ndcg.2=0.3,1=0.5", str(tmp_path / "q"), str(tmp_path / "r"))
    assert status == 0 and out == "ndcg_2=0.3,1=0.5      \tall\t0.8929\n"


def test_judged_only_drops_negative_grades_after_max_docs(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 0 a -1\n1 0 b 1\n1 0 c 0\n1 0 d 1\n")
    (tmp_path / "r").write_text("1 Q0 x 1 9 s\n1 Q0 a 2 8 s\n1 Q0 b 3 7 s\n1 Q0 c 4 6 s\n1 Q0 d 5 5 s\n")
    args = ["-m", "num_ret", "-m", "recip_rank", str(tmp_path / "q"), str(tmp_path / "r")]
    assert te("-J", *args)[1].splitlines() == ["num_ret               \tall\t3", "recip_rank            \tall\t1.0000"]
    # -M truncates first (x, a, b), then -J drops x (not judged) and a (negative grade)
    assert te("-J", "-M3", *args)[1].splitlines() == [
        "num_ret               \tall\t1",
        "recip_rank            \tall\t1.0000",
    ]


def test_zscores(tmp_path: Path, files: tuple[str, str]) -> None:
    (tmp_path / "z").write_text("1 map 0.5 0.25\n2 map 0.1 0\n1 num_ret 4 2\n")
    status, out, _ = te("-q", "-Z", str(tmp_path / "z"), "-m", "runid", "-m", "num_ret", "-m", "map", *files)
    assert status == 0
    assert out.splitlines() == [
        "Znum_ret               \t1\t0.0000",
        "Zmap                   \t1\t0.0000",
        "Znum_ret               \t2\t-1000000.0000",
        "Zmap                   \t2\t-1000000.0000",
        "runid                 \tall\tlast",
        "Znum_ret               \tall\t-1000000.0000",
        "Zmap                   \tall\t-500000.0000",
    ]


def test_help_and_version(files: tuple[str, str]) -> None:
    status, out, _ = te("-h", "-m", "bpref", "-m", "P.5")
    assert status == 0 and "-M, --Max_retrieved_per_topic" in out
    assert "\nbpref\n" in out and "\nP\n" in out and "rankmeter: bpref(min_rel=l)" in out
    assert "No measures indicated" in te("-h")[1]
    status, out, err = te("-v")
    assert status == 0 and out == "" and err.startswith("trec_eval version 10.0-rc3")


def test_format_and_measure_compatibility(files: tuple[str, str]) -> None:
    status, _, err = te("-R", "prefs", "-m", "map", *files)
    assert status == 4 and "Can't calculate measure 'map'" in err
    assert te("-R", "bogus", *files)[0] == 2
    assert te("-T", "bogus", *files)[0] == 2


def test_no_topic_in_common(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("9 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 s\n")
    status, out, err = te(str(tmp_path / "q"), str(tmp_path / "r"))
    assert status == 7 and out == "" and "No queries with both results and relevance info" in err


# --- malformed input: one line with file:line on stderr, status 2, no traceback ---------------------------
@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        (QRELS, "1 Q0 a 1 2.0 s\n1 Q0 b 2 1.0 s\n1 Q0 a 3 0.5 s\n", "run:3: query '1', document 'a' appears twice"),
        ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 2.0 s\n", "qrels:2: query '1', document 'a' appears twice in the qrels"),
        (QRELS, "1 Q0 a 1 high s\n", "run:1: query '1', document 'a': score 'high' is not a number"),
        (QRELS, "1 Q0 a 1 nan s\n", "run:1: query '1', document 'a': score 'nan' is not a finite number"),
        (QRELS, "# header\n1 Q0 a 1 2.0\n", "run:2: expected at least 6 whitespace-separated columns"),
        ("1 0 a\n", RUN, "qrels:1: expected 4 whitespace-separated columns"),
        ("1 0 a 1 extra\n", RUN, "qrels:1: expected 4 whitespace-separated columns"),
        ("1 0 a yes\n", RUN, "qrels:1: query '1', document 'a': relevance 'yes' is not a number"),
        ("", RUN, "qrels: file is empty"),
        (QRELS, "\n\n", "run: file is empty"),
    ],
)
def test_malformed_input(tmp_path: Path, qrels: str, run: str, message: str) -> None:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    status, out, err = te(str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("rankmeter trec_eval: error: ") and str(tmp_path) in err
    assert message in err.replace(str(tmp_path) + "/", "")
    assert "duplicates=" not in err  # the API's advice does not apply on the command line


def test_unreadable_files(tmp_path: Path) -> None:
    status, _, err = te(str(tmp_path / "nope"), str(tmp_path / "nope2"))
    assert status == 2 and "nope: cannot read file" in err and err.count("\n") == 1
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "z").write_text("1 map x y\n")
    (tmp_path / "r").write_text(RUN)
    status, _, err = te("-Z", str(tmp_path / "z"), str(tmp_path / "q"), str(tmp_path / "r"))
    assert status == 2 and "z:1: mean and stddev must be numbers" in err


def test_prefs_errors(tmp_path: Path) -> None:
    (tmp_path / "p").write_text("1 g s a 1\n1 g s b x\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 s\n")
    status, _, err = te("-R", "prefs", "-m", "prefs", str(tmp_path / "p"), str(tmp_path / "r"))
    assert status == 2 and "p:2: preference level 'x' is not a number" in err
    (tmp_path / "p").write_text("1 g s a 1\n1 g s a 0\n")
    status, _, err = te("-R", "prefs", "-m", "prefs", str(tmp_path / "p"), str(tmp_path / "r"))
    assert status == 2 and "two different levels" in err


# --- the console script and the subcommand ------------------------------------------------------------------
def test_standalone_main_and_subcommand(files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["-m", "num_q", *files]) == 0
    assert capsys.readouterr().out == "num_q                 \tall\t2\n"
    parser = argparse.ArgumentParser(prog="rankmeter")
    sub = parser.add_subparsers(dest="command")
    cli.add_parser(sub)
    args = parser.parse_args(["trec_eval", "-q", "-mP.1", "-m", "num_q", "-l2", "--measure=map", *files])
    assert args.trec_eval_args == ["-q", "-mP.1", "-m", "num_q", "-l2", "--measure=map", *files]
    assert args.handler(args) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "P_1                   \tall\t0.5000"
    args = parser.parse_args(["trec_eval", "-h"])
    assert args.handler(args) == 0 and "rankmeter trec_eval" in capsys.readouterr().out


def test_complete_num_rel_summary_recounts_the_qrels(tmp_path: Path) -> None:
    """With -c, m_num_rel.c's te_calc_avg_num_rel re-reads the qrels: the summary counts every line with rel > 0.

    The per-topic lines follow -l; the summary ignores -l, -J and -M and counts topic 3 (judged, no results)
    and topic 4 (no relevant document at -l 2) too. Grades are read with atol ("1.7" is 1, "0.9" is 0).
    """
    (tmp_path / "q").write_text(
        "1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 d 1.7\n2 0 x 3\n2 0 y -1\n3 0 z 1\n3 0 w 2\n4 0 v 1\n4 0 u 0.9\n"
    )
    (tmp_path / "r").write_text("1 Q0 a 1 3 s\n1 Q0 e 2 2 s\n2 Q0 y 1 5 s\n4 Q0 v 1 1 s\n5 Q0 a 1 1 s\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    per_topic = {"1": "1", "2": "1", "3": "1", "4": "0"}  # grade >= 2
    status, out, err = te("-q", "-c", "-l", "2", "-m", "num_rel", *files)
    assert status == 0 and err == ""
    assert out == "".join(f"num_rel               \t{q}\t{v}\n" for q, v in per_topic.items()) + (
        "num_rel               \tall\t7\n"  # a b d x z w v: 7 lines with rel > 0, not 1+1+1+0 = 3
    )
    # the same count under -J and -M, and with num_rel among other measures
    assert te("-c", "-J", "-M", "1", "-l", "2", "-m", "num_rel", "-m", "num_rel_ret", *files)[1] == (
        "num_rel               \tall\t7\nnum_rel_ret           \tall\t1\n"
    )
    # without -c the summary is the sum over the evaluated topics (1, 2, 4)
    assert te("-l", "2", "-m", "num_rel", *files)[1] == "num_rel               \tall\t2\n"
    assert te("-m", "num_rel", *files)[1] == "num_rel               \tall\t5\n"


class _ClosedPipe(io.StringIO):
    """A stdout whose reader has gone (``rankmeter trec_eval ... | head -1``)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_pipe_ends_quietly_with_status_0(files: tuple[str, str]) -> None:
    err = io.StringIO()
    assert run_trec_eval(["-m", "P.5", *files], _ClosedPipe(), err) == 0
    assert "error" not in err.getvalue()  # only the warning of topic 3, judged and not retrieved
