"""Small call-shape helpers shared by several rules."""

from __future__ import annotations

import ast

from ..context import ModuleContext


def log_argument(call: ast.AST, ctx: ModuleContext, functions: set[str], methods: set[str]) -> ast.expr | None:
    """The tensor a log is taken of: `torch.log(x)` (qualified names in `functions`) or `x.log()`
    (method names in `methods`, argument-free so math.log and logger.log(msg) are excluded)."""
    name = ctx.call_name(call)
    if name in functions and call.args:
        return call.args[0]
    if name is None and ctx.method_name(call) in methods and not call.args and not call.keywords:
        return call.func.value
    return None
