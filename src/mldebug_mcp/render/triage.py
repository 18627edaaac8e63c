"""Terminal text for triage results and tree steps."""

from __future__ import annotations

import textwrap

from ..models import Hypothesis, TriageResult, TriageStep
from .evidence import evidence_lines

WIDTH = 96


def _wrap(label: str, text: str, indent: int = 5) -> list[str]:
    return textwrap.wrap(f"{label}{text}", WIDTH, initial_indent=" " * indent, subsequent_indent=" " * (indent + 2))


def hypothesis_text(number: int, h: Hypothesis, quotes: bool = True) -> str:
    lines = [f"{number}. [{h.role}] {h.title}  ({h.category}; weight {h.weight:.2f}, prior {h.prior:.3f}; {h.cause})"]
    lines += _wrap("why: ", h.why)
    lines += _wrap("test: ", h.test + (f"  -> {h.tool_call}" if h.tool_call else ""))
    lines += _wrap("if it is this: ", h.if_cause)
    lines += _wrap("if not: ", h.if_not)
    lines += _wrap("fix once confirmed: ", h.fix)
    if h.avoid:
        lines += _wrap("do not: ", ", ".join(h.avoid) + "  (mldebug-mcp advice explains each)")
    if quotes:
        for quote in h.evidence[:1]:
            lines += evidence_lines(quote.id, limit=240)
    else:
        lines += _wrap("evidence: ", ", ".join(q.id for q in h.evidence))
    return "\n".join(lines)


def triage_text(result: TriageResult, quotes: bool = True) -> str:
    header = []
    if result.observations:
        read = set(result.read_from_text)
        shown = [f"{k} (read from the text)" if k in read else k for k in result.observations]
        header += _wrap("observations: ", ", ".join(shown), indent=0)
    if result.domains:
        header.append(f"domain: {', '.join(result.domains)}")
    if result.lint_codes:
        header.append(f"lint on the code in the description: {', '.join(result.lint_codes)}")
    blocks = [hypothesis_text(i, h, quotes) for i, h in enumerate(result.hypotheses, 1)]
    footer = _wrap("Run next: ", result.next_test, indent=0)
    footer.append("Weights order the hypotheses; they are not calibrated probabilities. Test before you fix.")
    return "\n".join(header) + ("\n\n" if header else "") + "\n\n".join(blocks) + "\n\n" + "\n".join(footer)


def step_text(step: TriageStep, quotes: bool = True) -> str:
    if not step.done:
        lines = [step.question or ""]
        lines += _wrap("how: ", step.how_to_answer or "", indent=2)
        if step.tool_call:
            lines.append(f"  tool: {step.tool_call}")
        lines += [f"  {a.label:<8} {a.meaning}" for a in step.answers]
        return "\n".join(lines)
    lines = [f"== {step.leaf_title} ==", *textwrap.wrap(step.leaf_advice or "", WIDTH)]
    if step.triage is not None:
        lines += ["", triage_text(step.triage, quotes)]
    return "\n".join(lines)


def advice_text(report, quotes: bool = True) -> str:
    """Each anti-pattern found: what matched, why it is wrong, what to do, and the quote behind it."""
    if report.clean:
        return "No anti-pattern found. Still: test before you fix, and confirm any gain across seeds."
    blocks = []
    for f in report.findings:
        more = f"  (+{f.further_occurrences} more)" if f.further_occurrences else ""
        lines = [f"line {f.line}: {f.title} [{f.id}]{more}", f"     matched: \u201c{f.matched}\u201d"]
        lines += _wrap("why: ", f.why)
        lines += _wrap("instead: ", f.instead)
        if quotes:
            for key in f.evidence[:1]:
                lines += evidence_lines(key, limit=240)
        else:
            lines += _wrap("evidence: ", ", ".join(f.evidence))
        blocks.append("\n".join(lines))
    count = len(report.findings)
    return "\n\n".join(blocks) + f"\n\n{count} anti-pattern{'s' if count != 1 else ''} found"
