"""diagnose through its subprocess: CLI, exit codes, limits, isolation, MCP progress and cancel."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
import time
import venv
from pathlib import Path

import anyio
import pytest
from mcp import Client

from mldebug_mcp.server import build_server
from mldebug_mcp.services.paths import AllowedDirs

pytestmark = pytest.mark.slow  # each test runs diagnose in a child process that imports torch

HEALTHY = """
import torch, torch.nn as nn, torch.nn.functional as F

def _data():
    g = torch.Generator().manual_seed(0)
    centers = torch.randn(4, 12, generator=g) * 2
    y = torch.arange(64) % 4
    return centers[y] + torch.randn(64, 12, generator=g), y

def debug_spec(head=None):
    torch.manual_seed(0)
    layers = [nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4)] + ([head] if head is not None else [])
    print("this goes to the child's stdout, not into the report")
    return dict(model=nn.Sequential(*layers), batch=_data(), loss_fn=F.cross_entropy, task="classification",
                num_classes=4, optimizer=lambda p: torch.optim.Adam(p, lr=1e-2))

def softmax_spec():
    return debug_spec(nn.Softmax(dim=-1))

def raises():
    return helper()

def helper():
    raise ValueError("my setup is broken")

def sleeps():
    import os, subprocess, sys, time
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    open("grandchild.pid", "w").write(str(sleeper.pid))  # in its own session: out of reach of a group kill
    open("pid.txt", "w").write(str(os.getpid()))
    time.sleep(600)

def hogs_memory():
    import torch
    open("pid.txt", "w").write(str(__import__("os").getpid()))
    blocks = [torch.ones(256, 1024, 1024, dtype=torch.uint8) for _ in range(12)]  # 3 GiB, touched
    time.sleep(600)

def exits():
    import os
    os._exit(3)

def not_a_spec():
    return 42
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "setup.py").write_text(textwrap.dedent(HEALTHY).replace("def hogs_memory():", "import time\ndef hogs_memory():"))
    return tmp_path


def cli(project: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mldebug_mcp", "diagnose", *args], cwd=project,
                          capture_output=True, text=True, timeout=timeout)


def pid_dead(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie child of a dead parent counts as gone
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return True
        except OSError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


def test_cli_healthy_setup_exits_0_and_prints_a_verdict_per_check(project):
    proc = cli(project, "setup.py:debug_spec")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("PASS") >= 10 and "overall: PASS" in proc.stdout
    assert "this goes to the child's stdout" not in proc.stdout


def test_cli_failing_setup_exits_1_with_json_report(project):
    proc = cli(project, "setup.py:softmax_spec", "--json", "--checks", "loss_at_init,overfit_one_batch")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["status"] == "fail"
    assert [c["id"] for c in report["checks"]] == ["loss_at_init", "overfit_one_batch"]
    assert report["checks"][0]["quotes"] == ["karpathy-recipe/verify-loss-at-init", "cs231n/loss-at-chance"]


def test_cli_module_target_and_plots(project):
    proc = cli(project, "setup:debug_spec", "--plot", "plots", "--checks", "overfit_one_batch,update_ratio,gradient_flow")
    assert proc.returncode == 0, proc.stderr
    pngs = sorted(p.name for p in (project / "plots").glob("*.png"))
    assert pngs == ["gradient_norms.png", "overfit_curve.png", "update_ratios.png"]
    assert all((project / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for name in pngs)


@pytest.mark.parametrize("target, message", [
    ("setup.py:raises", "ValueError while building the debug spec: my setup is broken"),
    ("setup.py:missing", "has no attribute 'missing'"),
    ("setup.py:not_a_spec", "returned int"),
    ("setup.py:exits", "exited with code 3 before reporting"),
    ("nosuch.py:debug_spec", "no such file: nosuch.py"),
    ("setup.py", "has no ':FUNCTION' part"),
])
def test_cli_setup_errors_exit_2_with_the_cause(project, target, message):
    proc = cli(project, target)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_user_code_frames_are_shown_without_our_own(project):
    proc = cli(project, "setup.py:raises")
    assert "in helper: raise ValueError" in proc.stderr and "in raises: return helper()" in proc.stderr
    assert "runner.py" not in proc.stderr


def test_timeout_kills_the_child(project, torch_import_seconds):
    # Long enough for the child to import torch and reach the user's function, however loaded the machine is.
    limit = math.ceil(3 * torch_import_seconds + 2)
    started = time.monotonic()
    proc = cli(project, "setup.py:sleeps", "--timeout", str(limit))
    assert proc.returncode == 2 and f"{limit} s timeout" in proc.stderr
    assert time.monotonic() - started < limit + 30
    assert pid_dead(int((project / "pid.txt").read_text()))
    assert pid_dead(int((project / "grandchild.pid").read_text()), within=0)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="memory watch reads /proc (Linux)")
def test_memory_limit_kills_the_child(project):
    proc = cli(project, "setup.py:hogs_memory", "--memory-mb", "1500", "--timeout", "60")
    assert proc.returncode == 2 and "over the 1500 MB limit" in proc.stderr
    assert pid_dead(int((project / "pid.txt").read_text()))


def test_bad_python_and_an_interpreter_without_torch(project, tmp_path_factory):
    proc = cli(project, "setup.py:debug_spec", "--python", "/no/such/python")
    assert proc.returncode == 2 and "is not an executable interpreter" in proc.stderr
    bare = tmp_path_factory.mktemp("bare")
    venv.create(bare, with_pip=False)
    python = bare / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    proc = cli(project, "setup.py:debug_spec", "--python", str(python))
    assert proc.returncode == 2 and "cannot import torch" in proc.stderr


def test_mcp_tool_reports_progress_and_returns_structured_report(project):
    async def go():
        seen = []

        async def on_progress(progress, total, message):
            seen.append((progress, total, message))

        async with Client(build_server(AllowedDirs.from_config([str(project)]))) as client:
            result = await client.call_tool("diagnose", {"target": "setup.py:softmax_spec", "plots": True,
                                                         "checks": ["loss_at_init", "overfit_one_batch"]},
                                            progress_callback=on_progress)
        return result, seen

    result, seen = anyio.run(go)
    assert not result.is_error
    assert result.structured_content["status"] == "fail"
    assert [m for _, _, m in seen] == ["loss_at_init", "overfit_one_batch", "done"]
    assert [c.type for c in result.content] == ["text", "image"]


def test_mcp_tool_errors_do_not_kill_the_server(project):
    async def go():
        async with Client(build_server(AllowedDirs.from_config([str(project)]))) as client:
            outside = await client.call_tool("diagnose", {"target": "/etc/hosts.py:x"})
            broken = await client.call_tool("diagnose", {"target": "setup.py:raises"})
            after = await client.call_tool("quote", {"key": "jones/assume-a-bug"})
        return outside, broken, after

    outside, broken, after = anyio.run(go)
    assert outside.is_error and "outside the allowed directories" in outside.content[0].text
    assert broken.is_error and "my setup is broken" in broken.content[0].text
    assert not after.is_error


def test_cancelling_the_mcp_request_kills_the_child(project):
    pid_file = project / "pid.txt"

    async def go():
        async with Client(build_server(AllowedDirs.from_config([str(project)]))) as client:
            with anyio.move_on_after(60):
                async with anyio.create_task_group() as group:
                    group.start_soon(client.call_tool, "diagnose", {"target": "setup.py:sleeps", "timeout_s": 300})
                    while not pid_file.exists():
                        await anyio.sleep(0.1)
                    await anyio.sleep(0.3)
                    group.cancel_scope.cancel()
            pid = int(pid_file.read_text())
            for _ in range(100):  # while the client is still connected: the cancel did it, not shutdown
                if pid_dead(pid, within=0):
                    break
                await anyio.sleep(0.1)
            killed = pid_dead(pid, within=0) and pid_dead(int((project / "grandchild.pid").read_text()), within=0)
            return killed, await client.call_tool("quote", {"key": "jones/assume-a-bug"})

    killed, after = anyio.run(go)
    assert killed  # the child and the grandchild it started in a session of its own
    assert not after.is_error  # the server is still alive and answers


# --- hardening: bounded output, the whole process tree, garbage in the events file ---

TREE = """
import os, subprocess, sys, time

SLEEPER = "import time; time.sleep(1000)"
HOG = "import time; block = b'x' * (350 << 20); time.sleep(1000)"  # 350 MB, every page written


def _spawn(code=SLEEPER, **popen):
    child = subprocess.Popen([sys.executable, "-c", code], **popen)
    with open("grandchild.tmp", "w") as f:
        f.write(str(child.pid))
    os.replace("grandchild.tmp", "grandchild.pid")  # whole or absent for a test polling it
    return child


def orphan_after_exit():
    _spawn()
    os._exit(0)


def new_session_then_exit():
    _spawn(start_new_session=True)
    os._exit(0)


def new_session_then_raise():
    _spawn(start_new_session=True)
    raise RuntimeError("left a process behind")


def double_fork_then_exit():
    # the shell starts a process in a new session and exits at once: it hangs under init, never seen as a child
    subprocess.run(["sh", "-c", f"{sys.executable} -c 'import os; os.setsid(); {SLEEPER}' & echo $! > grandchild.pid"])
    os._exit(0)


def new_session_then_sleep():
    _spawn(start_new_session=True)
    time.sleep(1000)


def grandchild_hogs_memory():
    _spawn(HOG, start_new_session=True)
    time.sleep(1000)


def prints_forever():
    while True:
        print("all work and no play " * 10)
"""

GARBAGE = """
import os, sys, time

def write():
    events = sys.argv[3]  # python -c BOOTSTRAP <checks_dir> <target> <events_file> <options>
    with open(events, {mode!r}) as f:
        f.write({payload!r})
    {then}
"""


@pytest.fixture()
def tree_project(tmp_path: Path) -> Path:
    (tmp_path / "tree.py").write_text(TREE)
    return tmp_path


def diagnose_here(project: Path, target: str, **limits) -> str:
    """Run diagnose in this process through launch; the DiagnoseError's message (it must fail)."""
    from mldebug_mcp.diagnostics.launch import Limits, run_in_subprocess
    from mldebug_mcp.errors import DiagnoseError

    with pytest.raises(DiagnoseError) as caught:
        anyio.run(run_in_subprocess, target, {}, Limits(**limits), project)
    return str(caught.value)


def grandchild(project: Path) -> int:
    return int((project / "grandchild.pid").read_text())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="measures peak memory with getrusage (Linux)")
def test_endless_printing_is_stopped_at_the_output_limit_with_memory_bounded(tree_project, torch_import_seconds):
    # Today's file-then-read_text held the whole output: 1.6 GB of memory after a 6 s timeout.
    measure = ("import resource, subprocess, sys\n"
               "proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "print(proc.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
               "print(proc.stderr)")
    limit = math.ceil(3 * torch_import_seconds + 10)
    proc = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "mldebug_mcp", "diagnose",
                           "tree.py:prints_forever", "--timeout", str(limit)],
                          cwd=tree_project, capture_output=True, text=True, timeout=limit + 60, check=False)
    code, peak_mb = map(int, proc.stdout.split("\n", 1)[0].split())
    assert code == 2 and "printed more than 64 MiB to stdout/stderr" in proc.stdout
    assert "timeout" not in proc.stdout  # stopped by the size, not by the timeout
    assert peak_mb < 600, f"peak memory {peak_mb} MB"  # the CLI and the child with torch: about 250 MB
    assert "all work and no play" in proc.stdout and len(proc.stdout) < 2000 + 1000  # the tail only


@pytest.mark.parametrize("target", ["orphan_after_exit", "new_session_then_exit", "new_session_then_raise",
                                    "double_fork_then_exit"])
def test_processes_the_code_started_are_killed_with_it(tree_project, target):
    message = diagnose_here(tree_project, f"tree.py:{target}", timeout_s=60)
    assert "left a process behind" in message or "before reporting" in message
    assert "could not be killed" not in message
    assert pid_dead(grandchild(tree_project), within=0)  # dead when diagnose returns, not later


def test_memory_is_summed_over_the_whole_tree(tree_project):
    # about 220 MB for the child with torch and 360 MB for its grandchild: each under 450 MB, together over
    message = diagnose_here(tree_project, "tree.py:grandchild_hogs_memory", timeout_s=60, memory_mb=450)
    assert "over the 450 MB limit" in message and "the processes it started" in message
    assert pid_dead(grandchild(tree_project), within=0)


def test_cancelling_the_awaiting_task_kills_the_tree(tree_project):
    from mldebug_mcp.diagnostics.launch import Limits, run_in_subprocess

    pid_file = tree_project / "grandchild.pid"

    async def go():
        with anyio.move_on_after(60) as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(run_in_subprocess, "tree.py:new_session_then_sleep", {}, Limits(timeout_s=300),
                                 tree_project)
                while not pid_file.exists():
                    await anyio.sleep(0.05)
                group.cancel_scope.cancel()
        assert not scope.cancelled_caught, "the grandchild never started"

    anyio.run(go)
    assert pid_dead(grandchild(tree_project), within=0)  # the cancelled call returned only after the kill


@pytest.mark.parametrize("mode, payload, then, problem", [
    ("a", "oops\n", "time.sleep(1000)", "line 2: not JSON ('oops')"),  # found while the child still runs
    ("a", "[1, 2]\n", "os._exit(0)", "line 2: a JSON list, not an object"),
    ("a", '{"event": "progress", "index": 1}\n', "os._exit(0)", "line 2: 'progress' event has no 'total'"),
    ("a", '{"event": "progress", "index": "1", "total": 2, "check": "x"}\n', "os._exit(0)",
     "'index' should be int, not str"),
    ("a", '{"event": "error", "stage": "run", "error": "boom"}\n', "os._exit(0)", "'error' should be dict, not str"),
    ("a", '{"event": "report", "report": {"status": "pass"}}\n', "os._exit(0)", "the report does not validate"),
    ("a", '{"event": "report"', "os._exit(0)", "line 2: 18 bytes without the closing newline"),
    ("w", "", "os._exit(0)", "the file shrank"),
    ("a", "x" * (17 << 20), "time.sleep(1000)", "line 2: longer than 16 MiB"),
])
def test_garbage_in_the_events_file_is_a_clear_error(tmp_path, mode, payload, then, problem):
    (tmp_path / "garbage.py").write_text(GARBAGE.format(mode=mode, payload=payload, then=then))
    message = diagnose_here(tmp_path, "garbage.py:write", timeout_s=60)
    assert message.startswith("the diagnosed process wrote a malformed event into its events file")
    assert problem in message and "does your code write to the paths in sys.argv?" in message


def test_garbage_in_the_events_file_on_the_cli_and_over_mcp(tmp_path):
    (tmp_path / "garbage.py").write_text(GARBAGE.format(mode="a", payload="[]\n", then="os._exit(0)"))
    proc = cli(tmp_path, "garbage.py:write")
    assert proc.returncode == 2 and "malformed event" in proc.stderr and "Traceback" not in proc.stderr

    async def go():
        async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as client:
            return await client.call_tool("diagnose", {"target": "garbage.py:write"})

    result = anyio.run(go)
    # our message, as for any setup error, not a JSONDecodeError's
    assert result.is_error and result.content[0].text.startswith(
        "Error executing tool diagnose: the diagnosed process wrote a malformed event")


def test_a_process_that_outlives_the_kill_is_named_in_the_error(tree_project, monkeypatch):
    from mldebug_mcp.diagnostics import launch, process_tree

    # stand-in for a process that SIGKILL cannot end (uninterruptible sleep, another user's): nothing is killed
    monkeypatch.setattr(process_tree.ProcessTree, "kill", lambda tree: tree.refresh(scan_marker=True))
    monkeypatch.setattr(launch, "_kill_group", lambda process: None)
    monkeypatch.setattr(launch, "KILL_WAIT_SECONDS", 0.5)
    try:
        message = diagnose_here(tree_project, "tree.py:new_session_then_raise", timeout_s=60)
        pid = grandchild(tree_project)
        # the grandchild is named; under load the exiting child may still be counted within the short wait
        assert "process(es) it started could not be killed and are still running:" in message
        assert f"pid {pid} (" in message
        assert "time.sleep(1000)" in message
    finally:
        os.kill(grandchild(tree_project), 9)
