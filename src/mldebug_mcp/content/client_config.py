"""Configuration snippets that register the server with each MCP client (pure text).

A client starts the server from wherever it likes (its own folder, the user's home), with a PATH
that may not hold the executable: `mldebug-mcp config` therefore writes the installed executable's
absolute path and the project folder as `--allow-dir`. The README shows the same shapes with
placeholders (the defaults here)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError

SERVER_NAME = "mldebug"
COMMAND = "mldebug-mcp"
PROJECT = "/path/to/your/project"
CLIENTS = ("claude", "cursor", "vscode", "codex")


@dataclass(frozen=True)
class Snippet:
    where: str  # where the text goes, for a person
    text: str  # exactly what to run or paste: pure JSON/TOML/shell, so it can be redirected to a file


def snippet(client: str, command: str = COMMAND, project: str = PROJECT) -> Snippet:
    """The snippet for `client` that starts `command` with `project` as the folder tools may read."""
    import json  # the CLI imports this module for the client names; only `config` needs json
    import shlex

    client = client.strip().lower()
    args = ["serve", "--allow-dir", project]
    if client == "claude":
        return Snippet(
            "run once in a shell (add --scope project to write .mcp.json for this repository)",
            f"claude mcp add {SERVER_NAME} -- {shlex.join([command, *args])}\n",
        )
    if client == "cursor":
        body = {"mcpServers": {SERVER_NAME: {"command": command, "args": args}}}
        return Snippet(".cursor/mcp.json in the project, or ~/.cursor/mcp.json", json.dumps(body, indent=2) + "\n")
    if client == "vscode":
        body = {"servers": {SERVER_NAME: {"type": "stdio", "command": command, "args": args}}}
        return Snippet(".vscode/mcp.json in the workspace", json.dumps(body, indent=2) + "\n")
    if client == "codex":
        listed = ", ".join(json.dumps(a) for a in args)
        return Snippet("~/.codex/config.toml",
                       f"[mcp_servers.{SERVER_NAME}]\ncommand = {json.dumps(command)}\nargs = [{listed}]\n")
    raise UsageError(f"unknown client {client!r}; choose one of: {', '.join(CLIENTS)}")
