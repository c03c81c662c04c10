"""Hostile inputs and outputs: line ends, byte order marks, pipes, devices, bombs, failing writes, odd locales.

Each test states the expected outcome: a correct result, or one located ``RankmeterError`` (on the
command line: one ``error:`` line and the status of docs/errors.md), never a hang, a traceback, a
silently dropped row or a lost file. Bombs run in a child process under an address-space limit
(``RLIMIT_AS``), so that a reader that expands one whole fails the test instead of the machine.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter.cli.main import main
from rankmeter.errors import InputFormatError, InvalidScoreError, PolicyError, RankmeterError
from rankmeter.io.intents import read_intent_qrels
from rankmeter.io.run_blocks import iter_run_chunks
from rankmeter.io.trec import read_qrels, read_run
from rankmeter.ndeval.readers import read_ndeval_qrels, read_ndeval_run
from rankmeter.trec_eval import readers as te_readers

QRELS = b"1 0 a 1\n1 0 b 1\n2 0 a 1\n"
RUN = b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 a 1 1 t\n"
BOM = b"\xef\xbb\xbf"
SRC = str(Path(rankmeter.__file__).resolve().parents[1])


def _write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def _one_error_line(err: str, command: str = "evaluate") -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"rankmeter {command}: error: "), err
    return lines[0]


def _child(code: str, *args: str, memory_mb: int | None = None, env: dict[str, str] | None = None, **kw):
    """Run ``code`` in a fresh interpreter (rankmeter importable), under an address-space limit if given."""

    def limit() -> None:  # pragma: no cover - runs in the child
        import resource

        if memory_mb is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))

    full_env = {**os.environ, "PYTHONPATH": SRC, "MALLOC_ARENA_MAX": "2", **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        env=full_env,
        preexec_fn=limit,
        timeout=kw.pop("timeout", 60),
        **kw,
    )


# ---------------------------------------------------------------- line ends


CR_RUN = RUN.replace(b"\n", b"\r")  # classic Mac OS line ends: one line to C's isspace


@pytest.mark.parametrize(
    "reader",
    [read_run, lambda p: te_readers.read_run(p), lambda p: te_readers.read_run(p, arrow_ids=True), read_ndeval_run],
    ids=["read_run", "trec_eval", "trec_eval-arrow", "ndeval"],
)
def test_cr_only_run_is_refused_at_line_1(tmp_path: Path, reader) -> None:
    path = _write(tmp_path, "cr.run", CR_RUN)
    args = (path, False) if reader is read_ndeval_run else (path,)
    with pytest.raises(InputFormatError, match=r"cr\.run:1: a carriage return \(\\r\) not followed by a line feed"):
        reader(*args)


@pytest.mark.parametrize("reader", [read_qrels, te_readers.read_qrels, read_intent_qrels, read_ndeval_qrels])
def test_cr_only_qrels_are_refused(tmp_path: Path, reader) -> None:
    path = _write(tmp_path, "cr.qrels", QRELS.replace(b"\n", b"\r"))
    with pytest.raises(InputFormatError, match=r"cr\.qrels:1: a carriage return"):
        reader(path)


def test_cr_only_run_refused_when_streamed(tmp_path: Path) -> None:
    path = _write(tmp_path, "cr.run", CR_RUN)
    for block in (1, 7, 64, 1 << 20):
        with pytest.raises(InputFormatError, match=r"cr\.run:1: a carriage return"):
            list(iter_run_chunks(path, block_bytes=block))


def test_mixed_cr_and_lf_names_the_line_of_the_lone_cr(tmp_path: Path) -> None:
    path = _write(tmp_path, "mixed.run", b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\r2 Q0 a 1 1 t\n")
    with pytest.raises(InputFormatError, match=r"mixed\.run:2: a carriage return .* in '1 Q0 b 2 2 t\\r2 Q0 a 1 1 t'"):
        read_run(path)


def test_crlf_mixed_with_lf_and_a_final_cr_are_line_ends(tmp_path: Path) -> None:
    """CRLF and LF may be mixed; a CR that ends the file ends its last line: the rows are those of the LF file."""
    plain = read_run(_write(tmp_path, "lf.run", RUN))
    for name, data in [
        ("mixed.run", b"1 Q0 a 1 3 t\r\n1 Q0 b 2 2 t\n2 Q0 a 1 1 t\r\n"),
        ("final-cr.run", RUN[:-1] + b"\r"),
    ]:
        run = read_run(_write(tmp_path, name, data))
        assert run.query_ids.tolist() == plain.query_ids.tolist() == ["1", "1", "2"]
        assert run.doc_ids.tolist() == plain.doc_ids.tolist()
        assert run.scores.tolist() == [3.0, 2.0, 1.0]


def test_cr_only_cli_evaluate_and_trec_eval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: exit 0, num_ret 1 and map 0.25 (evaluate), map 0.5 (trec_eval): two rows silently lost."""
    q = _write(tmp_path, "q.txt", QRELS)
    r = _write(tmp_path, "cr.run", CR_RUN)
    status, out, err = _cli(["evaluate", q, r, "-m", "map"], capsys)
    assert (status, out) == (1, "")
    assert "cr.run:1: a carriage return" in _one_error_line(err)
    status, out, err = _cli(["trec_eval", q, r], capsys)
    assert (status, out) == (2, "")
    assert "cr.run:1: a carriage return" in _one_error_line(err, "trec_eval")


# ---------------------------------------------------------------- byte order mark


def test_bom_is_skipped_by_whole_readers(tmp_path: Path) -> None:
    """The mark is not part of the first query id, on the columnar and the exact (comment line) paths alike."""
    for data in (BOM + RUN, BOM + b"# a comment\n" + RUN, BOM + RUN.replace(b" ", b"\t")):
        run = read_run(_write(tmp_path, "bom.run", data))
        assert run.query_ids.tolist() == ["1", "1", "2"]
        assert te_readers.read_run(str(tmp_path / "bom.run")).run.query_ids.tolist() == ["1", "1", "2"]
    assert read_qrels(_write(tmp_path, "bom.qrels", BOM + b"# c\n" + QRELS)).query_ids.tolist() == ["1", "1", "2"]
    intents = read_intent_qrels(_write(tmp_path, "bom.intents", BOM + b"1 1 a 1\n"))
    assert intents.query_ids.tolist() == ["1"]


@pytest.mark.parametrize("prefix", [b"", b"# comment\n"], ids=["rows", "comment-first"])
def test_bom_at_every_block_edge_when_streaming(tmp_path: Path, prefix: bytes) -> None:
    """Before: 45 of 259 block sizes raised "query '1' appears again after other queries"."""
    body = prefix + b"".join(f"1 Q0 d{i} {i} {100 - i} t\n".encode() for i in range(12)) + b"2 Q0 a 1 1 t\n"
    path = _write(tmp_path, "bom.run", BOM + body)
    whole = read_run(path)
    for block in range(1, len(body) + 8):
        chunks = [run for run, _ in iter_run_chunks(path, block_bytes=block)]
        assert [c.query_ids.tolist() for c in chunks] == [["1"] * 12, ["2"]], block
        assert sum((c.doc_ids.tolist() for c in chunks), []) == whole.doc_ids.tolist()
        assert [int(c.lines[0]) if c.lines is not None else 1 for c in chunks][-1] == len(prefix.split(b"\n")) + 12


# ---------------------------------------------------------------- pipes, devices, standard input


def _fifo_writer(path: str, data: bytes) -> threading.Thread:
    def write() -> None:
        with open(path, "wb") as fh:  # blocks until the reader opens the pipe
            fh.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_named_pipe_run_is_read_once(tmp_path: Path, stream: bool) -> None:
    """Before: a hang (the pipe opened, closed, opened again), and with --stream ``[Errno 29] Illegal seek``."""
    q = _write(tmp_path, "q.txt", QRELS)
    fifo = str(tmp_path / "run.fifo")
    os.mkfifo(fifo)
    code = """
        import sys, threading
        from rankmeter.cli.main import main
        fifo, data = sys.argv[1], sys.argv[2].encode()
        def write():
            with open(fifo, "wb") as fh:
                fh.write(data)
        threading.Thread(target=write, daemon=True).start()
        sys.exit(main(["evaluate", sys.argv[3], fifo, "-m", "map", "-m", "num_ret", "--format", "json", *sys.argv[4:]]))
    """
    extra = ["--stream"] if stream else []
    done = _child(code, fifo, RUN.decode(), q, *extra, timeout=30)
    assert done.returncode == 0, done.stderr
    aggregate = json.loads(done.stdout)["aggregate"]
    assert aggregate == {"map": 1.0, "num_ret": 3.0}


@pytest.mark.parametrize("kind", ["qrels", "trec_eval"])
def test_named_pipe_qrels_and_trec_eval(tmp_path: Path, kind: str) -> None:
    """Read on a thread that must finish within 10 s (before: the pipe was opened twice and the read hung)."""
    fifo = str(tmp_path / "in.fifo")
    os.mkfifo(fifo)
    writer = _fifo_writer(fifo, QRELS if kind == "qrels" else RUN)
    found: list[object] = []

    def read() -> None:
        if kind == "qrels":
            found.append(read_qrels(fifo).doc_ids.tolist())
        else:
            run = te_readers.read_run(fifo, arrow_ids=True)
            found.append((run.run.doc_ids.tolist(), run.runid))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    writer.join(1)
    assert not reader.is_alive() and not writer.is_alive()
    assert found == [["a", "b", "a"] if kind == "qrels" else (["a", "b", "a"], "t")]


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_devices_stop_at_the_first_chunk(device: str) -> None:
    """Before: read without limit until MemoryError. Now a NUL byte is reported from the first MiB read."""
    done = _child(
        """
        import sys
        from rankmeter.cli.main import main
        sys.exit(main(["evaluate", sys.argv[1], sys.argv[1], "-m", "map"]))
        """,
        device,
        memory_mb=1536,
        timeout=30,
    )
    assert done.returncode == 1, done.stderr
    line = _one_error_line(done.stderr)
    assert f"{device}:" in line and "a NUL byte" in line


def test_stdin_without_line_breaks_stops_at_the_line_limit(tmp_path: Path) -> None:
    q = _write(tmp_path, "q.txt", QRELS)
    done = _child(
        """
        import sys
        from rankmeter.cli.main import main
        sys.exit(main(["evaluate", sys.argv[1], "-", "-m", "map"]))
        """,
        q,
        input="x" * (3 << 20),
        memory_mb=1536,
    )
    assert done.returncode == 1, done.stderr  # a limit violation is bad input (LimitError)
    assert "<stdin>:1: line of" in _one_error_line(done.stderr) and "over the limit of 1048576 bytes" in done.stderr


def test_endless_valid_stdin_ends_with_one_out_of_memory_line(tmp_path: Path) -> None:
    """No limit stops valid lines that never end: the memory runs out, and that is one error line (exit 1)."""
    q = _write(tmp_path, "q.txt", QRELS)
    done = _child(
        """
        import sys, io, itertools
        from rankmeter.cli.main import main
        class Endless(io.RawIOBase):
            line = b"1 Q0 d 1 1 t\\n" * 4096
            def readable(self):
                return True
            def readinto(self, buffer):
                n = min(len(buffer), len(self.line))
                buffer[:n] = self.line[:n]
                return n
        sys.stdin = io.TextIOWrapper(io.BufferedReader(Endless()))
        sys.exit(main(["evaluate", sys.argv[1], "-", "-m", "map"]))
        """,
        q,
        memory_mb=700,
        timeout=90,
    )
    assert done.returncode == 1, done.stderr
    assert "out of memory" in _one_error_line(done.stderr)


@pytest.mark.parametrize("codec", ["bz2", "lzma", "zlib"])
def test_compressed_formats_rankmeter_does_not_read_are_located_errors(tmp_path: Path, codec: str) -> None:
    """Only ``.gz`` is decompressed: a bzip2, xz or zlib run is binary text, refused with the file and the line
    of its first problem (a NUL byte, a line too long or a field that is no number), read whole or streamed."""
    import importlib

    data = importlib.import_module(codec).compress(RUN * 10_000)
    path = _write(tmp_path, f"run.{codec}", data)
    with pytest.raises(RankmeterError, match=rf"run\.{codec}:\d+: "):
        read_run(path)
    with pytest.raises(RankmeterError, match=rf"run\.{codec}:\d+: "):  # the first bad line of the first block
        list(iter_run_chunks(path, block_bytes=64))


# ---------------------------------------------------------------- formats whatever their size


def _table_files(tmp_path: Path) -> dict[str, str]:
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    rows = [(f"q{q}", f"d{d}", float((q * 7 + d) % 5)) for q in range(30) for d in range(20)]
    table = pa.table({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], "score": [r[2] for r in rows]})
    paths = {}
    for fmt in ("csv", "tsv", "parquet", "feather", "csv.gz"):
        path = tmp_path / f"run.{fmt}"
        if fmt == "parquet":
            pq.write_table(table, path)
        elif fmt == "feather":
            feather.write_feather(table, path)
        else:
            buf = io.BytesIO()
            pcsv.write_csv(table, buf, pcsv.WriteOptions(delimiter="\t" if fmt == "tsv" else ","))
            data = buf.getvalue()
            path.write_bytes(gzip.compress(data) if fmt.endswith(".gz") else data)
        paths[fmt] = str(path)
    return paths


def test_tables_are_never_streamed_as_trec_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: a table file over 8 MiB was streamed as TREC text (header line, NUL bytes: errors)."""
    qrels = {f"q{q}": {f"d{d}": 1 for d in range(0, 20, 3)} for q in range(30)}
    paths = _table_files(tmp_path)
    small = {fmt: rankmeter.evaluate(qrels, path, ["map", "ndcg@5"]).aggregate for fmt, path in paths.items()}
    monkeypatch.setattr(rankmeter.io.load, "BLOCK_BYTES", 64)  # every file is now "large"
    for fmt, path in paths.items():
        assert rankmeter.evaluate(qrels, path, ["map", "ndcg@5"]).aggregate == small[fmt] == small["csv"], fmt


def test_streaming_a_table_is_refused_by_name(tmp_path: Path) -> None:
    path = _table_files(tmp_path)["parquet"]
    with pytest.raises(PolicyError, match=r"run\.parquet: a parquet table, not a TREC text run"):
        rankmeter.evaluate_stream({"q0": {"d0": 1}}, path, "map")


def test_csv_header_that_is_not_utf8(tmp_path: Path) -> None:
    """Found by the csv_tables fuzz target: a bare UnicodeDecodeError from pyarrow's column names."""
    path = _write(tmp_path, "run.csv", b"\x80\n")
    with pytest.raises(
        InputFormatError, match=r"run\.csv:1: the header is not UTF-8 text \(invalid start byte at byte 0\)"
    ):
        rankmeter.evaluate({"q": {"d": 1}}, path, "map")


# ---------------------------------------------------------------- intent qrels


def test_intent_qrels_long_line_and_truncated_gzip(tmp_path: Path) -> None:
    """Before: a bare MemoryError (100 MB line) and a bare EOFError (truncated .gz)."""
    long = _write(tmp_path, "long.txt", b"1 1 a 1\n1 1 " + b"x" * (2 << 20) + b" 1\n")
    with pytest.raises(PolicyError, match=r"long\.txt:2: line of \d+ bytes or more, over the limit of 1048576"):
        read_intent_qrels(long)
    cut = _write(tmp_path, "cut.txt.gz", gzip.compress(b"1 1 a 1\n" * 1000)[:40])
    with pytest.raises(InputFormatError, match=r"cut\.txt\.gz: cannot read file: corrupt or truncated gzip data"):
        read_intent_qrels(cut)


def test_intent_grades_are_ascii_decimals(tmp_path: Path) -> None:
    """As every other file reader: Python's float() would read '1_0' as 10 and Arabic-Indic digits as numbers."""
    for grade in ("1_0", "\u0661"):
        path = _write(tmp_path, "intents.txt", f"1 1 a {grade}\n".encode())
        with pytest.raises(
            InvalidScoreError, match=rf"intents\.txt:1: query '1', intent '1', document 'a': grade '{grade}'"
        ):
            read_intent_qrels(path)


@pytest.mark.parametrize(
    "argv",
    [
        ["ndeval", "cut.qrels.gz", "one.run"],
        ["evaluate", "q.txt", "cut.run.gz"],
        ["evaluate", "q.txt", "cut.run.gz", "--stream"],
        ["trec_eval", "q.txt", "cut.run.gz"],
    ],
    ids=["ndeval", "evaluate", "stream", "trec_eval"],
)
def test_truncated_gzip_is_one_error_line_on_every_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """gzip's EOFError never reaches the user: one ``error:`` line naming the file, status 1 (2 in the trec_eval drop-in)."""
    monkeypatch.chdir(tmp_path)
    _files(
        **{
            "q.txt": QRELS,
            "one.run": b"1 Q0 a 1 1 t\n",
            "cut.qrels.gz": gzip.compress(b"1 1 a 1\n" * 1000)[:40],
            "cut.run.gz": gzip.compress(RUN * 1000)[:40],
        }
    )
    status, out, err = _cli(argv, capsys)
    assert (status, out) == (2 if argv[0] == "trec_eval" else 1, "")
    file = "cut.qrels.gz" if argv[0] == "ndeval" else "cut.run.gz"
    assert _one_error_line(err, argv[0]) == (
        f"rankmeter {argv[0]}: error: {file}: cannot read file: corrupt or truncated gzip data "
        "(Compressed file ended before the end-of-stream marker was reached)"
    )


# ---------------------------------------------------------------- huge result requests


def test_huge_cutoff_list_is_refused_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ndcg@[1..20000] over 10^6 queries tried to allocate 47.5 GiB. The check needs the query count only."""
    q = _write(tmp_path, "q.txt", b"".join(f"{i} 0 d 1\n".encode() for i in range(2000)))
    r = _write(tmp_path, "r.txt", b"".join(f"{i} Q0 d 1 1 t\n".encode() for i in range(2000)))
    cutoffs = ",".join(map(str, range(1, 20001)))
    os.environ["RANKMETER_MAX_RESULT_BYTES"] = str(256 << 20)
    try:
        status, out, err = _cli(["evaluate", q, r, "-m", f"ndcg@[{cutoffs}]"], capsys)
    finally:
        del os.environ["RANKMETER_MAX_RESULT_BYTES"]
    assert (status, out) == (2, "")
    line = _one_error_line(err)
    assert "measures give 20000 values per query" in line and "for 2000 queries: about 686.6 MiB" in line
    assert 20000 * 2000 * 18 / 2**20 == pytest.approx(686.6, abs=0.05)


# ---------------------------------------------------------------- bombs under a memory limit


def _gz_members(line: bytes, expanded: int) -> bytes:
    """A multi-member gzip file of ``line`` repeated to ``expanded`` bytes (one compressed MiB, repeated)."""
    chunk = line * ((1 << 20) // len(line))
    member = gzip.compress(chunk, compresslevel=9, mtime=0)
    return member * (expanded // len(chunk))


@pytest.fixture(scope="module")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """file name -> path; each expands to 256 MiB or more from a few hundred KiB (big.run.gz: 8.5 MB on disk)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp_path = tmp_path_factory.mktemp("bombs")
    run_gz = _gz_members(b"1 Q0 a 1 1 t\n", 256 << 20)
    files = {
        "run.gz": run_gz,
        "big.run.gz": run_gz * 16,  # over 8 MiB on disk: evaluate streams it
        "qrels.gz": _gz_members(b"1 0 a 1\n", 256 << 20),
        "run.csv.gz": gzip.compress(b"query_id,doc_id,score\n") + _gz_members(b"1,a,1\n", 256 << 20),
        "intents.gz": _gz_members(b"1 1 a 1\n", 256 << 20),
    }
    paths = {name: _write(tmp_path, name, data) for name, data in files.items()}
    rows = 1 << 20
    batch = pa.record_batch(
        {"query_id": pa.array(["1"] * rows), "doc_id": pa.array(["a"] * rows), "score": np.ones(rows)}
    )
    paths["run.parquet"] = str(tmp_path / "run.parquet")
    with pq.ParquetWriter(paths["run.parquet"], batch.schema, compression="zstd") as writer:
        for _ in range(24):
            writer.write_batch(batch)
    paths["run.feather"] = str(tmp_path / "run.feather")
    coded = pa.record_batch(
        [batch.column(0).dictionary_encode(), batch.column(1).dictionary_encode(), batch.column(2)],
        names=batch.schema.names,
    )  # (zstd shrinks constant codes; increasing offsets much less)
    with pa.ipc.new_file(paths["run.feather"], coded.schema, options=pa.ipc.IpcWriteOptions(compression="zstd")) as out:
        for _ in range(24):
            out.write_batch(coded)
    return paths


BOMB_CASES = {
    # name: (file, call, expected error class, message fragment)
    "trec run .gz read whole": ("run.gz", "evaluate", "LimitError", "expands to more than"),
    "trec qrels .gz read whole": ("qrels.gz", "qrels", "LimitError", "expands to more than"),
    "trec run .gz streamed (duplicate when read)": ("run.gz", "stream", "DuplicateEntryError", "run.gz:2: query '1'"),
    "trec run .gz over 8 MiB, evaluate": ("big.run.gz", "evaluate", "DuplicateEntryError", "big.run.gz:2: query"),
    "trec run .gz streamed, duplicates=first": ("run.gz", "stream-first", "LimitError", "holds more than"),
    "trec_eval drop-in .gz": ("run.gz", "trec_eval", "LimitError", "expands to more than"),
    "csv.gz": ("run.csv.gz", "evaluate", "LimitError", "expands to more than"),
    "parquet": ("run.parquet", "evaluate", "LimitError", "bytes in memory, 200 times its size"),
    "feather": ("run.feather", "evaluate", "LimitError", "bytes in memory, 200 times its size"),
    "intent qrels .gz": ("intents.gz", "intents", "LimitError", "expands to more than"),
}

_BOMB_CHILD = """
    import json, sys, time
    import rankmeter
    from rankmeter.io.intents import read_intent_qrels
    from rankmeter.io.trec import read_qrels
    from rankmeter.trec_eval.readers import read_run
    qrels = {"1": {"a": 1}}
    calls = {
        "evaluate": lambda p: rankmeter.evaluate(qrels, p, "map"),
        "stream": lambda p: rankmeter.evaluate_stream(qrels, p, "map"),
        "stream-first": lambda p: rankmeter.evaluate_stream(qrels, p, "map", duplicates="first"),
        "qrels": read_qrels,
        "trec_eval": lambda p: read_run(p),
        "intents": read_intent_qrels,
    }
    start = time.perf_counter()
    try:
        calls[sys.argv[2]](sys.argv[1])
        print(json.dumps(["no error", "", 0.0]))
    except Exception as exc:
        print(json.dumps([type(exc).__name__, str(exc)[:300], time.perf_counter() - start]))
"""


@pytest.mark.parametrize("case", BOMB_CASES)
def test_bomb_stops_with_a_located_error_under_a_memory_limit(bombs: dict[str, str], case: str) -> None:
    """Every compressed format, every mode: a PolicyError (or the repeated document, seen first) naming the file,
    in a child limited to 2 GiB of address space. Before, these needed from 2 GB (the .gz over 8 MiB, past the
    ratio limit) to 13-24 GB (.csv.gz, one streamed query) of memory."""
    file, call, error, fragment = BOMB_CASES[case]
    done = _child(_BOMB_CHILD, bombs[file], call, memory_mb=2048, env={"RANKMETER_MAX_QUERY_BYTES": str(32 << 20)})
    assert done.returncode == 0, done.stderr
    kind, message, _seconds = json.loads(done.stdout)
    assert kind == error, (kind, message)
    assert fragment in message and bombs[file] in message, message


# ---------------------------------------------------------------- writers


def _old_file(tmp_path: Path) -> Path:
    path = tmp_path / "out.csv"
    path.write_text("old content that must survive\n")
    return path


def test_failed_write_keeps_the_old_file_and_names_the_path(tmp_path: Path) -> None:
    """Before: -o truncated the file first; EFBIG left a valid-looking partial CSV and ``[Errno 27] File too large``."""
    q = _write(tmp_path, "q.txt", b"".join(f"q{i} 0 d 1\n".encode() for i in range(3000)))
    r = _write(tmp_path, "r.txt", b"".join(f"q{i} Q0 d 1 1 t\n".encode() for i in range(3000)))
    out = _old_file(tmp_path)
    code = """
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        from rankmeter.cli.main import main
        sys.exit(main(sys.argv[1:]))
    """
    done = _child(code, "evaluate", q, r, "-m", "ndcg", "--per-query", "--format", "csv", "-o", str(out))
    assert done.returncode == 1, done.stderr
    assert _one_error_line(done.stderr) == f"rankmeter evaluate: error: {out}: cannot write file: File too large"
    assert out.read_text() == "old content that must survive\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "q.txt", "r.txt"]  # no temporary file left


def test_library_writers_are_atomic_and_name_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = rankmeter.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, "map")
    out = _old_file(tmp_path)

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="cannot write file: No space left on device") as info:
        result.to_csv(out)
    assert info.value.filename == str(out)
    assert out.read_text() == "old content that must survive\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_no_option_creates_directories(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``compare --plot /nonexistent/x.png`` created the directories, ``evaluate -o`` refused."""
    q = _write(tmp_path, "q.txt", QRELS)
    a = _write(tmp_path, "a.run", RUN)
    b = _write(tmp_path, "b.run", RUN.replace(b"3 t", b"0 t"))
    missing = tmp_path / "missing" / "deeper"
    for argv, command in [
        (["evaluate", q, a, "-m", "map", "-o", str(missing / "x.csv")], "evaluate"),
        (["compare", q, a, b, "-m", "map", "--plot", str(missing / "x.png")], "compare"),
        (["report", q, a, b, "-m", "map", "-o", str(missing / "x.html"), "--n-resamples", "100"], "report"),
    ]:
        status, _, err = _cli(argv, capsys)
        assert status == 1, err
        line = _one_error_line(err, command)
        assert f"cannot write file: directory '{missing}' does not exist (rankmeter creates no directories)" in line
        assert not (tmp_path / "missing").exists()
    with pytest.raises(FileNotFoundError, match="rankmeter creates no directories"):
        rankmeter.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, "map").to_json(missing / "x.json")


def test_non_utf8_locale_writes_utf8_files_and_ascii_tables(tmp_path: Path) -> None:
    """Before: UnicodeEncodeError on the table border, and on -o an old file left at 0 bytes."""
    q = _write(tmp_path, "q.txt", "caf\u00e9 0 d 1\n".encode())
    r = _write(tmp_path, "r.txt", "caf\u00e9 Q0 d 1 1 t\n".encode())
    out = _old_file(tmp_path)
    env = {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
    code = "import sys\nfrom rankmeter.cli.main import main\nsys.exit(main(sys.argv[1:]))"
    table = _child(code, "evaluate", q, r, "-m", "map", "--per-query", env=env)
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[:3] == [" query   |    map ", "=========+========", " caf\\xe9 | 1.0000 "]
    drop_in = _child(code, "trec_eval", "-q", "-m", "map", q, r, env=env)
    assert drop_in.returncode == 0, drop_in.stderr
    assert drop_in.stdout.splitlines()[0].split() == ["map", "caf\\xe9", "1.0000"]
    written = _child(code, "evaluate", q, r, "-m", "map", "--format", "csv", "-o", str(out), env=env)
    assert written.returncode == 0, written.stderr
    assert out.read_bytes() == "query_id,measure,value\ncaf\u00e9,map,1.0\nall,map,1.0\n".encode()


def test_ids_with_invalid_utf8_are_written_back_as_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: read, then ``surrogates not allowed`` from ``-o`` (and the old file emptied). Now the bytes round-trip."""
    q = _write(tmp_path, "q.txt", b"q\xff 0 d 1\n")
    r = _write(tmp_path, "r.txt", b"q\xff Q0 d 1 1 t\n")
    out = tmp_path / "out.csv"
    status, _, err = _cli(["evaluate", q, r, "-m", "map", "--format", "csv", "-o", str(out)], capsys)
    assert status == 0, err
    assert out.read_bytes() == b"query_id,measure,value\nq\xff,map,1.0\nall,map,1.0\n"
    status, _, err = _cli(["evaluate", q, r, "-m", "map", "--format", "json", "-o", str(out)], capsys)
    assert status == 0, err
    assert json.loads(out.read_bytes())["per_query"][0]["query_id"] == "q\udcff"


# ---------------------------------------------------------------- the table of docs/errors.md

PAGE = Path(__file__).resolve().parents[2] / "docs" / "errors.md"
TABLE_BEGIN, TABLE_END = "<!-- hostile-io: begin -->", "<!-- hostile-io: end -->"


def _files(**files: bytes) -> None:
    for name, data in files.items():
        Path(name).write_bytes(data)


def _case_cr() -> list[str]:
    _files(**{"q.txt": QRELS, "cr.run": CR_RUN})
    return ["evaluate", "q.txt", "cr.run"]


def _case_mixed() -> list[str]:
    _files(**{"q.txt": QRELS, "mixed.run": b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\r2 Q0 a 1 1 t\n"})
    return ["evaluate", "q.txt", "mixed.run"]


def _case_cr_trec_eval() -> list[str]:
    _files(**{"q.txt": QRELS, "cr.run": CR_RUN})
    return ["trec_eval", "q.txt", "cr.run"]


def _case_zero() -> list[str]:
    _files(**{"q.txt": QRELS})
    return ["evaluate", "q.txt", "/dev/zero", "-m", "map"]


def _case_long_line_streamed() -> list[str]:
    _files(**{"q.txt": QRELS, "long.run": b"1 Q0 " + b"x" * (2 << 20) + b" 1 1 t\n"})
    return ["evaluate", "q.txt", "long.run", "--stream"]


def _case_stream_table() -> list[str]:
    _files(**{"q.txt": QRELS, "run.parquet": b"PAR1"})
    return ["evaluate", "q.txt", "run.parquet", "--stream"]


def _case_gz_whole() -> list[str]:
    _files(**{"q.txt": QRELS, "run.gz": _gz_members(b"1 Q0 a 1 1 t\n", 80 << 20)})
    return ["evaluate", "q.txt", "run.gz"]


def _case_gz_streamed() -> list[str]:
    _files(**{"q.txt": QRELS, "run.gz": _gz_members(b"1 Q0 a 1 1 t\n", 80 << 20)})
    return ["evaluate", "q.txt", "run.gz", "--stream"]


def _case_query_cap() -> list[str]:
    lines = b"".join(f"1 Q0 d{i} 1 1 t\n".encode() for i in range(100_000))
    _files(**{"q.txt": QRELS, "big.run": lines})
    os.environ["RANKMETER_MAX_QUERY_BYTES"] = str(1 << 20)
    return ["evaluate", "q.txt", "big.run", "--stream", "--block-mb", "1"]


def _case_cutoffs() -> list[str]:
    _files(
        **{
            "q.txt": b"".join(f"{i} 0 d 1\n".encode() for i in range(2000)),
            "r.txt": b"".join(f"{i} Q0 d 1 1 t\n".encode() for i in range(2000)),
        }
    )
    os.environ["RANKMETER_MAX_RESULT_BYTES"] = str(256 << 20)
    return ["evaluate", "q.txt", "r.txt", "-m", "ndcg@[" + ",".join(map(str, range(1, 20001))) + "]"]


def _case_output_dir() -> list[str]:
    _files(**{"q.txt": QRELS, "r.run": RUN})
    return ["evaluate", "q.txt", "r.run", "-o", "missing/out.csv"]


def _case_plot_dir() -> list[str]:
    _files(**{"q.txt": QRELS, "a.run": RUN, "b.run": RUN})
    return ["compare", "q.txt", "a.run", "b.run", "-m", "map", "--plot", "missing/x.png"]


DOC_CASES = {
    "run with CR-only line ends (`\\r`)": _case_cr,
    "run mixing `\\n` and one lone `\\r`": _case_mixed,
    "CR-only run in the trec_eval drop-in": _case_cr_trec_eval,
    "`/dev/zero` (or `/dev/urandom`) as the run": _case_zero,
    "a line of 2 MiB, streamed (the same from a pipe or stdin)": _case_long_line_streamed,
    "`--stream` on a Parquet (CSV, TSV, Feather) run": _case_stream_table,
    "a run `.gz` of one repeated line expanding past 64 MiB, read whole": _case_gz_whole,
    "the same `.gz` with `--stream` (or over 8 MiB on disk)": _case_gz_streamed,
    "`--stream`, one query over `RANKMETER_MAX_QUERY_BYTES` (here 1 MiB)": _case_query_cap,
    "`ndcg@[1,...,20000]` over 2,000 queries, `RANKMETER_MAX_RESULT_BYTES` 256 MiB": _case_cutoffs,
    "`-o` into a directory that does not exist": _case_output_dir,
    "`--plot` into a directory that does not exist": _case_plot_dir,
}


def doc_rows(tmp_path: Path) -> list[str]:
    """The rows of the page's table: each case run in a folder of its own under ``tmp_path``."""
    import contextlib

    rows = []
    for label, build in DOC_CASES.items():
        folder = tmp_path / f"case{len(rows)}"
        folder.mkdir()
        saved = dict(os.environ)
        old = os.getcwd()
        os.chdir(folder)
        try:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(build())
        finally:
            os.chdir(old)
            os.environ.clear()
            os.environ.update(saved)
        command = "trec_eval" if "trec_eval" in label else ("compare" if "--plot" in label else "evaluate")
        line = _one_error_line(err.getvalue(), command)
        message = line if len(line) <= 240 else line[:237] + "..."
        rows.append(f"| {label} | `{message.replace('|', chr(92) + '|')}` | {status} |")
    return rows


def test_docs_table_of_hostile_inputs_is_what_the_commands_print(tmp_path: Path) -> None:
    """Each row of the table in docs/errors.md (between the hostile-io markers) is run: message and status."""
    text = PAGE.read_text(encoding="utf-8")
    shown = text[text.index(TABLE_BEGIN) + len(TABLE_BEGIN) : text.index(TABLE_END)].strip().splitlines()[2:]
    expected = doc_rows(tmp_path)
    assert shown == expected, "\n".join(expected)


if __name__ == "__main__":  # pragma: no cover - prints the rows for the page
    import tempfile

    print("\n".join(doc_rows(Path(tempfile.mkdtemp()))))
