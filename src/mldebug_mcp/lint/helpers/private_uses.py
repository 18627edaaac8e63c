"""Whether any file of the run uses a private method (MLD020 leaves one nobody calls).

`FAcodecTrainer._inference(self, eval_wave)` runs `self.model.encoder(...)` without eval(), but no file of the
repository calls `_inference` (its base CodecTrainer defines its own and calls neither): a method that never runs
is no evaluation in training mode. Each file tells `~uses:<name>` -> 'yes' for every private name it reads as an
attribute (`self._inference(x)`, `trainer._inference`, `super()._inference`) or writes in a string
(`getattr(self, "_inference")`); the method's file asks. Private names only: a public method is an API, called
from outside the run. The rule drops only the findings inside such a method: one placed where its class loads
trained weights to predict (a deployment wrapper's `__init__`) stands on that loading.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext

USES = "~uses:"  # no lazy family takes a key starting with '~' for one of its names
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def used_private_names(ctx: ModuleContext) -> frozenset[str]:
    """The private names (`_x`, not dunders) this file reads as attributes or writes as strings."""
    def compute() -> frozenset[str]:
        if not ctx.has_text("._") and not ctx.has_text("\"_") and not ctx.has_text("'_"):
            return frozenset()
        names = {n.attr for n in ctx.by_type.get(ast.Attribute, ()) if n.attr[:1] == "_"}
        names |= {v for n in ctx.by_type.get(ast.Constant, ()) if type(v := n.value) is str and v[:1] == "_"
                  and len(v) < 100 and v.isidentifier()}
        return frozenset(n for n in names if _private(n))
    return ctx.memo(("private-uses",), compute)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def use_keys(ctx: ModuleContext) -> frozenset[str]:
    """The keys use_facts tells (the family's tokens: as cheap as the facts themselves)."""
    return frozenset(USES + name for name in used_private_names(ctx))


def use_facts(ctx: ModuleContext) -> dict[str, str]:
    return dict.fromkeys(use_keys(ctx), "yes")


def uncalled_private_method(scope: ast.AST, ctx: ModuleContext) -> bool:
    """`scope` is a private method of a class (or a function nested in one) that no file of the run names: not
    this file (`self._inference(x)`, a string), nor another (as far as the run's files tell)."""
    for node in [scope, *ctx.ancestors(scope)]:
        if isinstance(node, FUNCS) and _private(node.name) and isinstance(ctx.parent(node), ast.ClassDef):
            if node.name in used_private_names(ctx):
                return False
            return ctx.project is not None and ctx.project.kind_returned_by(USES + node.name) is None
    return False
