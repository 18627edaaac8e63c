"""MCP tools of triage: triage (ranked hypotheses) and triage_step (the decision tree)."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..models.observations import OBSERVATIONS
from ..models.triage import TriageResult, TriageStep
from .common import READ_ONLY, as_tool_error, output_model, tool_result

OBSERVATION_HELP = "Observation keys: " + ", ".join(OBSERVATIONS) + "."
TriageOutput = output_model(TriageResult)
StepOutput = output_model(TriageStep)


def triage(
    symptom: Annotated[str, Field(description="What goes wrong, in the user's words: the symptom, numbers, what "
                                              "changed, what was tried; relevant code may be pasted.", max_length=50_000)] = "",
    observations: Annotated[list[str] | None, Field(description="Observation keys already established, e.g. "
                                                                "['nan'] or ['cannot_overfit'] (see analyze_curve, diagnose).", max_length=30)] = None,
    limit: Annotated[int, Field(description="Hypotheses before the subtle and null ones are added.", ge=1, le=20)] = 5,
    detail: Annotated[Literal["compact", "full"], Field(
        description="compact (default): per hypothesis the why, the test with its tool call, a one-line fix and "
                    "evidence ids, plus the test plan (about 15 KB for limit=10); full: also what the test shows either way, "
                    "anti-patterns and the quotes (about 50 KB).")] = "compact",
    candidates: Annotated[list[str] | None, Field(
        description="Cause ids you suspect (from mldebug://causes): they join the list with their own weights, "
                    "marked source='agent', and the test plan covers them.", max_length=20)] = None,
    include_catalogue: Annotated[bool, Field(
        description="Also return every cause the tool knows, one line each (id | title | how it shows; about "
                    "5,000 tokens), to rank the description against all of them, not only the shortlist.")] = False,
) -> Annotated[CallToolResult, TriageOutput]:
    from ..render.triage import triage_text
    from ..services import triage as service

    with as_tool_error():
        result = service.triage(symptom, observations, limit, detail=detail, include_catalogue=include_catalogue,
                                candidates=candidates)
    return tool_result(result, triage_text(result, quotes=True))


def triage_step(
    answers: Annotated[dict[str, str] | None, Field(description="Answers so far, e.g. {'crash': 'no', 'nan': 'yes'}.",
                                                    max_length=50)] = None,
    symptom: Annotated[str, Field(description="Optional description to rank the leaf's hypotheses with.", max_length=50_000)] = "",
) -> Annotated[CallToolResult, StepOutput]:
    from ..render.triage import step_text
    from ..services import triage as service

    with as_tool_error():
        step = service.triage_step(answers or {}, symptom)
    return tool_result(step, step_text(step))


def _catalogue_index() -> str:
    from ..services import triage as service

    return service.catalogue_index()


def register(server: MCPServer) -> None:
    server.add_tool(
        triage, name="triage", title="Rank hypotheses for a training failure", annotations=READ_ONLY,
        description=(
            "A training problem in the user's own words (code and log lines may be included) and/or observation "
            "keys in; ranked root-cause hypotheses out, each with prior and updated weight, why it fits, the "
            "cheapest test that separates it from the others (with the tool call), the fix and the ids of the "
            "practitioner quotes behind it (quote prints them); detail='full' adds what the test shows if it is "
            "or is not the cause, anti-patterns to avoid, and the quotes themselves. Always includes a "
            "subtle hypothesis (leakage, sample size, seed variance) and the null (noise, or another change). "
            "Code in the description is linted (never run). Offline, deterministic, and it matches words, not "
            "meaning: on real forum reports the cause is in its top three about a third of the time and in its top "
            "ten about three in five, so ask for limit=10 with include_catalogue=true (or read the resource mldebug://causes), "
            "rank the description against every cause yourself, pass the ids you suspect as candidates, and let the "
            "tests decide: test_plan lists the few cheap tests that split the list best. When the report is too "
            "thin to rank ('thin' is set), ask the user or run the tree questions it returns before trusting any "
            "order, then pass the answers to triage_step with the same symptom: it reranks at once. "
            + OBSERVATION_HELP
        ),
    )
    server.resource("mldebug://causes", name="causes", title="Cause catalogue (one line per cause)",
                    mime_type="text/markdown",
                    description="Every root cause triage knows: id | title | how it usually shows, by pipeline stage "
                                "(about 6,000 tokens).")(_catalogue_index)
    server.add_tool(
        triage_step, name="triage_step", title="Walk the triage decision tree", annotations=READ_ONLY,
        description=(
            "Stateless walk of the triage decision tree: pass every answer so far as {node: answer}; get the next "
            "question with the cheapest way to answer it (often a tool call) and the accepted answers, or, at a "
            "leaf, what it means and the ranked hypotheses. Start with answers={}. An answer to any node counts, "
            "also one off the current path (the questions a thin triage report asks): with the symptom text, the "
            "description is reranked with the answers at every step, not only at the leaf."
        ),
    )
