"""Lint findings and rule documentation: what `lint`, `rules` and `explain_rule` return."""

from __future__ import annotations

from dataclasses import dataclass

from .base import Model


@dataclass(kw_only=True)
class Finding(Model):
    """One lint finding, as printed by `lint` and returned by the MCP tool."""

    code: str
    """Rule code, e.g. MLD001."""
    name: str
    """Rule name in kebab-case."""
    path: str
    line: int
    """1-based line of the finding (within its cell, in a notebook)."""
    col: int
    """1-based column."""
    end_line: int
    end_col: int
    severity: str
    """error, warning or info."""
    message: str
    why: str
    fix: str
    evidence: str
    """Excerpt id or source key behind the rule (see `quote`)."""
    cell: int | None = None
    """In a notebook: the 1-based number of the cell, counting every cell (markdown too); line, col, end_line
    and end_col are then within that cell. None for Python files."""


@dataclass(kw_only=True)
class RuleInfo(Model):
    """A lint rule's documentation, for `rules`, `explain` and the explain_rule tool."""

    code: str
    name: str
    category: str
    severity: str
    message: str
    why: str
    fix: str
    evidence: str
    bad: str
    """Code that triggers the rule."""
    good: str
    """The corrected code, which passes."""


@dataclass(kw_only=True)
class LintReport(Model):
    """What the lint tool returns."""

    findings: list[Finding]
    files: int
    """Number of files checked (1 for source text)."""
    counts: dict[str, int]
    """Findings per rule code."""
    min_severity: str = "info"
    """The least severe finding reported: info (all), warning or error. Rules below it were not run."""
