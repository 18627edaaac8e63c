"""Short forms of the catalogue's prose for the compact triage result: a test or a fix in one line."""

from __future__ import annotations

import re

# A sentence ends at . ! or ? followed by a capital, a quote or a bracket ("e.g. the" does not end one).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`'\"\u201c])")
TEST_CHARS = 130  # the test's first sentence names what to run and what to read; its long tail is cut
FIX_CHARS = 110   # the fix in one line: what to change, not how
SYMPTOM_CHARS = 200


def one_line(text: str, limit: int) -> str:
    """The first sentence of `text`, cut at a word before `limit` characters (marked with an ellipsis)."""
    first = _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]
    return first if len(first) <= limit else first[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "\u2026"
