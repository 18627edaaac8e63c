"""Generated sections of the documentation: the README's tool table and client snippets, and the marked
blocks they replace. Pure text; cli/docs.py gathers what goes in."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

END = "<!-- end generated -->"
COMMAND = "python -m mldebug_mcp.cli.docs"
_LANG = {"claude": "bash", "cursor": "json", "vscode": "json", "codex": "toml"}
_TITLE = {"claude": "Claude Code", "cursor": "Cursor", "vscode": "VS Code", "codex": "Codex"}


def marker(key: str) -> str:
    return f"<!-- generated: {key} ({COMMAND}) -->"


def tools_table(tools: list[tuple[str, str, list[tuple[str, bool]], bool]]) -> str:
    """(name, description, [(parameter, required)], read-only) per tool: the first sentence of each description."""
    rows = ["| Tool | What it does | Parameters | Read-only |", "|---|---|---|---|"]
    for name, description, parameters, read_only in tools:
        params = ", ".join(f"`{p}`" + ("" if required else "?") for p, required in parameters)
        first = description.split(". ")[0].rstrip(".")
        rows.append(f"| `{name}` | {first} | {params or 'none'} | {'yes' if read_only else 'no'} |")
    return "\n".join(rows)


def client_snippets(snippets: list[tuple[str, str, str]]) -> str:
    """(client, where it goes, text) per client, as headed code blocks."""
    return "\n\n".join(f"**{_TITLE.get(client, client)}**: {where}\n\n```{_LANG.get(client, '')}\n{text.rstrip()}\n```"
                       for client, where, text in snippets)


def replace_sections(text: str, bodies: Mapping[str, Callable[[], str]]) -> str:
    """`text` with each marked section replaced by its generated body."""
    for key, body in bodies.items():
        pattern = re.compile(re.escape(marker(key)) + r".*?" + re.escape(END), re.S)
        if not pattern.search(text):
            raise ValueError(f"no section marked {marker(key)!r} ... {END!r}")
        content = body()
        text = pattern.sub(lambda _: f"{marker(key)}\n{content}\n{END}", text)
    return text
