"""Generated documentation sections: the README's tools table (from the live server) and
client snippets, the lint rules table of refs/static-analysis.md (from the registry), the
triage tree of skill/PLAYBOOK.md (from triage/data/tree.yaml), and the cause catalogue of
refs/causes.md (from triage/data/causes/).

`python -m mldebug_mcp.cli.docs` rewrites the marked sections in place (run it from
the repository root); a test fails when a document and the code disagree.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import anyio

from ..content.client_config import CLIENTS, snippet

MARKERS = {
    key: f"<!-- generated: {key} (python -m mldebug_mcp.cli.docs) -->"
    for key in ("tools-table", "client-snippets", "lint-rules", "triage-tree", "cause-catalogue")
}
END = "<!-- end generated -->"
_LANG = {"claude": "bash", "cursor": "json", "vscode": "json", "codex": "toml"}
_TITLE = {"claude": "Claude Code", "cursor": "Cursor", "vscode": "VS Code", "codex": "Codex"}


def tools_table() -> str:
    from ..server.app import build_server

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


def lint_rules() -> str:
    from ..lint.catalog import markdown_table

    return markdown_table()


def triage_tree() -> str:
    from ..triage.tree import load_tree, render_leaves, render_tree

    tree = load_tree()
    return f"```text\n{render_tree(tree)}\n```\n\n{render_leaves(tree)}"


def cause_catalogue() -> str:
    from ..triage.catalogue import load_catalogue
    from ..triage.render import catalogue_markdown

    return catalogue_markdown(load_catalogue())


GENERATORS = {"tools-table": tools_table, "client-snippets": client_snippets, "lint-rules": lint_rules,
              "triage-tree": triage_tree, "cause-catalogue": cause_catalogue}
SECTIONS_OF = {"README.md": ("tools-table", "client-snippets"), "refs/static-analysis.md": ("lint-rules",),
               "skill/PLAYBOOK.md": ("triage-tree",), "refs/causes.md": ("cause-catalogue",)}


def apply(text: str, keys: tuple[str, ...]) -> str:
    """`text` with each marked section in `keys` replaced by its generated content."""
    for key in keys:
        body = GENERATORS[key]()
        pattern = re.compile(re.escape(MARKERS[key]) + r".*?" + re.escape(END), re.S)
        if not pattern.search(text):
            raise ValueError(f"no section marked {MARKERS[key]!r} ... {END!r}")
        text = pattern.sub(lambda _: f"{MARKERS[key]}\n{body}\n{END}", text)
    return text


if __name__ == "__main__":  # pragma: no cover
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    for relative, keys in SECTIONS_OF.items():
        target = root / relative
        target.write_text(apply(target.read_text(encoding="utf-8"), keys), encoding="utf-8")
