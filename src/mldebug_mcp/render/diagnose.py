"""Text rendering of a diagnostic report: a verdict line per check, evidence for the rest."""

from __future__ import annotations

import textwrap

from ..models import DiagnosticCheck, DiagnosticReport
from .evidence import evidence_lines

MARKS = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "skipped": "skip"}
WIDTH = 96


def report_text(report: DiagnosticReport, quotes: bool = True, verbose: bool = False) -> str:
    env = report.environment
    lines = [f"diagnose {report.target}  (task {report.setup.get('task')}, {report.setup.get('model')}, "
             f"{report.setup.get('parameters', 0):,} parameters, torch {env.get('torch')} on {env.get('device')})", ""]
    for check in report.checks:
        lines.append(f"  {MARKS.get(check.status, check.status):4}  {check.id:<20} {check.summary}")
    lines.append("")
    for check in report.checks:
        if check.status in ("warn", "fail") or verbose:
            lines += _explained(check, quotes)
    counts = report.counts()
    tally = ", ".join(f"{counts[s]} {s}" for s in ("fail", "warn", "pass", "skipped") if counts.get(s))
    lines.append(f"overall: {report.status.upper()} ({tally}) in {report.seconds:.1f} s")
    for path in report.plots:
        lines.append(f"plot: {path}")
    return "\n".join(lines)


def _explained(check: DiagnosticCheck, quotes: bool) -> list[str]:
    out = [f"{MARKS[check.status]} {check.title} [{check.id}]"]
    out += _wrapped(check.summary, "  ")
    for detail in check.details[:8]:
        out += _wrapped(detail, "  - ")
    if check.error and check.error.get("frames"):
        out.append("  user code:")
        out += [f"    {frame}" for frame in check.error["frames"][-4:]]
    if check.meaning:
        out += _wrapped("why it matters: " + check.meaning, "  ")
    if check.next_test:
        out += _wrapped("next: " + check.next_test, "  ")
    if quotes and check.quotes:
        out += evidence_lines(check.quotes[0])
    out.append("")
    return out


def _wrapped(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=" " * len(indent)) or [indent]
