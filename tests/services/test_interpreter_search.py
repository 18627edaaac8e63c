"""diagnose finds the project's interpreter when none is named, says which, and gives the fix when none has torch."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from mldebug_mcp.errors import UsageError
from mldebug_mcp.services import interpreter_search
from mldebug_mcp.services.interpreter_search import (
    candidates,
    find_python,
    has_torch,
    venv_python,
)

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="venv layout bin/python")


def _venv(root: Path, with_torch: bool) -> Path:
    """A venv layout whose python is a script answering the torch probe as told."""
    (root / "bin").mkdir(parents=True)
    (root / "pyvenv.cfg").write_text("home = /usr/bin\n")
    python = root / "bin" / "python"
    python.write_text(f"#!/bin/sh\nexit {0 if with_torch else 3}\n")
    python.chmod(0o755)
    return python


@posix_only
def test_the_project_venv_with_torch_is_chosen_and_named(tmp_path, monkeypatch):
    monkeypatch.setattr(interpreter_search.sys, "executable", str(_venv(tmp_path / "tool", with_torch=False)))
    project_python = _venv(tmp_path / "project" / ".venv", with_torch=True)
    found = find_python([tmp_path / "project"], environ={})
    assert found.path == str(project_python)
    assert "the project's .venv" in found.source


@posix_only
def test_order_is_configured_then_virtual_env_then_project_then_own(tmp_path):
    configured = _venv(tmp_path / "named", with_torch=True)
    active = _venv(tmp_path / "active", with_torch=True)
    uv_env = _venv(tmp_path / "project" / "envs" / "uv", with_torch=True)
    dot = _venv(tmp_path / "project" / ".venv", with_torch=True)
    plain = _venv(tmp_path / "project" / "venv", with_torch=True)
    env = {"VIRTUAL_ENV": str(tmp_path / "active"), "UV_PROJECT_ENVIRONMENT": "envs/uv"}
    paths = [c.path for c in candidates([tmp_path / "project"], str(configured), env)]
    assert paths == [str(configured), str(active), str(uv_env), str(dot), str(plain), sys.executable]


@posix_only
def test_a_venv_without_torch_is_passed_over(tmp_path, monkeypatch):
    monkeypatch.setattr(interpreter_search.sys, "executable", str(_venv(tmp_path / "tool", with_torch=True)))
    _venv(tmp_path / "project" / ".venv", with_torch=False)
    assert find_python([tmp_path / "project"], environ={}).source == "mldebug-mcp's own interpreter"


@posix_only
def test_none_with_torch_gives_the_one_line_fix(tmp_path, monkeypatch):
    own = _venv(tmp_path / "tool", with_torch=False)
    monkeypatch.setattr(interpreter_search.sys, "executable", str(own))
    project = _venv(tmp_path / "project" / ".venv", with_torch=False)
    with pytest.raises(UsageError) as refused:
        find_python([tmp_path / "project"], environ={})
    message = str(refused.value)
    assert "no interpreter with torch" in message and str(own) in message
    assert f"{project} -m pip install torch" in message and "--python PATH" in message


@posix_only
def test_a_project_venv_linking_outside_the_project_is_not_the_projects(tmp_path):
    _venv(tmp_path / "elsewhere", with_torch=True)
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / ".venv").symlink_to(tmp_path / "elsewhere")
    assert [c.source for c in candidates([tmp_path / "project"], None, {})] == ["mldebug-mcp's own interpreter"]


def test_a_folder_without_pyvenv_cfg_is_no_venv(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").write_text("")
    assert venv_python(tmp_path) is None


def test_the_probe_answers_for_this_interpreter():
    assert has_torch(sys.executable)  # the dev environment has torch
    assert not has_torch(os.devnull)
