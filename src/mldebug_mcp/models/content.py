"""Bundled content: a section of a document, and the problems `audit` finds."""

from __future__ import annotations

from dataclasses import dataclass

from .base import Model


@dataclass(kw_only=True)
class Problem(Model):
    """One defect found by `audit`: printed as `path:line: message`."""

    path: str
    line: int
    message: str


@dataclass(kw_only=True)
class ReferenceSection(Model):
    """One section of the skill, the playbook or a reference sheet."""

    document: str
    section: str | None
    """Section title; null when the outline was asked for."""
    text: str
    """Markdown of the section, or the document's introduction."""
    sections: list[str]
    """Titles of the document's sections, to ask for next."""
    documents: list[str]
    """Every document name read_reference accepts."""
