"""Quotes, claims and sources as text."""

from __future__ import annotations

import textwrap

from ..models.evidence import ClaimMatch, Quote, QuoteResult, SourceList
from .text import width


def quote_text(quote: Quote) -> str:
    columns = width()
    body = textwrap.fill(f"\u201c{quote.text}\u201d", width=columns, initial_indent="  ", subsequent_indent="   ")
    attribution = textwrap.fill(
        f"\u2014 {quote.author}, \u201c{quote.title}\u201d ({quote.year}), {quote.locator}",
        width=columns, initial_indent="    ", subsequent_indent="      ",
    )
    return f"{body}\n{attribution}\n      {quote.url}  [{quote.id}]"


def quotes_text(quotes: list[Quote]) -> str:
    return "\n\n".join(quote_text(q) for q in quotes)


def claims_text(matches: list[ClaimMatch]) -> str:
    blocks = []
    for match in matches:
        credence = f" (credence {match.credence:.2f}: {match.credence_reason})" if match.credence is not None else ""
        head = textwrap.fill(f"CLAIM [{match.title}] {match.text}{credence}", width=width())
        quotes = quotes_text(match.quotes) if match.quotes else "  (no verbatim quote; see the evidence map)"
        blocks.append(f"{head}\n\n{quotes}")
    return "\n\n\n".join(blocks)


def quote_result_text(result: QuoteResult) -> str:
    if result.claims:
        return claims_text(result.claims)
    if result.quotes:
        return quotes_text(result.quotes)
    return f"nothing matched ({result.query}); try fewer words, or list_sources for the keys"


def source_list_text(result: SourceList) -> str:
    """One line a source: key, attribution, how much verified text it has, credence; the URL below."""
    if not result.sources:
        return "no source matches"
    key_width = max(len(s.key) for s in result.sources)
    lines = []
    for s in result.sources:
        excerpts = f"{s.excerpts} excerpt{'s' if s.excerpts != 1 else ''}" if s.excerpts else "no verified text"
        lines.append(f"{s.key:<{key_width}}  {s.author}, \u201c{s.title}\u201d ({s.year})  "
                     f"[{excerpts}; credence {s.credence}]")
        lines.append(f"{'':<{key_width}}  {s.url}")
    return "\n".join(lines)
