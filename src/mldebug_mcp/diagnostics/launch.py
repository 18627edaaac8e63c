"""Run the checks in a child process with the user's interpreter, under a timeout and memory cap.

The child loads ./checks by path under a private module name, so the user's interpreter
needs only torch, not this package. Progress and the final report arrive as JSON lines in
an events file; the child is killed (its whole process group) on timeout, on exceeding the
memory limit, and when the awaiting task is cancelled.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio

from ..errors import DiagnoseError, UsageError

CHECKS_DIR = Path(__file__).with_name("checks")
POLL_SECONDS = 0.1
TAIL_CHARS = 2000

BOOTSTRAP = """\
import importlib.util, sys
d = sys.argv[1]
s = importlib.util.spec_from_file_location('_mldebug_diagnostics', d + '/__init__.py', submodule_search_locations=[d])
m = importlib.util.module_from_spec(s); sys.modules[s.name] = m; s.loader.exec_module(m)
from _mldebug_diagnostics.runner import main
sys.exit(main(sys.argv[2:]))
"""

ProgressCallback = Callable[[int, int, str], Awaitable[None] | None]


@dataclass
class Limits:
    timeout_s: float = 120.0
    memory_mb: int = 8192
    python: str = field(default_factory=lambda: sys.executable)


async def run_in_subprocess(target: str, options: dict[str, Any], limits: Limits, cwd: Path,
                            on_progress: ProgressCallback | None = None) -> dict[str, Any]:
    """The report dict from the child, or DiagnoseError saying why there is none."""
    _check_python(limits.python)
    with tempfile.TemporaryDirectory(prefix="mldebug-diagnose-") as tmp:
        events_path, out_path = Path(tmp) / "events.jsonl", Path(tmp) / "output.txt"
        events_path.touch()
        command = [limits.python, "-c", BOOTSTRAP, str(CHECKS_DIR), target, str(events_path), json.dumps(options)]
        with open(out_path, "wb") as output:
            process = await anyio.open_process(command, stdin=None, stdout=output, stderr=output, cwd=str(cwd),
                                               start_new_session=sys.platform != "win32",
                                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
            try:
                final = await _watch(process, events_path, limits, on_progress)
            finally:
                _kill(process)
                with anyio.CancelScope(shield=True):
                    await process.wait()
        tail = out_path.read_text(encoding="utf-8", errors="replace")[-TAIL_CHARS:]
    return _outcome(final, process.returncode, tail, limits)


async def _watch(process: Any, events_path: Path, limits: Limits,
                 on_progress: ProgressCallback | None) -> dict[str, Any] | str:
    """Follow the events file until a final event, exit, timeout or memory overrun."""
    offset, elapsed = 0, 0.0
    while True:
        with open(events_path, encoding="utf-8") as stream:
            stream.seek(offset)
            chunk = stream.read()
        complete, _, _rest = chunk.rpartition("\n")
        if complete:
            offset += len(complete.encode("utf-8")) + 1
            for line in complete.splitlines():
                event = json.loads(line)
                if event.get("event") in ("report", "error"):
                    return event
                if event.get("event") == "progress" and on_progress is not None:
                    maybe = on_progress(event["index"], event["total"], event["check"])
                    if maybe is not None:
                        await maybe
        if process.returncode is not None:
            return "exited"
        if elapsed >= limits.timeout_s:
            return "timeout"
        rss = _rss_mb(process.pid)
        if rss is not None and rss > limits.memory_mb:
            return f"memory:{rss:.0f}"
        await anyio.sleep(POLL_SECONDS)
        elapsed += POLL_SECONDS


def _outcome(final: dict[str, Any] | str, returncode: int | None, tail: str, limits: Limits) -> dict[str, Any]:
    if isinstance(final, dict) and final["event"] == "report":
        return final["report"]
    if isinstance(final, dict):
        error = final.get("error", {})
        stage = final.get("stage")
        if stage == "import":
            raise DiagnoseError(f"{limits.python} cannot import torch ({error.get('message')}); install torch in "
                                "that environment or pass --python with an interpreter that has it")
        where = {"build": "building the debug spec", "spec": "validating the debug spec",
                 "run": "running the checks"}.get(stage, "running")
        raise DiagnoseError(f"{error.get('type')} while {where}: {error.get('message')}", error.get("frames"), tail)
    if final == "timeout":
        raise DiagnoseError(f"the diagnosed code ran past the {limits.timeout_s:g} s timeout and was killed; "
                            "use a smaller model or batch, fewer --steps, or a larger --timeout", output_tail=tail)
    if final.startswith("memory:"):
        raise DiagnoseError(f"the diagnosed process used {final.split(':')[1]} MB, over the {limits.memory_mb} MB "
                            "limit, and was killed; shrink the debug batch or raise --memory-mb", output_tail=tail)
    raise DiagnoseError(f"the diagnosed process exited with code {returncode} before reporting "
                        "(a crash in native code, os._exit or sys.exit in user code)", output_tail=tail)


def _check_python(python: str) -> None:
    path = Path(python)
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise UsageError(f"--python {python!r} is not an executable interpreter; give the path of the python "
                         "whose environment has torch (e.g. .venv/bin/python)")


def _kill(process: Any) -> None:
    if process.returncode is not None:
        return
    try:
        if sys.platform != "win32":
            os.killpg(process.pid, signal.SIGKILL)  # the whole group: dataloader workers too
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _rss_mb(pid: int) -> float | None:
    """Resident memory of the child from /proc (Linux); None where that is unavailable."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None
