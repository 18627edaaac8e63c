"""Heavy tool calls run in worker processes: answers and errors come back as if run here, a worker
that dies becomes a clear error, and the server keeps answering afterwards."""

from __future__ import annotations

import os

import pytest

from mldebug_mcp.errors import UsageError
from mldebug_mcp.server import workers

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


def _pid_plus(offset: int) -> int:
    return os.getpid() + offset


def _refuse(message: str) -> None:
    raise UsageError(message)


def _die() -> None:
    os._exit(3)  # what the kernel's out-of-memory killer looks like from here


async def test_a_call_runs_in_another_process_and_returns_its_value():
    assert await workers.run_heavy(_pid_plus, 0) != os.getpid()
    assert await workers.run_heavy(_pid_plus, offset=0) != os.getpid()


async def test_a_usage_error_comes_back_unchanged():
    with pytest.raises(UsageError, match="names the fix"):
        await workers.run_heavy(_refuse, "names the fix")


async def test_a_dead_worker_is_a_clear_error_and_the_next_call_works():
    with pytest.raises(workers.WorkerDied, match="ended without an answer"):
        await workers.run_heavy(_die)
    assert await workers.run_heavy(_pid_plus, 1) > 1


def _spin() -> None:
    while True:  # what a rule caught in a cycle looks like from here
        pass


async def test_a_call_past_the_time_limit_is_stopped_with_a_clear_error(monkeypatch):
    monkeypatch.setenv("MLDEBUG_HEAVY_TIMEOUT", "2")
    with pytest.raises(workers.WorkerTimedOut, match="ran past 2 s.*MLDEBUG_HEAVY_TIMEOUT"):
        await workers.run_heavy(_spin)
    monkeypatch.delenv("MLDEBUG_HEAVY_TIMEOUT")  # the next worker may still be starting on a loaded machine
    assert await workers.run_heavy(_pid_plus, 1) > 1


async def test_without_worker_processes_the_call_runs_in_a_thread(monkeypatch):
    def unstartable():
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(workers, "_start", unstartable)
    monkeypatch.setattr(workers, "_spares", [])
    assert await workers.run_heavy(_pid_plus, 0) == os.getpid()


async def test_what_the_call_prints_does_not_spoil_the_answer():
    assert await workers.run_heavy(_print_and_return, "answer") == "answer"


def _print_and_return(value: str) -> str:
    print("noise on stdout")
    return value
