"""MCP tool of the anti-pattern guard: check_advice."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..models.advice import AdviceReport
from .common import READ_ONLY, as_tool_error, output_model, tool_result

AdviceOutput = output_model(AdviceReport)


def check_advice(
    text: Annotated[str, Field(description="The fix or answer to check.", min_length=1, max_length=200_000)],
) -> Annotated[CallToolResult, AdviceOutput]:
    from ..render.advice import advice_text, evidence_keys
    from ..services import advice as service
    from ..services.evidence import quotes_for

    with as_tool_error():
        report = service.check_advice(text)
        rendered = advice_text(report, quotes_for(evidence_keys(report)))
    return tool_result(report, rendered)


def register(server: MCPServer) -> None:
    server.add_tool(
        check_advice, name="check_advice", title="Check a proposed fix for anti-patterns", annotations=READ_ONLY,
        description=(
            "A proposed fix or a draft answer (prose, code or both) in; the debugging anti-patterns it contains "
            "out: tuning hyperparameters before correctness is shown, try/except around training, swapping the "
            "optimiser, .detach()/.item() to silence autograd, a scheduler as the cure for non-convergence, a "
            "bigger model before one batch overfits, normalising without checking, casting dtypes to silence "
            "errors, clipping without logging the norm, declaring victory on one seed, several changes at once. "
            "Each with the reason, what to do instead and the practitioner quote. Call it before answering."
        ),
    )
