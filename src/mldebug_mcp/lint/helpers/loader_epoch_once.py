"""A sampler's set_epoch called once, before the run that iterates its loader for many epochs.

`loader.sampler.set_epoch(trainer.state.epoch - 1)` and then `trainer.run(loader, max_epochs=n)` (or a
`for epoch in range(n):` loop over the loader): set_epoch runs before the first epoch only, so every epoch
replays one shuffle. Its place is an epoch-start handler or the top of the epoch loop. Quiet when the file
calls set_epoch on that loader or sampler anywhere else, when the call sits in a loop, or when no later run of that loader follows
in the same function (a handler or helper that is itself called per epoch).
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .loops import LOOPS

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
EPOCH_KEYWORDS = {"max_epochs", "epochs", "num_epochs", "n_epochs", "max_epoch", "epoch"}


def set_epoch_once(ctx: ModuleContext) -> list[ast.Call]:
    """Each set_epoch call that runs once before a many-epoch run of its loader, the only one on that loader."""
    if not ctx.has_text("set_epoch"):
        return []
    calls = [c for c in ctx.by_type.get(ast.Call, ()) if isinstance(c.func, ast.Attribute) and c.func.attr == "set_epoch"]
    roots = [_root(c.func.value) for c in calls]
    return [c for c, root in zip(calls, roots) if root is not None and roots.count(root) == 1 and _before_run(c, root, ctx)]


def _before_run(call: ast.Call, loader: str, ctx: ModuleContext) -> bool:
    scope = ctx.enclosing(call, FUNCTIONS)
    if ctx.enclosing(call, (*LOOPS, *FUNCTIONS)) is not scope:
        return False  # in a loop: per pass
    for node in ast.walk(scope if scope is not None else ctx.tree):
        if getattr(node, "lineno", 0) <= (call.end_lineno or call.lineno) or ctx.enclosing(node, FUNCTIONS) is not scope:
            continue
        if isinstance(node, ast.Call) and _runs_epochs(node, loader):
            return True
        if isinstance(node, LOOPS) and ctx.enclosing(node, LOOPS) is None and _epoch_loop_over(node, loader):
            return True
    return False


def _root(expr: ast.expr) -> str | None:
    """`loader` of `loader.sampler`, `self.loader` of `self.loader.sampler`; the sampler's own name."""
    if isinstance(expr, ast.Attribute) and expr.attr in {"sampler", "batch_sampler"}:
        expr = expr.value
    return ast.unparse(expr) if isinstance(expr, ast.Name | ast.Attribute) else None


def _runs_epochs(call: ast.Call, loader: str) -> bool:
    """`trainer.run(loader, max_epochs=n)`, `fit(model, loader, epochs=n)`: several epochs of the loader."""
    if not any(k.arg in EPOCH_KEYWORDS for k in call.keywords):
        return False
    given = [*call.args, *(k.value for k in call.keywords)]
    return any(ast.unparse(a) == loader for a in given) or _is_sampler_name(loader) and bool(call.args)


def _is_sampler_name(text: str) -> bool:
    return "sampler" in text.lower()


def _epoch_loop_over(loop: ast.AST, loader: str) -> bool:
    """A loop whose body iterates the loader again (or, for a sampler, any loop nested in it)."""
    for inner in ast.walk(loop):
        if inner is not loop and isinstance(inner, ast.For | ast.AsyncFor):
            text = ast.unparse(inner.iter)
            if loader in text or _is_sampler_name(loader):
                return True
    return False
