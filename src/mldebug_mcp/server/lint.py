"""MCP tools of the linter: lint, explain_rule."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from ..models.lint import LintReport, RuleInfo
from .common import READ_ONLY, allowed_dirs, as_tool_error, output_model, tool_result

LintOutput = output_model(LintReport)
RuleOutput = output_model(RuleInfo)


async def lint(
    ctx: Context,
    paths: Annotated[list[str] | None, Field(description="Files or folders to lint, inside the allowed directories.", max_length=200)] = None,
    source: Annotated[str | None, Field(description="Python source text to lint instead of files.", max_length=2_000_000)] = None,
    filename: Annotated[str, Field(description="Name to report for source text.", max_length=200)] = "<source>",
    select: Annotated[list[str] | None, Field(description="Only these rule codes or prefixes, e.g. ['MLD0'].", max_length=100)] = None,
    ignore: Annotated[list[str] | None, Field(description="Rule codes or prefixes to skip.", max_length=100)] = None,
    severity: Annotated[Literal["info", "warning", "error"] | None, Field(description="Least severe finding to report: 'error' (silent wrong results), 'warning' (likely bugs and errors) or 'info' (all, hygiene included). Default: the project's [tool.mldebug] severity, else info.")] = None,
) -> Annotated[CallToolResult, LintOutput]:
    from ..render import lint as render
    from ..services import lint as service
    from .workers import run_heavy

    with as_tool_error():
        report = await run_heavy(service.lint, paths, source, filename, select, ignore, allowed=allowed_dirs(ctx),
                                 severity=severity)
    return tool_result(report, render.report_text(report))


def explain_rule(
    rule: Annotated[str, Field(description="Rule code such as MLD001, or its name.", min_length=1, max_length=80)],
) -> Annotated[CallToolResult, RuleOutput]:
    from ..render import lint as render
    from ..services import lint as service

    with as_tool_error():
        info = service.explain_rule(rule)
    return tool_result(info, render.rule_text(info))


def register(server: MCPServer) -> None:
    server.add_tool(
        lint, name="lint", title="Lint training code for silent PyTorch bugs", annotations=READ_ONLY,
        description=(
            "Static checks for training bugs that run without errors: softmax fed to CrossEntropyLoss, missing "
            "zero_grad, evaluation without eval(), graph breaks on the loss path, leakage in preprocessing, and "
            "more (explain_rule gives each rule). Give paths (.py files, .ipynb notebooks or folders inside the server's allowed "
            "directories) or source (code text). Reads files; changes nothing."
        ),
    )
    server.add_tool(
        explain_rule, name="explain_rule", title="Explain a lint rule", annotations=READ_ONLY,
        description="Why a lint rule exists, bad and good code, the fix, and the evidence id to pass to quote.",
    )
