"""MCP tool of the curve reader: analyze_curve."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from ..models.curves import CurveReport
from .common import (
    READ_ONLY,
    allowed_dirs,
    as_tool_error,
    output_model,
    png_image,
    tool_result,
)

CurveOutput = output_model(CurveReport)


async def analyze_curve(
    ctx: Context,
    path: Annotated[str, Field(description="Log file or folder of event files, inside the allowed directories.",
                               min_length=1, max_length=1000)],
    loss: Annotated[str | None, Field(description="Series to analyse as the training loss (default: guessed).", max_length=200)] = None,
    val: Annotated[str | None, Field(description="Series to use as the validation loss (default: guessed).", max_length=200)] = None,
    num_classes: Annotated[int | None, Field(description="Number of classes, to recognise a plateau at ln k.", ge=2, le=10_000_000)] = None,
    plot: Annotated[bool, Field(description="Attach a PNG of the curve (needs matplotlib).")] = False,
    run: Annotated[str | None, Field(description="Of a folder holding several TensorBoard runs: the run to read, its "
                                     "sub-folder as the report's other_runs lists it (default: the most recent).",
                                     max_length=1000)] = None,
    metric: Annotated[str | None, Field(description="Metric series read beside the loss, to report a loss that falls "
                                        "while the metric stays flat (default: guessed).", max_length=200)] = None,
) -> Annotated[CallToolResult, CurveOutput]:
    from ..render.curves import curve_text, triage_hint
    from ..services import curves as service
    from .workers import run_heavy

    with as_tool_error():
        if plot:
            report, image = await run_heavy(service.curve_with_image, path, loss, val, num_classes, run=run,
                                            metric=metric, allowed=allowed_dirs(ctx))
        else:
            report = await run_heavy(service.curve_report, path, loss, val, num_classes, run=run,
                                     metric=metric, allowed=allowed_dirs(ctx))
            image = None
    result = tool_result(report, curve_text(report) + "\n\n" + triage_hint(report))
    if image is not None:
        result.content.append(png_image(image))
    return result


def register(server: MCPServer) -> None:
    server.add_tool(
        analyze_curve, name="analyze_curve", title="Classify a loss curve", annotations=READ_ONLY,
        description=(
            "Reads a loss log (CSV/TSV, JSON lines, JSON such as HF trainer_state.json, or TensorBoard event files; "
            "a file or a folder inside the allowed directories; of a folder holding several runs, one run: `run` or "
            "the most recent) and reports, as observation keys for triage: NaN "
            "onset, divergence, a plateau at ln k (give num_classes) or another level, loss exactly zero, spikes "
            "classified as fast-, slow- or non-recovering, oscillation, a train/validation gap, validation better "
            "than training, or slow but healthy; each with the step and the numbers. plot=true attaches a PNG with "
            "a log-scaled loss axis (needs matplotlib). Reads the file; changes nothing."
        ),
    )
