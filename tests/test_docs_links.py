"""Relative links of the documentation and the README resolve to files of the source tree.

``mkdocs build --strict`` checks the same links (and their anchors) in the built site; this test checks
them where GitHub and an editor show the pages. The measure family pages (``docs/families/``) are
written by the site's hook at build time, one per registered family: a link to one resolves when the
family exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts) + [ROOT / "README.md"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.MULTILINE | re.DOTALL)
CODE = re.compile(r"`[^`\n]*`")


def generated_pages() -> set[Path]:
    """The pages the site's hook writes: ``families/index.md`` and one per family."""
    from rankmeter.measures import FAMILIES

    return {DOCS / "families" / "index.md"} | {DOCS / "families" / f"{name}.md" for name in FAMILIES}


def links(text: str) -> list[str]:
    """The link targets of a Markdown page, outside code blocks and inline code."""
    return LINK.findall(CODE.sub("", FENCE.sub("", text)))


def broken_links(page: Path, generated: set[Path]) -> list[str]:
    """The relative links of ``page`` whose file exists neither in the source tree nor among ``generated``."""
    broken = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # an absolute URL (https:, mailto:) or an anchor of the same page
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists() and path not in generated:
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_relative_links_resolve(page: Path) -> None:
    assert broken_links(page, generated_pages()) == []


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("# there\n")
    page.write_text(
        "[ok](there.md#a) [gone](missing.md) ![img](img/none.png) [web](https://example.org/x.md) [top](#x)\n"
        "`[code](not-a-link.md)`\n```python\n[x](inside-a-block.md)\n```\n"
    )
    assert broken_links(page, set()) == ["missing.md", "img/none.png"]
    assert broken_links(page, {(tmp_path / "missing.md").resolve(), (tmp_path / "img/none.png").resolve()}) == []
