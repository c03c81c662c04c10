"""Every ``>>>`` block of the guides and of the pages with Python examples runs, its output checked (doctest).

The examples read ``examples/`` relative to the repository root, where the test suite runs.
"""

from __future__ import annotations

import doctest
import math
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted((DOCS / "guides").glob("*.md")) + [
    DOCS / n for n in ("report.md", "semantics.md", "comparing.md", "vectors.md")
]


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_guide_examples(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DOCS.parent)
    failures, attempted = doctest.testfile(
        str(page), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True
    )
    assert failures == 0
    if page.stem != "trainers":
        assert attempted >= 4, f"{page.name}: only {attempted} examples"


def load_hook():
    import importlib.util

    spec = importlib.util.spec_from_file_location("families_hook", DOCS / "hooks" / "families.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_family_gets_a_checked_page() -> None:
    """The site's hook makes a page for every registered family; its example is the formula's value."""
    from rankmeter.measures import FAMILIES

    hook = load_hook()
    pages = {name: hook.page(name) for name in FAMILIES}
    assert all("## Worked example" in text and "| `trec` |" in text for text in pages.values())
    index = hook.index()
    assert all(f"[`{name}`]({name}.md)" in index for name in FAMILIES)
    # ndcg@3 under trec ties ranks d1 (3), d3 (1), d2 (0); the ideal is 3, 2, 1 from all judged documents
    dcg = 3 + 1 / math.log2(3)
    idcg = 3 + 2 / math.log2(3) + 1 / 2
    assert f"| `trec` | {dcg / idcg:.6f} |" in pages["ndcg"]
    # pessimistic puts d2 (0) before d3 (1) inside the tie: d3 at rank 3, discount 1/log2(4)
    assert f"| `pessimistic` | {(3 + 1 / 2) / idcg:.6f} |" in pages["ndcg"]
    assert "| `expected` | not defined for this family |" in pages["bpref"]
    # a diversity family gets intent qrels: alpha-nDCG@3 (alpha = 0.5) ranks d1 (i1), d3 (i1 again, i2), d2;
    # the greedy ideal takes d3 (i1, i2), then d1 (i1 again), then d4 (i2 again)
    alpha_dcg = 1 + (0.5 + 1) / math.log2(3)
    alpha_idcg = 2 + 0.5 / math.log2(3) + 0.5 / 2
    assert f"| `trec` | {alpha_dcg / alpha_idcg:.6f} |" in pages["alpha_ndcg"]


def test_hook_refuses_an_inconsistent_example(monkeypatch: pytest.MonkeyPatch) -> None:
    hook = load_hook()
    real = hook.rankmeter.evaluate

    def off_for_dicts(qrels, run, measures, **kw):  # the dict path made wrong on purpose
        result = real(qrels, run, measures, **kw)
        if isinstance(qrels, dict):
            return {m: result[m] + 0.5 for m in measures}
        return result

    monkeypatch.setattr(hook.rankmeter, "evaluate", off_for_dicts)
    with pytest.raises(ValueError, match=r"ndcg@3: .* from TREC files, .* from dicts"):
        hook.page("ndcg")


def commands(page: Path) -> list[list[str]]:
    """The ``rankmeter ...`` command lines of a page's bash blocks (continuations joined, comments cut)."""
    import re
    import shlex

    found = []
    for block in re.findall(r"```bash\n(.*?)```", page.read_text(), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            argv = shlex.split(line, comments=True)
            if argv[:1] == ["rankmeter"]:
                found.append(argv[1:])
    return found


@pytest.mark.parametrize("name", ["index.md", "report.md"])
def test_documented_commands_run(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each documented ``rankmeter`` command runs on files of the names it uses (exit status 0)."""
    import numpy as np

    from rankmeter.cli.main import main

    argvs = commands(DOCS / name)
    assert argvs, f"no rankmeter command in {name}"
    rng = np.random.default_rng(1)
    queries = [str(q) for q in range(301, 321)]
    rels = {(q, d): int(rng.integers(0, 3)) for q in queries for d in range(12)}
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 D{d} {r}\n" for (q, d), r in rels.items()))
    for argv in argvs:
        for arg in argv:
            if arg.endswith((".run", ".txt")) and arg != "qrels.txt":
                lines = [f"{q} Q0 D{d} 0 {rels[(q, d)] + rng.normal(0, 1.5):.3f} x\n" for (q, d) in rels]
                (tmp_path / arg).write_text("".join(lines))
    monkeypatch.chdir(tmp_path)
    for argv in argvs:
        assert main([*argv, "--n-resamples", "200"] if argv[0] == "report" else argv) == 0, argv
    assert (tmp_path / "report.html").stat().st_size > 500_000
