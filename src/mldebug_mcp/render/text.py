"""Layout shared by the renderers: terminal width, wrapping, and a quote with its attribution."""

from __future__ import annotations

import shutil
import textwrap

from ..models.evidence import Quote

WIDTH = 96  # reports (triage, diagnose, curves) keep a fixed width so their text is the same everywhere


def width() -> int:
    """Quotes and claims follow the terminal, within 60 to 100 columns."""
    return max(60, min(100, shutil.get_terminal_size((88, 20)).columns))


def wrapped(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=" " * len(indent)) or [indent]


def labelled(label: str, text: str, indent: int = 5) -> list[str]:
    """`label: text` wrapped, continuation lines indented two more."""
    return textwrap.wrap(f"{label}{text}", WIDTH, initial_indent=" " * indent, subsequent_indent=" " * (indent + 2))


def evidence_lines(key: str, quote: Quote | None, limit: int = 320) -> list[str]:
    """A short quote with attribution; the attribution alone for a source key; the key alone if unknown."""
    if quote is None:
        return [f"    evidence: [{key}]"]
    lines = []
    if quote.text:
        text = quote.text if len(quote.text) <= limit else quote.text[: limit - 20].rsplit(" ", 1)[0] + " [...]"
        lines = textwrap.wrap(f"\u201c{text}\u201d", width(), initial_indent="    ", subsequent_indent="     ")
    lines.append(f"      \u2014 {quote.author}, \u201c{quote.title}\u201d ({quote.year})  [{key}]")
    return lines
