"""Two versions of rankmeter on the same workloads, in turns: did a change move the figures?

A refactoring that must not change speed (or a change that claims to improve it) is measured here: the
sources of ``--base`` (any git revision) are exported to a temporary folder, and every workload runs as
fresh child processes of both versions round-robin (:func:`harness.rounds`), so the machine's drift
touches both alike. Values are checked equal between the two versions before the table is trusted.

Usage::

    python benchmarks/ab.py --base 95f7ada [--head HEAD] [--only W1,W2,W3,W4] [--repeats 7]
    python benchmarks/ab.py --base main --only W3REMOVED    # mask= / exclude= on W3, and each / the call without

``--head`` defaults to the working tree; the table gives medians and head / base ratios (< 1: faster).

Finding the commit that slowed a workload down (a bisect helper)::

    python benchmarks/ab.py --sweep 95f7ada..main --only W1 --repeats 5 [--points 12]

runs the workload for ``A`` and the first-parent commits of ``A..B`` (at most ``--points`` of them, evenly
spaced, ``B`` always included) in turns, and prints each commit's median wall and CPU seconds, both over
``A``'s, and its peak RSS; the step where the ratio jumps names the merge to sweep next
(``--sweep MERGE^1..MERGE^2`` walks the merged branch).
"""

from __future__ import annotations

import argparse
import compileall
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads  # noqa: E402
from harness import agree, run_child, run_command_cpu  # noqa: E402
from run import CHILD_DENSE_RANKMETER, CHILD_RANKMETER_FILES, CHILD_TINY  # noqa: E402

REPO = HERE.parent


def export_sources(revision: str, into: Path) -> Path:
    """The ``src/`` folder of ``revision`` written under ``into``; returns it (for ``PYTHONPATH``)."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "src"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    src = into / "src"
    compileall.compile_dir(str(src), quiet=1)  # as pip does for installed packages
    return src


def source_versions(base: str, head: str | None, tmp: Path) -> dict[str, dict[str, str]]:
    """The child environments of both versions: ``base`` exported under ``tmp``, ``head`` too or the working tree."""
    paths = {"base": export_sources(base, tmp / "base")}
    if head:
        paths["head"] = export_sources(head, tmp / "head")
    else:
        paths["head"] = REPO / "src"
        compileall.compile_dir(str(paths["head"]), quiet=1)
    return {name: {"PYTHONPATH": str(path)} for name, path in paths.items()}


# W3 with 20 items of every row removed (``mask=`` or a scipy.sparse ``exclude=``, argv[4]), each call in turn with
# the call without them, 3 times in the process: the median removed-item call and its median ratio to the other
CHILD_DENSE_REMOVED = """
import json, sys, time
sys.path.insert(0, sys.argv[1]); import workloads, rankmeter, numpy as np
from bench_dense import seen_items
y, s = workloads.w3(int(sys.argv[2]))
seen = seen_items(y.shape, 20)
keep = np.ones(y.shape, dtype=bool); keep[seen.nonzero()] = False
kwargs = {'mask': keep} if sys.argv[4] == 'mask' else {'exclude': seen}
measures = sys.argv[3].split(';')
rankmeter.evaluate_arrays(y[:100], s[:100], measures, **{k: v[:100] for k, v in kwargs.items()})
plain, removed = [], []
for _ in range(3):
    t, c = time.perf_counter(), time.process_time(); rankmeter.evaluate_arrays(y, s, measures)
    plain.append((time.perf_counter() - t, time.process_time() - c))
    t, c = time.perf_counter(), time.process_time(); res = rankmeter.evaluate_arrays(y, s, measures, **kwargs)
    removed.append((time.perf_counter() - t, time.process_time() - c))
wall, cpu = (sorted(r[i] / p[i] for r, p in zip(removed, plain))[1] for i in (0, 1))
print(json.dumps({'seconds': sorted(removed)[1][0], 'per_unmasked': wall, 'per_unmasked_cpu': cpu, **res.aggregate}))
"""


def workloads_of(only: set[str]) -> list[tuple[str, str, list[str]]]:
    """(label, child code, its arguments) of the chosen workloads."""
    chosen = []
    if "W1" in only:
        q, r = workloads.w1()
        chosen.append(
            (
                "W1 files (ndcg@10, ndcg, map, p@10, r@100)",
                CHILD_RANKMETER_FILES,
                [str(q), str(r), "ndcg@10;ndcg;map;p@10;r@100"],
            )
        )
    if "W2" in only:
        q, r = workloads.w2()
        chosen.append(("W2 files (ndcg@10, ndcg, map)", CHILD_RANKMETER_FILES, [str(q), str(r), "ndcg@10;ndcg;map"]))
    if "W3" in only:
        chosen.append(("W3 dense ndcg@10 (in-process)", CHILD_DENSE_RANKMETER, [str(HERE), "20000", "ndcg@10"]))
        chosen.append(
            (
                "W3 dense ndcg@10, ndcg, map (in-process)",
                CHILD_DENSE_RANKMETER,
                [str(HERE), "20000", "ndcg@10;ndcg;map"],
            )
        )
    if "W3REMOVED" in only:
        for measures in ("ndcg@10", "ndcg;map"):
            for form in ("mask", "exclude"):
                label = f"W3 dense {measures.replace(';', ', ')}, {form}= (in-process)"
                chosen.append((label, CHILD_DENSE_REMOVED, [str(HERE), "20000", measures, form]))
    if "W4" in only:
        chosen.append(("W4 tiny: import + first call (in-process)", CHILD_TINY, []))
    return chosen


def sweep_commits(span: str, points: int) -> list[str]:
    """``A`` and the first-parent commits of ``A..B``, oldest first: at most ``points`` of them, evenly spaced, ``B`` kept."""
    start, _, end = span.partition("..")
    listed = subprocess.run(
        ["git", "-C", str(REPO), "rev-list", "--first-parent", "--reverse", "--abbrev-commit", f"{start}..{end}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    if len(listed) > points:
        listed = (
            [listed[round(k * (len(listed) - 1) / (points - 1))] for k in range(points)] if points > 1 else listed[-1:]
        )
    return [start, *listed]


def sweep(span: str, only: set[str], repeats: int, points: int) -> None:
    """Every commit of :func:`sweep_commits` on the chosen workloads, in turns: medians, ratios to the first, RSS."""
    commits = sweep_commits(span, points)
    with tempfile.TemporaryDirectory() as tmp:
        envs = {c: {"PYTHONPATH": str(export_sources(c, Path(tmp) / f"{k:03d}"))} for k, c in enumerate(commits)}
        for label, code, child_args in workloads_of(only):
            runs: dict[str, list[tuple[float, float]]] = {c: [] for c in commits}
            rss: dict[str, float] = dict.fromkeys(commits, 0.0)
            values: dict[str, dict] = {}
            for _ in range(repeats):  # every commit once per round
                for c in commits:
                    out, wall, peak, cpu = run_command_cpu([sys.executable, "-c", code, *child_args], env=envs[c])
                    values[c] = {k: v for k, v in json.loads(out.strip().splitlines()[-1]).items() if k != "seconds"}
                    runs[c].append((wall, cpu))
                    rss[c] = max(rss[c], peak)
            print(f"\n## {label}: {len(commits)} commits in turns, {repeats} rounds (whole processes)\n")
            print("| commit | subject | wall s | / first | CPU s | / first | peak RSS MB | values |")
            print("|---|---|---:|---:|---:|---:|---:|---|")
            first = [statistics.median(x[i] for x in runs[commits[0]]) for i in (0, 1)]
            for c in commits:
                wall, cpu = (statistics.median(x[i] for x in runs[c]) for i in (0, 1))
                subject = subprocess.run(
                    ["git", "-C", str(REPO), "log", "-1", "--format=%s", c], capture_output=True, text=True, check=True
                ).stdout.strip()[:60]
                print(
                    f"| {c} | {subject} | {wall:.3f} | {wall / first[0]:.2f} | {cpu:.3f} | {cpu / first[1]:.2f} | "
                    f"{rss[c]:.0f} | {agree(values[commits[0]], values[c], tol=0.0)} |"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", help="git revision to compare against")
    parser.add_argument("--sweep", metavar="A..B", help="run A and the first-parent commits of A..B in turns instead")
    parser.add_argument("--points", type=int, default=12, help="with --sweep: commits at most (default: 12)")
    parser.add_argument("--head", default=None, help="git revision of the new version (default: the working tree)")
    parser.add_argument("--only", default="W1,W2,W3,W4", help="comma-separated workloads")
    parser.add_argument("--repeats", type=int, default=7, help="rounds (default: 7)")
    args = parser.parse_args()
    only = set(args.only.upper().split(","))
    if args.sweep:
        sweep(args.sweep, only, args.repeats, args.points)
        return
    if not args.base:
        parser.error("--base or --sweep is required")
    with tempfile.TemporaryDirectory() as tmp:
        versions = source_versions(args.base, args.head, Path(tmp))
        print(f"# A/B: base {args.base} against head {args.head or 'working tree'}, {args.repeats} rounds\n")
        print(
            "| workload | base median s | head median s | head / base | base RSS MB | head RSS MB | values "
            "| / the call without removed items, wall, CPU (range): base; head |"
        )
        print("|---|---:|---:|---:|---:|---:|---|---|")
        for label, code, child_args in workloads_of(only):
            seconds: dict[str, list[float]] = {name: [] for name in versions}
            rss: dict[str, float] = dict.fromkeys(versions, 0.0)
            values: dict[str, dict] = {}
            per_unmasked: dict[str, list[tuple[float, float]]] = {name: [] for name in versions}
            for _ in range(args.repeats):  # both versions in turns
                for name, env in versions.items():
                    found, wall, peak = run_child(code, *child_args, env=env)
                    timing = {key: found.pop(key) for key in ("seconds", "import", "first_call") if key in found}
                    if "per_unmasked" in found:
                        per_unmasked[name].append((found.pop("per_unmasked"), found.pop("per_unmasked_cpu")))
                    # in-process time where the child reports one (W3: the evaluation; W4: import + first call)
                    seconds[name].append(timing["seconds"] if "seconds" in timing else sum(timing.values()) or wall)
                    rss[name] = max(rss[name], peak)
                    values[name] = found
            base_s, head_s = (statistics.median(seconds[name]) for name in versions)
            same = agree(values["base"], values["head"], tol=0.0)
            ratios = "; ".join(
                ", ".join(f"{statistics.median(x):.2f}x ({min(x):.2f}-{max(x):.2f})" for x in zip(*r, strict=True))
                for r in per_unmasked.values()
                if r
            )
            print(
                f"| {label} | {base_s:.3f} | {head_s:.3f} | {head_s / base_s:.2f} | {rss['base']:.0f} | "
                f"{rss['head']:.0f} | {same} | {ratios} |"
            )


if __name__ == "__main__":
    main()
