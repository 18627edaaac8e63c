"""The anti-pattern guard: the moves in a proposed fix that quiet a symptom and leave the bug."""

from __future__ import annotations

from ..errors import UsageError
from ..models.advice import AdviceReport
from ..triage import advice

MAX_CHARS = 200_000


def check_advice(text: str) -> AdviceReport:
    """The anti-patterns in a draft answer or proposed fix (prose, code or both)."""
    if len(text) > MAX_CHARS:
        raise UsageError(f"the text is {len(text)} characters; check at most {MAX_CHARS} (the answer, not whole files)")
    return advice.check_advice(text)
