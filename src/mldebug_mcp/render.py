"""Text rendering of results for a terminal (the CLI's only presentation code)."""

from __future__ import annotations

import shutil
import textwrap

from .models import ClaimMatch, Problem, Quote, Source


def _width() -> int:
    return max(60, min(100, shutil.get_terminal_size((88, 20)).columns))


def quote_text(quote: Quote) -> str:
    width = _width()
    body = textwrap.fill(f"\u201c{quote.text}\u201d", width=width, initial_indent="  ", subsequent_indent="   ")
    attribution = textwrap.fill(
        f"\u2014 {quote.author}, \u201c{quote.title}\u201d ({quote.year}), {quote.locator}",
        width=width, initial_indent="    ", subsequent_indent="      ",
    )
    return f"{body}\n{attribution}\n      {quote.url}  [{quote.id}]"


def quotes_text(quotes: list[Quote]) -> str:
    return "\n\n".join(quote_text(q) for q in quotes)


def claims_text(matches: list[ClaimMatch]) -> str:
    blocks = []
    for match in matches:
        credence = f" (credence {match.credence:.2f}: {match.credence_reason})" if match.credence is not None else ""
        head = textwrap.fill(f"CLAIM [{match.title}] {match.text}{credence}", width=_width())
        quotes = quotes_text(match.quotes) if match.quotes else "  (no verbatim quote; see the evidence map)"
        blocks.append(f"{head}\n\n{quotes}")
    return "\n\n\n".join(blocks)


def sources_text(sources: list[Source], counts: dict[str, int]) -> str:
    key_width = max(len(s.key) for s in sources)
    lines = []
    for source in sources:
        n = counts.get(source.key, 0)
        excerpts = f"{n} excerpt{'s' if n != 1 else ''}" if n else "no verified text"
        lines.append(f"{source.key:<{key_width}}  {source.author}, \u201c{source.title}\u201d ({source.year})  [{excerpts}]")
    return "\n".join(lines)


def problems_text(problems: list[Problem]) -> str:
    return "\n".join(str(p) for p in problems)
