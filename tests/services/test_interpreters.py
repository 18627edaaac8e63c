"""Over MCP, diagnose runs only interpreters and module targets the server's user allowed.

A client may name `python` and a module target; neither may reach a program or code outside
the allowed directories, and the refusal says what would be accepted.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client

from mldebug_mcp.errors import UsageError
from mldebug_mcp.server import build_server
from mldebug_mcp.services.interpreters import (
    allowed_python,
    configured_python,
    module_inside,
)
from mldebug_mcp.services.paths import AllowedDirs

pytestmark = pytest.mark.anyio
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for a program")


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def dirs(tmp_path):
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    return project, outside, AllowedDirs((project.resolve(),))


def _fake_python(path: Path, marker: Path) -> Path:
    """A 'python' that, if ever started, leaves a marker file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch {marker}\n")
    path.chmod(0o755)
    return path


def _venv(root: Path) -> Path:
    """A virtual environment's layout: pyvenv.cfg, and bin/python linking to a real interpreter."""
    (root / "bin").mkdir(parents=True)
    (root / "pyvenv.cfg").write_text("home = /usr/bin\n")
    python = root / "bin" / "python"
    python.symlink_to(sys.executable)
    return python


def test_no_request_means_the_configured_interpreter_else_the_servers_own(dirs):
    _, _, allowed = dirs
    assert allowed_python(None, allowed, None) == sys.executable
    assert allowed_python(None, allowed, "/opt/py/bin/python") == "/opt/py/bin/python"


def test_the_servers_own_interpreter_is_accepted_by_any_path_to_it(dirs):
    _, _, allowed = dirs
    assert allowed_python(sys.executable, allowed, None) == sys.executable
    assert allowed_python(os.path.realpath(sys.executable), allowed, None)


@posix_only
def test_an_interpreter_outside_the_allowed_directories_is_refused(dirs):
    _, outside, allowed = dirs
    fake = _fake_python(outside / "evil", outside / "ran")
    with pytest.raises(UsageError, match="--diagnose-python") as refused:
        allowed_python(str(fake), allowed, None)
    assert "virtual environment inside the allowed directories" in str(refused.value)
    assert allowed_python(str(fake), allowed, str(fake)) == str(fake)  # named at server start: accepted


@posix_only
def test_a_project_venv_is_accepted_but_a_bare_bin_python_is_not(dirs):
    project, outside, allowed = dirs
    venv_python = _venv(project / ".venv")
    assert allowed_python(str(venv_python), allowed, None) == str(venv_python)
    assert allowed_python(".venv/bin/python", allowed, None) == str(project.resolve() / ".venv/bin/python")
    bare = _fake_python(project / "tools" / "bin" / "python", outside / "ran")  # no pyvenv.cfg
    with pytest.raises(UsageError, match="may not be run"):
        allowed_python(str(bare), allowed, None)
    with pytest.raises(UsageError, match=r"'\.\.'"):
        allowed_python(".venv/bin/../../../outside/evil", allowed, None)


@posix_only
def test_a_venv_reached_through_a_symlink_leading_outside_is_refused(dirs):
    project, outside, allowed = dirs
    (outside / "venv").mkdir()
    (outside / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    _fake_python(outside / "venv" / "bin" / "python", outside / "ran")  # not the server's: judged by where it is
    (project / ".venv").symlink_to(outside / "venv")
    with pytest.raises(UsageError, match="may not be run"):
        allowed_python(".venv/bin/python", allowed, None)


def test_the_interpreter_named_at_start_must_exist(tmp_path):
    with pytest.raises(UsageError, match="not an executable file"):
        configured_python(str(tmp_path / "nope"))
    assert configured_python(None, environ={}) is None
    assert configured_python(None, environ={"MLDEBUG_DIAGNOSE_PYTHON": sys.executable}) == sys.executable


def test_module_targets_must_be_files_inside_the_working_folder(dirs):
    project, outside, allowed = dirs
    root = allowed.roots[0]
    for module in ("json", "os", "mldebug_mcp.cli"):
        with pytest.raises(UsageError, match="not a module inside"):
            module_inside(module, allowed, root)
    (project / "pkg").mkdir()
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "spec.py").write_text("def debug_spec():\n    return {}\n")
    assert module_inside("pkg.spec", allowed, root) == root / "pkg" / "spec.py"
    assert module_inside("pkg", allowed, root) == root / "pkg" / "__init__.py"
    (outside / "leak.py").write_text("")
    (project / "leak.py").symlink_to(outside / "leak.py")
    with pytest.raises(UsageError, match="symlink"):
        module_inside("leak", allowed, root)


async def _call(allowed_dir: Path, arguments: dict, diagnose_python: str | None = None) -> str:
    async with Client(build_server(AllowedDirs.from_config([str(allowed_dir)]), diagnose_python)) as client:
        result = await client.call_tool("diagnose", arguments)
    assert result.is_error, result
    return "".join(block.text for block in result.content if block.type == "text")


@posix_only
async def test_over_mcp_a_client_named_program_never_starts(dirs):
    project, outside, _ = dirs
    marker = outside / "ran"
    fake = _fake_python(outside / "evil", marker)
    (project / "train.py").write_text("def debug_spec():\n    return {}\n")
    message = await _call(project, {"target": "train.py:debug_spec", "python": str(fake)})
    assert "may not be run" in message and "--diagnose-python" in message
    assert not marker.exists()


@pytest.mark.parametrize("target", ["json:loads", "os:getcwd", "subprocess:getoutput"])
async def test_over_mcp_a_module_outside_the_allowed_directories_is_refused(dirs, target):
    project, _, _ = dirs
    message = await _call(project, {"target": target})
    assert "not a module inside" in message and "FILE.py:FUNCTION" in message


# ---- the child's own check: the interpreter that imports the target judges where it comes from ----------

@pytest.fixture
def child_imports(monkeypatch):
    from mldebug_mcp.diagnostics.checks import runner

    monkeypatch.setattr(sys, "path", list(sys.path))  # load_target puts the target's folder first
    return runner.load_target


def test_the_child_refuses_a_module_already_imported_from_elsewhere(tmp_path, monkeypatch, child_imports):
    # a local os.py passes the server's file check, but the child's `os` is the standard library's
    (tmp_path / "os.py").write_text("def getcwd():\n    return 'local'\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="outside the allowed directories"):
        child_imports("os:getcwd", roots=[str(tmp_path)])


def test_the_child_refuses_an_installed_package_before_importing_it(tmp_path, monkeypatch, child_imports):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="outside the allowed directories"):
        child_imports("antigravity:geohash", roots=[str(tmp_path)])  # importing it would open a browser
    assert "antigravity" not in sys.modules


def test_the_child_loads_a_package_inside_and_a_file_inside(tmp_path, monkeypatch, child_imports):
    package = tmp_path / "spec_pkg_inside"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "spec.py").write_text("def debug_spec():\n    return 'inside'\n")
    monkeypatch.chdir(tmp_path)
    assert child_imports("spec_pkg_inside.spec:debug_spec", roots=[str(tmp_path)])() == "inside"
    assert child_imports(f"{package / 'spec.py'}:debug_spec", roots=[str(tmp_path)])() == "inside"
    with pytest.raises(ValueError, match="outside the allowed directories"):
        child_imports(f"{package / 'spec.py'}:debug_spec", roots=[str(tmp_path / 'elsewhere')])


@pytest.mark.slow
async def test_over_mcp_a_shadowed_module_is_refused_by_the_child(dirs):
    project, _, _ = dirs
    (project / "os.py").write_text("def getcwd():\n    return {}\n")  # passes the server's check
    message = await _call(project, {"target": "os:getcwd", "timeout_s": 120})
    assert "outside the allowed directories" in message
