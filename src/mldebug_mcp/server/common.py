"""What every MCP tool module shares: annotations, error translation and the result shape."""

from __future__ import annotations

import ast
import base64
import dataclasses
import inspect
import logging
import os
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, get_type_hints

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, create_model

from ..errors import MldebugError
from ..models.base import Model
from ..services.paths import AllowedDirs

# diagnose executes the user's code (in a subprocess): not read-only, and we cannot vouch for it.
RUNS_USER_CODE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=True)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
MARKDOWN = "text/markdown"
PACKAGE_DIR = Path(__file__).resolve().parents[1]
logger = logging.getLogger(__name__)


class Server(MCPServer):
    """The SDK's server with the allow-list every path argument is checked against, and the interpreter
    diagnose may run besides its own and a project's virtual environment (None: only those)."""

    allowed_dirs: AllowedDirs
    diagnose_python: str | None = None


def allowed_dirs(ctx: Context) -> AllowedDirs:
    """The allow-list of the server handling this request."""
    return ctx.mcp_server.allowed_dirs  # type: ignore[attr-defined]


@contextmanager
def as_tool_error() -> Iterator[None]:
    """Every failure is an answer that says what failed and what would work: our errors carry such
    messages already; a file the system cannot read names the file and the reason; anything else is
    our bug, said plainly (the SDK would send only "Error executing tool NAME")."""
    try:
        yield
    except ToolError:
        raise
    except MldebugError as exc:
        raise ToolError(str(exc)) from exc
    except OSError as exc:
        raise ToolError(os_error_message(exc)) from exc
    except Exception as exc:
        logger.exception("unexpected error in a tool")
        raise ToolError(
            f"internal error ({type(exc).__name__}: {str(exc)[:300]}): a bug in mldebug-mcp, not a problem with the "
            "request as far as it can tell. The server keeps running; the CLI (mldebug-mcp) shows the traceback of "
            "the same request, and a report of it helps"
        ) from exc


def os_error_message(exc: OSError) -> str:
    """What the system refused, and on which file; a reinstall is suggested only for the package's own files."""
    name = exc.filename if exc.filename is not None else ""
    reason = exc.strerror or str(exc)
    shown = f" {str(name)[:200]!r}" + ("..." if len(str(name)) > 200 else "") if name else ""
    if name and Path(os.fsdecode(name)).is_relative_to(PACKAGE_DIR):
        return f"cannot read the bundled file{shown} ({reason}); reinstall: pip install --force-reinstall mldebug-mcp"
    return f"cannot use{shown}: {reason}; check the path (each folder name under 255 bytes, the file readable)"


@contextmanager
def as_resource_error() -> Iterator[None]:
    try:
        yield
    except MldebugError as exc:
        raise ResourceError(str(exc)) from exc


def tool_result(model: Model, text: str) -> CallToolResult:
    """Structured content for programs plus readable text for the model."""
    # JSON mode keeps a model's own serialisation settings (NaN written as "NaN") on the wire.
    with as_tool_error():
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=model.to_json_data())


@cache
def output_model(result: type[Model]) -> type[BaseModel]:
    """The pydantic model the SDK needs to publish a tool's outputSchema, with the result dataclass's schema.

    The SDK derives outputSchema from BaseModel and TypedDict return types only (another class is rebuilt
    from its type hints, losing descriptions and defaults); the fields here keep the dataclass's own
    annotations, defaults and descriptions, so both give the same JSON schema (the tools/list snapshot
    test holds them to it)."""
    described = field_docstrings(result)
    hints = get_type_hints(result, include_extras=True)
    fields: dict[str, Any] = {}
    for item in dataclasses.fields(result):
        defaults: dict[str, Any] = {}
        if item.default is not dataclasses.MISSING:
            defaults["default"] = item.default
        elif item.default_factory is not dataclasses.MISSING:
            defaults["default_factory"] = item.default_factory
        fields[item.name] = (hints[item.name], Field(description=described.get(item.name), **defaults))
    config = {k: v for k, v in result.__pydantic_config__.items() if k != "use_attribute_docstrings"}
    # The docstring written in the class, not __doc__: a dataclass without one gets its signature there.
    doc = ast.get_docstring(_class_def(result))
    return create_model(result.__name__, __doc__=doc, __config__=ConfigDict(**config), __module__=result.__module__,
                        **fields)


@cache
def _class_def(cls: type) -> ast.ClassDef:
    return ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]


def field_docstrings(cls: type) -> dict[str, str]:
    """Field name -> the string literal right under it in the class body (what pydantic's
    `use_attribute_docstrings` reads), read from the source instead of through a schema build."""
    body = _class_def(cls).body
    found = {}
    for field, after in zip(body, body[1:]):
        if (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name) and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)):
            found[field.target.id] = inspect.cleandoc(after.value.value)
    return found


def png_image(data: bytes) -> ImageContent:
    """A PNG as MCP image content."""
    return ImageContent(type="image", data=base64.b64encode(data).decode("ascii"), mime_type="image/png")
