"""MCP tools that reason about a failure: triage, triage_step, check_advice, analyze_curve.
A few lines each over the services; registered by server.build_server."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..models import AdviceReport, CurveReport, TriageResult, TriageStep
from ..models.observations import OBSERVATIONS
from ..services.paths import AllowedDirs
from .common import READ_ONLY, as_tool_error, png_image, tool_result

OBSERVATION_HELP = "Observation keys: " + ", ".join(OBSERVATIONS) + "."


def add_triage_tools(server: MCPServer, allowed: AllowedDirs) -> None:
    @server.tool(
        name="triage",
        title="Rank hypotheses for a training failure",
        description=(
            "A training problem in the user's own words (code and log lines may be included) and/or observation "
            "keys in; ranked root-cause hypotheses out, each with prior and updated weight, why it fits, the "
            "cheapest test that separates it from the others (with the tool call), what that test shows if it is "
            "or is not the cause, the fix, anti-patterns to avoid, and practitioner quotes. Always includes a "
            "subtle hypothesis (leakage, sample size, seed variance) and the null (noise, or another change). "
            "Code in the description is linted (never run). Offline, deterministic, and it matches words, not "
            "meaning: on real forum reports the cause is in its top three about a third of the time and in its top "
            "ten about half, so ask for limit=10, reorder the candidates by what the description really says, and "
            "let the tests decide. " + OBSERVATION_HELP
        ),
        annotations=READ_ONLY,
    )
    def triage(
        symptom: Annotated[str, Field(description="What goes wrong, in the user's words: the symptom, numbers, what "
                                                  "changed, what was tried; relevant code may be pasted.", max_length=50_000)] = "",
        observations: Annotated[list[str] | None, Field(description="Observation keys already established, e.g. "
                                                                    "['nan'] or ['cannot_overfit'] (see analyze_curve, diagnose).", max_length=30)] = None,
        limit: Annotated[int, Field(description="Hypotheses before the subtle and null ones are added.", ge=1, le=20)] = 5,
    ) -> Annotated[CallToolResult, TriageResult]:
        from ..render.triage import triage_text
        from ..services.triage import triage as run

        with as_tool_error():
            result = run(symptom, observations, limit)
        return tool_result(result, triage_text(result, quotes=True))

    @server.tool(
        name="triage_step",
        title="Walk the triage decision tree",
        description=(
            "Stateless walk of the triage decision tree: pass every answer so far as {node: answer}; get the next "
            "question with the cheapest way to answer it (often a tool call) and the accepted answers, or, at a "
            "leaf, what it means and the ranked hypotheses. Start with answers={}. Optionally add the symptom "
            "text to sharpen the ranking at the leaf."
        ),
        annotations=READ_ONLY,
    )
    def triage_step(
        answers: Annotated[dict[str, str] | None, Field(description="Answers so far, e.g. {'crash': 'no', 'nan': 'yes'}.",
                                                        max_length=50)] = None,
        symptom: Annotated[str, Field(description="Optional description to rank the leaf's hypotheses with.", max_length=50_000)] = "",
    ) -> Annotated[CallToolResult, TriageStep]:
        from ..render.triage import step_text
        from ..services.triage import triage_step as run

        with as_tool_error():
            step = run(answers or {}, symptom)
        return tool_result(step, step_text(step))

    @server.tool(
        name="check_advice",
        title="Check a proposed fix for anti-patterns",
        description=(
            "A proposed fix or a draft answer (prose, code or both) in; the debugging anti-patterns it contains "
            "out: tuning hyperparameters before correctness is shown, try/except around training, swapping the "
            "optimiser, .detach()/.item() to silence autograd, a scheduler as the cure for non-convergence, a "
            "bigger model before one batch overfits, normalising without checking, casting dtypes to silence "
            "errors, clipping without logging the norm, declaring victory on one seed, several changes at once. "
            "Each with the reason, what to do instead and the practitioner quote. Call it before answering."
        ),
        annotations=READ_ONLY,
    )
    def check_advice(
        text: Annotated[str, Field(description="The fix or answer to check.", min_length=1, max_length=200_000)],
    ) -> Annotated[CallToolResult, AdviceReport]:
        from ..triage.advice import check_advice as run
        from ..render.triage import advice_text

        with as_tool_error():
            report = run(text)
        return tool_result(report, advice_text(report, quotes=True))

    @server.tool(
        name="analyze_curve",
        title="Classify a loss curve",
        description=(
            "Reads a loss log (CSV/TSV, JSON lines, JSON such as HF trainer_state.json, or TensorBoard event files; "
            "a file or a folder inside the allowed directories) and reports, as observation keys for triage: NaN "
            "onset, divergence, a plateau at ln k (give num_classes) or another level, loss exactly zero, spikes "
            "classified as fast-, slow- or non-recovering, oscillation, a train/validation gap, validation better "
            "than training, or slow but healthy; each with the step and the numbers. plot=true attaches a PNG with "
            "a log-scaled loss axis (needs matplotlib). Reads the file; changes nothing."
        ),
        annotations=READ_ONLY,
    )
    def analyze_curve(
        path: Annotated[str, Field(description="Log file or folder of event files, inside the allowed directories.",
                                   min_length=1, max_length=1000)],
        loss: Annotated[str | None, Field(description="Series to analyse as the training loss (default: guessed).", max_length=200)] = None,
        val: Annotated[str | None, Field(description="Series to use as the validation loss (default: guessed).", max_length=200)] = None,
        num_classes: Annotated[int | None, Field(description="Number of classes, to recognise a plateau at ln k.", ge=2, le=10_000_000)] = None,
        plot: Annotated[bool, Field(description="Attach a PNG of the curve (needs matplotlib).")] = False,
    ) -> Annotated[CallToolResult, CurveReport]:
        import tempfile
        from pathlib import Path

        from ..render.curves import curve_text
        from ..services.curves import curve_report, triage_hint

        with as_tool_error(), tempfile.TemporaryDirectory(prefix="mldebug-curve-") as tmp:
            target = allowed.check(path)
            png = Path(tmp) / "curve.png" if plot else None
            report = curve_report(target, loss, val, num_classes, png)
            image = png.read_bytes() if png is not None else None
            report.plot = "attached" if image is not None else None
        result = tool_result(report, curve_text(report) + "\n\n" + triage_hint(report))
        if image is not None:
            result.content.append(png_image(image))
        return result
