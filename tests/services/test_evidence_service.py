"""Quotes resolved for renderers, and the renderers that print them without loading anything."""

from mldebug_mcp.models.evidence import Quote
from mldebug_mcp.render.text import evidence_lines
from mldebug_mcp.services.evidence import excerpts_markdown, quotes_for


def test_quotes_for_resolves_excerpt_ids_and_source_keys_and_leaves_out_unknown_keys():
    found = quotes_for(["jones/assume-a-bug", "jones", "no-such-key", "jones/assume-a-bug"])
    assert list(found) == ["jones/assume-a-bug", "jones"]
    assert found["jones/assume-a-bug"].text and found["jones/assume-a-bug"].author == "Andy Jones"
    assert found["jones"].text == "" and found["jones"].title == found["jones/assume-a-bug"].title


def test_evidence_lines_print_a_quote_an_attribution_or_the_key_alone():
    quote = Quote(id="a/b", source="a", author="Ann", title="T", year="2020", url="u", locator="l", text="word " * 100)
    lines = evidence_lines("a/b", quote, limit=60)
    assert lines[0].startswith("    \u201cword") and "[...]" in "".join(lines) and lines[-1].endswith("[a/b]")
    attribution_only = evidence_lines("a", Quote(id="a", source="a", author="Ann", title="T", year="2020", url="u",
                                                 locator="", text=""))
    assert attribution_only == ["      \u2014 Ann, \u201cT\u201d (2020)  [a]"]
    assert evidence_lines("x/y", None) == ["    evidence: [x/y]"]


def test_excerpts_markdown_is_the_stored_file():
    text = excerpts_markdown("jones")
    assert "## jones/assume-a-bug" in text
