"""How the extras install and what happens without their optional parts.

* The package metadata built from this checkout (``importlib.metadata``):
  no extra pins a framework to one version, except the test extra's CPU
  torch wheel (what CI installs).
* Without array-api-compat (blocked by a ``sys.meta_path`` finder in a fresh
  interpreter), CPU torch tensors are evaluated through NumPy; tensors on
  another device get a one-line install hint.
* Without the Keras backend asked for, ``import rankmeter.keras`` says in one
  line what to install.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

import rankmeter

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = ("torch", "keras", "jax", "tensorflow", "scikit-learn", "pyspark", "dask", "torchmetrics", "keras-rs")


def _blocking(module: str) -> str:
    """Python source that makes importing ``module`` fail as if it were not installed."""
    return (
        "import sys\n"
        "class Blocker:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name == {module!r} or name.startswith({module + '.'!r}):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Blocker())\n"
    )


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), **env},
    )


def test_no_extra_pins_a_framework_but_the_test_extra_torch(tmp_path):
    built = _python(
        f"from setuptools import build_meta; print(build_meta.prepare_metadata_for_build_wheel({str(tmp_path)!r}))"
    )
    assert built.returncode == 0, built.stderr[-2000:]
    requires = importlib.metadata.PathDistribution(tmp_path / built.stdout.split()[-1]).requires or []
    by_extra: dict[str, list[str]] = {}
    for line in requires:
        requirement, _, marker = line.partition(";")
        extra = re.search(r"extra == \"([^\"]+)\"", marker)
        by_extra.setdefault(extra.group(1) if extra else "", []).append(requirement.strip())
    assert {"torch", "keras", "keras-jax", "keras-torch", "keras-tensorflow", "test"} <= set(by_extra)
    pinned = {
        (extra, req)
        for extra, reqs in by_extra.items()
        for req in reqs
        if "==" in req and re.match(r"[A-Za-z0-9_.-]+", req).group(0).lower() in FRAMEWORKS
    }
    assert pinned == {("test", "torch==2.13.0")}
    assert any(r.startswith("torch>=") for r in by_extra["torch"])
    for extra, backend in (("keras-jax", "jax"), ("keras-torch", "torch"), ("keras-tensorflow", "tensorflow")):
        assert any(r.startswith(backend) for r in by_extra[extra]) and any(
            r.startswith("keras") for r in by_extra[extra]
        )


def test_cpu_tensors_without_array_api_compat():
    code = _blocking("array_api_compat") + (
        "import torch, rankmeter, json\n"
        "y = torch.tensor([[1, 0, 2, 0], [0, 1, 1, 0]]); s = torch.tensor([[0.2, 0.9, 0.5, 0.1], [0.3, 0.3, 0.8, 0.4]])\n"
        "res = rankmeter.evaluate_arrays(y, s, ['ndcg@3', 'map'])\n"
        "print(json.dumps({'values': res.aggregate, 'path': res.metadata['array_api']['path'],\n"
        "                  'loaded': 'array_api_compat' in sys.modules}))\n"
        "try:\n"
        "    rankmeter.evaluate_arrays(y.to('meta'), s.to('meta'), 'ndcg')\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(exc)\n"
    )
    out = _python(code)
    assert out.returncode == 0, out.stderr[-2000:]
    first, hint = out.stdout.strip().splitlines()
    got = json.loads(first)
    want = rankmeter.evaluate_arrays(
        np.array([[1, 0, 2, 0], [0, 1, 1, 0]]),
        np.array([[0.2, 0.9, 0.5, 0.1], [0.3, 0.3, 0.8, 0.4]], np.float32),
        ["ndcg@3", "map"],
    )
    assert got["values"] == want.aggregate and got["path"] == "numpy-view" and not got["loaded"]
    assert hint == (
        "y_true is a torch array on meta: evaluating it there needs array-api-compat "
        '(pip install array-api-compat, or pip install "rankmeter[torch]")'
    )


def test_keras_without_its_backend_says_what_to_install():
    out = _python(_blocking("jax") + "import rankmeter.keras\n", KERAS_BACKEND="jax")
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        "ModuleNotFoundError: Keras's backend 'jax' is not installed (KERAS_BACKEND=jax): "
        'pip install "rankmeter[keras-jax]" (or keras-torch, keras-tensorflow), or set KERAS_BACKEND to an installed '
        "backend"
    )
