"""MCP tool and resources of the skill's documents: read_reference, mldebug://skill, mldebug://refs/{name}."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..models.content import ReferenceSection
from .common import MARKDOWN, READ_ONLY, as_tool_error, output_model, tool_result

ReferenceOutput = output_model(ReferenceSection)


def read_reference(
    document: Annotated[str, Field(description="Document name, e.g. 'playbook' or 'diagnostics'.", min_length=1, max_length=80)],
    section: Annotated[str | None, Field(description="Section title or anchor, e.g. 'The triage tree'. Omit for the outline.", max_length=200)] = None,
) -> Annotated[CallToolResult, ReferenceOutput]:
    from ..render.content import reference_text
    from ..services import references as service

    with as_tool_error():
        result = service.read_reference(document, section)
    return tool_result(result, reference_text(result))


def document_uri(name: str) -> str:
    return {"skill": "mldebug://skill", "playbook": "mldebug://playbook"}.get(name, f"mldebug://refs/{name}")


def register(server: MCPServer) -> None:
    from ..services import references as service

    server.add_tool(
        read_reference, name="read_reference", title="Read one section of the skill or a reference sheet",
        annotations=READ_ONLY,
        description=(
            "Read one section of the debugging skill ('skill'), the long-form playbook ('playbook') or a "
            "reference sheet (causes, diagnostics, static-analysis, pitfalls, loss-surface, stuck-metric, sweeps, "
            "transformers-llm, rl, pinns, llm-judges, large-model-stability, post-training, practice-gaps, distributed, "
            "speed-memory). Without a section it returns the document's "
            "introduction and the list of its sections."
        ),
    )
    for name in service.document_files():
        server.resource(document_uri(name), name=name, title=f"{name} (markdown)", mime_type=MARKDOWN,
                        description=f"The {name} document of the ml-debug skill.")(_reader(name))


def _reader(name: str):
    from ..services import references as service

    def document() -> str:
        return service.document_text(name)

    return document
