"""The rule base class: one subclass per module under rules/, registered in registry.py.

A rule declares the node types it visits; the engine calls ``check(node, ctx)`` for each
node of those types (no extra walk) and ``finish(ctx)`` once per module. Both yield
``Hit``s. The class attributes double as documentation: ``rules``/``explain`` and the
generated refs/static-analysis.md read them, and ``BAD``/``GOOD`` are tested snippets.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .config import SEVERITIES
from .context import ModuleContext

__all__ = ["SEVERITIES", "Hit", "Rule"]


class Hit:
    """What a rule found: the node, a message when it is not the rule's default one, and a severity when this
    shape of the bug is milder than the rule's (MLD001: log_softmax into a cross-entropy leaves the loss as it is)."""

    __slots__ = ("message", "node", "severity")

    def __init__(self, node: ast.AST, message: str | None = None, severity: str | None = None) -> None:
        self.node, self.message, self.severity = node, message, severity


class Rule:
    # Class attributes, set by each rule (no `typing` import: it costs start-up time on every lint run).
    code: str  # MLDnnn
    name: str  # kebab-case
    category: str  # loss, optimiser, modes, autograd, shapes, data, numerics, hygiene
    # error: silent wrong results (training runs, no exception, the numbers are wrong);
    # warning: likely a bug, or a sure one that fails loudly or costs memory rather than correctness;
    # info: hygiene that hides evidence or invites trouble later (an unlogged clip norm, torch.load).
    severity: str = "warning"
    message: str  # one line, what was found
    why: str  # one line, why it is a bug
    fix: str  # one line, what to write instead
    evidence: str  # excerpt id or source key
    node_types: tuple[type[ast.AST], ...] = ()
    # Substrings the module's source must contain for the rule to have anything to find (any of
    # them); a cheap C-speed filter that skips most rules on most files. Empty: always run.
    requires_text: tuple[str, ...] = ()
    # For ast.Call nodes: the names a call's callee must have (the attribute called, the name called, or the last
    # part of its qualified name) for check to find anything in it, or a staticmethod that tells such a name;
    # None: every call is checked.
    call_names = None
    BAD: str  # minimal code that fires
    GOOD: str  # the corrected code, which must stay quiet

    def applies(self, ctx: ModuleContext) -> bool:
        """Whether the module can hold what the rule finds, asked once per module after requires_text: a rule
        answers False only where check and finish would find nothing, so the engine skips its nodes."""
        return True

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        return iter(())

    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        return iter(())
