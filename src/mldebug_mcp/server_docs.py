"""Generated README sections: the tools table (from the live server) and the client snippets.

`python -m mldebug_mcp.server_docs README.md` rewrites the marked sections in place;
a test fails when the README and the code disagree.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import anyio

from .client_config import CLIENTS, snippet

MARKERS = {
    "tools-table": "<!-- generated: tools-table (python -m mldebug_mcp.server_docs README.md) -->",
    "client-snippets": "<!-- generated: client-snippets (python -m mldebug_mcp.server_docs README.md) -->",
}
END = "<!-- end generated -->"
_LANG = {"claude": "bash", "cursor": "json", "vscode": "json", "codex": "toml"}
_TITLE = {"claude": "Claude Code", "cursor": "Cursor", "vscode": "VS Code", "codex": "Codex"}


def tools_table() -> str:
    from .server import build_server

    tools = anyio.run(build_server().list_tools)
    rows = ["| Tool | What it does | Parameters | Read-only |", "|---|---|---|---|"]
    for tool in tools:
        params = ", ".join(
            f"`{name}`" + ("" if name in tool.input_schema.get("required", []) else "?")
            for name in tool.input_schema.get("properties", {})
        )
        read_only = "yes" if tool.annotations and tool.annotations.read_only_hint else "no"
        description = (tool.description or "").split(". ")[0].rstrip(".")
        rows.append(f"| `{tool.name}` | {description} | {params or 'none'} | {read_only} |")
    return "\n".join(rows)


def client_snippets() -> str:
    blocks = []
    for client in CLIENTS:
        s = snippet(client)
        blocks.append(f"**{_TITLE[client]}**: {s.where}\n\n```{_LANG[client]}\n{s.text.rstrip()}\n```")
    return "\n\n".join(blocks)


def generated_sections() -> dict[str, str]:
    return {"tools-table": tools_table(), "client-snippets": client_snippets()}


def apply(text: str) -> str:
    """`text` with every marked section replaced by its generated content."""
    for key, body in generated_sections().items():
        pattern = re.compile(re.escape(MARKERS[key]) + r".*?" + re.escape(END), re.S)
        if not pattern.search(text):
            raise ValueError(f"README has no section marked {MARKERS[key]!r} ... {END!r}")
        text = pattern.sub(lambda _: f"{MARKERS[key]}\n{body}\n{END}", text)
    return text


if __name__ == "__main__":  # pragma: no cover
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "README.md")
    target.write_text(apply(target.read_text(encoding="utf-8")), encoding="utf-8")
