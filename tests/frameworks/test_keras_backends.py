"""test_keras.py again on the Keras backends this process does not run (Keras fixes its backend at first import).

Each backend runs the whole module in a fresh interpreter; it must pass with
nothing skipped. TensorFlow is not installed by the test extra (see docs/frameworks.md).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
OTHER_BACKENDS = [b for b in ("jax", "torch") if b != os.environ.get("KERAS_BACKEND", "jax")]


@pytest.mark.parametrize("backend", OTHER_BACKENDS)
def test_keras_suite_passes_on_backend(backend):
    env = {**os.environ, "KERAS_BACKEND": backend}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-rs",
           str(HERE / "test_keras.py")]  # fmt: skip
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=HERE.parents[1], timeout=900)
    tail = out.stdout[-3000:] + out.stderr[-2000:]
    assert out.returncode == 0, tail
    summary = out.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed", summary) and "skipped" not in summary and "error" not in summary, tail
