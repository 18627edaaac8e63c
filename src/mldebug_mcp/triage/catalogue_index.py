"""The whole cause catalogue in one read: each cause as its id, title and how it usually shows.

Triage matches words, so its shortlist can miss the cause; an agent that reads the description itself
does better when it can see every cause the tool knows. This is that list, small enough to read in one
go (its size is stated in its header), grouped by pipeline stage like refs/causes.md, where each
cause's test, fix and sources are."""

from __future__ import annotations

from .brief import one_line
from .catalogue import Catalogue

SIGNATURE_CHARS = 100  # the first symptom phrasing, cut to one line: how the cause usually shows
CHARS_PER_TOKEN = 4    # the usual rule of thumb for English text with identifiers


def catalogue_index_text(catalogue: Catalogue) -> str:
    """One line per cause, `id | title | how it shows`, under a heading per category."""
    body = []
    for key, category in catalogue.categories.items():
        causes = [c for c in catalogue.causes.values() if c.category == key]
        if not causes:
            continue
        body.append(f"\n## {category.title} ({key})")
        body += [f"{c.id} | {c.title} | {one_line(c.symptoms[0], SIGNATURE_CHARS)}" for c in causes]
    text = "\n".join(body)
    tokens = round(len(text) / CHARS_PER_TOKEN, -2)
    header = (f"# Cause catalogue: {len(catalogue.causes)} causes (about {tokens:,.0f} tokens)\n"
              "Each line: cause id | title | how it usually shows. "
              "read_reference('causes', '<title>') gives one cause's test, fix and sources.")
    return header + "\n" + text + "\n"
