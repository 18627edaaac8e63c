"""CPU-heavy tool calls (lint, analyze_curve) run in worker processes, not in the server's process.

A thread is not enough: parsing holds the interpreter lock for seconds at a time in C (ast.parse of
a large file), and every other request would wait behind it. A process also gives its memory back:
each worker does one call and exits, so a large input never leaves the server holding a gigabyte.
Workers fork from a server process that imported the services once (forkserver), so a call costs
a fork, not an interpreter start. At most WORKERS calls run at once; more wait their turn.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any, TypeVar

import anyio

from ..errors import MldebugError

logger = logging.getLogger(__name__)

WORKERS = 2
PRELOAD = ["mldebug_mcp.services.lint", "mldebug_mcp.services.curves"]
Result = TypeVar("Result")

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()
_limiters: dict[int, anyio.CapacityLimiter] = {}


class WorkerDied(MldebugError):
    """A worker process ended without an answer (killed for memory, or a crash in native code)."""


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")  # Windows; macOS has forkserver


def _executor() -> ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=WORKERS, mp_context=_context(), max_tasks_per_child=1)
        return _pool


def _discard(pool: ProcessPoolExecutor) -> None:
    global _pool
    with _pool_lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


@atexit.register
def _shutdown() -> None:
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)


def _limiter() -> anyio.CapacityLimiter:
    # a limiter belongs to one event loop; tests run several loops in one process
    import asyncio

    key = id(asyncio.get_running_loop())
    if key not in _limiters:
        _limiters.clear()
        _limiters[key] = anyio.CapacityLimiter(WORKERS)
    return _limiters[key]


async def run_heavy(function: Callable[..., Result], /, *args: Any, **kwargs: Any) -> Result:
    """function(*args, **kwargs) in a worker process; its exceptions are raised here as they were there."""
    call = partial(function, *args, **kwargs)
    async with _limiter():
        pool = _executor()
        try:
            future: Future = pool.submit(call)
        except BrokenProcessPool:
            _discard(pool)
            pool = _executor()
            future = pool.submit(call)
        except (RuntimeError, OSError) as exc:
            # no worker can start (an embedding script without a __main__ guard, no forkserver socket):
            # answer from a thread of this process rather than not at all
            logger.warning("worker processes unavailable (%s); running %s in a thread", exc, function.__name__)
            return await anyio.to_thread.run_sync(call)
        try:
            return await anyio.to_thread.run_sync(future.result, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            future.cancel()  # a call still waiting for a worker never starts
            raise
        except BrokenProcessPool as exc:
            _discard(pool)
            raise WorkerDied(
                "the worker process running this call ended without an answer (out of memory, or a crash); "
                "try a smaller input, or lint fewer files per call"
            ) from exc
