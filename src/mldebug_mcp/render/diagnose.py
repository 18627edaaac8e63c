"""A diagnostic report as text: a verdict line per check, then the failing and warning ones explained."""

from __future__ import annotations

from collections.abc import Mapping

from ..models.diagnose import DiagnosticCheck, DiagnosticReport
from ..models.evidence import Quote
from .text import evidence_lines, wrapped

MARKS = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "skipped": "skip", "error": "ERR"}
TALLY = ("fail", "error", "warn", "pass", "skipped")
EXPLAINED = ("warn", "fail", "error")  # an error is the check's own failure, explained with its frames


def evidence_keys(report: DiagnosticReport) -> list[str]:
    """The evidence report_text prints: each check's first quote (what a caller resolves with quotes_for)."""
    return [check.quotes[0] for check in report.checks if check.quotes]


def report_text(report: DiagnosticReport, quotes: Mapping[str, Quote] | None = None, verbose: bool = False) -> str:
    """`quotes` (resolved by the caller) prints the evidence under each explained check; without it, the
    evidence ids alone."""
    env = report.environment
    lines = [f"diagnose {report.target}  (task {report.setup.get('task')}, {report.setup.get('model')}, "
             f"{report.setup.get('parameters', 0):,} parameters, torch {env.get('torch')} on {env.get('device')})"]
    if env.get("interpreter"):
        lines.append(f"python: {env['interpreter']}")
    lines += distributed_lines(report)
    lines.append("")
    width = max([20] + [len(check.id) for check in report.checks])  # the distributed ids run to 22
    for check in report.checks:
        lines.append(f"  {MARKS.get(check.status, check.status):4}  {check.id:<{width}} {check.seconds:6.2f} s  "
                     f"{check.summary}")
    lines.append("")
    for check in report.checks:
        if check.status in EXPLAINED or verbose:
            lines += _explained(check, quotes)
    counts = report.counts()
    tally = ", ".join(f"{counts[s]} {s}" for s in TALLY if counts.get(s))
    lines.append(f"overall: {report.status.upper()} ({tally}) in {report.seconds:.1f} s")
    for path in report.plots:
        lines.append(f"plot: {path}")
    return "\n".join(lines)


def distributed_lines(report: DiagnosticReport) -> list[str]:
    """For a run of N ranks: the backend, the world size, and each rank's time (its training step, and all
    it measured), with its loss; nothing for a single-process run."""
    env = report.environment
    if not env.get("world_size"):
        return []
    lines = [f"distributed: backend {env.get('backend')}, world size {env['world_size']}"]
    steps, totals = env.get("rank_step_seconds") or [], env.get("rank_seconds") or []
    losses = report.setup.get("loss_per_rank") or []
    for rank, total in enumerate(totals):
        step = f"step {steps[rank]:.3f} s, " if rank < len(steps) else ""
        loss = losses[rank] if rank < len(losses) else None
        lines.append(f"  rank {rank}: {step}measured in {total:.3f} s"
                     + (f", loss {loss:.4g}" if isinstance(loss, (int, float)) else ""))
    return lines


def report_summary(report: DiagnosticReport) -> str:
    """A few lines for a training log: the checks that warned or failed, then the overall verdict."""
    counts = report.counts()
    tally = ", ".join(f"{counts[s]} {s}" for s in TALLY if counts.get(s))
    lines = [f"mldebug-mcp checks on the first batch: {report.status.upper()} ({tally})"]
    lines += [f"  {MARKS[c.status]:4}  {c.id:<20} {c.summary}" for c in report.checks if c.status in EXPLAINED]
    return "\n".join(lines)


def _explained(check: DiagnosticCheck, quotes: Mapping[str, Quote] | None) -> list[str]:
    out = [f"{MARKS.get(check.status, check.status)} {check.title} [{check.id}]"]
    out += wrapped(check.summary, "  ")
    for detail in check.details[:8]:
        out += wrapped(detail, "  - ")
    if check.error and check.error.get("frames"):
        out.append("  user code:")
        out += [f"    {frame}" for frame in check.error["frames"][-4:]]
    if check.error and check.error.get("check_frames"):
        out.append("  check code:")
        out += [f"    {frame}" for frame in check.error["check_frames"][-4:]]
    if check.meaning:
        out += wrapped("why it matters: " + check.meaning, "  ")
    if check.next_test:
        out += wrapped("next: " + check.next_test, "  ")
    if check.quotes:
        first = check.quotes[0]
        out += evidence_lines(first, (quotes or {}).get(first))
    out.append("")
    return out
