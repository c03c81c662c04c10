"""Fuzz targets: functions of one ``bytes`` input whose only allowed outcomes are a correct result or a RankmeterError.

Each target raises :class:`Finding` (or lets any other exception through) when rankmeter does something
else: a Python exception that is not a :class:`~rankmeter.errors.RankmeterError`, a value that differs from
an independent reference reader, or a command line that prints a traceback or more than one error line.
The same functions are driven by Hypothesis in ``tests/fuzz/test_fuzz.py`` (a bounded time in CI) and by
atheris in ``fuzz/campaign.py`` (the long, coverage-guided campaign; see docs/errors.md).
"""

from __future__ import annotations

import atexit
import contextlib
import gzip
import io
import math
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rankmeter.errors import RankmeterError


class Finding(AssertionError):
    """rankmeter did something other than a correct result or a RankmeterError."""


_WORKDIR = Path(tempfile.mkdtemp(prefix="rankmeter-fuzz-"))
atexit.register(shutil.rmtree, _WORKDIR, True)
_FIELDS = re.compile(rb"[^ \t\n\r\f\v]+")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
_BOM = b"\xef\xbb\xbf"
_LONE_CR = re.compile(rb"\r(?=[^\n])")


def _write(name: str, data: bytes) -> str:
    path = _WORKDIR / name
    path.write_bytes(data)
    return str(path)


def reference_table(data: bytes, n_columns: int, exact: bool, value_col: int) -> list[tuple[str, str, float]] | None:
    """An independent reader of TREC text: (query, document, value) rows, or None where the input is invalid.

    Lines starting with ``#`` and blank lines are skipped; fields are separated by ASCII whitespace; the
    value is an ASCII decimal number that must be finite; a NUL byte anywhere is an error, and so is a
    carriage return that neither precedes a line feed nor ends the data; a UTF-8 byte order mark at the
    start is not part of the first line.
    """
    data = data[3:] if data.startswith(_BOM) else data
    if b"\x00" in data or _LONE_CR.search(data):
        return None
    rows: list[tuple[str, str, float]] = []
    for line in data.split(b"\n"):
        if line.startswith(b"#"):
            continue
        fields = _FIELDS.findall(line)
        if not fields:
            continue
        if len(fields) < n_columns or (exact and len(fields) > n_columns):
            return None
        text = [f.decode("utf-8", "surrogateescape") for f in fields]
        value_text = text[value_col]
        if not _NUMBER.match(value_text):
            return None
        value = float(value_text)
        if not math.isfinite(value):
            return None
        rows.append((text[0], text[2], value))
    return rows or None


def _rows(table: object) -> list[tuple[str, str, float]]:
    from rankmeter.ids.column import id_at

    values = table.relevance if hasattr(table, "relevance") else table.scores  # type: ignore[attr-defined]
    return [
        (id_at(table.query_ids, i), id_at(table.doc_ids, i), float(values[i]))  # type: ignore[attr-defined]
        for i in range(len(values))
    ]


def _agree(what: str, data: bytes, got: list[tuple[str, str, float]] | None, want: object) -> None:
    if got != want:
        raise Finding(f"{what}: read {got!r:.300} but the reference reads {want!r:.300} from {data!r:.300}")


def _outcome(fn: Callable[[], object]) -> tuple[object, RankmeterError | None]:
    try:
        return fn(), None
    except RankmeterError as exc:
        _check_message(exc)
        return None, exc


def _check_message(exc: RankmeterError) -> None:
    text = str(exc)
    if not text.strip():
        raise Finding(f"{type(exc).__name__} with an empty message")


def _compressions(data: bytes) -> list[tuple[str, bytes]]:
    """The input as a plain file, gzip-compressed, truncated gzip, and its raw bytes named ``.gz``."""
    packed = gzip.compress(data, mtime=0)
    return [
        ("plain.txt", data),
        ("packed.gz", packed),
        ("cut.gz", packed[: max(len(packed) // 2, 1)]),
        ("raw.gz", data),
    ]


def trec_qrels(data: bytes) -> None:
    """rankmeter.io.trec.read_qrels on the bytes (plain, .gz, truncated .gz) against the reference reader."""
    from rankmeter.io import trec

    want = reference_table(data, 4, True, 3)
    for name, content in _compressions(data):
        got, err = _outcome(lambda n=name, c=content: _rows(trec.read_qrels(_write(n, c))))  # type: ignore[misc]
        if name in ("plain.txt", "packed.gz"):
            _agree(f"read_qrels({name})", data, got if err is None else None, want)  # type: ignore[arg-type]


def trec_run(data: bytes) -> None:
    """read_run whole (plain, .gz) and in blocks of whole queries, against the reference reader."""
    from rankmeter.io import trec
    from rankmeter.io.run_blocks import iter_run_chunks

    want = reference_table(data, 6, False, 4)
    for name, content in _compressions(data):
        got, err = _outcome(lambda n=name, c=content: _rows(trec.read_run(_write(n, c))))  # type: ignore[misc]
        if name in ("plain.txt", "packed.gz"):
            _agree(f"read_run({name})", data, got if err is None else None, want)  # type: ignore[arg-type]
    path = _write("blocks.txt", data)
    for block in (7, 64):
        got, err = _outcome(lambda b=block: [r for run, _ in iter_run_chunks(path, block_bytes=b) for r in _rows(run)])  # type: ignore[misc]
        if err is None:
            _agree(f"iter_run_chunks(block_bytes={block})", data, got, want)  # type: ignore[arg-type]
        elif want is not None and type(err).__name__ != "QueryOrderError":
            raise Finding(f"iter_run_chunks(block_bytes={block}) raised {err!r} on valid input {data!r:.300}")


def trec_eval_readers(data: bytes) -> None:
    """The trec_eval drop-in's qrels and run readers (both run paths) against the reference (grades: C atol)."""
    from rankmeter.trec_eval import readers

    path = _write("te.txt", data)
    want_run = reference_table(data, 6, False, 4)
    for arrow_ids in (False, True):
        got, err = _outcome(lambda a=arrow_ids: _rows(readers.read_run(path, arrow_ids=a).run))  # type: ignore[misc]
        _agree(f"trec_eval read_run(arrow_ids={arrow_ids})", data, got if err is None else None, want_run)  # type: ignore[arg-type]
    want_qrels = reference_table(data, 4, True, 3)
    got, err = _outcome(lambda: _rows(readers.read_qrels(path)))
    if want_qrels is not None and err is not None:
        raise Finding(f"trec_eval read_qrels raised {err!r} on valid input {data!r:.300}")
    if err is None and want_qrels is not None:
        from rankmeter.trec_eval.cnum import atol

        trunc = [(q, d, float(atol(t))) for (q, d, _), t in zip(want_qrels, _value_texts(data, 3), strict=True)]
        _agree("trec_eval read_qrels", data, got, trunc)  # type: ignore[arg-type]
    _outcome(lambda: readers.read_zscores(path))


def _value_texts(data: bytes, col: int) -> list[str]:
    out = []
    for line in data.split(b"\n"):
        fields = _FIELDS.findall(line)
        if fields and not line.startswith(b"#"):
            out.append(fields[col].decode("utf-8", "surrogateescape"))
    return out


def prefs_jg(data: bytes) -> None:
    """The prefs (5 columns), qrels_prefs (4) and qrels_jg readers of the trec_eval drop-in."""
    from rankmeter.trec_eval.judgment_groups import read_qrels_jg
    from rankmeter.trec_eval.prefs import read_prefs

    path = _write("prefs.txt", data)
    _outcome(lambda: read_prefs(path, False))
    _outcome(lambda: read_prefs(path, True))
    _outcome(lambda: read_qrels_jg(path))


def grammar(data: bytes) -> None:
    """rankmeter.parse: a RankmeterError, or a measure whose canonical name parses back to itself."""
    import rankmeter

    text = data.decode("utf-8", "replace")
    m, err = _outcome(lambda: rankmeter.parse(text))
    if err is None:
        again, err2 = _outcome(lambda: rankmeter.parse(str(m)))
        if err2 is not None or again != m:
            raise Finding(f"parse({text!r}) = {m!r} but parse(str(...)) gives {again!r} / {err2!r}")
    from rankmeter.trec_eval.measures import resolve

    _outcome(lambda: resolve([text]))


_SCALARS: list[object] = [
    0,
    1,
    -1,
    2,
    0.5,
    -0.0,
    1e309,
    float("nan"),
    float("inf"),
    "1",
    "x",
    "",
    None,
    True,
    b"\x00",
    10**30,
    "0x10",
    "1e309",
    [],
    {},
    np.float32(1.5),
    np.int64(3),
    "1_0",
    "\u0661\u0660",
    " 5 ",
    10**400,
    1 + 2j,
    "2.5",
]


def _values_from(data: bytes) -> list[object]:
    """Values picked by the bytes; a fresh list or dict each time, so that no input changes the next one."""
    out = [_SCALARS[b % len(_SCALARS)] for b in data]
    return [type(v)() if isinstance(v, list | dict) else v for v in out]


def dicts(data: bytes) -> None:
    """evaluate on dict-of-dicts built from the bytes (odd keys and values); agrees with a float() reference."""
    import rankmeter

    qrels: dict[object, object] = {}
    run: dict[object, object] = {}
    keys: list[object] = ["q", "d", "", "\x00", "é", 1, 1.0, None, ("t",), "a,b", "\t"]
    for i in range(0, len(data) - 2, 3):
        q, d, v = keys[data[i] % len(keys)], keys[data[i + 1] % len(keys)], _values_from(data[i + 2 : i + 3])[0]
        target = qrels if data[i] & 0x80 else run
        inner = target.setdefault(q, {})
        if isinstance(inner, dict):
            inner[d] = v
        if data[i + 1] & 0x80:
            target[q] = v  # not a dict: must be reported
    _outcome(lambda: rankmeter.evaluate(qrels, run, ["ndcg@3", "map", "p@2"]))


def frames(data: bytes) -> None:
    """evaluate on pandas, polars and Arrow frames whose columns take odd dtypes (nullable, categorical, decimal)."""
    import decimal

    import pandas as pd

    import rankmeter

    n = max(len(data) // 4, 0)
    if n == 0:
        _outcome(
            lambda: rankmeter.evaluate(
                pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []}),
                pd.DataFrame({"query_id": [], "doc_id": [], "score": []}),
                "ndcg",
            )
        )
        return
    raw = np.frombuffer(data[: 4 * n], dtype=np.uint8).reshape(n, 4)
    kind = int(data[0]) % 8
    qid = pd.Series([f"q{x % 3}" for x in raw[:, 0]])
    did = pd.Series([f"d{x % 5}" for x in raw[:, 1]])
    val = pd.Series(raw[:, 2].astype(float) - 128)
    if kind == 0:
        val = val.astype("Int64").mask(raw[:, 3] % 7 == 0)
    elif kind == 1:
        qid = qid.astype("category")
    elif kind == 2:
        val = pd.Series([decimal.Decimal(int(x)) for x in raw[:, 2]], dtype=object)
    elif kind == 3:
        val = val.astype("Float64").mask(raw[:, 3] % 5 == 0)
    elif kind == 4:
        did = pd.Series([int(x) for x in raw[:, 1]])
    elif kind == 5:
        qid = qid.astype("string").mask(raw[:, 3] % 9 == 0)
    elif kind == 6:
        val = pd.Series([str(x) for x in raw[:, 2]], dtype=object)
    run = pd.DataFrame({"query_id": qid, "doc_id": did, "score": val})
    qrels = pd.DataFrame({"query_id": qid, "doc_id": did, "relevance": (raw[:, 3] % 3).astype(float)})
    qrels = qrels.drop_duplicates(["query_id", "doc_id"])
    run = run.drop_duplicates(["query_id", "doc_id"]) if data[-1] & 1 else run
    res, err = _outcome(lambda: rankmeter.evaluate(qrels, run, ["ndcg@3", "map"]).aggregate)
    if err is None and kind not in (2, 6):
        import polars as pl
        import pyarrow as pa

        for other in (pl.from_pandas(run), pa.Table.from_pandas(run, preserve_index=False)):
            res2, err2 = _outcome(lambda o=other: rankmeter.evaluate(qrels, o, ["ndcg@3", "map"]).aggregate)  # type: ignore[misc]
            if err2 is None and not _close(res, res2):
                raise Finding(f"{type(other).__name__} gives {res2} where pandas gives {res}")


def _close(a: object, b: object) -> bool:
    if not isinstance(a, dict) or not isinstance(b, dict) or a.keys() != b.keys():
        return False
    return all(math.isclose(a[k], b[k], rel_tol=1e-12, abs_tol=1e-12) or (a[k] != a[k] and b[k] != b[k]) for k in a)


_QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n"
_RUN = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n"
_CLI_WORDS = [
    "evaluate",
    "compare",
    "measures",
    "trec_eval",
    "retrieval",
    "-m",
    "--measure",
    "--ties",
    "trec",
    "expected",
    "--depth",
    "--stream",
    "--block-mb",
    "--threads",
    "--ci",
    "--format",
    "json",
    "csv",
    "table",
    "--digits",
    "--per-query",
    "--judged-only",
    "--empty",
    "--missing",
    "-q",
    "-c",
    "-M",
    "-l",
    "-R",
    "prefs",
    "qrels_jg",
    "-J",
    "-n",
    "--seed",
    "--n-resamples",
    "--test",
    "-",
    "ndcg@10",
    "map",
    "p@[5,10]",
    "0",
    "-1",
    "1e309",
    "nan",
    "QRELS",
    "RUN",
    "RUN2",
]


def cli_argv(data: bytes) -> list[str]:
    """An argument list built from the bytes: words of the CLI's vocabulary, existing files and raw strings."""
    argv: list[str] = []
    i = 0
    while i < len(data):
        b = data[i]
        if b < 200:
            argv.append(_CLI_WORDS[b % len(_CLI_WORDS)])
            i += 1
        else:
            size = b - 199
            raw = data[i + 1 : i + 1 + size].decode("utf-8", "replace").replace("\x00", "")
            if not raw.startswith("/") and ".." not in raw:
                argv.append(raw)
            i += 1 + size
    files = {
        "QRELS": _write("q.txt", _QRELS.encode()),
        "RUN": _write("r.txt", _RUN.encode()),
        "RUN2": _write("r2.txt", _RUN.replace("2.0", "0.5").encode()),
    }
    return [files.get(a, a) for a in argv]


def cli(data: bytes) -> None:
    """rankmeter.cli.main.main(argv): exit status 0, or 2 with one ``rankmeter ...: error:`` line; no traceback."""
    from rankmeter.cli.main import main

    argv = cli_argv(data)
    err, out = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(_WORKDIR)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), _empty_stdin():
            try:
                status = main(argv)
            except SystemExit as exc:  # argparse: usage errors (2), --help / --version (0)
                status = exc.code if isinstance(exc.code, int) else 2
                if status not in (0, 2):
                    raise Finding(f"argv {argv!r}: SystemExit({exc.code!r})") from None
                return
    finally:
        os.chdir(cwd)
    text = err.getvalue()
    if status not in (0, 1, 2):
        raise Finding(f"argv {argv!r}: exit status {status}")
    if "Traceback" in text:
        raise Finding(f"argv {argv!r}: traceback on stderr: {text[-500:]}")
    # the trec_eval drop-in keeps trec_eval's own one-line messages ("trec_eval: Illegal rel_format ...")
    own = argv[:1] == ["trec_eval"] and text.startswith("trec_eval: ")
    # rankmeter's own commands: 1 for bad input, 2 for a bad command line, each one line (the drop-ins print
    # their tools' usage text with status 1)
    checked = status == 2 or (status == 1 and argv[:1] not in (["trec_eval"], ["ndeval"]))
    if checked and (text.count("\n") != 1 or ("error: " not in text and not own)):
        raise Finding(f"argv {argv!r}: exit status {status} but stderr is {text!r:.500}")


@contextlib.contextmanager
def _empty_stdin():  # type: ignore[no-untyped-def]
    import sys

    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(b""))
    try:
        yield
    finally:
        sys.stdin = saved


def reference_intents(data: bytes) -> list[tuple[str, str, str, float]] | None:
    """An independent reader of intent qrels: (query, intent, document, grade) rows, or None where invalid.

    As :func:`reference_table`, with exactly four fields and a line whose first field starts with ``#``
    a comment.
    """
    data = data[3:] if data.startswith(_BOM) else data
    if b"\x00" in data or _LONE_CR.search(data):
        return None
    rows = []
    for line in data.split(b"\n"):
        fields = [f.decode("utf-8", "surrogateescape") for f in _FIELDS.findall(line)]
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4 or not _NUMBER.match(fields[3]) or not math.isfinite(float(fields[3])):
            return None
        rows.append((fields[0], fields[1], fields[2], float(fields[3])))
    return rows or None


def intent_qrels(data: bytes) -> None:
    """rankmeter.io.intents.read_intent_qrels (plain, .gz, truncated .gz, raw bytes named .gz) against the reference."""
    from rankmeter.io.intents import read_intent_qrels

    want = reference_intents(data)
    for name, content in _compressions(data):
        got, err = _outcome(lambda n=name, c=content: read_intent_qrels(_write(n, c)))  # type: ignore[misc]
        if name in ("plain.txt", "packed.gz"):
            rows = None
            if err is None:
                q = got
                rows = [
                    (q.query_ids[i], q.intent_ids[i], q.doc_ids[i], float(q.relevance[i]))  # type: ignore[attr-defined]
                    for i in range(len(q))  # type: ignore[arg-type]
                ]
                rows = [(str(a), str(b), str(c), v) for a, b, c, v in rows]
            if rows != want:
                raise Finding(
                    f"read_intent_qrels({name}): read {rows!r:.300}, reference {want!r:.300} from {data!r:.300}"
                )


def csv_tables(data: bytes) -> None:
    """The bytes as a CSV and a TSV run (plain, .gz, truncated .gz): a run or a RankmeterError, and the same
    rows whether the file is read as CSV directly or from its .gz."""
    from rankmeter.io.load import as_run

    for suffix in ("csv", "tsv"):
        plain, _ = _outcome(lambda s=suffix: _rows(as_run(_write(f"run.{s}", data))))  # type: ignore[misc]
        packed = gzip.compress(data, mtime=0)
        from_gz, _ = _outcome(lambda s=suffix, p=packed: _rows(as_run(_write(f"run.{s}.gz", p))))  # type: ignore[misc]
        if plain != from_gz:
            raise Finding(f"{suffix}: read {plain!r:.200} plain but {from_gz!r:.200} from .gz, of {data!r:.300}")
        _outcome(lambda s=suffix, p=packed: as_run(_write(f"cut.{s}.gz", p[: max(len(p) // 2, 1)])))  # type: ignore[misc]


def parquet_tables(data: bytes) -> None:
    """A run table built from the bytes (ids cut from them, scores from their values), written as Parquet and
    Feather: read back, the same rows or a RankmeterError; the file cut short: a RankmeterError."""
    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    from rankmeter.io.load import as_run

    pieces = [data[i : i + 3] for i in range(0, len(data), 3)] or [b""]
    ids = [p.decode("utf-8", "replace") for p in pieces]
    table = pa.table(
        {
            "query_id": [ids[i // 4] for i in range(len(ids))],
            "doc_id": ids,
            "score": [float(sum(p)) - 300.0 for p in pieces],
        }
    )
    want, want_err = _outcome(lambda: _rows(as_run(table)))
    for name, write in (("run.parquet", pq.write_table), ("run.feather", feather.write_feather)):
        path = str(_WORKDIR / name)
        write(table, path)
        got, err = _outcome(lambda p=path: _rows(as_run(p)))  # type: ignore[misc]
        if (got, type(err)) != (want, type(want_err)):
            raise Finding(
                f"{name}: read {got!r:.200} / {err!r:.200}, the table gives {want!r:.200} / {want_err!r:.200}"
            )
        content = Path(path).read_bytes()
        cut = _write(f"cut.{name}", content[: len(content) * (1 + (data[:1] or b"\x00")[0] % 9) // 10])
        _, cut_err = _outcome(lambda c=cut: as_run(c))  # type: ignore[misc]
        if cut_err is None:
            raise Finding(f"{name} cut short was read without error")


TARGETS: dict[str, Callable[[bytes], None]] = {
    "trec_qrels": trec_qrels,
    "trec_run": trec_run,
    "trec_eval_readers": trec_eval_readers,
    "prefs_jg": prefs_jg,
    "grammar": grammar,
    "dicts": dicts,
    "frames": frames,
    "cli": cli,
    "intent_qrels": intent_qrels,
    "csv_tables": csv_tables,
    "parquet_tables": parquet_tables,
}

__all__ = ["TARGETS", "Finding", "cli_argv", "reference_table"]
