"""What every check shares: its identity, and how it builds a result."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .result import ERROR, FAIL, PASS, SKIPPED, WARN, CheckResult, worst


@dataclass(frozen=True)
class Check:
    """A check's identity: stable id, human title, and the excerpts that motivate it."""

    id: str
    title: str
    quotes: tuple[str, ...]

    def result(self, status: str, summary: str, **fields: Any) -> CheckResult:
        return CheckResult(id=self.id, title=self.title, status=status, summary=summary,
                           quotes=list(self.quotes), **fields)

    def verdict(self, problems: list[tuple[str, str]], healthy: str, **fields: Any) -> CheckResult:
        """A result from (status, sentence) problems: the worst status leads; none found is a pass."""
        status = worst([st for st, _ in problems])
        summary = next((text for st, text in problems if st == status), healthy)
        return self.result(status, summary, details=[f"{st}: {text}" for st, text in problems], **fields)

    def skip(self, reason: str) -> CheckResult:
        return self.result(SKIPPED, reason)


def listed(names: list[str], limit: int = 8) -> str:
    """Up to `limit` names, then "and N more"."""
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def band(value: float, pass_at: float, fail_at: float) -> str:
    """pass when value <= pass_at, fail when value > fail_at, warn between; NaN fails."""
    if not math.isfinite(value):
        return FAIL
    if value <= pass_at:
        return PASS
    return WARN if value <= fail_at else FAIL


def rounded(value: float, digits: int = 4) -> float:
    """Floats rounded to significant digits for readable JSON; non-finite values kept."""
    if not math.isfinite(value) or value == 0:
        return value
    return round(value, max(0, digits - 1 - int(math.floor(math.log10(abs(value))))))


__all__ = ["ERROR", "FAIL", "PASS", "SKIPPED", "WARN", "Check", "band", "listed", "rounded"]
