"""In-memory protocol tests: every tool, resource and prompt, with a good and a bad request."""

import json
import os
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from mldebug_mcp.content import documents as references
from mldebug_mcp.server import build_server
from mldebug_mcp.services.paths import AllowedDirs

SNAPSHOT = Path(__file__).parent / "snapshots" / "tools_list.json"
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
async def client(tmp_path):
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as c:
        yield c


def _text(result) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def test_tools_list_matches_the_snapshot(client):
    tools = (await client.list_tools()).tools
    current = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    if os.environ.get("UPDATE_SNAPSHOTS") or not SNAPSHOT.exists():
        SNAPSHOT.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert current == expected, "tools/list changed: review, then rerun with UPDATE_SNAPSHOTS=1"


RUNS_USER_CODE = {"diagnose", "loss_landscape"}  # execute the user's debug spec in a subprocess: honestly not read-only


async def test_every_tool_is_annotated_honestly_and_has_an_output_schema(client):
    for tool in (await client.list_tools()).tools:
        a = tool.annotations
        hints = (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint)
        if tool.name in RUNS_USER_CODE:
            assert hints == (False, True, True, True), tool.name
        else:
            assert hints == (True, False, True, False), tool.name
        assert tool.output_schema and tool.output_schema.get("properties"), tool.name
        for name, prop in tool.input_schema.get("properties", {}).items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"key": "jones/assume-a-bug"}, "jones/assume-a-bug"),
        ({"key": "cs231n"}, "cs231n/loss-at-chance"),
        ({"search": "overfit a single batch", "limit": 3}, "overfit"),
        ({"claim": "assume you have a bug"}, "jones/assume-a-bug"),
    ],
)
async def test_quote_succeeds(client, arguments, expected):
    result = await client.call_tool("quote", arguments)
    assert not result.is_error, _text(result)
    data = result.structured_content
    assert data["query"].split("=", 1)[0] in arguments
    assert expected in json.dumps(data)
    assert "\u2014 " in _text(result)  # readable attribution, not a JSON dump


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "give exactly one of"),
        ({"key": "jones", "search": "bug"}, "give exactly one of"),
        ({"key": "jonse"}, "Did you mean: jones"),
        ({"key": "jones/nope"}, "unknown excerpt id"),
        ({"key": "schulman"}, "no verified excerpts"),
        ({"search": "the of"}, "no content words"),
        ({"key": "jones", "limit": 0}, "greater than or equal to 1"),
        ({"key": "x" * 500}, "at most 120 characters"),
    ],
)
async def test_quote_rejects_bad_input_with_a_useful_message(client, arguments, fragment):
    result = await client.call_tool("quote", arguments)
    assert result.is_error
    assert fragment in _text(result)


async def test_list_sources(client):
    result = await client.call_tool("list_sources", {})
    keys = {s["key"] for s in result.structured_content["sources"]}
    assert {"jones", "karpathy-recipe", "schulman"} <= keys
    low = await client.call_tool("list_sources", {"credence": "low"})
    assert {s["credence"] for s in low.structured_content["sources"]} == {"low"}
    bad = await client.call_tool("list_sources", {"credence": "certain"})
    assert bad.is_error and "'high', 'medium' or 'low'" in _text(bad)


async def test_read_reference_section_and_outline(client):
    result = await client.call_tool("read_reference", {"document": "playbook", "section": "the triage tree"})
    data = result.structured_content
    assert data["section"] == "The triage tree" and data["text"].startswith("## The triage tree")
    assert "## Anti-patterns" not in data["text"]  # one section, not the rest of the file
    outline = await client.call_tool("read_reference", {"document": "rl"})
    assert outline.structured_content["section"] is None
    assert "Probe environments" in outline.structured_content["sections"]
    assert "skill" in outline.structured_content["documents"]


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"document": "playbok"}, "Did you mean playbook"),
        ({"document": "rl", "section": "probe env"}, "Did you mean: Probe environments"),
        ({"document": ""}, "at least 1 character"),
        ({}, "Field required"),
    ],
)
async def test_read_reference_rejects_bad_input(client, arguments, fragment):
    result = await client.call_tool("read_reference", arguments)
    assert result.is_error and fragment in _text(result)


async def test_unknown_tool_is_an_error_result(client):
    result = await client.call_tool("no_such_tool", {})
    assert result.is_error and "Unknown tool" in _text(result)


async def test_resources_list_every_document(client):
    uris = {str(r.uri) for r in (await client.list_resources()).resources}
    expected = {"mldebug://skill", "mldebug://playbook", "mldebug://causes"} | {
        f"mldebug://refs/{name}" for name in references.documents() if name not in ("skill", "playbook")
    }
    assert uris == expected
    templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
    assert templates == {"mldebug://excerpts/{source}"}


@pytest.mark.parametrize("uri", ["mldebug://skill", "mldebug://playbook", "mldebug://refs/diagnostics",
                                 "mldebug://causes"])
async def test_read_document_resources(client, uri):
    contents = (await client.read_resource(uri)).contents[0]
    assert contents.mime_type == "text/markdown"
    assert contents.text.lstrip().startswith(("---", "#"))


async def test_the_cause_catalogue_reaches_a_client_three_ways(client):
    resource = (await client.read_resource("mldebug://causes")).contents[0].text
    reference = (await client.call_tool("read_reference", {"document": "causes"})).structured_content
    assert reference["text"] == resource and reference["sections"]  # the full sheet stays one call away
    assert "labels-misaligned | " in resource
    ranked = await client.call_tool("triage", {"symptom": "loss is nan after 300 steps", "include_catalogue": True})
    assert ranked.structured_content["catalogue"] == resource and resource in _text(ranked)
    plain = await client.call_tool("triage", {"symptom": "loss is nan after 300 steps"})
    assert plain.structured_content.get("catalogue") is None and "Cause catalogue" not in _text(plain)


async def test_read_excerpts_template(client):
    contents = (await client.read_resource("mldebug://excerpts/jones")).contents[0]
    assert "## jones/assume-a-bug" in contents.text


@pytest.mark.parametrize(
    ("uri", "fragment"),
    [
        ("mldebug://excerpts/nobody", "unknown source 'nobody'"),
        ("mldebug://excerpts/schulman", "no verified excerpts"),
        ("mldebug://excerpts/../etc", "Unknown resource"),
        ("mldebug://refs/nothing", "Unknown resource"),
    ],
)
async def test_bad_resource_reads_are_errors(client, uri, fragment):
    with pytest.raises(MCPError, match=fragment.replace(".", r"\.")):
        await client.read_resource(uri)


@pytest.mark.parametrize(
    ("name", "arguments", "fragment"),
    [
        ("debug-training", {"symptom": "loss stuck at 2.30 for 10 classes"}, "loss stuck at 2.30"),
        ("review-training-code", {"code_or_path": "train.py", "focus": "the loss"}, "Focus on: the loss"),
        ("design-sweep", {"question": "does warmup help?"}, "does warmup help?"),
    ],
)
async def test_prompts_render(client, name, arguments, fragment):
    result = await client.get_prompt(name, arguments)
    text = result.messages[0].content.text
    assert fragment in text and "read_reference" in text


@pytest.mark.parametrize(
    ("name", "arguments", "fragment"),
    [
        ("debug-training", {}, "Missing required arguments"),
        ("review-training-code", {}, "Missing required arguments"),
        ("design-sweep", {"question": "x"}, "at least 3 characters"),
        ("no-such-prompt", {}, "Unknown prompt"),
    ],
)
async def test_bad_prompt_requests_are_invalid_params(client, name, arguments, fragment):
    with pytest.raises(MCPError, match=fragment) as info:
        await client.get_prompt(name, arguments)
    assert info.value.code == -32602


async def test_prompt_list(client):
    names = {p.name for p in (await client.list_prompts()).prompts}
    assert names == {"debug-training", "review-training-code", "design-sweep"}


def test_server_keeps_its_allowed_directories(tmp_path):
    server = build_server(AllowedDirs.from_config([str(tmp_path)]))
    assert server.allowed_dirs.roots == (tmp_path.resolve(),)


async def test_lint_tool_on_files_and_source(tmp_path):
    (tmp_path / "train.py").write_text("import torch\nstate = torch.load('m.pt')\n")
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as c:
        result = await c.call_tool("lint", {"paths": ["train.py"]})
        assert not result.is_error
        assert result.structured_content["counts"] == {"MLD070": 1}
        assert "MLD070 torch-load-without-weights-only" in _text(result)
        source = await c.call_tool("lint", {"source": "import torch\nx = torch.load('a', weights_only=True)\n"})
        assert source.structured_content["findings"] == [] and source.structured_content["files"] == 1


async def test_lint_tool_keeps_outcomes_and_sees_an_edit(tmp_path, monkeypatch):
    # the server's lint uses the result cache: a second call gives the same report, an edited file is checked again
    project, cache = tmp_path / "project", tmp_path / "cache"
    project.mkdir()
    monkeypatch.setenv("MLDEBUG_CACHE_DIR", str(cache))
    train = project / "train.py"
    train.write_text("import torch\nstate = torch.load('m.pt')\n")
    async with Client(build_server(AllowedDirs.from_config([str(project)]))) as c:
        first = await c.call_tool("lint", {"paths": ["train.py"]})
        again = await c.call_tool("lint", {"paths": ["train.py"]})
        assert first.structured_content == again.structured_content
        assert first.structured_content["counts"] == {"MLD070": 1}
        assert list(cache.glob("lint-*.json"))
        train.write_text("import torch\nstate = torch.load('m.pt', weights_only=True)\n")
        edited = await c.call_tool("lint", {"paths": ["train.py"]})
        assert edited.structured_content["findings"] == []


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "give either paths"),
        ({"paths": ["a.py"], "source": "x = 1"}, "give either paths"),
        ({"paths": ["/etc/hostname"]}, "outside the allowed directories"),
        ({"paths": ["../x.py"]}, "contains '..'"),
    ],
)
async def test_lint_tool_rejects_bad_input(client, arguments, fragment):
    result = await client.call_tool("lint", arguments)
    assert result.is_error and fragment in _text(result)


async def test_explain_rule(client):
    result = await client.call_tool("explain_rule", {"rule": "MLD010"})
    assert result.structured_content["name"] == "missing-zero-grad" and "Bad:" in _text(result)
    bad = await client.call_tool("explain_rule", {"rule": "MLD01"})
    assert bad.is_error and "Did you mean" in _text(bad)
