"""The MCP server: one module per tool family registers its tools; this one assembles them. Each tool
imports its service and renderer when first called, so the server starts without loading the cores.

Never import torch or matplotlib here (start-up cost; a test checks it), and never write to
stdout: on stdio it carries protocol messages only. Logging goes to stderr.
"""

from __future__ import annotations

from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS
from pydantic import ValidationError

from .._version import __version__
from ..services.interpreters import configured_python
from ..services.paths import AllowedDirs
from . import advice, curves, diagnose, evidence, landscape, lint, prompts, references, sweep, triage
from .common import Server

# Registration order is the order of tools/list.
FAMILIES = (evidence, references, lint, diagnose, triage, advice, curves, sweep, landscape, prompts)


class _Server(Server):
    async def get_prompt(self, name, arguments=None, context=None):  # type: ignore[override]
        # The SDK reports an unknown prompt or a missing argument as an internal error;
        # the caller deserves to know it was their request, and what to send instead.
        try:
            return await super().get_prompt(name, arguments, context)
        except MCPError:
            raise
        except ValueError as exc:
            message = _innermost_validation_message(exc) or str(exc)
            raise MCPError(INVALID_PARAMS, f"{message}. prompts/list shows each prompt and its arguments") from exc


def _innermost_validation_message(exc: BaseException) -> str | None:
    """'field: problem' lines of a pydantic ValidationError hidden in the exception's cause chain."""
    seen = exc
    while seen is not None:
        if isinstance(seen, ValidationError):
            return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in seen.errors())
        seen = seen.__cause__ or seen.__context__
    return None


def build_server(allowed: AllowedDirs | None = None, diagnose_python: str | None = None) -> Server:
    """A configured server; `allowed` bounds every path argument of every tool, `diagnose_python` (else
    $MLDEBUG_DIAGNOSE_PYTHON) is an interpreter diagnose may run besides the server's own."""
    server = _Server(
        name="mldebug",
        title="mldebug: debug ML training like a practitioner",
        instructions=prompts.INSTRUCTIONS,
        version=__version__,
    )
    server.allowed_dirs = allowed or AllowedDirs.from_config()  # read by the tools that take paths
    server.diagnose_python = configured_python(diagnose_python)
    for family in FAMILIES:
        family.register(server)
    return server
