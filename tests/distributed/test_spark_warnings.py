"""PySpark 4.x's pandas-3 FutureWarning is printed at most once per evaluation, not once per Python worker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]


def test_pandas_warning_at_most_once(tmp_path):
    (tmp_path / "q.txt").write_text("".join(f"{q} 0 d{q}{i} {i % 3}\n" for q in range(40) for i in range(6)))
    (tmp_path / "r.txt").write_text(
        "".join(f"{q} Q0 d{q}{i} {i} {1 / (i + 1)} r\n" for q in range(40) for i in range(6))
    )
    cmd = [sys.executable, "-m", "rankmeter.cli.main", "evaluate", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"),
           "-m", "ndcg", "--engine", "spark", "--partitions", "8"]  # fmt: skip
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    env.update({k: v for k, v in os.environ.items() if k.startswith("JAVA") or k == "SPARK_HOME"})
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "ndcg" in run.stdout
    warned = run.stderr.count("fully support pandas")  # PySpark's text and rankmeter's
    assert warned == (1 if int(pd.__version__.split(".")[0]) >= 3 else 0), run.stderr[-3000:]
