"""A subclass's method that evaluates through methods it inherits from another file's class (MLD020).

`class SMI(Strategy)` in smi.py: `select()` calls `self.get_grad_embedding(self.unlabeled_dataset)`, which
strategy.py's `Strategy` defines to loop `self.model(x)` over a loader's batches without switching a mode
(project facts, `mode:strategy.Strategy.get_grad_embedding` = 'runs'). Called after training, select()
scores the pool with dropout on and BatchNorm's batch statistics; self.model.eval() belongs at its top,
as each strategy's select() is the entry point its users call.

Only public methods of a class that switches no mode and trains nothing, and that its own methods do not
call (entry points, not steps).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import ModuleContext
from .modes import direct_switch
from .modes_facts import MODE_FACT, RUNS, output_named, relative_import
from .modes_own_predict import opening_past_logs, self_calls

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def inherited_runs_without_eval(ctx: ModuleContext) -> Iterator[tuple[ast.AST, ast.ClassDef, ast.AST, str, str]]:
    """(where self.model.eval() goes, class, method, base class, inherited method) for each such method."""
    if ctx.project is None:
        return
    # the cheap test first: a call `self.<name>(...)` named for model outputs, in a class with a base
    classes = {id(cls): cls for c in ctx.by_type.get(ast.Call, ()) if type(c.func) is ast.Attribute
               and type(c.func.value) is ast.Name and c.func.value.id == "self" and output_named(c.func.attr)
               and (cls := ctx.enclosing_class(c)) is not None and cls.bases}
    for cls in classes.values():
        methods = {m.name: m for m in cls.body if isinstance(m, FUNCS)}
        # the cheap tests first: a public method calling an inherited one named for model outputs
        calls = {name: self_calls(m) for name, m in methods.items()}
        asked = {name: sorted(c for c in found if c not in methods and output_named(c))
                 for name, found in calls.items() if not name.startswith("_")}
        if not any(asked.values()):
            continue
        bases = [b for b in (_base_name(b, ctx) for b in cls.bases) if b is not None]
        if not bases or any(m in ctx.backward_scopes for m in methods.values()) or any(
                isinstance(n, ast.Call) and direct_switch(n) is not None for n in ast.walk(cls)):
            continue  # a class that trains or switches drives the modes itself
        called = {c for found in calls.values() for c in found}
        for name, method in methods.items():
            if name in called:
                continue
            for inherited in asked.get(name, ()):
                base = next((b for b in bases if ctx.project.kind_returned_by(
                    f"{MODE_FACT}{b}.{inherited}") == RUNS), None)
                if base is not None:
                    yield opening_past_logs(method), cls, method, base.rsplit(".", 1)[-1], inherited
                    break


def _base_name(base: ast.AST, ctx: ModuleContext) -> str | None:
    """'strategy.Strategy' for a base class imported from another module (`from .strategy import Strategy`)."""
    qualname = ctx.qualname(base) or relative_import(base, ctx) or ""
    parts = qualname.lstrip(".").split(".")
    return ".".join(parts[-2:]) if len(parts) >= 2 and parts[0] not in {"torch", "builtins"} else None
