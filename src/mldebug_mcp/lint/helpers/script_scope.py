"""A script (research script, tutorial, notebook cell) runs its training step at module level, not inside a
`def`: the module is then the scope rules read as they read a function (issue 17)."""

import ast

from ..context import ModuleContext


def trains_at_top(ctx: ModuleContext) -> bool:
    """A `.backward()` call in the module's own code (not inside a def or lambda, at any loop depth)."""
    return ctx.memo(("trains_at_top",), lambda: any(
        isinstance(c.func, ast.Attribute) and c.func.attr == "backward" and ctx.scope_of(c) is ctx.tree
        for c in ctx.by_type.get(ast.Call, ())))


def trains(block: ast.AST, ctx: ModuleContext) -> bool:
    """The loop or function runs a backward in its body; the module does in its own top-level code."""
    return block in ctx.backward_scopes or block is ctx.tree and trains_at_top(ctx)
