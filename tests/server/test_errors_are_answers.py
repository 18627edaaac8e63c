"""Every failure reaches the client as an answer that says what failed and what would work, never
as the SDK's bare "Error executing tool NAME", and odd file names never break the output."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from mcp import Client

from mldebug_mcp.server import build_server
from mldebug_mcp.services import evidence
from mldebug_mcp.services.paths import AllowedDirs

pytestmark = pytest.mark.anyio
BUG = "import torch.nn.functional as F\n\ndef f(x, y):\n    return F.cross_entropy(F.softmax(x, dim=1), y)\n"
BARE = "Error executing tool {tool}"
non_utf8_names = pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the file system must allow "
                                    "names that are not UTF-8")


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def _text(tmp_path, tool: str, arguments: dict):
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as client:
        result = await client.call_tool(tool, arguments)
    return result, "".join(block.text for block in result.content if block.type == "text")


async def test_an_unexpected_exception_is_said_to_be_our_bug(tmp_path, monkeypatch):
    def broken(**_):
        raise TypeError("'NoneType' object is not subscriptable")

    monkeypatch.setattr(evidence, "quote_lookup", broken)
    result, text = await _text(tmp_path, "quote", {"key": "jones"})
    assert result.is_error
    assert "internal error (TypeError: 'NoneType' object is not subscriptable)" in text
    assert "bug in mldebug-mcp" in text and text.strip() != BARE.format(tool="quote")


@pytest.mark.parametrize("tool, argument", [("lint", "paths"), ("analyze_curve", "path")])
async def test_a_path_with_a_name_too_long_names_the_problem(tmp_path, tool, argument):
    long_name = str(tmp_path / ("a" * 300 + ".py"))
    result, text = await _text(tmp_path, tool, {argument: [long_name] if argument == "paths" else long_name})
    assert result.is_error
    assert "too long" in text.lower() and "reinstall" not in text


@non_utf8_names
async def test_a_file_name_that_is_not_utf8_is_escaped_over_mcp(tmp_path):
    (tmp_path / os.fsdecode(b"\xff\xfe.py")).write_text(BUG)
    result, text = await _text(tmp_path, "lint", {"paths": ["."]})
    assert not result.is_error, text
    assert result.structured_content["findings"][0]["path"].endswith("\\xff\\xfe.py")


@non_utf8_names
def test_a_file_name_that_is_not_utf8_prints_under_a_strict_encoding(tmp_path):
    (tmp_path / os.fsdecode(b"\xff\xfe.py")).write_text(BUG)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    run = subprocess.run([sys.executable, "-m", "mldebug_mcp", "lint", "."], cwd=tmp_path, env=env,
                         capture_output=True, text=True, errors="replace", timeout=120)
    assert run.returncode == 1, run.stderr  # findings, not a crash
    assert "\\xff\\xfe.py:4:" in run.stdout and "Traceback" not in run.stderr
