"""A small process that starts the benchmarks' contenders, so that each one's peak RSS is its own.

A child forked from a process (and ``vfork``, which :mod:`subprocess` uses, alike) starts with the
parent's memory high-water mark, and ``ru_maxrss`` keeps it across ``exec``: a contender started by a
benchmark process that holds gigabytes of data reports those gigabytes as its own peak. This launcher is
its own Python process (a few MB); it starts each contender, waits for it with :func:`os.wait4` and
answers with the contender's wall time, CPU time, peak RSS and exit status. The peak of a contender that
uses less memory than the launcher itself reads as the launcher's (about 10 MB): a floor, not a figure.

Protocol: one JSON object per line on stdin, ``{"argv": [...], "env": {...}, "stdout": path,
"stderr": path}`` (``env``: the whole environment of the contender); one JSON object per line on stdout,
``{"status": int, "wall": s, "cpu": s, "rss_kb": int}``. :func:`harness.launch` is the client.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def serve() -> None:
    for line in sys.stdin:
        job = json.loads(line)
        env = job["env"]
        with open(job["stdout"], "wb") as out, open(job["stderr"], "wb") as err:
            start = time.perf_counter()
            try:
                proc = subprocess.Popen(job["argv"], stdout=out, stderr=err, env=env)
            except OSError as exc:
                err.write(f"{job['argv'][0]}: {exc}\n".encode())
                print(json.dumps({"status": 127 << 8, "wall": 0.0, "cpu": 0.0, "rss_kb": 0}), flush=True)  # exit 127
                continue
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
        answer = {"status": status, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_kb": usage.ru_maxrss}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    serve()
