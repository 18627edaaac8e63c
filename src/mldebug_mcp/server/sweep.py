"""MCP tool of the sweep analysis: analyze_sweep."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from ..models.sweep import SweepReport
from .common import (
    READ_ONLY,
    allowed_dirs,
    as_tool_error,
    output_model,
    png_image,
    tool_result,
)

SweepOutput = output_model(SweepReport)


async def analyze_sweep(
    ctx: Context,
    path: Annotated[str, Field(description="Runs table (CSV/TSV, JSON lines, W&B or MLflow CSV export) or folder of "
                                           "runs, inside the allowed directories.", min_length=1, max_length=1000)],
    metric: Annotated[str | None, Field(description="Column or series compared (default: guessed, eval-like first).",
                                        max_length=200)] = None,
    seed_column: Annotated[str | None, Field(description="Column holding the seed (default: seed, random_seed, ...).",
                                             max_length=200)] = None,
    factor: Annotated[str | None, Field(description="Setting(s) defining the arms, comma-separated (default: every "
                                                    "setting that varies).", max_length=1000)] = None,
    baseline: Annotated[str | None, Field(description="Arm compared against: its label or col=value pairs (default: "
                                                      "one named baseline/control/default, else the first).",
                                          max_length=1000)] = None,
    take: Annotated[Literal["last", "best"], Field(description="Of a folder of runs: each run's last or best value "
                                                               "of the metric.")] = "last",
    higher_is_better: Annotated[bool | None, Field(description="Direction of the metric (default: guessed from its "
                                                               "name; loss, error, perplexity are lower-better).")] = None,
    plot: Annotated[bool, Field(description="Attach a paired-dot PNG (needs matplotlib).")] = False,
) -> Annotated[CallToolResult, SweepOutput]:
    from ..render.sweep import sweep_text
    from ..services import sweep as service
    from .workers import run_heavy

    options = {"seed_column": seed_column, "factor": factor, "baseline": baseline, "take": take,
               "higher_is_better": higher_is_better, "allowed": allowed_dirs(ctx)}
    with as_tool_error():
        if plot:
            report, image = await run_heavy(service.sweep_with_image, path, metric, **options)
        else:
            report, image = await run_heavy(service.sweep_report, path, metric, **options), None
    result = tool_result(report, sweep_text(report))
    if image is not None:
        result.content.append(png_image(image))
    return result


def register(server: MCPServer) -> None:
    server.add_tool(
        analyze_sweep, name="analyze_sweep", title="Is it real or seed noise", annotations=READ_ONLY,
        description=(
            "Reads a sweep's runs (a table with setting, seed and metric columns, a W&B or MLflow CSV export, or a "
            "folder of TensorBoard runs or HF trainer_state.json files named key=value) and compares every arm with "
            "a baseline: paired differences on shared seeds, within-seed z-scores with their cross-seed t, a "
            "bootstrap interval, the seed-to-seed spread, Holm-corrected p-values and a verdict (better, worse, "
            "within seed noise). Warns when seeds are not shared, when an arm has fewer than 3 seeds, and when "
            "several settings changed at once. plot=true attaches a paired-dot PNG. Reads files; changes nothing."
        ),
    )
