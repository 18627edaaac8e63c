"""The analyze_sweep tool over MCP, in memory: structured output, the plot attached, errors as answers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mcp import Client

from mldebug_mcp.server import build_server
from mldebug_mcp.services.paths import AllowedDirs

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sweep"
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
async def client(tmp_path):
    shutil.copy(EXAMPLES / "warmup.csv", tmp_path / "warmup.csv")
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as c:
        yield c


def _text(result) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def test_the_tool_is_listed_read_only_with_an_output_schema(client):
    tool = next(t for t in (await client.list_tools()).tools if t.name == "analyze_sweep")
    assert tool.annotations.read_only_hint is True
    assert {"comparisons", "arms", "warnings", "correction"} <= set(tool.output_schema["properties"])


async def test_structured_report_and_text(client):
    result = await client.call_tool("analyze_sweep", {"path": "warmup.csv"})
    assert not result.is_error, _text(result)
    verdicts = {c["arm"]: c["verdict"] for c in result.structured_content["comparisons"]}
    assert verdicts == {"500": "better", "2000": "within_noise"}
    assert "    500: +" in _text(result) and "BETTER" in _text(result)


async def test_plot_is_attached_as_a_png(client):
    pytest.importorskip("matplotlib")
    result = await client.call_tool("analyze_sweep", {"path": "warmup.csv", "plot": True})
    assert not result.is_error, _text(result)
    assert [b.type for b in result.content] == ["text", "image"]
    assert result.content[1].mime_type == "image/png" and result.structured_content["plot"] == "attached"


async def test_paths_outside_the_allowed_directories_are_an_answer(client):
    result = await client.call_tool("analyze_sweep", {"path": str(EXAMPLES / "warmup.csv")})
    assert result.is_error and "outside the allowed directories" in _text(result)


async def test_a_wrong_baseline_names_the_arms(client):
    result = await client.call_tool("analyze_sweep", {"path": "warmup.csv", "baseline": "300"})
    assert result.is_error and "Arms: '0', '500', '2000'" in _text(result)
