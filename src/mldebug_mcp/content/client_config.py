"""Configuration snippets that register the server with each MCP client (pure text)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError

SERVER_NAME = "mldebug"
COMMAND = "mldebug-mcp"
ARGS = ["serve"]
CLIENTS = ("claude", "cursor", "vscode", "codex")


@dataclass(frozen=True)
class Snippet:
    where: str  # where the text goes, for a person
    text: str  # exactly what to run or paste: pure JSON/TOML/shell, so it can be redirected to a file


def snippet(client: str) -> Snippet:
    import json  # the CLI imports this module for the client names; only `config` needs json

    client = client.strip().lower()
    if client == "claude":
        return Snippet(
            "run once in a shell (add --scope project to write .mcp.json for this repository)",
            f"claude mcp add {SERVER_NAME} -- {COMMAND} {' '.join(ARGS)}\n",
        )
    if client == "cursor":
        body = {"mcpServers": {SERVER_NAME: {"command": COMMAND, "args": ARGS}}}
        return Snippet(".cursor/mcp.json in the project, or ~/.cursor/mcp.json", json.dumps(body, indent=2) + "\n")
    if client == "vscode":
        body = {"servers": {SERVER_NAME: {"type": "stdio", "command": COMMAND, "args": ARGS}}}
        return Snippet(".vscode/mcp.json in the workspace", json.dumps(body, indent=2) + "\n")
    if client == "codex":
        args = ", ".join(json.dumps(a) for a in ARGS)
        return Snippet("~/.codex/config.toml", f'[mcp_servers.{SERVER_NAME}]\ncommand = "{COMMAND}"\nargs = [{args}]\n')
    raise UsageError(f"unknown client {client!r}; choose one of: {', '.join(CLIENTS)}")
