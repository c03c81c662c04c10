"""A function mapped over items in worker processes, results in the items' order.

Evaluating a run is many NumPy calls on arrays of a few hundred thousand rows with Python in
between, so threads (:func:`~rankmeter.core.lists.map_blocks`) add little to several runs
evaluated at once: the GIL is held between the calls. Processes do not share it.

Where the operating system forks (Linux and other Unix systems but macOS), each worker starts as
a copy of the calling process: the state it needs -- qrels read and interned once, the keys
derived from them -- is inherited, not copied or pickled, and only the items and the results
travel between processes. Elsewhere (``spawn``: Windows, macOS) the shared state is pickled once
per worker.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from rankmeter.errors import WorkerDiedError

T = TypeVar("T")
S = TypeVar("S")
B = TypeVar("B")

_WORKER_STATE: tuple[Callable[[Any, Any], Any], Any] | None = None  # set in each worker process only


def forks() -> bool:
    """Whether workers start as forks of this process (and so inherit its memory without pickling).

    Not on macOS, where a fork of a process that has used system frameworks may crash; there and
    where ``fork`` does not exist the workers are spawned.

    >>> forks() if sys.platform.startswith("linux") else True  # Linux forks
    True
    """
    import multiprocessing  # here, not at import: a cost that a single run does not need

    return sys.platform != "darwin" and "fork" in multiprocessing.get_all_start_methods()


def processes_allowed() -> bool:
    """Whether this process may start workers (a daemonic process, itself a pool's worker, may not).

    >>> processes_allowed()
    True
    """
    import multiprocessing

    return not multiprocessing.current_process().daemon


def died(unfinished: list[str], workers: int) -> WorkerDiedError:
    """The error for a worker that died while ``unfinished`` (in the order handed out) were not done.

    >>> str(died(["a", "b", "c"], 2))
    "a worker process died (killed by a signal, often by the system for lack of memory) while evaluating \
'a' or 'b'; 1 more not evaluated; evaluate the runs in flight alone or with fewer workers (--workers 1)"
    """
    flight = " or ".join(map(repr, unfinished[:workers]))
    rest = f"; {len(unfinished) - workers} more not evaluated" if len(unfinished) > workers else ""
    return WorkerDiedError(
        "a worker process died (killed by a signal, often by the system for lack of memory) while evaluating "
        f"{flight}{rest}; evaluate the runs in flight alone or with fewer workers (--workers 1)"
    )


def _install(fn: Callable[[Any, Any], Any], shared: Any) -> None:
    """Pool initializer: keep the function and its shared state in this worker."""
    global _WORKER_STATE
    _WORKER_STATE = (fn, shared)


def _call(item: Any) -> Any:
    """Pool task: the installed function on the shared state and one item."""
    assert _WORKER_STATE is not None
    fn, shared = _WORKER_STATE
    return fn(shared, item)


def map_processes(
    fn: Callable[[S, B], T], shared: S, items: Sequence[B], workers: int, label: Callable[[B], str] = str
) -> Iterator[T]:
    """``fn(shared, item)`` for every item, on ``workers`` processes, yielded in the items' order.

    Parameters
    ----------
    fn : callable
        A module-level function (spawned workers import it by name).
    shared : object
        State every call reads: inherited by forked workers, pickled once per spawned worker.
    items : sequence
        One task each, pickled to the worker that runs it; keep them small.
    workers : int
        Processes; at most one per item. Under two (or from a daemonic process, which may not
        have children) every call runs in this process, one after the other.
    label : callable
        The name of an item in the error raised when a worker dies (default ``str``).

    Yields
    ------
    object
        ``fn(shared, item)``, in the order of ``items``. An exception raised by a call is raised
        here when its item's turn comes (the first in the items' order, whatever finished first);
        the items not yet started are then dropped. A worker that dies (killed for memory by the
        system's OOM killer, or by a signal) raises :class:`~rankmeter.errors.WorkerDiedError`
        naming the items in flight: the first ``workers`` items not finished, as the pool hands items
        out in order.

    Examples
    --------
    >>> list(map_processes(divmod, 7, [2, 3], workers=1))
    [(3, 1), (2, 1)]
    """
    workers = min(workers, len(items))
    if workers < 2 or not processes_allowed():
        yield from (fn(shared, item) for item in items)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("fork" if forks() else "spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_install, initargs=(fn, shared))
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns of forking a process that has threads (pyarrow's idle pool): the workers
            # only run NumPy and pyarrow code, both of which reinitialise what they need after a fork
            warnings.filterwarnings("ignore", message=r".*multi-threaded.*fork", category=DeprecationWarning)
            results = pool.map(_call, items)  # every item submitted: forked workers all start here
        # a worker that dies (killed for memory) raises BrokenProcessPool here rather than hanging
        done = 0
        try:
            for result in results:
                yield result
                done += 1
        except BrokenProcessPool:
            raise died(list(map(label, items[done:])), workers) from None
    finally:  # an error or a closed generator: the items not started are dropped
        pool.shutdown(wait=True, cancel_futures=True)
