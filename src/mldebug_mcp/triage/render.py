"""The cause catalogue as markdown, for refs/causes.md (a generated section, checked for staleness)."""

from __future__ import annotations

from .catalogue import Catalogue

TOOL_CALL = {
    "lint": "`mldebug-mcp lint FILE --select {ref}`",
    "diagnose": "`mldebug-mcp diagnose FILE:FUNC --checks {ref}`",
    "curve": "`mldebug-mcp curve LOG`",
}


def catalogue_markdown(catalogue: Catalogue) -> str:
    """One section per category, one entry per cause: what it is, how to test it, the fix, the sources."""
    blocks = []
    for key, category in catalogue.categories.items():
        causes = [c for c in catalogue.causes.values() if c.category == key]
        scope = " Counted only when the description is about this domain." if category.domain else ""
        blocks.append(f"## {category.title}\n\nBase rate {category.rate:.0%} of failing runs (our synthesis).{scope}")
        for cause in causes:
            call = TOOL_CALL.get(cause.test.tool, "").format(ref=cause.test.ref)
            test = cause.test.description + (f" Run: {call}." if call else "")
            lines = [
                f"### {cause.title}",
                "",
                f"`{cause.id}`, {cause.frequency} in its category, prior {catalogue.prior(cause):.3f}"
                + ("; a subtle cause" if cause.subtle else "") + ".",
                "",
                cause.summary,
                "",
                f"- **Test:** {test}",
                f"- **If it is this:** {cause.predicts.if_cause}.",
                f"- **If not:** {cause.predicts.if_not}.",
                f"- **Fix:** {cause.fix}",
                "- **Sources:** " + " ".join(f"[{e}]" for e in cause.evidence),
            ]
            blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
