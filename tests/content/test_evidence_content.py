"""The shipped evidence meets the project's bar: enough sources and excerpts, each well formed."""

import re

import pytest

from mldebug_mcp.services.evidence import load_store

store = load_store()


def test_enough_sources_and_excerpts():
    assert len(store.sources) >= 30
    assert len(store.excerpts) >= 60


@pytest.mark.parametrize("excerpt", list(store.excerpts.values()), ids=lambda e: e.id)
def test_excerpt_is_one_attributed_paragraph_with_marked_cuts(excerpt):
    assert excerpt.source in store.sources
    assert store.sources[excerpt.source].verified_against
    assert excerpt.checked and excerpt.locator
    assert not re.search(r"\bL\d+(-\d+)?\b", excerpt.locator), "locators name sections, not cache line numbers"
    assert "..." not in excerpt.text.replace("[...]", ""), "cuts must be marked [...]"
    assert len(excerpt.text) <= 1500, "a paragraph at most"
    assert "**" not in excerpt.text and "](" not in excerpt.text, "rendered text, not markdown"


@pytest.mark.parametrize("source", list(store.sources.values()), ids=lambda s: s.key)
def test_source_fields(source):
    assert source.url.startswith(("https://", "http://"))
    assert source.credence in {"high", "medium", "low"}
    assert source.kind in {"blog", "paper", "book", "docs", "slides", "code", "tweet", "course", "wiki", "forum"}
    assert len(source.credence_reason) > 20 and source.licence
