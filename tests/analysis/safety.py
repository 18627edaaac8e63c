"""Helpers for the reader's safety tests: a deadline for calls that could block, a child with a memory cap."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap

import pytest


@contextlib.contextmanager
def deadline(seconds: int):
    """Fail instead of hanging: SIGALRM interrupts a blocked open() or read() (pytest runs tests in
    the main thread, where signals are delivered)."""

    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: the reader blocked")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def read_in_capped_child(path, memory_mb: int = 512, timeout: int = 30) -> subprocess.CompletedProcess:
    """read_curve(path) in a child limited to `memory_mb` of address space: a reader that does not
    bound its reads dies of MemoryError there instead of taking the test run down."""
    code = textwrap.dedent(f"""
        import resource, sys
        from pathlib import Path
        from mldebug_mcp.analysis.curve_io import read_curve
        from mldebug_mcp.errors import UsageError
        resource.setrlimit(resource.RLIMIT_AS, ({memory_mb} << 20, {memory_mb} << 20))
        try:
            read_curve(Path(sys.argv[1]))
        except UsageError as exc:
            print("UsageError:", exc)
            sys.exit(3)
    """)
    try:
        return subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"reading {path} did not finish within {timeout} s")


def make_fifo(path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(path)
