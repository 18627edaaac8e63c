"""Sources, verbatim excerpts and quotes: what `quote` and `list_sources` return."""

from __future__ import annotations

from dataclasses import dataclass, field

from .base import Model


@dataclass(kw_only=True)
class Source(Model):
    """A primary source the evidence cites."""

    key: str
    """Short id, e.g. 'jones'."""
    author: str
    title: str
    year: str
    """Publication year or range, e.g. '2019' or '2015-'."""
    url: str
    kind: str
    """blog, paper, book, docs, slides, code, tweet, course, wiki or forum."""
    credence: str
    """high, medium or low: how much weight its advice deserves."""
    credence_reason: str
    licence: str
    verified_against: str | None = None
    """Stored copy the excerpts were checked against; null if none exists."""


@dataclass(kw_only=True)
class Excerpt(Model):
    """A verbatim excerpt of a source, as stored in evidence/excerpts/<source>.md."""

    id: str
    """Stable id '<source>/<slug>'."""
    source: str
    locator: str
    """Where in the original: section heading and paragraph."""
    checked: str
    """The stored copy the text was compared with."""
    text: str
    path: str
    """Excerpt file, relative to the content root."""
    line: int
    """Line of the excerpt's heading in its file."""


@dataclass(kw_only=True)
class Quote(Model):
    """An excerpt with its attribution and the claims it supports: what `quote` returns."""

    id: str
    source: str
    author: str
    title: str
    year: str
    url: str
    locator: str
    text: str
    claims: list[str] = field(default_factory=list)
    """Titles of the evidence-map claims it supports."""


@dataclass(kw_only=True)
class ClaimMatch(Model):
    """A claim of the evidence map with the quotes that support it."""

    title: str
    text: str
    credence: float | None = None
    credence_reason: str | None = None
    score: float
    """Match score against the query, 0 to 1."""
    quotes: list[Quote]


@dataclass(kw_only=True)
class QuoteResult(Model):
    """What the `quote` tool returns: quotes for a key or search, or claims with their quotes."""

    query: str
    """The lookup that was run, e.g. 'key=jones' or 'search=overfit'."""
    quotes: list[Quote] = field(default_factory=list)
    claims: list[ClaimMatch] = field(default_factory=list)


@dataclass(kw_only=True)
class SourceSummary(Model):
    key: str
    author: str
    title: str
    year: str
    url: str
    credence: str
    excerpts: int
    """Number of verified excerpts; 0 means cited for claims only."""


@dataclass(kw_only=True)
class SourceList(Model):
    sources: list[SourceSummary]
