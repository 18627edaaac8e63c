"""MCP tools and resource of the evidence: quote, list_sources, mldebug://excerpts/{source}."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..models.evidence import QuoteResult, SourceList
from .common import (
    MARKDOWN,
    READ_ONLY,
    as_resource_error,
    as_tool_error,
    output_model,
    tool_result,
)

QuoteOutput = output_model(QuoteResult)
SourceListOutput = output_model(SourceList)


def quote(
    key: Annotated[str | None, Field(description="Source key or excerpt id, e.g. 'jones' or 'jones/assume-a-bug'.", max_length=120)] = None,
    claim: Annotated[str | None, Field(description="A claim in your words, e.g. 'overfit one batch first'.", max_length=500)] = None,
    search: Annotated[str | None, Field(description="Words to search for in the quotes, e.g. 'learning rate warmup'.", max_length=500)] = None,
    limit: Annotated[int, Field(description="Most results for claim or search.", ge=1, le=50)] = 5,
) -> Annotated[CallToolResult, QuoteOutput]:
    from ..render import evidence as render
    from ..services import evidence as service

    with as_tool_error():
        result = service.quote_lookup(key=key, claim=claim, search=search, limit=limit)
    return tool_result(result, render.quote_result_text(result))


def list_sources(
    credence: Annotated[Literal["high", "medium", "low"] | None, Field(description="Only sources of this credence.")] = None,
) -> Annotated[CallToolResult, SourceListOutput]:
    from ..render import evidence as render
    from ..services import evidence as service

    with as_tool_error():
        result = service.list_sources(credence)
    return tool_result(result, render.source_list_text(result))


def excerpts(source: str) -> str:
    from ..services import evidence as service

    with as_resource_error():
        return service.excerpts_markdown(source)


def register(server: MCPServer) -> None:
    server.add_tool(
        quote, name="quote", title="Quote the primary sources", annotations=READ_ONLY,
        description=(
            "Verbatim, attributed quotes from practitioners and papers on debugging ML training. Give exactly "
            "one of: key (a source key such as 'jones' for all its excerpts, or an excerpt id such as "
            "'jones/assume-a-bug'), claim (text of a claim; returns matching claims of the evidence map with "
            "their supporting quotes), search (words to find in the quotes). list_sources shows the keys."
        ),
    )
    server.add_tool(
        list_sources, name="list_sources", title="List the primary sources", annotations=READ_ONLY,
        description="Every source the evidence cites: key, author, title, year, URL, credence and how many verified excerpts it has.",
    )
    server.resource(
        "mldebug://excerpts/{source}", name="excerpts", title="Verbatim excerpts of one source",
        description="All verified excerpts of a source, by its key (see list_sources), as markdown.", mime_type=MARKDOWN,
    )(excerpts)
