"""Triage results and decision-tree steps as text."""

from __future__ import annotations

import textwrap

from ..models.triage import FULL_ONLY, Hypothesis, PlannedTest, TriageResult, TriageStep
from .text import WIDTH, evidence_lines, labelled

COMPACT_NOTE = ("Compact: why, test, fix and evidence ids of each are in the structured content; detail='full' adds "
                "predictions, anti-patterns and quotes.")
COMPACT_TEST_CHARS = 90


def triage_json_data(result: TriageResult) -> dict:
    """What `result.to_json_data()` gives (the JSON the CLI prints), without pydantic's TypeAdapter: building
    one costs more than the triage call. Plain dataclass fields; the compact form leaves out FULL_ONLY."""
    from dataclasses import asdict

    data = asdict(result)
    if result.detail == "compact":
        for hypothesis in data["hypotheses"]:
            for name in FULL_ONLY:
                hypothesis.pop(name, None)
    return data


def hypothesis_text(number: int, h: Hypothesis, quotes: bool = True) -> str:
    lines = [f"{number}. [{h.role}] {h.title}  ({h.category}; weight {h.weight:.2f}, prior {h.prior:.3f}; {h.cause})"]
    lines += labelled("why: ", h.why)
    lines += labelled("test: ", h.test + (f"  -> {h.tool_call}" if h.tool_call else ""))
    if h.if_cause:
        lines += labelled("if it is this: ", h.if_cause)
    if h.if_not:
        lines += labelled("if not: ", h.if_not)
    lines += labelled("fix once confirmed: ", h.fix)
    if h.avoid:
        lines += labelled("do not: ", ", ".join(h.avoid) + "  (mldebug-mcp advice explains each)")
    if quotes and h.evidence:
        for quote in h.evidence[:1]:
            lines += evidence_lines(quote.id, quote, limit=240)
    elif h.evidence_ids:
        lines += labelled("evidence: ", ", ".join(h.evidence_ids))
    return "\n".join(lines)


def compact_hypothesis_text(number: int, h: Hypothesis) -> str:
    """The title and how to test it, in two or three lines; the structured content adds the why, the test
    in words, the fix and the evidence ids."""
    lines = labelled(f"{number}. [{h.role}] {h.cause}, weight {h.weight:.2f}: ", h.title, indent=0)
    test = h.test if len(h.test) <= COMPACT_TEST_CHARS else h.test[: COMPACT_TEST_CHARS - 1].rsplit(" ", 1)[0] + "\u2026"
    lines += labelled("test: ", h.tool_call or test, indent=3)
    return "\n".join(lines)


def triage_text(result: TriageResult, quotes: bool = True) -> str:
    header = []
    if result.observations:
        read = set(result.read_from_text)
        shown = [f"{k} (read from the text)" if k in read else k for k in result.observations]
        header += labelled("observations: ", ", ".join(shown), indent=0)
    if result.domains:
        header.append(f"domain: {', '.join(result.domains)}")
    if result.lint_codes:
        header.append(f"lint on the code in the description: {', '.join(result.lint_codes)}")
    compact = result.detail == "compact"
    blocks = [compact_hypothesis_text(i, h) if compact else hypothesis_text(i, h, quotes)
              for i, h in enumerate(result.hypotheses, 1)]
    footer = labelled("Run next: ", result.next_test, indent=0)
    if result.test_plan:
        footer += ["", "Test plan (splits the list best first; value = expected share of the weight ruled out):"]
        footer += [line for i, t in enumerate(result.test_plan, 1) for line in planned_test_text(i, t)]
    footer.append("Weights order the hypotheses; they are not calibrated probabilities. Test before you fix.")
    if compact:
        footer.append(COMPACT_NOTE)
    if result.thin:
        header += labelled("Too thin to rank: ", result.thin + ". Answer these first (triage_step(answers={node: "
                           "answer}, symptom=...) takes the answers):", indent=0)
        header += [line for i, q in enumerate(result.questions, 1) for line in planned_test_text(i, q)]
    text = "\n".join(header) + ("\n\n" if header else "") + ("\n" if compact else "\n\n").join(blocks) \
        + "\n\n" + "\n".join(footer)
    return text + "\n\n" + result.catalogue if result.catalogue else text


def planned_test_text(number: int, test: PlannedTest) -> list[str]:
    name = f"[{test.ref}] " if test.kind == "question" else ""
    lines = labelled(f"{number}. ", f"{name}{test.what} (value {test.value:.2f}; {test.cost})", indent=3)
    if test.kind == "question":
        lines += labelled("how: ", test.how, indent=3)
        lines.append(f"   answers: {', '.join(test.answers)}")
    if test.tool_call:
        lines.append(f"   run: {test.tool_call}")
    if test.confirms:
        lines.append(f"   points to: {', '.join(test.confirms)}")
    return lines


def step_text(step: TriageStep, quotes: bool = True) -> str:
    if not step.done:
        lines = [step.question or ""]
        lines += labelled("how: ", step.how_to_answer or "", indent=2)
        if step.tool_call:
            lines.append(f"  tool: {step.tool_call}")
        lines += [f"  {a.label:<8} {a.meaning}" for a in step.answers]
        if step.triage is not None:
            lines += ["", "Meanwhile, the description reranked with the answers so far:", triage_text(step.triage, quotes)]
        return "\n".join(lines)
    lines = [f"== {step.leaf_title} ==", *textwrap.wrap(step.leaf_advice or "", WIDTH)]
    if step.triage is not None:
        lines += ["", triage_text(step.triage, quotes)]
    return "\n".join(lines)
