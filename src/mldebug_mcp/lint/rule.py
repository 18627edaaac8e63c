"""The rule base class: one subclass per module under rules/, registered in registry.py.

A rule declares the node types it visits; the engine calls ``check(node, ctx)`` for each
node of those types (no extra walk) and ``finish(ctx)`` once per module. Both yield
``Hit``s. The class attributes double as documentation: ``rules``/``explain`` and the
generated refs/static-analysis.md read them, and ``BAD``/``GOOD`` are tested snippets.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from .context import ModuleContext

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Hit:
    node: ast.AST
    message: str | None = None  # None: the rule's default message


class Rule:
    code: ClassVar[str]  # MLDnnn
    name: ClassVar[str]  # kebab-case
    category: ClassVar[str]  # loss, optimiser, modes, autograd, shapes, data, numerics, hygiene
    severity: ClassVar[str] = "warning"
    message: ClassVar[str]  # one line, what was found
    why: ClassVar[str]  # one line, why it is a bug
    fix: ClassVar[str]  # one line, what to write instead
    evidence: ClassVar[str]  # excerpt id or source key
    node_types: ClassVar[tuple[type[ast.AST], ...]] = ()
    # Substrings the module's source must contain for the rule to have anything to find (any of
    # them); a cheap C-speed filter that skips most rules on most files. Empty: always run.
    requires_text: ClassVar[tuple[str, ...]] = ()
    BAD: ClassVar[str]  # minimal code that fires
    GOOD: ClassVar[str]  # the corrected code, which must stay quiet

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        return iter(())

    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        return iter(())
