"""Every process a diagnose run starts, found, measured and killed as one.

The child's process group is not enough: user code can start processes in a new session
(start_new_session=True, os.setsid, daemons) and can exit before them, which re-parents them to
init. So a process belongs to the run when it was ever seen descending from the child by parent
id (a pid once seen stays tracked after its parent dies), or when its environment carries the
run's marker variable, which every descendant inherits unless it is started with a scrubbed
environment: that catches double forks that detach between two polls. Only processes started
after the run began are read for the marker, and only where the system lets this user read their
environment. psutil does the work on Linux, macOS and Windows.
"""

from __future__ import annotations

import os

import psutil

MARKER_VARIABLE = "MLDEBUG_DIAGNOSE_RUN"
CLOCK_SLACK_SECONDS = 2.0  # psutil's start times derive from the boot time, known to about a second on Linux


class ProcessTree:
    """The child started as `root_pid` and everything it started, under the environment marker `marker`."""

    def __init__(self, root_pid: int, marker: str, started: float) -> None:
        self._marker = marker
        self._since = started - CLOCK_SLACK_SECONDS
        self._tracked: dict[int, psutil.Process] = {}
        try:
            self._tracked[root_pid] = psutil.Process(root_pid)
        except psutil.NoSuchProcess:
            pass  # already gone: the marker scan still finds what it left behind

    def refresh(self, scan_marker: bool = False) -> None:
        """Track the descendants of every live tracked process and, with `scan_marker`, every marked process."""
        processes = list(psutil.process_iter(["ppid", "create_time"]))
        if scan_marker:
            for process in processes:
                if self._is_new(process) and self._carries_marker(process):
                    self._tracked[process.pid] = process
        children: dict[int, list[psutil.Process]] = {}
        for process in processes:
            children.setdefault(process.info["ppid"], []).append(process)
        frontier = [pid for pid, process in self._tracked.items() if _alive(process)]
        while frontier:
            for child in children.get(frontier.pop(), ()):
                if self._is_new(child):
                    self._tracked[child.pid] = child
                    frontier.append(child.pid)

    def alive(self) -> list[psutil.Process]:
        """The tracked processes still running (zombies count as gone: they hold no memory and run nothing)."""
        return [process for process in self._tracked.values() if _alive(process)]

    def memory_mb(self) -> float:
        """Memory of the whole tree: the sum of each process's proportional share (PSS) on Linux, so pages that
        forked workers share are counted once; resident memory (RSS) elsewhere."""
        return sum(_megabytes(process) for process in self.alive())

    def kill(self) -> None:
        """SIGKILL (TerminateProcess on Windows) every process of the tree, after one last full scan."""
        self.refresh(scan_marker=True)
        for process in self.alive():
            try:
                process.kill()  # psutil checks the start time first: a reused pid is never hit
            except psutil.Error:
                pass  # gone meanwhile, or not ours to kill: alive() reports it afterwards

    def _is_new(self, process: psutil.Process) -> bool:
        """Not tracked yet (or tracked under a pid since reused), and not this process itself."""
        known = self._tracked.get(process.pid)
        return process.pid != os.getpid() and (known is None or not known.is_running())

    def _carries_marker(self, process: psutil.Process) -> bool:
        if (process.info.get("create_time") or 0.0) < self._since:
            return False  # older than the run: cannot be one of ours, and reading its environment costs time
        try:
            return process.environ().get(MARKER_VARIABLE) == self._marker
        except (psutil.Error, OSError):
            return False  # another user's process, or an environment this system keeps private


def describe(process: psutil.Process) -> str:
    """'pid 123 (python -c ...)', for messages about processes that outlived the run."""
    try:
        command = " ".join(process.cmdline())[:120]
    except psutil.Error:
        command = "?"
    return f"pid {process.pid} ({command})"


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True  # cannot tell: count it, so that a survivor is reported rather than hidden


def _megabytes(process: psutil.Process) -> float:
    try:
        if psutil.LINUX:
            try:
                return process.memory_full_info().pss / 2**20
            except psutil.AccessDenied:
                pass
        return process.memory_info().rss / 2**20
    except psutil.Error:
        return 0.0
