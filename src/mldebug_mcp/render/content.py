"""Bundled content as text: audit problems and a section of a document."""

from __future__ import annotations

from ..models.content import Problem, ReferenceSection


def problems_text(problems: list[Problem]) -> str:
    return "\n".join(f"{p.path}:{p.line}: {p.message}" for p in problems)


def reference_text(result: ReferenceSection) -> str:
    outline = "\n".join(f"- {title}" for title in result.sections)
    where = f"{result.document} \u203a {result.section}" if result.section else f"{result.document} (introduction)"
    return f"[{where}]\n\n{result.text}\n\nSections of {result.document}:\n{outline}"
