"""Client snippets, the Claude Code plugin files, and the generated README sections."""

import json
import shlex
import tomllib
from pathlib import Path

import pytest
import skills_ref

import mldebug_mcp
from mldebug_mcp.cli import docs as generated_docs
from mldebug_mcp.content.client_config import CLIENTS, snippet
from mldebug_mcp.content.skill_install import build_skill
from mldebug_mcp.errors import UsageError
from mldebug_mcp.services.setup import client_config, installed_command

ROOT = Path(__file__).resolve().parents[2]


def test_cursor_and_vscode_snippets_are_pure_json_with_the_installed_command(run_cli, tmp_path):
    serve = {"command": installed_command(), "args": ["serve", "--allow-dir", str(tmp_path.resolve())]}
    cursor = json.loads(run_cli("config", "cursor", "--project", str(tmp_path)).out)
    assert cursor == {"mcpServers": {"mldebug": serve}}
    vscode = json.loads(run_cli("config", "vscode", "--project", str(tmp_path)).out)
    assert vscode["servers"]["mldebug"] == {"type": "stdio", **serve}
    assert Path(serve["command"]).is_absolute() and Path(serve["command"]).is_file()


def test_codex_snippet_is_toml_and_claude_is_a_command(run_cli, tmp_path):
    codex = tomllib.loads(run_cli("config", "codex", "--project", str(tmp_path)).out)
    assert codex == {"mcp_servers": {"mldebug": {"command": installed_command(),
                                                 "args": ["serve", "--allow-dir", str(tmp_path.resolve())]}}}
    result = run_cli("config", "claude", "--project", str(tmp_path))
    assert shlex.split(result.out) == ["claude", "mcp", "add", "mldebug", "--", installed_command(), "serve",
                                       "--allow-dir", str(tmp_path.resolve())]
    assert result.err.startswith("# claude:")


def test_the_project_defaults_to_the_working_directory_and_must_be_a_folder(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert json.loads(run_cli("config", "cursor").out)["mcpServers"]["mldebug"]["args"][-1] == str(tmp_path.resolve())
    with pytest.raises(UsageError, match="is not a folder"):
        client_config("cursor", tmp_path / "missing")


def test_the_snippets_start_the_server_from_another_folder(tmp_path):
    # what a client does: run the snippet's command from wherever it is, and talk MCP to it
    import anyio
    from mcp import Client, StdioServerParameters

    served = json.loads(client_config("cursor", tmp_path).text)["mcpServers"]["mldebug"]
    (tmp_path / "train.py").write_text("import torch.nn.functional as F\n\ndef f(x, y):\n"
                                       "    return F.cross_entropy(F.softmax(x, dim=1), y)\n")

    async def call() -> dict:
        params = StdioServerParameters(command=served["command"], args=served["args"], cwd=str(Path.home()))
        async with Client(params) as client:
            return (await client.call_tool("lint", {"paths": ["train.py"]})).structured_content

    assert [f["code"] for f in anyio.run(call)["findings"]] == ["MLD001"]


def test_unknown_client_is_refused(run_cli, capsys):
    with pytest.raises(SystemExit) as info:
        run_cli("config", "emacs")
    assert info.value.code == 2
    assert "invalid choice: 'emacs'" in capsys.readouterr().err
    with pytest.raises(UsageError, match="choose one of: claude, cursor, vscode, codex"):
        snippet("emacs")


def test_plugin_manifest_and_marketplace():
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert plugin["name"] == "mldebug" and plugin["version"] == mldebug_mcp.__version__
    assert plugin["license"] == "MIT" and plugin["description"]
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    [entry] = market["plugins"]
    assert entry["name"] == plugin["name"] and entry["source"] == "./"
    assert entry["version"] == plugin["version"]
    servers = json.loads((ROOT / ".mcp.json").read_text())["mcpServers"]
    assert servers["mldebug"]["args"][-2:] == ["mldebug-mcp", "serve"]


def test_plugin_skill_copy_is_current_and_valid(tmp_path):
    fresh = tmp_path / "ml-debug"
    build_skill(fresh)
    shipped = ROOT / "skills" / "ml-debug"
    fresh_files = {p.relative_to(fresh): p.read_bytes() for p in fresh.rglob("*") if p.is_file()}
    shipped_files = {p.relative_to(shipped): p.read_bytes() for p in shipped.rglob("*") if p.is_file()}
    assert fresh_files.keys() == shipped_files.keys(), "run: mldebug-mcp install-skill --dest skills --force"
    stale = sorted(str(k) for k in fresh_files if fresh_files[k] != shipped_files[k])
    assert not stale, f"stale {stale}; run: mldebug-mcp install-skill --dest skills --force"
    assert skills_ref.validate(shipped) == []


def test_readme_generated_sections_are_current():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert generated_docs.apply(readme, generated_docs.SECTIONS_OF["README.md"]) == readme, \
        "run: python -m mldebug_mcp.cli.docs"
    for client in CLIENTS:
        assert snippet(client).text.strip() in readme
    assert "| `quote` |" in readme and "| `read_reference` |" in readme


def test_static_analysis_rules_table_is_current():
    sheet = (ROOT / "refs" / "static-analysis.md").read_text(encoding="utf-8")
    keys = generated_docs.SECTIONS_OF["refs/static-analysis.md"]
    assert generated_docs.apply(sheet, keys) == sheet, "run: python -m mldebug_mcp.cli.docs"


def test_cause_catalogue_sheet_is_current():
    sheet = (ROOT / "refs" / "causes.md").read_text(encoding="utf-8")
    keys = generated_docs.SECTIONS_OF["refs/causes.md"]
    assert generated_docs.apply(sheet, keys) == sheet, "run: python -m mldebug_mcp.cli.docs"
    assert sheet.count("\n### ") >= 40
