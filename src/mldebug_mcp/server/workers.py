"""CPU-heavy tool calls (lint, analyze_curve) run in worker processes, not in the server's process.

A thread is not enough: parsing holds the interpreter lock for seconds at a time in C (ast.parse of
a large file), and every other request would wait behind it. A process also gives its memory back:
each worker answers one call and exits, so a large input never leaves the server holding a gigabyte.

A worker is `python -m mldebug_mcp.services.worker` started ahead of need (one spare waits with the
services imported), so a call costs no interpreter start. The call goes in and the answer comes out
as one pickle each over the worker's stdin and stdout. Plain subprocesses rather than
multiprocessing: those re-import the server's main module in every worker, which breaks a server
embedded in a script. At most WORKERS calls run at once; more wait their turn.
"""

from __future__ import annotations

import atexit
import logging
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import anyio

from ..errors import MldebugError

WORKERS = 2
# A call that runs longer than this is stopped and its worker killed: one pathological input (a file that sends a
# rule round a cycle) must not hold a worker, and the client's request, for ever. MLDEBUG_HEAVY_TIMEOUT overrides it.
HEAVY_TIMEOUT_S = 600.0
logger = logging.getLogger(__name__)
Result = TypeVar("Result")

_spares: list[subprocess.Popen] = []
_spares_lock = threading.Lock()
_limiters: dict[int, anyio.CapacityLimiter] = {}


class WorkerDied(MldebugError):
    """A worker process ended without an answer (killed for memory, or a crash in native code)."""


class WorkerTimedOut(MldebugError):
    """A worker process ran past the time limit and was killed."""


def _time_limit() -> float:
    try:
        return float(os.environ.get("MLDEBUG_HEAVY_TIMEOUT", HEAVY_TIMEOUT_S))
    except ValueError:
        return HEAVY_TIMEOUT_S


def _start() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "mldebug_mcp.services.worker"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=None, close_fds=True)


def _take_worker() -> subprocess.Popen:
    """A started worker (the spare if it is still alive), leaving a new spare starting behind it."""
    with _spares_lock:
        worker = None
        while _spares and worker is None:
            candidate = _spares.pop()
            worker = candidate if candidate.poll() is None else None
        _spares.append(_start())
    return worker or _start()


@atexit.register
def _stop_spares() -> None:
    with _spares_lock:
        for worker in _spares:
            worker.kill()
            worker.wait()
        _spares.clear()


def _limiter() -> anyio.CapacityLimiter:
    # a limiter belongs to one event loop; tests run several loops in one process
    import asyncio

    key = id(asyncio.get_running_loop())
    if key not in _limiters:
        _limiters.clear()
        _limiters[key] = anyio.CapacityLimiter(WORKERS)
    return _limiters[key]


def _exchange(worker: subprocess.Popen, request: bytes) -> Any:
    answer, _ = worker.communicate(request)
    if worker.returncode != 0 or not answer:
        raise WorkerDied(
            f"the worker process running this call ended without an answer (exit code {worker.returncode}: out "
            "of memory, or a crash); try a smaller input, or fewer files per call"
        )
    outcome, value = pickle.loads(answer)  # trusted: our own child's answer, over a private pipe
    if outcome == "error":
        raise value
    return value


async def run_heavy(function: Callable[..., Result], /, *args: Any, **kwargs: Any) -> Result:
    """function(*args, **kwargs) in a worker process; its exceptions are raised here as they were there."""
    request = pickle.dumps((function, args, kwargs))
    async with _limiter():
        try:
            worker = _take_worker()
        except OSError as exc:  # no process can be started (limits): answer from a thread rather than not at all
            logger.warning("cannot start a worker process (%s); running %s in a thread", exc, function.__name__)
            return await anyio.to_thread.run_sync(partial(function, *args, **kwargs))
        limit = _time_limit()
        try:
            with anyio.fail_after(limit):
                return await anyio.to_thread.run_sync(_exchange, worker, request, abandon_on_cancel=True)
        except TimeoutError:
            worker.kill()
            raise WorkerTimedOut(
                f"this call ran past {limit:g} s and was stopped; give it fewer files (or a smaller input) per call, "
                "or raise the limit with the MLDEBUG_HEAVY_TIMEOUT environment variable (seconds)") from None
        except anyio.get_cancelled_exc_class():
            worker.kill()  # a cancelled call stops using the CPU at once
            raise
