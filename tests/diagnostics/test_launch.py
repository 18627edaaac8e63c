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
    import time
    open("pid.txt", "w").write(str(__import__("os").getpid()))
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
            killed = pid_dead(pid, within=0)
            return killed, await client.call_tool("quote", {"key": "jones/assume-a-bug"})

    killed, after = anyio.run(go)
    assert killed
    assert not after.is_error  # the server is still alive and answers
