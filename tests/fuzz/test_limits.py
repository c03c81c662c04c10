"""Resource limits: over-long lines, .gz files that expand without bound, one huge query, and no file read unasked."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

import rankmeter
from rankmeter.errors import PolicyError
from rankmeter.io.run_blocks import iter_run_chunks
from rankmeter.io.validate import read_gzip
from rankmeter.trec_eval import readers

QRELS = "1 0 a 1\n1 0 b 0\n"


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setenv("RANKMETER_MAX_LINE_BYTES", "64")
    return 64


def _long_line_qrels(tmp_path: Path, sep: str = " ") -> Path:
    path = tmp_path / "q.txt"
    path.write_text(f"1 0 a 1\n1{sep}0 {'d' * 100} 1\n")
    return path


@pytest.mark.parametrize("sep", [" ", "\t"], ids=["columnar-reader", "line-reader"])
def test_a_line_over_the_limit_is_named(tmp_path: Path, small_limit: int, sep: str) -> None:
    path = _long_line_qrels(tmp_path, sep)
    with pytest.raises(PolicyError, match=r"q\.txt:2: line of 106 bytes or more, over the limit of 64 bytes"):
        rankmeter.evaluate(str(path), {"1": {"a": 1.0}}, "map")
    with pytest.raises(PolicyError, match=r"q\.txt:2: line of 106 bytes"):
        readers.read_qrels(str(path))


def test_the_limit_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _long_line_qrels(tmp_path)
    monkeypatch.setenv("RANKMETER_MAX_LINE_BYTES", "200")
    assert rankmeter.evaluate(str(path), {"1": {"a": 1.0}}, "map").aggregate["map"] == 0.5  # the long one is relevant
    monkeypatch.setenv("RANKMETER_MAX_LINE_BYTES", "many")
    with pytest.raises(PolicyError, match="RANKMETER_MAX_LINE_BYTES='many' is not an integer"):
        rankmeter.evaluate(str(path), {"1": {"a": 1.0}}, "map")


def test_streaming_a_file_without_line_breaks_stops_at_the_limit(tmp_path: Path, small_limit: int) -> None:
    path = tmp_path / "run.bin"
    path.write_bytes(b"\x01" * 10_000)  # a binary file given as a run
    chunks = iter_run_chunks(path, block_bytes=16)
    with pytest.raises(PolicyError, match=r"run\.bin:1: line of 80 bytes or more, over the limit of 64"):
        next(chunks)


def test_a_gzip_bomb_is_stopped_when_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.txt.gz"
    line = b"1 Q0 a 1 1.0 t\n"
    member = gzip.compress(line * 70_000, compresslevel=9)  # 1.05 MB from about 2 kB
    path.write_bytes(member * 70)  # gzip members one after another: 73.5 MB, about 500 times its size
    with pytest.raises(PolicyError, match=r"run\.txt\.gz: expands to more than 67108864 bytes, 200 times its size"):
        rankmeter.evaluate({"1": {"a": 1}}, str(path), "map")
    monkeypatch.setenv("RANKMETER_MAX_GZIP_RATIO", "1000000")  # the user says it is fine
    assert len(read_gzip(path, "run.txt.gz")) == len(line) * 70_000 * 70


def test_a_gzip_bomb_streams_in_bounded_blocks(tmp_path: Path) -> None:
    path = tmp_path / "run.txt.gz"
    lines = b"".join(b"%d Q0 a 1 1.0 t\n" % q for q in range(200_000))
    path.write_bytes(gzip.compress(lines))
    res = rankmeter.evaluate_stream({"7": {"a": 1}}, str(path), "map", block_bytes=1 << 16)
    assert res.by_query("map")["7"] == 1.0
    assert res.metadata["queries_run_only"] == 199_999


def test_a_query_larger_than_a_block_is_held_whole_and_evaluated(tmp_path: Path) -> None:
    n = 100_000
    path = tmp_path / "run.txt"
    path.write_text("".join(f"1 Q0 d{i} {i + 1} {n - i} t\n" for i in range(n)))
    qrels = {"1": {"d0": 1, f"d{n - 1}": 1}}
    whole = rankmeter.evaluate(qrels, str(path), ["map", "ndcg"])
    streamed = rankmeter.evaluate_stream(qrels, str(path), ["map", "ndcg"], block_bytes=1 << 12)
    assert whole.aggregate == streamed.aggregate
    assert whole.aggregate["map"] == pytest.approx((1 + 2 / n) / 2)


_HOOK = r"""
import json, sys
opened = []
def hook(event, args):
    if event == "open" and args and isinstance(args[0], str):
        opened.append(args[0])
    elif event in ("os.listdir", "os.scandir", "glob.glob") and args:
        opened.append(str(args[0]))
sys.addaudithook(hook)
entry = sys.argv[1]
if entry == "rankmeter":
    from rankmeter.cli.main import main
    main(sys.argv[2:])
else:
    from rankmeter.cli.trec_eval import main
    main(sys.argv[2:])
print(json.dumps(opened), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["rankmeter", "evaluate", "q.txt", "r.txt", "-m", "map", "--per-query"],
        ["rankmeter", "evaluate", "q.txt.gz", "r.txt", "--stream", "--format", "json"],
        ["rankmeter", "evaluate", "q.txt", "runs", "-m", "ndcg@10"],
        ["trec_eval", "-q", "-m", "all_trec", "q.txt", "r.txt"],
    ],
    ids=["evaluate", "gz-stream", "directory", "trec_eval"],
)
def test_the_cli_reads_only_the_files_it_is_given(tmp_path: Path, argv: list[str]) -> None:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "q.txt.gz").write_bytes(gzip.compress(QRELS.encode()))
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.txt").write_text("1 Q0 b 1 2.0 t\n")
    (tmp_path / "secret.txt").write_text("not for rankmeter\n")
    done = subprocess.run([sys.executable, "-c", _HOOK, *argv], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    opened = json.loads(done.stderr.strip().splitlines()[-1])
    python = (sys.prefix, sys.base_prefix, str(Path(rankmeter.__file__).parent))
    ours = {p for p in opened if not p.startswith(python) and not p.endswith((".py", ".pyc", ".so"))}
    given = {a for a in argv if (tmp_path / a).exists()} | {"runs/a.txt", str(tmp_path / "runs" / "a.txt")}
    assert ours <= given, ours - given
    assert "secret.txt" not in " ".join(opened)
