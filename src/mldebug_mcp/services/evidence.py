"""Service functions shared by the CLI and the MCP server: load content, call the pure cores."""

from __future__ import annotations

from ..content import documents as references
from ..citations import lookup
from ..citations.store import load_store
from ..errors import UsageError
from ..models import LintReport, QuoteResult, ReferenceSection, SourceList, SourceSummary
from .paths import AllowedDirs


def quote_lookup(key: str | None = None, claim: str | None = None, search: str | None = None,
                 limit: int = 10) -> QuoteResult:
    """Exactly one of key (source key or excerpt id), claim or search."""
    given = {name: value for name, value in (("key", key), ("claim", claim), ("search", search)) if value}
    if len(given) != 1:
        raise UsageError(
            "give exactly one of: key (a source key such as 'jones' or an excerpt id such as "
            "'jones/assume-a-bug'), claim (text of a claim), search (words to find in the quotes)"
        )
    if limit < 1:
        raise UsageError("limit must be at least 1")
    store = load_store()
    mode, value = next(iter(given.items()))
    query = f"{mode}={value}"
    if mode == "key":
        return QuoteResult(query=query, quotes=lookup.quotes_for_key(store, value))
    if mode == "claim":
        return QuoteResult(query=query, claims=lookup.match_claims(store, value, limit=limit))
    return QuoteResult(query=query, quotes=lookup.search_quotes(store, value, limit=limit))


def list_sources(credence: str | None = None) -> SourceList:
    """Every source, or only those of one credence (high, medium, low)."""
    if credence is not None and credence not in ("high", "medium", "low"):
        raise UsageError(f"credence {credence!r} is not one of: high, medium, low")
    store = load_store()
    return SourceList(
        sources=[
            SourceSummary(
                key=s.key, author=s.author, title=s.title, year=s.year, url=s.url, credence=s.credence,
                excerpts=len(store.excerpts_of(s.key)),
            )
            for s in sorted(store.sources.values(), key=lambda s: s.key)
            if credence is None or s.credence == credence
        ]
    )


def read_reference(document: str, section: str | None = None) -> ReferenceSection:
    """A named section of a document, or (without a section) its introduction and outline."""
    names = list(references.documents())
    doc = references.resolve_document(document)
    outline = references.outline(doc)
    if section is None or not section.strip():
        return ReferenceSection(document=doc, section=None, text=references.introduction(doc),
                                sections=outline, documents=names)
    title, text = references.read_section(doc, section)
    return ReferenceSection(document=doc, section=title, text=text, sections=outline, documents=names)


def lint(allowed: AllowedDirs, paths: list[str] | None = None, source: str | None = None,
         filename: str = "<source>", select: list[str] | None = None, ignore: list[str] | None = None) -> LintReport:
    """Lint files inside the allowed directories, or a piece of source text: exactly one of them."""
    from ..lint.config import LintSettings, load_settings
    from ..lint.engine import lint_paths, lint_source

    if bool(paths) == (source is not None):
        raise UsageError("give either paths (files or folders inside the allowed directories) or source (code text)")
    if source is not None:
        settings = LintSettings(select=tuple(select or ("MLD",)), ignore=tuple(ignore or ()))
        findings = lint_source(source, filename, settings)
        files = 1
    else:
        checked = [allowed.check(p) for p in paths]
        settings = load_settings(checked[0], select, ignore)
        result = lint_paths(checked, settings)
        findings, files = result.findings, result.files
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
    return LintReport(findings=findings, files=files, counts=counts)
