"""The MCP server: tools, resources and prompts, each a few lines over the services.

Never import torch or matplotlib here (start-up cost; a test checks it), and never write to
stdout: on stdio it carries protocol messages only. Logging goes to stderr.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, ImageContent
from pydantic import Field, ValidationError

from .. import __version__
from ..content import documents as references
from ..render import evidence as render
from ..services import evidence as services
from . import prompts
from ..citations.store import load_store
from ..errors import MldebugError
from ..models import DiagnosticReport, LintReport, QuoteResult, ReferenceSection, RuleInfo, SourceList
from ..services.paths import AllowedDirs
from .common import MARKDOWN, READ_ONLY, RUNS_USER_CODE, png_image
from .common import as_tool_error as _as_tool_error
from .common import tool_result as _result
from .triage import add_triage_tools


@contextmanager
def _as_resource_error() -> Iterator[None]:
    try:
        yield
    except MldebugError as exc:
        raise ResourceError(str(exc)) from exc


class _Server(MCPServer):
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


def build_server(allowed: AllowedDirs | None = None) -> MCPServer:
    """A configured server; `allowed` bounds every path argument of every tool."""
    server = _Server(
        name="mldebug",
        title="mldebug: debug ML training like a practitioner",
        instructions=prompts.INSTRUCTIONS,
        version=__version__,
    )
    server.allowed_dirs = allowed or AllowedDirs.from_config()  # read by tools that take paths
    _add_tools(server)
    _add_lint_tools(server, server.allowed_dirs)
    _add_diagnose_tool(server, server.allowed_dirs)
    add_triage_tools(server, server.allowed_dirs)
    _add_resources(server)
    _add_prompts(server)
    return server


def _add_tools(server: MCPServer) -> None:
    @server.tool(
        name="quote",
        title="Quote the primary sources",
        description=(
            "Verbatim, attributed quotes from practitioners and papers on debugging ML training. Give exactly "
            "one of: key (a source key such as 'jones' for all its excerpts, or an excerpt id such as "
            "'jones/assume-a-bug'), claim (text of a claim; returns matching claims of the evidence map with "
            "their supporting quotes), search (words to find in the quotes). list_sources shows the keys."
        ),
        annotations=READ_ONLY,
    )
    def quote(
        key: Annotated[str | None, Field(description="Source key or excerpt id, e.g. 'jones' or 'jones/assume-a-bug'.", max_length=120)] = None,
        claim: Annotated[str | None, Field(description="A claim in your words, e.g. 'overfit one batch first'.", max_length=500)] = None,
        search: Annotated[str | None, Field(description="Words to search for in the quotes, e.g. 'learning rate warmup'.", max_length=500)] = None,
        limit: Annotated[int, Field(description="Most results for claim or search.", ge=1, le=50)] = 5,
    ) -> Annotated[CallToolResult, QuoteResult]:
        with _as_tool_error():
            result = services.quote_lookup(key=key, claim=claim, search=search, limit=limit)
        return _result(result, render.quote_result_text(result))

    @server.tool(
        name="list_sources",
        title="List the primary sources",
        description="Every source the evidence cites: key, author, title, year, URL, credence and how many verified excerpts it has.",
        annotations=READ_ONLY,
    )
    def list_sources(
        credence: Annotated[Literal["high", "medium", "low"] | None, Field(description="Only sources of this credence.")] = None,
    ) -> Annotated[CallToolResult, SourceList]:
        with _as_tool_error():
            result = services.list_sources(credence)
        return _result(result, render.source_list_text(result))

    @server.tool(
        name="read_reference",
        title="Read one section of the skill or a reference sheet",
        description=(
            "Read one section of the debugging skill ('skill'), the long-form playbook ('playbook') or a "
            "reference sheet (causes, diagnostics, static-analysis, pitfalls, loss-surface, stuck-metric, sweeps, "
            "transformers-llm, rl, pinns, llm-judges). Without a section it returns the document's "
            "introduction and the list of its sections."
        ),
        annotations=READ_ONLY,
    )
    def read_reference(
        document: Annotated[str, Field(description="Document name, e.g. 'playbook' or 'diagnostics'.", min_length=1, max_length=80)],
        section: Annotated[str | None, Field(description="Section title or anchor, e.g. 'The triage tree'. Omit for the outline.", max_length=200)] = None,
    ) -> Annotated[CallToolResult, ReferenceSection]:
        with _as_tool_error():
            result = services.read_reference(document, section)
        return _result(result, render.reference_text(result))


def _add_lint_tools(server: MCPServer, allowed: AllowedDirs) -> None:
    @server.tool(
        name="lint",
        title="Lint training code for silent PyTorch bugs",
        description=(
            "Static checks for training bugs that run without errors: softmax fed to CrossEntropyLoss, missing "
            "zero_grad, evaluation without eval(), graph breaks on the loss path, leakage in preprocessing, and "
            "more (explain_rule gives each rule). Give paths (files or folders inside the server's allowed "
            "directories) or source (code text). Reads files; changes nothing."
        ),
        annotations=READ_ONLY,
    )
    def lint(
        paths: Annotated[list[str] | None, Field(description="Files or folders to lint, inside the allowed directories.", max_length=200)] = None,
        source: Annotated[str | None, Field(description="Python source text to lint instead of files.", max_length=2_000_000)] = None,
        filename: Annotated[str, Field(description="Name to report for source text.", max_length=200)] = "<source>",
        select: Annotated[list[str] | None, Field(description="Only these rule codes or prefixes, e.g. ['MLD0'].", max_length=100)] = None,
        ignore: Annotated[list[str] | None, Field(description="Rule codes or prefixes to skip.", max_length=100)] = None,
    ) -> Annotated[CallToolResult, LintReport]:
        with _as_tool_error():
            report = services.lint(allowed, paths, source, filename, select, ignore)
        return _result(report, render.lint_report_text(report))

    @server.tool(
        name="explain_rule",
        title="Explain a lint rule",
        description="Why a lint rule exists, bad and good code, the fix, and the evidence id to pass to quote.",
        annotations=READ_ONLY,
    )
    def explain_rule(
        rule: Annotated[str, Field(description="Rule code such as MLD001, or its name.", min_length=1, max_length=80)],
    ) -> Annotated[CallToolResult, RuleInfo]:
        from ..lint.catalog import explain

        with _as_tool_error():
            info = explain(rule)
        return _result(info, render.rule_text(info))


def _add_resources(server: MCPServer) -> None:
    for name, path in references.documents().items():
        uri = {"skill": "mldebug://skill", "playbook": "mldebug://playbook"}.get(name, f"mldebug://refs/{name}")
        _add_document(server, name, uri, path)

    @server.resource(
        "mldebug://excerpts/{source}",
        name="excerpts",
        title="Verbatim excerpts of one source",
        description="All verified excerpts of a source, by its key (see list_sources), as markdown.",
        mime_type=MARKDOWN,
    )
    def excerpts(source: str) -> str:
        with _as_resource_error():
            store = load_store()
            if source not in store.sources:
                raise ResourceError(f"unknown source {source!r}; list_sources gives the keys")
            path = next((e.path for e in store.excerpts_of(source)), None)
            if path is None:
                raise ResourceError(f"source {source!r} has no verified excerpts; it is cited for claims only")
            from .. import content

            return (content.content_root() / path).read_text(encoding="utf-8")


def _add_document(server: MCPServer, name: str, uri: str, path) -> None:
    @server.resource(uri, name=name, title=f"{name} (markdown)", mime_type=MARKDOWN,
                     description=f"The {name} document of the ml-debug skill.")
    def document() -> str:
        return path.read_text(encoding="utf-8")


def _add_prompts(server: MCPServer) -> None:
    @server.prompt(name="debug-training", title="Debug a training problem",
                   description="A symptom in; the bug-first loop with the right tool calls out.")
    def debug_training(
        symptom: Annotated[str, Field(description="What goes wrong, in your words.", min_length=3, max_length=2000)],
        context: Annotated[str, Field(description="Model, data, what changed recently.", max_length=4000)] = "",
    ) -> str:
        return prompts.debug_training(symptom, context)

    @server.prompt(name="review-training-code", title="Review training code for silent bugs",
                   description="Checklist review of training code for bugs that run without errors.")
    def review_training_code(
        code_or_path: Annotated[str, Field(description="A file path or the code itself.", min_length=1, max_length=100_000)],
        focus: Annotated[str, Field(description="Optional area to focus on.", max_length=500)] = "",
    ) -> str:
        return prompts.review_training_code(code_or_path, focus)

    @server.prompt(name="design-sweep", title="Design an experiment sweep",
                   description="Plan a sweep that can tell a real effect from seed noise.")
    def design_sweep(
        question: Annotated[str, Field(description="The question the sweep must answer.", min_length=3, max_length=2000)],
        factors: Annotated[str, Field(description="Candidate factors to vary.", max_length=2000)] = "",
    ) -> str:
        return prompts.design_sweep(question, factors)


def _add_diagnose_tool(server: MCPServer, allowed: AllowedDirs) -> None:
    from ..diagnostics.checks import CHECK_IDS

    @server.tool(
        name="diagnose",
        title="Run runtime diagnostics on a training setup",
        description=(
            "Runs 15 PyTorch checks on a small training setup and returns a verdict per check (pass, warn, fail, "
            "skipped) with measured vs expected values, what it means, the next cheapest test and the evidence "
            "id. target is FILE.py:FUNCTION (inside the allowed directories) or package.module:FUNCTION; the "
            "function returns a dict with model, batch=(inputs, targets), loss_fn, task ('classification' with "
            "num_classes, 'binary', 'regression', 'lm' with vocab_size, 'custom') and optional optimizer, "
            "val_batch, seq_dim, preprocess, train_step, gradcheck. EXECUTES that code in a separate process "
            "with a timeout and memory limit; cancelling the request kills it. Checks: " + ", ".join(CHECK_IDS) + "."
        ),
        annotations=RUNS_USER_CODE,
    )
    async def diagnose(
        target: Annotated[str, Field(description="FILE.py:FUNCTION or package.module:FUNCTION returning the debug spec.", min_length=3, max_length=500)],
        ctx: Context,
        checks: Annotated[list[str] | None, Field(description="Subset of check ids to run (default all).", max_length=20)] = None,
        steps: Annotated[int, Field(description="Step budget of the overfit check.", ge=10, le=5000)] = 200,
        device: Annotated[str | None, Field(description="cpu, cuda, cuda:N or mps (default: where the model is).", max_length=20)] = None,
        timeout_s: Annotated[float, Field(description="Wall-clock limit in seconds.", gt=0, le=3600)] = 120.0,
        memory_mb: Annotated[int, Field(description="Resident memory limit of the child process.", ge=256, le=1_000_000)] = 8192,
        python: Annotated[str | None, Field(description="Interpreter with torch installed (default: the server's).", max_length=500)] = None,
        seed: Annotated[int, Field(description="Random seed for every check.", ge=0)] = 0,
        plots: Annotated[bool, Field(description="Attach PNG plots (needs matplotlib).")] = False,
    ) -> Annotated[CallToolResult, DiagnosticReport]:
        import sys
        import tempfile
        from pathlib import Path

        from ..diagnostics import Limits, diagnose_target
        from ..render.diagnose import report_text

        async def progress(index: int, total: int, check: str) -> None:
            await ctx.report_progress(index, total, f"{check}" if check != "done" else "done")

        limits = Limits(timeout_s=timeout_s, memory_mb=memory_mb, python=python or sys.executable)
        with _as_tool_error():
            report = await diagnose_target(target, allowed=allowed, limits=limits, device=device, steps=steps,
                                           seed=seed, checks=checks, on_progress=progress)
        images: list[ImageContent] = []
        if plots:
            from ..diagnostics.plots import write_plots

            with tempfile.TemporaryDirectory(prefix="mldebug-plots-") as tmp, _as_tool_error():
                for path in write_plots(report, Path(tmp)):
                    images.append(png_image(path.read_bytes()))
        result = _result(report, report_text(report))
        result.content.extend(images)
        return result
