"""Named documents of the skill (skill, playbook, reference sheets) and their sections (pure reads)."""

from __future__ import annotations

import difflib
from functools import cache
from pathlib import Path

from .. import content
from ..errors import UsageError
from .markdown import github_slug, headings


def documents() -> dict[str, Path]:
    """Document name -> file: 'skill', 'playbook', then each reference sheet by its stem."""
    docs = {"skill": content.skill_dir() / "SKILL.md", "playbook": content.skill_dir() / "PLAYBOOK.md"}
    for path in sorted(content.refs_dir().glob("*.md")):
        docs[path.stem] = path
    return docs


def resolve_document(name: str) -> str:
    """The canonical document name for `name` ('SKILL.md', 'Playbook', 'rl.md' are accepted)."""
    docs = documents()
    key = name.strip().lower().removesuffix(".md")
    if key not in docs:
        close = difflib.get_close_matches(key, list(docs), n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise UsageError(f"unknown document {name!r}.{hint} Documents: {', '.join(docs)}")
    return key


def document_path(name: str) -> Path:
    return documents()[resolve_document(name)]


@cache
def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def outline(name: str) -> list[str]:
    """Titles of the document's level-2 sections, in order."""
    return [title for level, title, _ in headings(_text(document_path(name))) if level == 2]


def introduction(name: str) -> str:
    """The text before the first level-2 heading."""
    text = _text(document_path(name))
    first = next((line for level, _, line in headings(text) if level == 2), None)
    lines = text.splitlines()
    intro = "\n".join(lines[: first - 1] if first else lines)
    if intro.startswith("---\n"):  # the skill's YAML frontmatter is metadata, not prose
        intro = intro.split("\n---\n", 1)[-1]
    return intro.strip()


def read_section(name: str, section: str) -> tuple[str, str]:
    """(exact title, markdown) of a section, matched by title or anchor, case-insensitively.

    A section runs from its heading to the next heading of the same or a higher level.
    """
    text = _text(document_path(name))
    found = headings(text)
    wanted = github_slug(section.strip().lstrip("#"))
    for index, (level, title, line) in enumerate(found):
        if github_slug(title) == wanted:
            end = next((later for lvl, _, later in found[index + 1 :] if lvl <= level), None)
            lines = text.splitlines()
            return title, "\n".join(lines[line - 1 : (end - 1) if end else len(lines)]).strip()
    titles = [title for _, title, _ in found]
    close = difflib.get_close_matches(section, titles, n=3, cutoff=0.4)
    hint = f" Did you mean: {'; '.join(close)}?" if close else ""
    raise UsageError(
        f"document {name!r} has no section {section!r}.{hint} Its sections: {'; '.join(outline(name))}"
    )
