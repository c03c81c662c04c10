"""Every fenced code block of the documentation (docs/**/*.md and README.md) runs or is checked.

Every block of every page under ``docs/`` and of ``README.md`` is one of:

* ``python``: run, page by page and in order, in one namespace per page: ``>>>`` examples as doctests
  (their output checked), other blocks executed as they are;
* ``console``: ``$ command`` lines, each followed by the output it prints, compared with what the command
  prints (doctest's ``...`` stands for what must vary; trailing blanks are ignored);
* ``bash`` / unlabelled: one command a line (``\\`` continues a line, ``#`` starts a comment). A
  ``rankmeter`` command with placeholders (``QRELS``, ``[--opt a|b]``) is a synopsis: each option and
  choice it names must be one the command line parser accepts. Other ``rankmeter`` commands are run and
  must succeed. Anything else must be in :data:`ALLOWED` with the reason it is not run;
* ``text``: not code (formulas, signatures); each must be in :data:`ALLOWED_TEXT` with what checks it.

The commands run in a scratch directory holding a link to the repository's ``examples/``, so the pages
use the paths a user types at the repository's root.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md")) + [ROOT / "README.md"]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

#: (page, command) -> why the command is not run by the test suite.
ALLOWED: dict[tuple[str, str], str] = {
    ("README.md", "pip install -e ."): "installs the checkout: CI's own first step",
    ("README.md", "pip install -e '.[test]'"): "installs the test extras: CI's own first step",
    ("README.md", "python -m pytest -q -p no:cacheprovider -n 2"): "the test suite itself",
    ("docs/README.md", "pip install -e '.[docs]'"): "installs the docs extras: CI's docs step",
    ("docs/README.md", "mkdocs build --strict"): "the site build: run by .ci/run",
    ("docs/index.md", "pip install ."): "installs the checkout: .ci/run installs it, and the built wheel",
    ("docs/index.md", "pip install '.[report]'"): "installs the checkout with an extra (network)",
    ("docs/index.md", "pip install build"): "installs the build front end: .ci/run's release step",
    ("docs/index.md", "python -m build"): "builds the sdist and the wheel: .ci/run's release step, twine-checked",
    ("docs/index.md", "pip install --find-links dist 'rankmeter[report]'"): (
        "installs the built wheel: .ci/run installs it in a fresh venv and runs it"
    ),
    ("docs/report.md", "pip install '.[report]'"): "installs the checkout with an extra (network)",
    ("docs/frameworks.md", "pip install '.[keras-jax]'"): "installs the checkout with an extra (network)",
    ("docs/frameworks.md", "pip install '.[torch]'"): "installs the checkout with an extra (network)",
    ("docs/frameworks.md", "pip install '.[sklearn]'"): "installs the checkout with an extra (network)",
    ("docs/distributed.md", "pip install '.[spark]'"): "installs the checkout with an extra (network)",
    ("docs/distributed.md", "pip install '.[dask]'"): "installs the checkout with an extra (network)",
    ("docs/distributed.md", "python benchmarks/bench_distributed.py --copies 1 3 10"): "a benchmark (minutes)",
    (
        "docs/distributed.md",
        "python benchmarks/bench_distributed.py --queries 300 --operators",
    ): "a benchmark (minutes)",
    (
        "docs/distributed.md",
        "python benchmarks/bench_distributed.py --no-scaling --ranking-evaluator --queries 20000",
    ): "a benchmark (minutes)",
    ("docs/README.md", "python tests/mutation/run.py --list"): "lists the mutants (seconds, but not a test)",
    ("docs/README.md", "python tests/mutation/run.py precision.py dcg.py --out mutants.jsonl"): "the mutation run",
    ("docs/README.md", "python tests/mutation/run.py --chunk 1/4 --out mutants.jsonl"): "the mutation run (hours)",
    ("docs/README.md", "python tests/mutation/run.py --group diversity --out div.jsonl"): "the mutation run (hours)",
    ("docs/README.md", "python tests/mutation/run.py --every 3 prefs.py --out trec.jsonl"): "a mutation sample",
    ("docs/README.md", "python tests/mutation/run.py --report mutants.jsonl"): "reads a mutation run's output",
    ("docs/errors.md", "pip install -e '.[test,fuzz]'"): "installs atheris, which CI does not use",
    ("docs/errors.md", "fuzz/run_all.sh 300 1000000"): "the long fuzzing campaign: hours, not CI's job",
    ("docs/errors.md", "nice -n 19 python fuzz/campaign.py grammar -runs=1000000 fuzz/corpus/grammar"): (
        "one target of the long fuzzing campaign (atheris)"
    ),
    ("docs/performance.md", "pip install -e '.[bench]'"): "installs the benchmark extras (part of the test extras)",
    (
        "docs/performance.md",
        "nice -n 10 python benchmarks/run_all.py --recsys-python .venv-ci-recsys/bin/python",
    ): "the page's tables: every workload against every peer (minutes), measured, not tested",
    ("docs/performance.md", "python benchmarks/run.py --only STREAM,CHOICES,ENGINES,CUTOFFS"): "writes a 2.5 GB run",
    ("docs/performance.md", "python benchmarks/bench_dense.py"): "a benchmark (minutes)",
    ("docs/performance.md", "python benchmarks/bench_catalogue.py"): "a benchmark (minutes)",
    ("docs/performance.md", "python benchmarks/bench_beyond.py"): "a benchmark (minutes)",
    ("docs/performance.md", "python benchmarks/bench_err.py"): "a benchmark (minutes)",
    ("docs/performance.md", "python benchmarks/bench_distributed.py"): "a benchmark (minutes, Spark and Dask)",
    ("docs/performance.md", "python benchmarks/bench_report.py"): "a benchmark (headless Chromium)",
    ("docs/performance.md", "python benchmarks/bench_recsys_inputs.py"): "a benchmark (minutes)",
    ("docs/performance.md", "python benchmarks/bench_table_ids.py --base OTHER/src"): "a benchmark (minutes)",
    ("docs/performance.md", "python benchmarks/bench_gpu.py"): "needs a CUDA GPU",
    ("docs/performance.md", "python benchmarks/guard.py"): "the regression guard: minutes of paired benchmarks",
    ("docs/performance.md", "python benchmarks/guard.py --base main --only W2,W4 --repeats 9"): "the regression guard",
    ("docs/performance.md", "python benchmarks/ab.py --base main"): "two revisions side by side (minutes)",
    ("docs/performance.md", "python benchmarks/ab.py --base 95f7ada --only W1 --repeats 7"): "two revisions (minutes)",
    ("docs/performance.md", "python benchmarks/ab.py --sweep 95f7ada..main --only W1 --repeats 5"): "commits in turns",
    ("docs/performance.md", "python benchmarks/compare_runs.py --repeats 7"): "a benchmark (minutes)",
    (
        "docs/performance.md",
        "python benchmarks/small_job.py --repeats 21 --base f29d29c",
    ): "two revisions and the peers",
}

#: (page, first line) -> the module whose functions a ``text`` block of signatures shows (checked by
#: :func:`check_signatures`).
SIGNATURES: dict[tuple[str, str], str] = {
    ("docs/vectors.md", "evaluate_vectors(queries, database, measures, *, query_labels, database_labels,"): (
        "rankmeter.vectors"
    ),
}

#: (page, first line) -> what the ``text`` block is and what checks it.
ALLOWED_TEXT: dict[tuple[str, str], str] = {
    ("docs/comparing.md", "p = (b + 1) / (m + 1)"): "a formula: tests/stats check randomization p-values",
    ("docs/comparing.md", "SE(p) = sqrt(p (1 − p) / m)"): "a formula: tests/stats check monte_carlo_error",
}


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str

    @property
    def where(self) -> str:
        return f"{rel(self.page)}:{self.line}"


def rel(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else str(page)


def blocks(page: Path) -> list[Block]:
    """The page's fenced blocks, dedented by their fence's indentation (blocks inside list items)."""
    found = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^( *)```(\S*)", lines[i])
        if m:
            indent, lang = m.group(1), m.group(2)
            j = i + 1
            while not re.match(rf"^{indent}```\s*$", lines[j]):
                j += 1
            body = "\n".join(line[len(indent) :] for line in lines[i + 1 : j])
            found.append(Block(page, i + 1, lang, body + "\n"))
            i = j
        i += 1
    return found


def command_lines(text: str) -> list[str]:
    """A shell block's commands (continuations joined, comments cut, ``&&`` chains split), as ``shlex.join``
    writes them."""
    out = []
    for line in text.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            out.append(shlex.join(words[:cut]))
            words = words[cut + 1 :]
    return out


def is_rankmeter(command: str) -> bool:
    return command.split()[0] in ("rankmeter", "rankmeter-trec-eval")


def is_synopsis(command: str) -> bool:
    """A command with placeholders (``QRELS``, ``RUN_A``, ``[--opt ...]``, ``a|b``): documented, not run."""
    words = shlex.split(command)
    return any(w.startswith("[") or re.fullmatch(r"[A-Z][A-Z_.]*(\.\w+)?", w) or "|" in w for w in words[1:])


#: Placeholders of synopses and the example files that stand for them: a synopsis with no other
#: placeholder (and no ``[...]`` or ``a|b``) is also run on them.
EXAMPLE_FILES = {
    "QRELS": "examples/qrels.txt",
    "RUN": "examples/run.txt",
    "RUN_A": "examples/run.txt",
    "RUN_B": "examples/run_b.txt",
}


def runnable_synopsis(command: str) -> str | None:
    """The synopsis with its placeholders replaced by example files, when every one of them has one."""
    words = shlex.split(command)
    if any(w.startswith("[") or "|" in w or "/" in w or "*" in w for w in words):
        return None  # choices, optional parts, paths of the reader's own
    placeholders = [w for w in words[1:] if re.fullmatch(r"[A-Z][A-Z_.]*(\.\w+)?", w)]
    if not all(w in EXAMPLE_FILES for w in placeholders):
        return None
    return shlex.join(EXAMPLE_FILES.get(w, w) for w in words)


def classify(block: Block) -> list[str]:
    """Why each part of a block is checked (raises ``LookupError`` for anything that would go unchecked)."""
    page = rel(block.page)
    if block.lang == "python":
        return ["doctest" if ">>>" in block.text else "executed"]
    if block.lang == "console":
        return ["console: output compared"]
    if block.lang == "text":
        key = (page, block.text.splitlines()[0].strip())
        if key in SIGNATURES:
            return ["signatures checked"]
        if key not in ALLOWED_TEXT:
            raise LookupError(f"{block.where}: text block {key[1]!r} is neither checked nor in ALLOWED_TEXT")
        return [ALLOWED_TEXT[key]]
    if block.lang in ("bash", ""):
        kinds = []
        for command in command_lines(block.text):
            if is_rankmeter(command):
                if not is_synopsis(command):
                    kinds.append("run")
                elif runnable_synopsis(command):
                    kinds.append("synopsis: run on the example files")
                else:
                    kinds.append("synopsis: options checked")
            elif (page, command) in ALLOWED:
                kinds.append(ALLOWED[(page, command)])
            else:
                raise LookupError(f"{block.where}: {command!r} is neither run nor in ALLOWED")
        return kinds
    raise LookupError(f"{block.where}: a ```{block.lang} block: nothing runs or checks it")


def all_blocks() -> Iterator[Block]:
    for page in PAGES:
        yield from blocks(page)


# --- running ---------------------------------------------------------------------------------------------


def run_cli(command: str) -> tuple[int, str]:
    """Runs a ``rankmeter`` command line in-process; returns its exit status and what it printed."""
    from rankmeter.cli import main as cli_main
    from rankmeter.cli import trec_eval

    argv = shlex.split(command)
    entry = cli_main.main if argv[0] == "rankmeter" else trec_eval.main
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        try:
            status = entry(argv[1:])
        except SystemExit as exc:  # argparse
            status = int(exc.code or 0)
    return int(status or 0), buffer.getvalue()


def same_output(want: str, got: str) -> bool:
    """doctest's comparison (``...`` matches anything), trailing blanks of each line ignored."""

    def strip(text: str) -> str:
        return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()) + "\n"

    return doctest.OutputChecker().check_output(strip(want), strip(got), doctest.ELLIPSIS)


def console_commands(text: str) -> list[tuple[str, str]]:
    """``(command, expected output)`` for each ``$ `` line of a console block."""
    pairs: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\"):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            pairs.append((command, []))
        elif pairs:
            pairs[-1][1].append(line)
        else:
            raise ValueError(f"console block starts without a '$ ' command: {line!r}")
        i += 1
    return [(c, "\n".join(out)) for c, out in pairs]


def check_synopsis(command: str) -> list[str]:
    """The options and choices of a synopsis line that the command's parser does not accept."""
    from rankmeter.cli.main import build_parser

    words = shlex.split(command)
    if words[0] == "rankmeter-trec-eval" or words[1] == "trec_eval":
        return []  # trec_eval's own flags, parsed by rankmeter.cli.trec_eval (tests/trec_eval)
    name = words[1]
    parser = build_parser(name)._subparsers._group_actions[0].choices.get(name)  # type: ignore[union-attr]
    if parser is None:
        return [f"no subcommand {name!r}"]
    actions = parser._option_string_actions
    problems = []
    tokens = [w.strip("[]") for w in words[2:]]
    for k, token in enumerate(tokens):
        if not token.startswith("-") or token in ("-",):
            continue
        option = token.split("=")[0]
        if any(o not in actions for o in option.split("/")):
            problems.append(f"unknown option {option}")
            continue
        choices = actions[option.split("/")[0]].choices
        value = token.split("=", 1)[1] if "=" in token else (tokens[k + 1] if k + 1 < len(tokens) else "")
        if choices and "|" in value:
            problems += [
                f"{option}: no choice {c!r}" for c in value.split("|") if c not in ("", "...") and c not in choices
            ]
    return problems


def signatures(text: str) -> list[tuple[str, list[str]]]:
    """``(name, parameters)`` of each ``name(a, b=1, *, c, ...) -> T`` of a block (comments cut, lines joined)."""
    found = []
    for chunk in re.split(r"\n(?=\w+\()", re.sub(r"#[^\n]*", "", text)):
        m = re.match(r"(\w+)\((.*)\)", " ".join(chunk.split()))
        if m:
            found.append((m.group(1), [p.strip() for p in re.split(r",(?![^(\[]*[)\]])", m.group(2)) if p.strip()]))
    return found


def check_signatures(text: str, module_name: str) -> list[str]:
    """Where the shown signatures differ from the functions' (names, order, defaults; ``...`` ends a list)."""
    import ast
    import importlib
    import inspect

    module = importlib.import_module(module_name)
    problems = []
    for name, shown in signatures(text):
        real = inspect.signature(getattr(module, name)).parameters
        names = [f"**{n}" if real[n].kind is inspect.Parameter.VAR_KEYWORD else n for n in real]
        kept = [p for p in shown if p not in ("*", "...")]
        listed = [p.split("=")[0] for p in kept]
        if listed != names[: len(listed)] or ("..." not in shown and len(listed) != len(names)):
            problems.append(f"{name}: shown {listed}, real {names}")
        for p in kept:
            if "=" in p:
                key, default = p.split("=", 1)
                if key in real and real[key].default != ast.literal_eval(default):
                    problems.append(f"{name}: {key} defaults to {real[key].default!r}, shown {default}")
    return problems


def run_page(page: Path, workdir: Path) -> list[str]:
    """Runs every block of a page in order; returns the failures (an empty list when all is well)."""
    failures: list[str] = []
    namespace: dict[str, object] = {"__name__": f"docs:{page.stem}"}
    parser = doctest.DocTestParser()
    for block in blocks(page):
        classify(block)
        if block.lang == "python":
            if ">>>" in block.text:
                test = parser.get_doctest(block.text, namespace, block.where, str(page), block.line)
                report = io.StringIO()
                runner = doctest.DocTestRunner(optionflags=FLAGS)
                result = runner.run(test, out=report.write, clear_globs=False)
                namespace.update(test.globs)
                if result.failed:
                    failures.append(report.getvalue())
            else:
                code = compile("\n" * block.line + block.text, str(page), "exec")
                try:
                    exec(code, namespace)
                except Exception as exc:  # noqa: BLE001 - reported with the block's place
                    failures.append(f"{block.where}: {type(exc).__name__}: {exc}")
        elif block.lang == "console":
            for command, want in console_commands(block.text):
                status, got = run_cli(command)
                if status != 0 or not same_output(want, got):
                    failures.append(
                        f"{block.where}: {command}\n--- shown\n{want}\n--- printed (status {status})\n{got}"
                    )
        elif block.lang == "text" and (rel(page), block.text.splitlines()[0].strip()) in SIGNATURES:
            module = SIGNATURES[(rel(page), block.text.splitlines()[0].strip())]
            failures += [f"{block.where}: {p}" for p in check_signatures(block.text, module)]
        elif block.lang in ("bash", ""):
            for command in command_lines(block.text):
                if not is_rankmeter(command):
                    continue
                if is_synopsis(command):
                    failures += [f"{block.where}: {command}: {p}" for p in check_synopsis(command)]
                    command = runnable_synopsis(command) or ""
                if command:
                    status, got = run_cli(command)
                    if status != 0:
                        failures.append(f"{block.where}: {command} exited {status}:\n{got}")
    return failures


# --- the tests ------------------------------------------------------------------------------------------

RUNNABLE = [p for p in PAGES if any(b.lang in ("python", "console", "bash", "") for b in blocks(p))]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch directory with the repository's examples/, where the pages' commands and code run."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("KERAS_BACKEND", "jax")  # the backend the test extras install
    return tmp_path


@pytest.mark.parametrize("page", RUNNABLE, ids=[rel(p) for p in RUNNABLE])
def test_page_blocks_run(page: Path, workdir: Path) -> None:
    failures = run_page(page, workdir)
    assert not failures, "\n\n".join(failures)


def test_every_block_is_checked() -> None:
    """A new page or block that nothing would run or check fails here; so does a stale allow-list entry."""
    kinds: dict[str, int] = {}
    used = set()
    for block in all_blocks():
        for kind in classify(block):
            kinds[kind] = kinds.get(kind, 0) + 1
        if block.lang in ("bash", ""):
            used |= {(rel(block.page), c) for c in command_lines(block.text)}
        if block.lang == "text":
            used.add((rel(block.page), block.text.splitlines()[0].strip()))
    assert set(ALLOWED) <= used, set(ALLOWED) - used
    assert set(ALLOWED_TEXT) <= used, set(ALLOWED_TEXT) - used
    assert kinds["doctest"] >= 30 and kinds["console: output compared"] >= 4 and kinds["run"] >= 3, kinds


def test_an_unchecked_block_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "new.md"
    page.write_text("```bash\nmake everything\n```\n\n```yaml\na: 1\n```\n")
    found = blocks(page)
    assert [(b.lang, b.line) for b in found] == [("bash", 1), ("yaml", 5)]
    for block in found:
        with pytest.raises(LookupError, match="new.md"):
            classify(Block(ROOT / "docs" / "new.md", block.line, block.lang, block.text))


def test_synopsis_check_names_unknown_options_and_choices() -> None:
    command = "rankmeter evaluate QRELS RUN -m ndcg@10 [--ties trec|bogus] [--nope N] [--format json|csv]"
    assert is_synopsis(command)
    assert check_synopsis(command) == ["--ties: no choice 'bogus'", "unknown option --nope"]
    assert not is_synopsis("rankmeter evaluate examples/qrels.txt examples/run.txt -m map")
    assert runnable_synopsis(command) is None
    assert runnable_synopsis("rankmeter compare QRELS RUN_A RUN_B -m map") == (
        "rankmeter compare examples/qrels.txt examples/run.txt examples/run_b.txt -m map"
    )
    assert runnable_synopsis("rankmeter retrieval QUERIES.npy DATABASE.npy -m map") is None
    assert runnable_synopsis("rankmeter evaluate QRELS runs/ -m map") is None


def test_console_output_is_compared() -> None:
    want = "Comparison over ... queries\n  bm25   0.52  \n"
    assert same_output(want, "Comparison over 50 queries\n  bm25   0.52\n")
    assert not same_output(want, "Comparison over 50 queries\n  bm25   0.53\n")
    assert console_commands("$ rankmeter a \\\n   -m x\nout 1\n$ rankmeter b\n") == [
        ("rankmeter a  -m x", "out 1"),
        ("rankmeter b", ""),
    ]


def test_a_wrong_example_fails(workdir: Path) -> None:
    page = workdir / "wrong.md"
    page.write_text(
        "```python\n>>> 1 + 1\n3\n\n```\n\n```python\nraise ValueError('boom')\n```\n\n"
        "```console\n$ rankmeter measures\nno such table\n```\n\n```bash\nrankmeter evaluate no.txt such.txt -m map\n```\n"
    )
    failures = run_page(page, workdir)
    assert len(failures) == 4, failures
    assert "Expected:\n    3\nGot:\n    2" in failures[0]
    assert failures[1].endswith("wrong.md:7: ValueError: boom")
    assert "--- shown\nno such table\n--- printed (status 0)" in failures[2]
    assert "exited 1" in failures[3] and "no.txt" in failures[3]


def test_allowed_commands_name_real_scripts_and_options() -> None:
    """The commands that are not run still name scripts of the repository and options those scripts define."""
    checked = 0
    for _, command in ALLOWED:
        words = shlex.split(command)
        scripts = [w for w in words if w.endswith((".py", ".sh")) and "/" in w]
        for script in scripts:
            source = (ROOT / script).read_text(encoding="utf-8")
            options = [w.split("=")[0] for w in words[words.index(script) + 1 :] if w.startswith("--")]
            assert all(f'"{o}"' in source for o in options), (command, options)
            checked += 1
    assert checked >= 7
