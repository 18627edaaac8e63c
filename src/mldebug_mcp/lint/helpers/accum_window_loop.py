"""A micro-batch loop that ends on an accumulated count: `while True: ... loss.backward(); seen += n;
if seen >= total: break`, with no step inside, and the optimiser stepped after it (after the loop, or by the
function that calls the loop's function). Each pass back-propagates one micro-batch into the same gradients,
so the step gets their sum unless each loss is divided by the number of micro-batches (MLD014).
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .loops import LOOPS, calls_in_order, is_any_backward
from .optim_steps import FUNCTIONS, call_sites
from .optim_values import optimizer_step
from .script_scope import function_or_module


def window_loop_total(loop: ast.AST, ctx: ModuleContext) -> ast.expr | None:
    """The total a window loop counts up to, when it backwards each pass and the step follows it."""
    if not isinstance(loop, LOOPS):
        return None
    total = _count_break(loop)
    if total is None:
        return None
    calls = [c for c in calls_in_order(loop.body) if ctx.enclosing(c, LOOPS + FUNCTIONS) is loop]
    if any(optimizer_step(c, ctx) for c in calls) or not any(is_any_backward(c) for c in calls):
        return None
    function = function_or_module(loop, ctx)  # a script's window loop, stepped after at top level
    if _steps_after(function, loop.end_lineno or loop.lineno, ctx):
        return total
    return total if function is not ctx.tree and _caller_steps(function, ctx, 2) else None


def _caller_steps(function: ast.AST, ctx: ModuleContext, depth: int) -> bool:
    """A caller steps after calling `function`; or, through a caller that never steps itself, its caller does
    (the window loop moved into a helper of the step method, issue 17)."""
    for site in call_sites(function, ctx):
        caller = ctx.enclosing(site, FUNCTIONS)
        if caller is None or caller is function:
            continue
        if _steps_after(caller, site.lineno, ctx):
            return True
        if depth > 1 and not _steps_after(caller, 0, ctx) and _caller_steps(caller, ctx, depth - 1):
            return True
    return False


def _count_break(loop: ast.AST) -> ast.expr | None:
    """`if seen >= total: break` in the loop's own body, `seen` increased in it (`seen += n`)."""
    grown = {ast.unparse(s.target) for s in loop.body if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add)}
    for stmt in loop.body:
        if not (isinstance(stmt, ast.If) and any(isinstance(s, ast.Break) for s in stmt.body)):
            continue
        test = stmt.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.GtE | ast.Gt | ast.Eq) \
                and ast.unparse(test.left) in grown:
            return test.comparators[0]
    return None


def _steps_after(function: ast.AST, line: int, ctx: ModuleContext) -> bool:
    return any(optimizer_step(c, ctx) and c.lineno > line and function_or_module(c, ctx) is function
               for c in calls_in_order(function.body))
