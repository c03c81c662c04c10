"""Open a report in Debian's headless Chromium through Playwright (no browser download).

Used by the report tests and by ``benchmarks/bench_report.py``. The browser is
``/usr/bin/chromium`` (``apt-get install chromium``; ``.ci/run`` installs it),
started with a fresh profile and no background networking.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("RANKMETER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@dataclass
class Loaded:
    """A report loaded in a page: its console messages, page errors and non-file requests."""

    page: Any
    console: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and network requests: all must be empty."""
        return (
            [f"console {kind}: {text}" for kind, text in self.console if kind in ("error", "warning")]
            + [f"page error: {e}" for e in self.errors]
            + [f"request: {url}" for url in self.requests if not url.startswith(("file:", "data:", "blob:"))]
        )


@contextlib.contextmanager
def browser() -> Iterator[Any]:
    """A headless Chromium with a fresh ``--user-data-dir``, closed on exit."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="rankmeter-chromium-") as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1400, "height": 1000},
        )
        try:
            yield context
        finally:
            context.close()


def open_report(context: Any, path: Path, timeout_ms: int = 30_000) -> Loaded:
    """Load ``path`` in a new page of ``context`` and wait until the report says it has drawn everything."""
    page = context.new_page()
    loaded = Loaded(page)
    page.on("console", lambda m: loaded.console.append((m.type, m.text)))
    page.on("pageerror", lambda e: loaded.errors.append(str(e)))
    page.on("request", lambda r: loaded.requests.append(r.url))
    page.goto(Path(path).resolve().as_uri())
    page.wait_for_function("document.documentElement.dataset.ready", timeout=timeout_ms)
    return loaded
