"""MCP tool of the runtime checks: diagnose (runs the user's code in a child process)."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from ..models.diagnose import DiagnosticReport
from .common import (
    RUNS_USER_CODE,
    allowed_dirs,
    as_tool_error,
    output_model,
    png_image,
    tool_result,
)

DiagnoseOutput = output_model(DiagnosticReport)


async def diagnose(
    target: Annotated[str, Field(description="FILE.py:FUNCTION or package.module:FUNCTION returning the debug spec.", min_length=3, max_length=500)],
    ctx: Context,
    checks: Annotated[list[str] | None, Field(description="Subset of check ids to run (default all).", max_length=20)] = None,
    steps: Annotated[int, Field(description="Step budget of the overfit check.", ge=10, le=5000)] = 200,
    device: Annotated[str | None, Field(description="cpu, cuda, cuda:N or mps (default: where the model is).", max_length=20)] = None,
    timeout_s: Annotated[float, Field(description="Wall-clock limit in seconds.", gt=0, le=3600)] = 120.0,
    memory_mb: Annotated[int, Field(description="Memory limit in MB of the child process and every process it starts, together.", ge=256, le=1_000_000)] = 8192,
    python: Annotated[str | None, Field(description="Interpreter with torch installed: the server's own (default), the one the server was started with (--diagnose-python), or a virtual environment's inside the allowed directories such as .venv/bin/python.", max_length=500)] = None,
    seed: Annotated[int, Field(description="Random seed for every check.", ge=0)] = 0,
    plots: Annotated[bool, Field(description="Attach PNG plots (needs matplotlib).")] = False,
    nproc: Annotated[int, Field(description="Ranks to launch with torchrun (gloo on CPU, nccl on CUDA); above 1 the distributed checks run and the spec function may take rank and world_size.", ge=1, le=64)] = 1,
) -> Annotated[CallToolResult, DiagnoseOutput]:
    from ..render.diagnose import evidence_keys, report_text
    from ..services import diagnose as service
    from ..services.evidence import quotes_for
    from ..services.interpreters import allowed_python

    async def progress(index: int, total: int, check: str) -> None:
        await ctx.report_progress(index, total, check)

    with as_tool_error():
        allowed = allowed_dirs(ctx)
        configured = ctx.mcp_server.diagnose_python  # type: ignore[attr-defined]
        # a requested interpreter must be one the server allows; a found one comes from the server's own
        # configuration or environment, or from a virtual environment inside the project
        interpreter = service.interpreter_for(allowed_python(python, allowed, configured) if python else None,
                                              [allowed.roots[0]], configured)
        report = await service.diagnose_target(
            target, allowed=allowed, limits=service.limits(timeout_s, memory_mb, interpreter.path), device=device,
            steps=steps, seed=seed, checks=checks, on_progress=progress, interpreter_source=interpreter.source,
            nproc=nproc)
        images = service.plot_images(report) if plots else []
        text = report_text(report, quotes_for(evidence_keys(report)))
    result = tool_result(report, text)
    result.content.extend(png_image(image) for image in images)
    return result


def register(server: MCPServer) -> None:
    from ..services import diagnose as service

    server.add_tool(
        diagnose, name="diagnose", title="Run runtime diagnostics on a training setup", annotations=RUNS_USER_CODE,
        description=(
            "Runs 15 PyTorch checks on a small training setup and returns a verdict per check (pass, warn, fail, "
            "skipped, or error when the check itself broke, with the traceback) with measured vs expected values, "
            "what it means, the next cheapest test and the evidence id; the one-batch tests retry at a few "
            "learning rates before calling a slow setup broken. target is FILE.py:FUNCTION (inside the allowed directories) or package.module:FUNCTION; the "
            "function returns a dict with model, batch=(inputs, targets) or a collator's dict with labels, "
            "loss_fn (or 'model' for a model that computes its own loss, the default), task ('classification' "
            "with num_classes, 'binary', 'regression', 'lm' with vocab_size, 'custom') and optional optimizer, "
            "val_batch, seq_dim, preprocess, train_step, gradcheck. A file that runs code at import (outside "
            "`if __name__ == '__main__':`) is refused before anything runs. EXECUTES that code in a separate "
            "process with a timeout and memory limit; cancelling the request kills it. The interpreter is the "
            "project's (.venv, $VIRTUAL_ENV) when python is not given. Checks: "
            + ", ".join(service.check_ids()) + "."
        ),
    )
