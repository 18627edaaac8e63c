"""The loss_landscape tool over MCP, in memory: listed as running user code, the report with both plots
attached, and paths outside the allowed directories answered as errors before anything runs."""

from __future__ import annotations

import pytest
from mcp import Client

from mldebug_mcp.server import build_server
from mldebug_mcp.services.paths import AllowedDirs

SPEC = '''
import torch


def debug_spec():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    x = torch.randn(32, 4)
    return {"model": model, "batch": (x, x.sum(1, keepdim=True)), "loss_fn": torch.nn.functional.mse_loss,
            "task": "regression"}
'''
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
async def client(tmp_path, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "reg.py").write_text(SPEC)
    (tmp_path / "outside.pt").write_bytes(b"")
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path / "project")]))) as c:
        yield c


def _text(result) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def test_the_tool_is_listed_as_running_user_code_with_an_output_schema(client):
    tool = next(t for t in (await client.list_tools()).tools if t.name == "loss_landscape")
    assert tool.annotations.read_only_hint is False
    assert {"verdict", "reason", "lines", "surface", "sharpness", "thresholds"} <= set(tool.output_schema["properties"])
    assert "Li et al. 2018" in tool.description


async def test_report_and_both_plots_attached(client):
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    result = await client.call_tool("loss_landscape", {"target": "reg.py:debug_spec", "points": 11, "grid": 5,
                                                       "budget_s": 20, "plots": True})
    assert not result.is_error, _text(result)
    assert [b.type for b in result.content] == ["text", "image", "image"]
    assert all(b.mime_type == "image/png" for b in result.content[1:])
    report = result.structured_content
    assert report["plots"] == ["attached", "attached"] and report["surface"]["size"] == 5
    assert report["verdict"] in ("minimum", "slope", "plateau", "saddle", "unclear")
    assert report["verdict"].upper() in _text(result)


async def test_a_checkpoint_outside_the_allowed_directories_is_an_answer(client, tmp_path):
    result = await client.call_tool("loss_landscape", {"target": "reg.py:debug_spec",
                                                       "checkpoint": str(tmp_path / "outside.pt")})
    assert result.is_error and "outside the allowed directories" in _text(result)


async def test_a_target_outside_the_allowed_directories_is_an_answer(client, tmp_path):
    (tmp_path / "elsewhere.py").write_text(SPEC)
    result = await client.call_tool("loss_landscape", {"target": f"{tmp_path / 'elsewhere.py'}:debug_spec"})
    assert result.is_error and "outside the allowed directories" in _text(result)


async def test_a_missing_checkpoint_is_an_answer(client):
    result = await client.call_tool("loss_landscape", {"target": "reg.py:debug_spec", "checkpoint": "gone.pt"})
    assert result.is_error and "no such checkpoint: gone.pt" in _text(result)
