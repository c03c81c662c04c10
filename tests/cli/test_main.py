"""The console scripts' exit (``rankmeter``, ``rankmeter-trec-eval``): once a command is done, the process
ends without Python's teardown.

The output, the exit status and the :mod:`atexit` functions are those of an ordinary exit; these tests run
``script()`` as the console script does (``sys.argv``) in a fresh interpreter, with an output
large enough to need several flushes of a pipe, against the same command run in this process.
"""

from __future__ import annotations

import subprocess
import sys

from rankmeter.cli.main import main

SCRIPT = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('atexit ran'))\n"
    "from rankmeter.cli.main import script\n"
    "sys.argv = ['rankmeter', *sys.argv[1:]]\n"
    "script()\n"
    "print('main returned')\n"
)


def _files(tmp_path):  # type: ignore[no-untyped-def]
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"q{q} 0 d{q % 7} {q % 3}\n" for q in range(3000)))
    run.write_text("".join(f"q{q} Q0 d{d} {d + 1} {10 - d} sys\n" for q in range(3000) for d in range(3)))
    return str(qrels), str(run)


def test_the_console_script_ends_with_the_output_status_and_atexit_of_an_ordinary_exit(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    qrels, run = _files(tmp_path)
    argv = ["evaluate", qrels, run, "-m", "ndcg@2", "-m", "map", "--per-query", "--format", "csv"]
    assert main(argv) == 0
    expected = capsys.readouterr().out
    assert expected.count("\n") > 6000  # several flushes of a pipe
    done = subprocess.run([sys.executable, "-c", SCRIPT, *argv], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == expected + "atexit ran\n"  # "main returned" never printed: the process ended in main


def test_the_console_script_keeps_the_status_of_an_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    qrels, _ = _files(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 a 1 oops sys\n")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, "evaluate", qrels, str(bad), "-m", "map"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout == "atexit ran\n"
    assert (
        done.stderr == f"rankmeter evaluate: error: {bad}:1: query 'q1', document 'a': score 'oops' is not a number\n"
    )


def test_main_with_arguments_returns_the_status(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    qrels, _ = _files(tmp_path)
    assert main(["evaluate", qrels, qrels, "-m", "map"]) == 1  # a qrels line is no run line
    assert capsys.readouterr().err == (
        f"rankmeter evaluate: error: {qrels}:1: expected at least 6 whitespace-separated columns "
        "(qid Q0 docno rank score tag), got 4: 'q0 0 d0 0'\n"
    )


def test_the_trec_eval_console_script_ends_the_same_way(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from rankmeter.cli.trec_eval import main as trec_eval_main

    qrels, run = _files(tmp_path)
    argv = ["-q", "-m", "map", "-m", "ndcg_cut.2", qrels, run]
    assert trec_eval_main(argv) == 0
    expected = capsys.readouterr().out
    assert expected.count("\n") > 6000
    script = SCRIPT.replace("from rankmeter.cli.main import script", "from rankmeter.cli.trec_eval import script")
    done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == expected + "atexit ran\n"


def test_main_called_from_python_returns_the_status_and_keeps_the_process() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            SCRIPT.replace("import script", "import main").replace("script()", "main()"),
            "measures",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0
    assert done.stdout.endswith("main returned\natexit ran\n")
