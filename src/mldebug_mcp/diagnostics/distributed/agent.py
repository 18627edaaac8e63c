"""torchrun, in the user's interpreter: starts the N ranks and says which one failed, and how.

This is `torchrun --standalone --nproc-per-node N` (torch.distributed.run, called as a function so that
its ChildFailedError can be read): a standalone c10d rendezvous on a free port (localhost:0), every rank
started with the rank bootstrap. A rank that dies without reporting (os._exit, a signal, a crash in
native code) is known only here; the failures are written to agent.jsonl in the events folder as one
error event naming the first rank torchrun saw fail and how every failed rank ended (exit code or signal).

argv: nproc, events folder, target, options (JSON).
"""

from __future__ import annotations

import os
import signal
import sys
import time

from ..checks.runner import Events
from .bootstrap import BOOTSTRAP

AGENT_EVENTS = "agent.jsonl"


def torchrun_arguments(nproc: int, events_dir: str, target: str, options: str) -> list[str]:
    """torchrun's command line: each rank runs `python -c BOOTSTRAP <diagnostics dir> rank ...`."""
    diagnostics_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return ["--standalone", "--nnodes=1", f"--nproc-per-node={nproc}", "--max-restarts=0", "--no-python",
            sys.executable, "-c", BOOTSTRAP, diagnostics_dir, "rank", events_dir, target, options]


def describe_failure(exitcode: int, signal_name: str) -> str:
    if exitcode < 0:
        return f"was killed by signal {signal_name} (exit code {exitcode})"
    return (f"exited with code {exitcode} before reporting (os._exit or sys.exit in user code, or a crash "
            "in native code)")


def main(argv: list[str]) -> int:
    nproc, events_dir, target, options = int(argv[0]), argv[1], argv[2], argv[3]
    events = Events(os.path.join(events_dir, AGENT_EVENTS))
    events.emit(event="started", pid=os.getpid(), python=sys.executable)
    try:
        from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
        from torch.distributed.run import parse_args, run
    except ImportError as exc:
        events.emit(event="error", stage="import", error={"type": "ImportError", "message": str(exc), "frames": []})
        return 1
    try:
        run(parse_args(torchrun_arguments(nproc, events_dir, target, options)))
    except ChildFailedError as exc:
        # torchrun's first failure is by the time it noticed; the ranks it stopped after it are listed too,
        # so that the parent can find the one that died without a word of its own
        rank, _ = exc.get_first_failure()
        failed = {str(r): describe_failure(f.exitcode, f.signal_name()) for r, f in exc.failures.items()}
        stopped = [r for r, f in exc.failures.items() if f.exitcode == -signal.SIGTERM]  # torchrun's own stop
        events.emit(event="error", stage="rank", rank=rank, time=time.time(), failed=failed, stopped=stopped,
                    error={"type": "RankFailed", "frames": [], "message": failed[str(rank)]})
        return 1
    return 0
