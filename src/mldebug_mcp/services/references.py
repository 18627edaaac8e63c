"""The skill, the playbook and the reference sheets, read by document and section."""

from __future__ import annotations

from pathlib import Path

from ..content import documents
from ..models.content import ReferenceSection


def read_reference(document: str, section: str | None = None) -> ReferenceSection:
    """A named section of a document, or (without a section) its introduction and outline."""
    names = list(documents.documents())
    doc = documents.resolve_document(document)
    outline = documents.outline(doc)
    if section is None or not section.strip():
        # The catalogue's outline alone is a hundred bare titles: its compact index says how each cause shows.
        text = _causes_index() if doc == "causes" else documents.introduction(doc)
        return ReferenceSection(document=doc, section=None, text=text, sections=outline, documents=names)
    title, text = documents.read_section(doc, section)
    return ReferenceSection(document=doc, section=title, text=text, sections=outline, documents=names)


def _causes_index() -> str:
    from .triage import catalogue_index

    return catalogue_index()


def document_files() -> dict[str, Path]:
    """Document name -> bundled file: 'skill', 'playbook', then each reference sheet."""
    return documents.documents()


def document_text(name: str) -> str:
    return documents.document_path(name).read_text(encoding="utf-8")
