"""The anti-patterns found in a proposed fix, as text."""

from __future__ import annotations

from collections.abc import Mapping

from ..models.advice import AdviceReport
from ..models.evidence import Quote
from .text import evidence_lines, labelled


def evidence_keys(report: AdviceReport) -> list[str]:
    """The evidence advice_text prints with quotes: each anti-pattern's first."""
    return [f.evidence[0] for f in report.findings if f.evidence]


def advice_text(report: AdviceReport, quotes: Mapping[str, Quote] | None = None) -> str:
    """Each anti-pattern: what matched, why it is wrong, what to do, and (with `quotes`, resolved by the
    caller) the quote behind it; without quotes, the evidence ids."""
    if report.clean:
        return "No anti-pattern found. Still: test before you fix, and confirm any gain across seeds."
    blocks = []
    for f in report.findings:
        more = f"  (+{f.further_occurrences} more)" if f.further_occurrences else ""
        lines = [f"line {f.line}: {f.title} [{f.id}]{more}", f"     matched: \u201c{f.matched}\u201d"]
        lines += labelled("why: ", f.why)
        lines += labelled("instead: ", f.instead)
        if quotes is not None:
            for key in f.evidence[:1]:
                lines += evidence_lines(key, quotes.get(key), limit=240)
        else:
            lines += labelled("evidence: ", ", ".join(f.evidence))
        blocks.append("\n".join(lines))
    count = len(report.findings)
    return "\n\n".join(blocks) + f"\n\n{count} anti-pattern{'s' if count != 1 else ''} found"
