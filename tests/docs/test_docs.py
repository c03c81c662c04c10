"""The site's hook: one page per measure family, each with a worked example computed at build time.

The code blocks of the pages are run by tests/docs/test_docs_blocks.py.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


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


def test_every_family_is_documented() -> None:
    """docs/measures.md names every family but trec_eval's own (docs/trec_eval.md lists those)."""
    from rankmeter.measures import FAMILIES
    from rankmeter.measures.trec_families import FAMILIES as TREC_FAMILIES

    text = (Path(__file__).resolve().parents[2] / "docs" / "measures.md").read_text()
    trec = {f.name for f in TREC_FAMILIES}
    assert trec and not [name for name in FAMILIES if name not in trec and f"`{name}" not in text]


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
