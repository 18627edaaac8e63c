"""Text rendering of results for a terminal (the CLI's only presentation code)."""

from __future__ import annotations

import shutil
import textwrap

from ..models import ClaimMatch, LintReport, Problem, Quote, QuoteResult, ReferenceSection, RuleInfo, Source, SourceList


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


def quote_result_text(result: QuoteResult) -> str:
    if result.claims:
        return claims_text(result.claims)
    if result.quotes:
        return quotes_text(result.quotes)
    return f"nothing matched ({result.query}); try fewer words, or list_sources for the keys"


def source_list_text(result: SourceList) -> str:
    return "\n".join(
        f"{s.key}: {s.author}, \u201c{s.title}\u201d ({s.year}) {s.url} "
        f"[credence {s.credence}; {s.excerpts} excerpts]"
        for s in result.sources
    )


def reference_text(result: ReferenceSection) -> str:
    outline = "\n".join(f"- {title}" for title in result.sections)
    where = f"{result.document} \u203a {result.section}" if result.section else f"{result.document} (introduction)"
    return f"[{where}]\n\n{result.text}\n\nSections of {result.document}:\n{outline}"


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


def rule_text(info: RuleInfo) -> str:
    indent = lambda code: "\n".join("    " + line for line in code.rstrip().splitlines())  # noqa: E731
    return (
        f"{info.code} {info.name} ({info.category}, {info.severity})\n\n"
        f"Why: {info.why}\nFix: {info.fix}\n\nBad:\n{indent(info.bad)}\n\nGood:\n{indent(info.good)}\n\n"
        f"Evidence: [{info.evidence}] (`mldebug-mcp quote {info.evidence}`)"
    )


def lint_report_text(report: LintReport) -> str:
    if not report.findings:
        return f"no findings in {report.files} file(s)"
    lines = [f"{f.path}:{f.line}:{f.col}: {f.code} {f.name}: {f.message}\n    fix: {f.fix} [{f.evidence}]"
             for f in report.findings]
    return "\n".join(lines) + f"\n{len(report.findings)} finding(s) in {report.files} file(s)"


def evidence_lines(key: str, limit: int = 320) -> list[str]:
    """A short quote with attribution for an excerpt id, or the attribution alone for a source key."""
    from ..citations.store import load_store

    store = load_store()
    excerpt = store.excerpts.get(key)
    source = store.sources.get(excerpt.source if excerpt else key)
    if source is None:
        return [f"    evidence: [{key}]"]
    lines = []
    if excerpt is not None:
        text = excerpt.text if len(excerpt.text) <= limit else excerpt.text[: limit - 20].rsplit(" ", 1)[0] + " [...]"
        lines = textwrap.wrap(f"\u201c{text}\u201d", _width(), initial_indent="    ", subsequent_indent="     ")
    lines.append(f"      \u2014 {source.author}, \u201c{source.title}\u201d ({source.year})  [{key}]")
    return lines
