"""What every MCP tool module shares: annotations, error translation and the result shape."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel

from ..errors import MldebugError

# diagnose executes the user's code (in a subprocess): not read-only, and we cannot vouch for it.
RUNS_USER_CODE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=True)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
MARKDOWN = "text/markdown"


@contextmanager
def as_tool_error() -> Iterator[None]:
    """Our errors carry actionable messages: hand them to the agent as ToolError."""
    try:
        yield
    except MldebugError as exc:
        raise ToolError(str(exc)) from exc
    except OSError as exc:
        raise ToolError(f"cannot read bundled content ({exc}); reinstall mldebug-mcp") from exc


def tool_result(model: BaseModel, text: str) -> CallToolResult:
    """Structured content for programs plus readable text for the model."""
    # Through JSON text, so a model's own serialisation settings (NaN written as "NaN") hold on the wire.
    structured = json.loads(model.model_dump_json())
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def png_image(data: bytes) -> ImageContent:
    """A PNG as MCP image content."""
    return ImageContent(type="image", data=base64.b64encode(data).decode("ascii"), mime_type="image/png")
