"""Runtime diagnostics: one verdict per check, and the report around them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .base import Model


@dataclass(kw_only=True)
class DiagnosticCheck(Model):
    """The verdict of one runtime check, with the evidence behind it."""

    id: str
    """Stable check id, e.g. 'overfit_one_batch'."""
    title: str
    status: str
    """pass, warn, fail, skipped, or error when the check itself raised (no verdict on the model)."""
    summary: str
    """One-sentence verdict with the measured value."""
    measured: dict[str, Any] = field(default_factory=dict)
    """What was measured."""
    expected: dict[str, Any] = field(default_factory=dict)
    """What a healthy setup gives."""
    meaning: str = ""
    """What the result says about the training setup."""
    next_test: str = ""
    """The next cheapest test to run."""
    quotes: list[str] = field(default_factory=list)
    """Excerpt ids behind the check (see the quote tool)."""
    details: list[str] = field(default_factory=list)
    series: dict[str, Any] = field(default_factory=dict)
    """Curves and per-layer values (for plots)."""
    error: dict[str, Any] | None = None
    """The exception a check raised: type, message, frames (user code) and check_frames (the check's own)."""
    seconds: float = 0.0


@dataclass(kw_only=True)
class DiagnosticReport(Model):
    """What `diagnose` returns: one verdict per check and an overall status."""

    target: str
    """The debug spec that was diagnosed, or '<in-process>'."""
    status: str
    """fail if any check failed, else error if any check raised, else warn if any warned, else pass."""
    checks: list[DiagnosticCheck]
    environment: dict[str, Any] = field(default_factory=dict)
    """torch and python versions, device, seed."""
    setup: dict[str, Any] = field(default_factory=dict)
    """Task, model class, parameter count."""
    seconds: float = 0.0
    plots: list[str] = field(default_factory=list)
    """PNG files written with --plot."""

    def counts(self) -> dict[str, int]:
        tally: dict[str, int] = {}
        for check in self.checks:
            tally[check.status] = tally.get(check.status, 0) + 1
        return tally
