"""Parse evidence/excerpts/<source>.md files (format: evidence/FORMAT.md)."""

from __future__ import annotations

import re

from ..errors import ContentError
from ..models.evidence import Excerpt

ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*$")
CUT = "[...]"


def parse_excerpt_file(text: str, source: str, path: str) -> list[Excerpt]:
    """Every excerpt of one source file; ContentError with a line number on malformed input."""
    excerpts: list[Excerpt] = []
    current: dict | None = None

    def finish() -> None:
        if current is None:
            return
        for field in ("locator", "checked"):
            if not current.get(field):
                raise ContentError(f"excerpt {current['id']} has no '{field}:' line", path, current["line"])
        if not current["quote"]:
            raise ContentError(f"excerpt {current['id']} has no '> ' quote", path, current["line"])
        excerpts.append(
            Excerpt(
                id=current["id"], source=source, locator=current["locator"], checked=current["checked"],
                text=" ".join(current["quote"]), path=path, line=current["line"],
            )
        )

    seen: set[str] = set()
    quote_closed = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if line.startswith("## "):
            finish()
            excerpt_id = line[3:].strip()
            if not ID_PATTERN.match(excerpt_id) or not excerpt_id.startswith(f"{source}/"):
                raise ContentError(
                    f"excerpt id {excerpt_id!r} must look like '{source}/some-slug' (lowercase, hyphens)",
                    path, number,
                )
            if excerpt_id in seen:
                raise ContentError(f"duplicate excerpt id {excerpt_id}", path, number)
            seen.add(excerpt_id)
            current = {"id": excerpt_id, "line": number, "quote": [], "locator": "", "checked": ""}
            quote_closed = False
        elif current is None or line.startswith("# ") or not line:
            if current is not None and current["quote"]:
                quote_closed = True
        elif line.startswith(">"):
            body = line[1:].strip()
            if not body:
                raise ContentError(
                    f"excerpt {current['id']}: blank '>' line; an excerpt is one paragraph (join with [...])",
                    path, number,
                )
            if quote_closed:
                raise ContentError(f"excerpt {current['id']}: a second quote paragraph", path, number)
            current["quote"].append(body)
        elif m := re.match(r"^(locator|checked):\s*(.+)$", line):
            current[m.group(1)] = m.group(2).strip()
        else:
            raise ContentError(
                f"excerpt {current['id']}: unexpected line {line[:40]!r}; expected 'locator:', 'checked:' or '> '",
                path, number,
            )
    finish()
    return excerpts


def quote_fragments(text: str) -> list[str]:
    """The verbatim pieces of a quote between its [...] cuts, whitespace-normalised."""
    return [" ".join(part.split()) for part in text.split(CUT) if part.strip()]


def is_shortening_of(shorter: str, excerpt_text: str) -> bool:
    """True when `shorter` is `excerpt_text` with parts cut out (cuts marked [...])."""
    haystack = " ".join(excerpt_text.split())
    position = 0
    for fragment in quote_fragments(shorter):
        found = haystack.find(fragment.strip(" .,;:"), position)
        if found < 0:
            return False
        position = found + len(fragment.strip(" .,;:"))
    return True
