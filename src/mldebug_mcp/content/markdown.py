"""Markdown facts the audit needs, read with markdown-it-py: headings, anchors, links, citations, quotes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

CITATION = re.compile(r"\[([a-z0-9][a-z0-9-]+(?:/[a-z0-9][a-z0-9-]*)?)\]")
_PARSER = MarkdownIt("commonmark").enable("table")


@dataclass(frozen=True)
class Link:
    target: str
    line: int


@dataclass(frozen=True)
class Citation:
    key: str
    line: int


@dataclass(frozen=True)
class BlockQuote:
    text: str
    line: int


def _without_frontmatter(text: str) -> str:
    """Blank out a leading YAML frontmatter block, keeping line numbers (markdown-it would read
    its closing '---' as a setext heading underline)."""
    if not text.startswith("---\n"):
        return text
    end = text.find("\n---\n", 4)
    if end < 0:
        return text
    block = text[: end + 5]
    return "\n" * block.count("\n") + text[end + 5 :]


@lru_cache(maxsize=256)
def _parse(text: str) -> tuple:
    """The tokens of a document, parsed once per text: the audit asks each file for its headings, links,
    citations and quotes, and every link with an anchor for its target's anchors. Callers only read them."""
    return tuple(_PARSER.parse(_without_frontmatter(text)))


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces to hyphens."""
    slug = heading.strip().lower()
    slug = re.sub(r"[^\w\- ]", "", slug)
    return slug.replace(" ", "-")


@lru_cache(maxsize=256)
def anchors(text: str) -> frozenset[str]:
    """Every heading anchor of a document, with GitHub's -1, -2 suffixes for repeats."""
    seen: dict[str, int] = {}
    result = set()
    tokens = _parse(text)
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            slug = github_slug(_plain(tokens[i + 1]))
            count = seen.get(slug, 0)
            result.add(slug if count == 0 else f"{slug}-{count}")
            seen[slug] = count + 1
    return frozenset(result)


def headings(text: str) -> list[tuple[int, str, int]]:
    """(level, title, line) of every heading."""
    tokens = _parse(text)
    return [
        (int(t.tag[1]), _plain(tokens[i + 1]), t.map[0] + 1 if t.map else 0)
        for i, t in enumerate(tokens)
        if t.type == "heading_open"
    ]


def links(text: str) -> list[Link]:
    found = []
    for token in _parse(text):
        if token.type != "inline" or not token.children:
            continue
        for child in token.children:
            if child.type == "link_open":
                href = str(child.attrs.get("href", ""))
                found.append(Link(href, _line_in_block(text, token, href)))
    return found


def citations(text: str) -> list[Citation]:
    """`[key]` and `[key/slug]` citations in prose (code spans and code blocks are skipped)."""
    found = []
    for token in _parse(text):
        if token.type != "inline" or not token.children:
            continue
        prose = "".join(c.content if c.type == "text" else " " for c in token.children)
        for m in CITATION.finditer(prose):
            found.append(Citation(m.group(1), _line_in_block(text, token, m.group(0))))
    return found


def blockquotes(text: str) -> list[BlockQuote]:
    """The raw text of each blockquote paragraph."""
    tokens = _parse(text)
    depth = 0
    found = []
    for token in tokens:
        if token.type == "blockquote_open":
            depth += 1
        elif token.type == "blockquote_close":
            depth -= 1
        elif token.type == "inline" and depth > 0:
            found.append(BlockQuote(" ".join(token.content.split()), token.map[0] + 1 if token.map else 0))
    return found


def _plain(inline) -> str:
    if not inline.children:
        return inline.content
    return "".join(c.content for c in inline.children if c.type in ("text", "code_inline"))


def _line_in_block(text: str, token, needle: str) -> int:
    if not token.map:
        return 0
    start, end = token.map
    lines = text.splitlines()
    for number in range(start, min(end, len(lines))):
        if needle in lines[number]:
            return number + 1
    return start + 1
