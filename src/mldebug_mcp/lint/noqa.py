"""`# noqa` and `# noqa: MLD001,MLD070` comments: read by the engine for every finding, and by MLD001 where one
comment at a loss call also silences the activation it reports elsewhere."""

from __future__ import annotations

import re

NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def suppressed(lines: list[str], first: int, last: int, code: str) -> bool:
    """Whether a noqa comment (bare, or naming `code`) sits on the first or last line of a node (multi-line calls)."""
    for number in {first, last}:
        if 0 < number <= len(lines):
            found = NOQA.search(lines[number - 1])
            if found and (found.group("codes") is None
                          or code in {c.strip().upper() for c in found.group("codes").split(",")}):
                return True
    return False
