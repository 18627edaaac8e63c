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


def test_renderers_name_the_evidence_they_print_and_print_each_resolved_quote():
    from mldebug_mcp.models.diagnose import DiagnosticCheck, DiagnosticReport
    from mldebug_mcp.render.diagnose import evidence_keys, report_text
    from mldebug_mcp.services.advice import check_advice

    checks = [DiagnosticCheck(id=f"c{i}", title="t", status="fail", summary="s", quotes=q)
              for i, q in enumerate([["jones/assume-a-bug", "rahtz"], [], ["jones"]])]
    report = DiagnosticReport(target="x", status="fail", checks=checks)
    assert evidence_keys(report) == ["jones/assume-a-bug", "jones"]
    text = report_text(report, quotes_for(evidence_keys(report)))
    assert "\u201c" in text and text.count("\u2014 Andy Jones") == 2 and "evidence: [" not in text

    from mldebug_mcp.render.advice import advice_text
    from mldebug_mcp.render.advice import evidence_keys as advice_keys

    advice = check_advice("Switch to SGD and lower the learning rate.")
    keys = advice_keys(advice)
    assert len(keys) == len(advice.findings) >= 2
    assert all(f"[{key}]" in advice_text(advice, quotes_for(keys)) for key in keys)
