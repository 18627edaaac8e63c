"""MCP tool of the loss landscape: loss_landscape (runs the user's code in a child process)."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from ..models.landscape import LandscapeReport
from .common import (
    RUNS_USER_CODE,
    allowed_dirs,
    as_tool_error,
    output_model,
    png_image,
    tool_result,
)

LandscapeOutput = output_model(LandscapeReport)


async def loss_landscape(
    target: Annotated[str, Field(description="FILE.py:FUNCTION or package.module:FUNCTION returning the debug spec.", min_length=3, max_length=500)],
    ctx: Context,
    checkpoint: Annotated[str | None, Field(description="State dict to load first (inside the allowed directories; read with torch.load(weights_only=True)).", max_length=1000)] = None,
    points: Annotated[int, Field(description="Points per 1-D slice.", ge=5, le=401)] = 41,
    grid: Annotated[int, Field(description="Side of the 2-D grid.", ge=5, le=101)] = 21,
    span: Annotated[float, Field(description="Slices run over [-span, span]; 1 moves every filter by its own norm.", gt=0, le=10)] = 1.0,
    directions: Annotated[int, Field(description="Random directions: 2 also gives the 2-D grid.", ge=1, le=2)] = 2,
    mode: Annotated[Literal["train", "eval"], Field(description="Module mode during the probe.")] = "train",
    budget_s: Annotated[float | None, Field(description="Seconds the probe may spend; the grid shrinks to fit (default 60, or half the timeout when that is less).", gt=0, le=3000)] = None,
    device: Annotated[str | None, Field(description="cpu, cuda, cuda:N or mps (default: where the model is).", max_length=20)] = None,
    timeout_s: Annotated[float, Field(description="Wall-clock limit in seconds, above the budget.", gt=0, le=3600)] = 120.0,
    memory_mb: Annotated[int, Field(description="Memory limit in MB of the child process and every process it starts, together.", ge=256, le=1_000_000)] = 8192,
    python: Annotated[str | None, Field(description="Interpreter with torch installed (as for diagnose).", max_length=500)] = None,
    seed: Annotated[int, Field(description="Seed of the random directions.", ge=0)] = 0,
    plots: Annotated[bool, Field(description="Attach the 1-D curve and 2-D contour PNGs (needs matplotlib).")] = False,
) -> Annotated[CallToolResult, LandscapeOutput]:
    from ..render.landscape import landscape_text
    from ..services import diagnose
    from ..services import landscape as service
    from ..services.interpreters import allowed_python

    async def progress(index: int, total: int, stage: str) -> None:
        await ctx.report_progress(index, total, stage)

    with as_tool_error():
        allowed = allowed_dirs(ctx)
        configured = ctx.mcp_server.diagnose_python  # type: ignore[attr-defined]
        interpreter = diagnose.interpreter_for(allowed_python(python, allowed, configured) if python else None,
                                               [allowed.roots[0]], configured)
        report = await service.landscape_target(
            target, checkpoint=checkpoint, allowed=allowed,
            limits=diagnose.limits(timeout_s, memory_mb, interpreter.path), device=device, seed=seed, points=points,
            grid=grid, span=span, directions=directions, budget_s=budget_s, mode=mode, on_progress=progress,
            interpreter_source=interpreter.source)
        images = service.plot_images(report) if plots else []
        if images:
            report.plots = ["attached"] * len(images)
    result = tool_result(report, landscape_text(report))
    result.content.extend(png_image(image) for image in images)
    return result


def register(server: MCPServer) -> None:
    server.add_tool(
        loss_landscape, name="loss_landscape", title="The loss around where training stopped",
        annotations=RUNS_USER_CODE,
        description=(
            "Probes the loss on the debug spec's batch around the model's current parameters (optionally after "
            "loading a checkpoint): 1-D slices along random directions normalised per filter (Li et al. 2018) and "
            "along the gradient, a 2-D grid of the two random directions within a time budget, the curvature of "
            "each slice from a quadratic fit and exactly (d.H.d), and the Hessian's largest and smallest "
            "eigenvalues by power iteration on Hessian-vector products. Says whether the point is at a minimum, on "
            "a slope, on a plateau or at a saddle, with the figures and thresholds behind it, and attaches a 1-D "
            "curve and a 2-D contour PNG. target is FILE.py:FUNCTION (inside the allowed directories) as for "
            "diagnose. EXECUTES that code in a separate process with a timeout and memory limit; the model's "
            "parameters are put back exactly after probing."
        ),
    )
