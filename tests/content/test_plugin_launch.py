"""The Claude Code plugin's server starts from another project with the plugin's own launch command.

Claude Code expands ${CLAUDE_PLUGIN_ROOT} (and nothing else: `${VAR:-default}` came out as the default)
and runs the command from the user's project. The test runs that command from another folder: with
uvx itself where uv is installed and its cache can resolve the plugin offline (no download at test
time), else with a stand-in for uvx that runs this environment's mldebug-mcp with the same arguments.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]
SERVER = json.loads((ROOT / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["mldebug"]
BUG = "import torch.nn.functional as F\n\ndef f(x, y):\n    return F.cross_entropy(F.softmax(x, dim=1), y)\n"
SPEC = ("import torch, torch.nn as nn\n\ndef debug_spec():\n    torch.manual_seed(0)\n"
        "    x, y = torch.randn(16, 4), torch.randint(0, 2, (16,))\n"
        "    return {'model': nn.Linear(4, 2), 'batch': (x, y), 'loss_fn': nn.functional.cross_entropy,\n"
        "            'task': 'classification', 'num_classes': 2}\n")


def test_the_launch_command_uses_the_plugin_root_as_claude_code_expands_it():
    assert SERVER["command"] == "uvx"
    args = SERVER["args"]
    assert args[args.index("--from") + 1] == "${CLAUDE_PLUGIN_ROOT}"  # no :- default: Claude Code kept it
    assert args[-2:] == ["mldebug-mcp", "serve"]
    assert args[args.index("--with") + 1] == "matplotlib"  # plots work where the server runs


def _expanded(root: Path) -> list[str]:
    return [a.replace("${CLAUDE_PLUGIN_ROOT}", str(root)) for a in SERVER["args"]]


def _stand_in_for_uvx(folder: Path) -> Path:
    """`uvx --from ROOT --with PKG... CMD ARGS` -> this environment's CMD ARGS, after checking ROOT exists."""
    script = folder / "uvx"
    script.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "args = sys.argv[1:]\n"
        "while args and args[0] in ('--from', '--with'):\n"
        "    if args[0] == '--from' and not os.path.isdir(args[1]):\n"
        "        sys.exit(f'uvx: {args[1]} is not a folder')\n"
        "    args = args[2:]\n"
        f"os.execv({sys.executable!r}, [{sys.executable!r}, '-m', 'mldebug_mcp', *args[1:]])\n"
    )
    script.chmod(0o755)
    return script


def _uvx_resolves_offline() -> bool:
    uvx = shutil.which("uvx")
    if uvx is None:
        return False
    probe = subprocess.run([uvx, "--offline", *_expanded(ROOT)[:-1], "--version"], capture_output=True, text=True,
                           timeout=120, cwd=ROOT.parent, check=False)
    return probe.returncode == 0


async def _lint_and_diagnose(command: str, project: Path) -> tuple[list[str], object]:
    """Lint codes of train.py, and the diagnose result (its interpreter line, or the error text)."""
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["CLAUDE_PLUGIN_ROOT"] = str(ROOT)
    params = StdioServerParameters(command=command, args=_expanded(ROOT), cwd=str(project), env=env)
    async with Client(params) as client:
        linted = await client.call_tool("lint", {"paths": ["train.py"]})
        diagnosed = await client.call_tool("diagnose", {"target": "spec.py:debug_spec", "checks": ["loss_at_init"]})
    assert not linted.is_error, linted
    if diagnosed.is_error:
        return [f["code"] for f in linted.structured_content["findings"]], diagnosed.content[0].text
    return [f["code"] for f in linted.structured_content["findings"]], diagnosed.structured_content["environment"][
        "interpreter"]


def _project_venv_with_torch(project: Path) -> None:
    """A .venv in the project that sees this environment's packages (torch among them) through a .pth line."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    subprocess.run([base, "-m", "venv", "--without-pip", str(project / ".venv")], check=True, capture_output=True)
    [site] = (project / ".venv" / "lib").glob("python*/site-packages")
    (site / "dev.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "another-project"
    folder.mkdir()
    (folder / "train.py").write_text(BUG)
    (folder / "spec.py").write_text(SPEC)
    return folder


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX script stands in for uvx")
def test_the_launch_command_serves_another_project(project, tmp_path):
    codes, interpreter = anyio.run(_lint_and_diagnose, str(_stand_in_for_uvx(tmp_path)), project)
    assert codes == ["MLD001"]
    assert interpreter.endswith("(mldebug-mcp's own interpreter)")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="venv layout bin/python")
def test_uvx_itself_serves_another_project_when_it_can_resolve_offline(project):
    if not _uvx_resolves_offline():
        pytest.skip("uvx is not installed, or its cache cannot resolve the plugin without a download")
    # the plugin's environment has no torch: without a project environment, diagnose says what to do
    codes, refusal = anyio.run(_lint_and_diagnose, "uvx", project)
    assert codes == ["MLD001"]
    assert "no interpreter with torch" in refusal and "-m pip install torch" in refusal
    _project_venv_with_torch(project)
    _, interpreter = anyio.run(_lint_and_diagnose, "uvx", project)
    assert "the project's .venv" in interpreter
