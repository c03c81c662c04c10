"""Regression guard: run before merging a change that touches a hot path; fails when a workload got slower.

The sources of a baseline revision are exported to a temporary folder and every workload (W1-W4, see
:mod:`workloads`) runs as fresh whole processes of the baseline and of the working tree, in turns
(base, head, base, head, ...), so that a drift of the machine touches both alike. Each round gives one
paired ratio head / base of the whole-process wall time and of the peak RSS. The guard prints, per
workload, the median ratio and a distribution-free confidence interval for it (order statistics of the
paired ratios, the sign-test interval, at least 90% coverage), and exits with status 1 when a median ratio
exceeds ``--limit`` (1.05) with an interval that lies wholly above 1. Values are checked equal between the
two versions first: a changed value fails the guard too.

Usage::

    python benchmarks/guard.py                     # against BASELINE, 7 rounds, W1-W4
    python benchmarks/guard.py --base v0.2.0 --only W2,W4 --repeats 11

The baseline defaults to the newest release tag when the repository has one, else :data:`BASELINE`.
Run it on an idle machine: two cores busy with something else widen the intervals until nothing can
be concluded (the guard then passes and says so).
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ab import REPO, source_versions, workloads_of  # noqa: E402
from harness import agree, run_child  # noqa: E402

BASELINE = "751a3bf"
"""The baseline when the repository has no release tag: a main whose W1-W4 figures are in docs/performance.md."""

LIMIT = 1.05
"""A median paired ratio (head / base) above this, with an interval wholly above 1, fails the guard."""


def default_base() -> str:
    """The newest release tag reachable from HEAD, else :data:`BASELINE`."""
    found = subprocess.run(
        ["git", "-C", str(REPO), "describe", "--tags", "--abbrev=0"], capture_output=True, text=True, check=False
    )
    return found.stdout.strip() if found.returncode == 0 and found.stdout.strip() else BASELINE


def median_interval(ratios: list[float], coverage: float = 0.90) -> tuple[float, float]:
    """A distribution-free interval for the median of ``ratios``: the order statistics of the sign test.

    The interval (x_(k), x_(n-k+1)) covers the median with probability
    1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2); k is the largest with at
    least ``coverage``. With fewer than 5 values it is the whole range.

    >>> median_interval([1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6])
    (1.0, 1.6)
    >>> median_interval([0.9, 1.2])
    (0.9, 1.2)
    """
    x = sorted(ratios)
    n = len(x)
    k = 1
    while k + 1 <= n // 2:
        tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n  # P(B <= k) for the next k
        if 1 - 2 * tail < coverage:
            break
        k += 1
    return x[k - 1], x[n - k]


def verdict(ratios: list[float], limit: float = LIMIT) -> str:
    """``"slower"`` when the median ratio exceeds ``limit`` and its interval lies above 1, else ``"ok"``.

    >>> verdict([1.10, 1.12, 1.09, 1.11, 1.13, 1.08, 1.10])
    'slower'
    >>> verdict([0.95, 1.20, 1.01, 1.10, 0.90, 1.30, 1.07])
    'ok'
    """
    low, _ = median_interval(ratios)
    return "slower" if statistics.median(ratios) > limit and low > 1.0 else "ok"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--base", default=None, help=f"git revision to guard against (default: newest tag, else {BASELINE})"
    )
    parser.add_argument("--only", default="W1,W2,W3,W4", help="comma-separated workloads (default: W1,W2,W3,W4)")
    parser.add_argument("--repeats", type=int, default=7, help="paired rounds (default: 7; at least 5)")
    parser.add_argument("--limit", type=float, default=LIMIT, help=f"largest allowed median ratio (default: {LIMIT})")
    args = parser.parse_args()
    if args.repeats < 5:
        parser.error("--repeats must be at least 5 (fewer pairs give no interval)")
    base_rev = args.base or default_base()
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        versions = source_versions(base_rev, None, Path(tmp))
        print(f"# guard: working tree against {base_rev}, {args.repeats} paired rounds, limit {args.limit}\n")
        print("| workload | base s | head s | time ratio (90% CI) | RSS ratio (90% CI) | values | verdict |")
        print("|---|---:|---:|---|---|---|---|")
        for label, code, child_args in workloads_of(set(args.only.upper().split(","))):
            wall: dict[str, list[float]] = {name: [] for name in versions}
            rss: dict[str, list[float]] = {name: [] for name in versions}
            values: dict[str, dict] = {}
            for _ in range(args.repeats):
                for name, env in versions.items():
                    found, seconds, peak = run_child(code, *child_args, env=env)
                    for key in ("seconds", "import", "first_call"):
                        found.pop(key, None)
                    wall[name].append(seconds)
                    rss[name].append(peak)
                    values[name] = found
            times = [h / b for b, h in zip(wall["base"], wall["head"], strict=True)]
            memory = [h / b for b, h in zip(rss["base"], rss["head"], strict=True)]
            same = agree(values["base"], values["head"], tol=0.0)
            verdicts = {verdict(times, args.limit), verdict(memory, args.limit)}
            result = "slower" if "slower" in verdicts else "ok" if same == "agree" else "values changed"
            if result != "ok":
                failed.append(label)
            (t_lo, t_hi), (m_lo, m_hi) = median_interval(times), median_interval(memory)
            print(
                f"| {label.replace(' (in-process)', '')} | {statistics.median(wall['base']):.3f} | {statistics.median(wall['head']):.3f} | "
                f"{statistics.median(times):.3f} ({t_lo:.3f}-{t_hi:.3f}) | "
                f"{statistics.median(memory):.3f} ({m_lo:.3f}-{m_hi:.3f}) | {same} | {result} |"
            )
    if failed:
        print(f"\nguard FAILED: {', '.join(failed)}")
        return 1
    print("\nguard passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
