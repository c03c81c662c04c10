"""Every pytest run of this repository: Keras's backend, and no skip.

Keras picks its backend at first import: JAX unless KERAS_BACKEND says otherwise (rankmeter.keras doctests).

A skipped test or module is a failure unless it is allowed below.

A missing oracle (a peer package, trec_eval's test files, the console script) must fail the run rather
than vanish into a skip count, so no test skips, and this hook turns any skip that is not on the
allow-list, whatever raised it (``pytest.skip``, a ``skipif`` mark, a doctest ``+SKIP``), into a failure
that names the skip's reason.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")

#: reason (a substring of the skip message) -> why that skip is expected; empty: no skip is expected
ALLOWED_SKIPS: dict[str, str] = {}


def _fail_unexpected_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if any(allowed in reason for allowed in ALLOWED_SKIPS):
        return
    report.outcome = "failed"
    report.longrepr = f"unexpected skip (the root conftest.py allows none): {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, None, None]:
    outcome = yield
    _fail_unexpected_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, None, None]:
    outcome = yield
    _fail_unexpected_skip(outcome.get_result())
