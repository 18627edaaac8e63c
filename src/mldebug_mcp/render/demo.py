"""The demo's text: the lint findings with their evidence, then the diagnostic report."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath

from ..models.diagnose import DiagnosticReport
from ..models.evidence import Quote
from ..models.lint import LintReport
from .diagnose import evidence_keys as check_evidence
from .diagnose import report_text
from .text import evidence_lines


def evidence_keys(lint_report: LintReport, report: DiagnosticReport) -> list[str]:
    """The evidence demo_text prints: each lint finding's, then each check's first quote."""
    return [f.evidence for f in lint_report.findings] + check_evidence(report)


def demo_text(path: PurePath, lint_report: LintReport, report: DiagnosticReport, quotes: Mapping[str, Quote]) -> str:
    lines = [f"mldebug-mcp demo: {path}", "", "1. Static checks (mldebug-mcp lint)", ""]
    for f in lint_report.findings:
        lines.append(f"  line {f.line}: {f.code} {f.name}: {f.message}")
        lines.append(f"    fix: {f.fix}")
        lines += evidence_lines(f.evidence, quotes.get(f.evidence))
        lines.append("")
    if not lint_report.findings:
        lines.append("  no lint findings")
    lines += ["2. Runtime checks (mldebug-mcp diagnose)", "", report_text(report, quotes), "",
              "Try it on your own code: mldebug-mcp lint train.py; mldebug-mcp diagnose train.py:debug_spec"]
    return "\n".join(lines)
