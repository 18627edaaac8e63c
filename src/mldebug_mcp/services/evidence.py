"""The evidence: quotes by key, claim or search, the list of sources, and quotes resolved for renderers.
The bundled evidence folder is read once per process; the matching happens in citations/."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from .. import content
from ..citations import lookup
from ..citations.store import EvidenceStore, build_store
from ..errors import UsageError
from ..models.evidence import Quote, QuoteResult, SourceList, SourceSummary

CREDENCES = ("high", "medium", "low")


@cache
def load_store() -> EvidenceStore:
    """The bundled evidence, parsed once per process."""
    return build_store(content.evidence_dir())


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
    if credence is not None and credence not in CREDENCES:
        raise UsageError(f"credence {credence!r} is not one of: {', '.join(CREDENCES)}")
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


def quotes_for(keys: Iterable[str]) -> dict[str, Quote]:
    """What renderers print for each evidence key: the quote of an excerpt id; for a bare source key, its
    attribution with empty text. Unknown keys are left out (renderers then print the key alone)."""
    store = load_store()
    found: dict[str, Quote] = {}
    for key in dict.fromkeys(keys):
        if key in store.excerpts:
            found[key] = store.quote(key)
        elif key in store.sources:
            s = store.sources[key]
            found[key] = Quote(id=key, source=key, author=s.author, title=s.title, year=s.year, url=s.url,
                               locator="", text="")
    return found


def excerpts_markdown(source: str) -> str:
    """The excerpt file of one source, as stored."""
    store = load_store()
    if source not in store.sources:
        raise UsageError(f"unknown source {source!r}; list_sources gives the keys")
    path = next((e.path for e in store.excerpts_of(source)), None)
    if path is None:
        raise UsageError(f"source {source!r} has no verified excerpts; it is cited for claims only")
    return (content.content_root() / path).read_text(encoding="utf-8")
