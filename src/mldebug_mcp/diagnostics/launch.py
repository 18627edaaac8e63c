"""Run the checks in a child process with the user's interpreter, under a timeout and memory cap.

The child loads ./checks by path under a private module name, so the user's interpreter
needs only torch, not this package. Progress and the final report arrive as JSON lines in
an events file (read by ./events.py, which rejects anything the runner would not write).

The child's stdout and stderr come through a pipe of which only the last TAIL_CHARS are kept;
more than OUTPUT_LIMIT_BYTES of output stops the run. The child and everything it starts (found
by ./process_tree.py, new sessions and orphans included) count together against the memory cap,
and are all killed when the run ends, however it ends: report, error, timeout, memory or output
overrun, or cancellation of the awaiting task. Processes that outlive the kill are named.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from ..errors import DiagnoseError, UsageError
from .events import EventReader, MalformedEvent

if TYPE_CHECKING:
    from .process_tree import ProcessTree

CHECKS_DIR = Path(__file__).with_name("checks")
POLL_SECONDS = 0.1  # events file, exit and timeout
TREE_POLL_SECONDS = 0.3  # descendants and their memory (a scan of every process: a few ms)
MARKER_SCAN_SECONDS = 1.0  # environments of the processes started since the run began
KILL_WAIT_SECONDS = 5.0  # how long killed processes may take to go before they are reported as survivors
OUTPUT_DRAIN_SECONDS = 0.5  # after the kill, for output still in the pipe
TAIL_CHARS = 2000
OUTPUT_LIMIT_BYTES = 64 * 2**20  # stdout and stderr together; a debug run prints a few KiB

BOOTSTRAP = """\
import importlib.util, sys
d = sys.argv[1]
s = importlib.util.spec_from_file_location('_mldebug_diagnostics', d + '/__init__.py', submodule_search_locations=[d])
m = importlib.util.module_from_spec(s); sys.modules[s.name] = m; s.loader.exec_module(m)
from _mldebug_diagnostics.runner import main
sys.exit(main(sys.argv[2:]))
"""

ProgressCallback = Callable[[int, int, str], Awaitable[None] | None]
log = logging.getLogger(__name__)


@dataclass
class Limits:
    timeout_s: float = 120.0
    memory_mb: int = 8192
    python: str = field(default_factory=lambda: sys.executable)


@dataclass
class Stop:
    """Why the watch ended without a final event: exited, timeout, memory, output or malformed."""

    reason: str
    detail: str = ""


async def run_in_subprocess(target: str, options: dict[str, Any], limits: Limits, cwd: Path,
                            on_progress: ProgressCallback | None = None) -> dict[str, Any]:
    """The report dict from the child, or DiagnoseError saying why there is none."""
    def make_run(tmp: Path) -> tuple[list[str], EventReader]:
        events = EventReader(tmp / "events.jsonl")
        events.path.touch()
        return [BOOTSTRAP, str(CHECKS_DIR), target, str(events.path), json.dumps(options)], events

    final, returncode, tail, survivors = await run_child(make_run, limits, cwd, on_progress, "diagnose")
    return _outcome(final, returncode, tail, limits, survivors)


RunMaker = Callable[[Path], tuple[list[str], Any]]  # temporary folder -> (the -c code and its arguments, events)


async def run_child(make_run: RunMaker, limits: Limits, cwd: Path, on_progress: ProgressCallback | None, what: str,
                    settle: Callable[[Any, Any], Any] | None = None,
                    ) -> tuple[dict[str, Any] | Stop, int | None, str, list[str]]:
    """Run `python -c CODE ARGS...` (what `make_run` returns for a fresh temporary folder, with the events
    reader to watch) in `cwd` under `limits`, until its final event or a stop; kill it and everything it
    started; return (final event or Stop, exit code, output tail, processes that survived the kill).
    `settle(final, events)` may replace the final event while the folder still exists. Shared by diagnose,
    the distributed run and the landscape probe (`what` names the run in logs and the folder's name)."""
    # psutil is loaded only when something is run, never when the CLI or the server starts
    from .process_tree import MARKER_VARIABLE, ProcessTree

    check_python(limits.python)
    marker = uuid.uuid4().hex
    with tempfile.TemporaryDirectory(prefix=f"mldebug-{what}-") as tmp:
        arguments, events = make_run(Path(tmp))
        command = [limits.python, "-c", *arguments]
        started = time.time()
        process = await anyio.open_process(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, cwd=str(cwd),
                                           start_new_session=sys.platform != "win32",
                                           env={**os.environ, "PYTHONUNBUFFERED": "1", MARKER_VARIABLE: marker})
        tree = ProcessTree(process.pid, marker, started)
        output = OutputTail(process.stdout)
        try:
            final = await watch(process, events, output, tree, limits, on_progress)
        finally:
            with anyio.CancelScope(shield=True):  # also when the awaiting task is cancelled
                survivors = await end_run(process, tree)
                with anyio.move_on_after(OUTPUT_DRAIN_SECONDS):
                    await output.drain()
                await process.aclose()
            if survivors:
                log.warning("processes of the %s run survived SIGKILL: %s", what, ", ".join(survivors))
        if settle is not None:
            final = settle(final, events)
    return final, process.returncode, output.text(), survivors


class OutputTail:
    """The child's stdout and stderr, read from a pipe: the last TAIL_CHARS kept in memory, nothing written
    to disk, and the total counted so that a runaway printer is stopped at OUTPUT_LIMIT_BYTES."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._tail = bytearray()
        self.total = 0
        self.ended = False

    @property
    def too_large(self) -> bool:
        return self.total > OUTPUT_LIMIT_BYTES

    async def drain(self) -> None:
        """Read until the pipe ends or the limit is passed (the caller bounds the time); past the limit the
        writer blocks on a full pipe until it is killed."""
        while not self.ended and not self.too_large:
            try:
                chunk = await self._stream.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                self.ended = True
                return
            self.total += len(chunk)
            self._tail += chunk
            del self._tail[:-4 * TAIL_CHARS]  # 4 bytes are enough for any UTF-8 character

    async def read_for(self, seconds: float) -> None:
        """Read for `seconds` (what the poll loop waits between looks)."""
        deadline = anyio.current_time() + seconds
        with anyio.move_on_after(seconds):
            await self.drain()
        await anyio.sleep(max(0.0, deadline - anyio.current_time()))

    def text(self) -> str:
        return self._tail.decode("utf-8", errors="replace")[-TAIL_CHARS:]


async def watch(process: Any, events: EventReader, output: OutputTail, tree: ProcessTree, limits: Limits,
                 on_progress: ProgressCallback | None) -> dict[str, Any] | Stop:
    """Follow the events file until a final event, exit, timeout, a memory or output overrun, or a bad event."""
    now = anyio.current_time()
    deadline, next_tree, next_marker_scan = now + limits.timeout_s, now, now + MARKER_SCAN_SECONDS
    while True:
        exited = process.returncode is not None  # before reading: events written before the exit are read now
        try:
            for event in events.read():
                if event["event"] in ("report", "error"):
                    return event
                await _report_progress(event, on_progress)
            if exited:
                events.check_ended()
                return Stop("exited")
        except MalformedEvent as exc:
            return Stop("malformed", str(exc))
        if output.too_large:
            return Stop("output")
        now = anyio.current_time()
        if now >= deadline:
            return Stop("timeout")
        if now >= next_tree:
            scan_marker = now >= next_marker_scan
            tree.refresh(scan_marker=scan_marker)
            next_tree = now + TREE_POLL_SECONDS
            if scan_marker:
                next_marker_scan = now + MARKER_SCAN_SECONDS
            used = tree.memory_mb()
            if used > limits.memory_mb:
                return Stop("memory", f"{used:.0f}")
        await output.read_for(POLL_SECONDS)


async def _report_progress(event: dict[str, Any], on_progress: ProgressCallback | None) -> None:
    if event["event"] == "progress" and on_progress is not None:
        maybe = on_progress(event["index"], event["total"], event["check"])
        if maybe is not None:
            await maybe


async def end_run(process: Any, tree: ProcessTree) -> list[str]:
    """Kill the child and its whole tree, reap the child, and wait until none is left; what is still running
    after KILL_WAIT_SECONDS is returned, described (call shielded from cancellation)."""
    from .process_tree import describe

    deadline = anyio.current_time() + KILL_WAIT_SECONDS
    while True:
        _kill_group(process)
        tree.kill()
        with anyio.move_on_after(POLL_SECONDS):
            await process.wait()
        left = tree.alive()
        if (not left and process.returncode is not None) or anyio.current_time() >= deadline:
            return [describe(p) for p in left]


def _kill_group(process: Any) -> None:
    """The child's process group (dataloader workers too), while the child's pid still names it."""
    if process.returncode is not None or sys.platform == "win32":
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _outcome(final: dict[str, Any] | Stop, returncode: int | None, tail: str, limits: Limits,
             survivors: list[str]) -> dict[str, Any]:
    if isinstance(final, dict) and final["event"] == "report":
        return final["report"]
    note = survivors_note(survivors)
    if isinstance(final, dict):
        error, stage = final["error"], final["stage"]
        if stage == "import":
            raise DiagnoseError(f"{limits.python} cannot import torch ({error['message']}); install torch in "
                                f"that environment or pass --python with an interpreter that has it{note}")
        where = {"build": "building the debug spec", "spec": "validating the debug spec",
                 "run": "running the checks"}.get(stage, "running")
        raise DiagnoseError(f"{error['type']} while {where}: {error['message']}{note}", error["frames"], tail)
    raise DiagnoseError(stop_message(final, returncode, limits) + note, output_tail=tail)


def stop_message(stop: Stop, returncode: int | None, limits: Limits) -> str:
    if stop.reason == "timeout":
        return (f"the diagnosed code ran past the {limits.timeout_s:g} s timeout and was killed; "
                "use a smaller model or batch, fewer --steps, or a larger --timeout")
    if stop.reason == "memory":
        return (f"the diagnosed process and the processes it started used {stop.detail} MB, over the "
                f"{limits.memory_mb} MB limit, and were killed; shrink the debug batch, use fewer dataloader "
                "workers, or raise --memory-mb")
    if stop.reason == "output":
        return (f"the diagnosed process printed more than {OUTPUT_LIMIT_BYTES >> 20} MiB to stdout/stderr and "
                "was killed; print less in the code that builds the spec and its model (no printing per step "
                "or in a loop), or send that output to a file")
    if stop.reason == "malformed":
        return (f"the diagnosed process wrote a malformed event into its events file ({stop.detail}); that "
                "file is for the checks' runner only: does your code write to the paths in sys.argv?")
    return (f"the diagnosed process exited with code {returncode} before reporting "
            "(a crash in native code, os._exit or sys.exit in user code)")


def survivors_note(survivors: list[str]) -> str:
    if not survivors:
        return ""
    return (f"; {len(survivors)} process(es) it started could not be killed and are still running: "
            f"{', '.join(survivors)}; end them by hand")


def check_python(python: str) -> None:
    path = Path(python)
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise UsageError(f"--python {python!r} is not an executable interpreter; give the path of the python "
                         "whose environment has torch (e.g. .venv/bin/python)")
