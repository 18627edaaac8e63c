"""The anti-pattern guard's answer: what a proposed fix does that quiets a symptom and keeps the bug."""

from __future__ import annotations

from dataclasses import dataclass

from .base import Model


@dataclass(kw_only=True)
class AdviceFinding(Model):
    """One anti-pattern found in a proposed fix, with why it misleads and what to do instead."""

    id: str
    """Anti-pattern id, e.g. 'tune-before-correct'."""
    title: str
    """The move, named in one line."""
    why: str
    """Why the move quiets the symptom and leaves the bug in place."""
    instead: str
    """What to do instead."""
    evidence: list[str]
    """Excerpt ids behind the judgement (render them with the quote tool)."""
    matched: str
    """The text that triggered it, whitespace collapsed, at most 120 characters."""
    line: int
    """1-based line of the first occurrence in the checked text."""
    further_occurrences: int = 0
    """How many more sentences or code lines contain the same anti-pattern."""


@dataclass(kw_only=True)
class AdviceReport(Model):
    """What `check_advice` returns: the anti-patterns a draft answer or proposed fix contains."""

    text_chars: int
    """Length of the checked text in characters."""
    findings: list[AdviceFinding]
    """One per anti-pattern found, in order of first occurrence."""
    clean: bool
    """True when no anti-pattern was found."""
