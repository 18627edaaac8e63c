"""A script (research script, tutorial, notebook cell) runs its training step at module level, not inside a
`def`: the module is then the scope rules read as they read a function (issue 17)."""

import ast

from ..context import ModuleContext

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def trains_at_top(ctx: ModuleContext) -> bool:
    """A `.backward()` call in the module's own code (not inside a def or lambda, at any loop depth)."""
    return ctx.memo(("trains_at_top",), lambda: any(
        isinstance(c.func, ast.Attribute) and c.func.attr == "backward" and ctx.scope_of(c) is ctx.tree
        for c in ctx.by_type.get(ast.Call, ())))


def function_or_module(node: ast.AST, ctx: ModuleContext) -> ast.AST:
    """The def whose body runs `node` (a lambda is not one), or the module for a script's top-level code."""
    return ctx.enclosing(node, FUNCTIONS) or ctx.tree


def trains(block: ast.AST, ctx: ModuleContext) -> bool:
    """The loop or function runs a backward in its body; the module does in its own top-level code."""
    return block in ctx.backward_scopes or block is ctx.tree and trains_at_top(ctx)
