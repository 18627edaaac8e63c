"""Regenerate the documentation sections that are made from code: the README's tools table (from the
live server) and client snippets, the lint rules table of refs/static-analysis.md (from the registry),
the triage tree of skill/PLAYBOOK.md and the cause catalogue of refs/causes.md (from triage's data).

`python -m mldebug_mcp.cli.docs [ROOT]` rewrites the marked sections in place (ROOT defaults to the
working directory, a checkout's root); a test fails when a document and the code disagree.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..render import docs
from ..render.lint import rules_markdown


def tools_table() -> str:
    import anyio

    from ..server import build_server  # the tools as a client sees them

    tools = anyio.run(build_server().list_tools)
    return docs.tools_table([
        (tool.name, tool.description or "",
         [(name, name in tool.input_schema.get("required", [])) for name in tool.input_schema.get("properties", {})],
         bool(tool.annotations and tool.annotations.read_only_hint))
        for tool in tools
    ])


def client_snippets() -> str:
    from ..services.setup import CLIENTS, example_config

    return docs.client_snippets([(c, (s := example_config(c)).where, s.text) for c in CLIENTS])


def lint_rules() -> str:
    from ..services.lint import rules

    return rules_markdown(rules())


def triage_tree() -> str:
    from ..services.triage import tree_markdown

    return tree_markdown()


def cause_catalogue() -> str:
    from ..services.triage import catalogue_markdown

    return catalogue_markdown()


GENERATORS = {"tools-table": tools_table, "client-snippets": client_snippets, "lint-rules": lint_rules,
              "triage-tree": triage_tree, "cause-catalogue": cause_catalogue}
SECTIONS_OF = {"README.md": ("tools-table", "client-snippets"), "refs/static-analysis.md": ("lint-rules",),
               "skill/PLAYBOOK.md": ("triage-tree",), "refs/causes.md": ("cause-catalogue",)}


def apply(text: str, keys: tuple[str, ...]) -> str:
    """`text` with each marked section in `keys` replaced by its generated content."""
    return docs.replace_sections(text, {key: GENERATORS[key] for key in keys})


def main(root: Path) -> None:
    for relative, keys in SECTIONS_OF.items():
        target = root / relative
        target.write_text(apply(target.read_text(encoding="utf-8"), keys), encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd())
